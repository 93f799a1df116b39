// Log (ai.onnx 6-28): y = ln(x); 0 gives -inf, negative inputs NaN. float32.

#ifndef EDGEMOND_ENGINE_KERNELS_LOG_H_
#define EDGEMOND_ENGINE_KERNELS_LOG_H_

#include "engine/kernels/unary.h"

namespace edgemond::engine {

class LogKernel : public UnaryFloatKernel {
 protected:
  void Apply(const float* x, float* y, std::int64_t count) const override;
  std::uint64_t FlopsPerElement() const override { return 4; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_LOG_H_
