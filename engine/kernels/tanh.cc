#include "engine/kernels/tanh.h"

#include <cmath>

namespace edgemond::engine {

void TanhKernel::Apply(const float* x, float* y, std::int64_t count) const {
  for (std::int64_t i = 0; i < count; ++i) y[i] = std::tanh(x[i]);
}

}  // namespace edgemond::engine
