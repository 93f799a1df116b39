// Erf (ai.onnx 9-28): the Gauss error function, y = erf(x) (GELU's building block in
// exports before opset 20). float32.

#ifndef EDGEMOND_ENGINE_KERNELS_ERF_H_
#define EDGEMOND_ENGINE_KERNELS_ERF_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class ErfKernel : public UnaryFloatKernel {
 protected:
  void Apply(const float* x, float* y, std::int64_t count) const override;
  std::uint64_t FlopsPerElement() const override { return 8; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_ERF_H_
