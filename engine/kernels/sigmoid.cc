#include "engine/kernels/sigmoid.h"

#include <cmath>

namespace edgemond::engine {

void SigmoidKernel::Apply(const float* x, float* y, std::int64_t count) const {
  for (std::int64_t i = 0; i < count; ++i) {
    // Both branches evaluate exp of a non-positive number, so neither overflows.
    if (x[i] >= 0.0f) {
      y[i] = 1.0f / (1.0f + std::exp(-x[i]));
    } else {
      const float e = std::exp(x[i]);
      y[i] = e / (1.0f + e);
    }
  }
}

}  // namespace edgemond::engine
