// Concat (ai.onnx 4-28): joins its inputs along `axis` (negative from opset 11). All inputs
// have the same type and rank and equal dimensions off the axis. Any tensor type.

#ifndef EDGEMOND_ENGINE_KERNELS_CONCAT_H_
#define EDGEMOND_ENGINE_KERNELS_CONCAT_H_

#include <cstdint>

#include "engine/kernel.h"

namespace edgemond::engine {

class ConcatKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  int axis_ = 0;
  std::int64_t outer_ = 1;  // Product of the dimensions before the axis.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_CONCAT_H_
