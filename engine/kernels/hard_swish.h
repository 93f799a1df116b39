// HardSwish (ai.onnx 14-28): y = x * max(0, min(1, x / 6 + 0.5)). float32.

#ifndef EDGEMOND_ENGINE_KERNELS_HARD_SWISH_H_
#define EDGEMOND_ENGINE_KERNELS_HARD_SWISH_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class HardSwishKernel : public UnaryFloatKernel {
 protected:
  void Apply(const float* x, float* y, std::int64_t count) const override;
  std::uint64_t FlopsPerElement() const override { return 5; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_HARD_SWISH_H_
