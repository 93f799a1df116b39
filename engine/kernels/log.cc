#include "engine/kernels/log.h"

#include <cmath>

namespace edgemond::engine {

void LogKernel::Apply(const float* x, float* y, std::int64_t count) const {
  for (std::int64_t i = 0; i < count; ++i) y[i] = std::log(x[i]);
}

}  // namespace edgemond::engine
