// LayerNormalization (ai.onnx 17-28): each row of X over the dimensions from `axis` (default
// -1) on is normalized, y = (x - mean) / sqrt(var + epsilon) * scale + B, with Scale and the
// optional B broadcast to those dimensions. The optional Mean and InvStdDev outputs have X's
// shape with the normalized dimensions set to 1. Statistics are computed in double; float32
// (stash_type 1, the default, or 11).

#ifndef EDGEMOND_ENGINE_KERNELS_LAYER_NORMALIZATION_H_
#define EDGEMOND_ENGINE_KERNELS_LAYER_NORMALIZATION_H_

#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class LayerNormalizationKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  std::int64_t rows_ = 0;
  std::int64_t row_size_ = 0;
  float epsilon_ = 1e-5f;
  Shape normalized_;  // X's dimensions from axis on.
  // Scale and B in the normalized index space; empty when they have the normalized shape.
  std::vector<std::int64_t> scale_strides_;
  std::vector<std::int64_t> bias_strides_;
  bool has_bias_ = false;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_LAYER_NORMALIZATION_H_
