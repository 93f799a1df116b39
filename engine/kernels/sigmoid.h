// Sigmoid (ai.onnx 6-28): y = 1 / (1 + exp(-x)). float32.

#ifndef EDGEMOND_ENGINE_KERNELS_SIGMOID_H_
#define EDGEMOND_ENGINE_KERNELS_SIGMOID_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class SigmoidKernel : public UnaryFloatKernel {
 protected:
  void Apply(const float* x, float* y, std::int64_t count) const override;
  std::uint64_t FlopsPerElement() const override { return 4; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_SIGMOID_H_
