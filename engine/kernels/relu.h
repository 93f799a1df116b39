// Relu (ai.onnx 6-28): y = max(0, x). float32.

#ifndef EDGEMOND_ENGINE_KERNELS_RELU_H_
#define EDGEMOND_ENGINE_KERNELS_RELU_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class ReluKernel : public UnaryFloatKernel {
 protected:
  void Apply(const float* x, float* y, std::int64_t count) const override;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_RELU_H_
