#include "engine/kernels/hard_swish.h"

#include <algorithm>

namespace edgemond::engine {

void HardSwishKernel::Apply(const float* x, float* y, std::int64_t count) const {
  constexpr float kAlpha = 1.0f / 6.0f;
  for (std::int64_t i = 0; i < count; ++i) {
    y[i] = x[i] * std::max(0.0f, std::min(1.0f, kAlpha * x[i] + 0.5f));
  }
}

}  // namespace edgemond::engine
