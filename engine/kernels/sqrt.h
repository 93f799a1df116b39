// Sqrt (ai.onnx 6-28): y = sqrt(x); negative inputs give NaN. float32.

#ifndef EDGEMOND_ENGINE_KERNELS_SQRT_H_
#define EDGEMOND_ENGINE_KERNELS_SQRT_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class SqrtKernel : public UnaryFloatKernel {
 protected:
  void Apply(const float* x, float* y, std::int64_t count) const override;
  std::uint64_t FlopsPerElement() const override { return 1; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_SQRT_H_
