// Gelu (ai.onnx 20-28): y = 0.5 * x * (1 + erf(x / sqrt(2))), or with approximate = "tanh"
// y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))). Computed in double, rounded
// once. float32. Exports before opset 20 spell it out with Erf (ConvNeXt's MLP blocks).

#ifndef EDGEMOND_ENGINE_KERNELS_GELU_H_
#define EDGEMOND_ENGINE_KERNELS_GELU_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class GeluKernel : public UnaryFloatKernel {
 protected:
  Status PrepareAttributes(AttributeReader& attributes) override;
  void Apply(const float* x, float* y, std::int64_t count) const override;
  std::uint64_t FlopsPerElement() const override { return 12; }

  bool tanh_ = false;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_GELU_H_
