#include "engine/kernels/hard_swish.h"

namespace edgemond::engine {

void HardSwishKernel::Apply(const float* x, float* y, std::int64_t count) const {
  // The same function a fused HardSwish applies (engine/activation.h).
  for (std::int64_t i = 0; i < count; ++i) y[i] = HardSwishValue(x[i]);
}

}  // namespace edgemond::engine
