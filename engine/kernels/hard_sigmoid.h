// HardSigmoid (ai.onnx 6-28): y = max(0, min(1, alpha * x + beta)); alpha 0.2, beta 0.5 by
// default (PyTorch exports alpha = 1/6). float32.

#ifndef EDGEMOND_ENGINE_KERNELS_HARD_SIGMOID_H_
#define EDGEMOND_ENGINE_KERNELS_HARD_SIGMOID_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class HardSigmoidKernel : public UnaryFloatKernel {
 protected:
  Status PrepareAttributes(AttributeReader& attributes) override;
  void Apply(const float* x, float* y, std::int64_t count) const override;
  std::uint64_t FlopsPerElement() const override { return 4; }

  float alpha_ = 0.2f;
  float beta_ = 0.5f;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_HARD_SIGMOID_H_
