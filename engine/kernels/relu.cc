#include "engine/kernels/relu.h"

namespace edgemond::engine {

void ReluKernel::Apply(const float* x, float* y, std::int64_t count) const {
  // x > 0 ? x : 0 keeps NaN as NaN, as std::max(0, NaN) would not.
  for (std::int64_t i = 0; i < count; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

}  // namespace edgemond::engine
