#include "engine/kernels/erf.h"

#include <cmath>

namespace edgemond::engine {

void ErfKernel::Apply(const float* x, float* y, std::int64_t count) const {
  for (std::int64_t i = 0; i < count; ++i) y[i] = std::erf(x[i]);
}

}  // namespace edgemond::engine
