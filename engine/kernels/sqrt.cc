#include "engine/kernels/sqrt.h"

#include <cmath>

namespace edgemond::engine {

void SqrtKernel::Apply(const float* x, float* y, std::int64_t count) const {
  for (std::int64_t i = 0; i < count; ++i) y[i] = std::sqrt(x[i]);
}

}  // namespace edgemond::engine
