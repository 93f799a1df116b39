#include "engine/kernels/exp.h"

#include <cmath>

namespace edgemond::engine {

void ExpKernel::Apply(const float* x, float* y, std::int64_t count) const {
  for (std::int64_t i = 0; i < count; ++i) y[i] = std::exp(x[i]);
}

}  // namespace edgemond::engine
