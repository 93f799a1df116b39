// Tanh (ai.onnx 6-28): y = tanh(x). float32.

#ifndef EDGEMOND_ENGINE_KERNELS_TANH_H_
#define EDGEMOND_ENGINE_KERNELS_TANH_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class TanhKernel : public UnaryFloatKernel {
 protected:
  void Apply(const float* x, float* y, std::int64_t count) const override;
  std::uint64_t FlopsPerElement() const override { return 5; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_TANH_H_
