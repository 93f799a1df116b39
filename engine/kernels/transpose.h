// Transpose (ai.onnx 1-28): permutes dimensions by `perm` (default: reversed). Any tensor
// type.

#ifndef EDGEMOND_ENGINE_KERNELS_TRANSPOSE_H_
#define EDGEMOND_ENGINE_KERNELS_TRANSPOSE_H_

#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class TransposeKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  std::vector<std::int64_t> out_dims_;
  std::vector<std::int64_t> in_strides_;  // Input stride of each output dimension.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_TRANSPOSE_H_
