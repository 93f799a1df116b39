// LeakyRelu (ai.onnx 6-28): y = x >= 0 ? x : alpha * x, alpha 0.01 by default. float32. The
// fusion pass can move it into the producing Conv/Gemm/MatMul/Add (engine/activation.h).

#ifndef EDGEMOND_ENGINE_KERNELS_LEAKY_RELU_H_
#define EDGEMOND_ENGINE_KERNELS_LEAKY_RELU_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class LeakyReluKernel : public UnaryFloatKernel {
 protected:
  Status PrepareAttributes(AttributeReader& attributes) override;
  void Apply(const float* x, float* y, std::int64_t count) const override;

  float alpha_ = 0.01f;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_LEAKY_RELU_H_
