// BatchNormalization (ai.onnx 7-28) in inference mode:
//   y = scale * (x - mean) / sqrt(var + epsilon) + bias, per channel (dimension 1).
// Opset 7-8 `spatial` must be 1; training_mode (14+) must be 0 and the training-only outputs
// absent. momentum has no effect in inference. float32.

#ifndef EDGEMOND_ENGINE_KERNELS_BATCH_NORMALIZATION_H_
#define EDGEMOND_ENGINE_KERNELS_BATCH_NORMALIZATION_H_

#include <cstdint>

#include "engine/kernel.h"

namespace edgemond::engine {

class BatchNormalizationKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  float epsilon_ = 1e-5f;
  std::int64_t batch_ = 0;
  std::int64_t channels_ = 0;
  std::int64_t plane_ = 0;  // Elements per channel per batch item.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_BATCH_NORMALIZATION_H_
