#include "engine/kernels/sigmoid.h"

namespace edgemond::engine {

void SigmoidKernel::Apply(const float* x, float* y, std::int64_t count) const {
  // The same function a fused Sigmoid applies (engine/activation.h).
  for (std::int64_t i = 0; i < count; ++i) y[i] = SigmoidValue(x[i]);
}

}  // namespace edgemond::engine
