// Exp (ai.onnx 6-28): y = e^x. float32.

#ifndef EDGEMOND_ENGINE_KERNELS_EXP_H_
#define EDGEMOND_ENGINE_KERNELS_EXP_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class ExpKernel : public UnaryFloatKernel {
 protected:
  void Apply(const float* x, float* y, std::int64_t count) const override;
  std::uint64_t FlopsPerElement() const override { return 4; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_EXP_H_
