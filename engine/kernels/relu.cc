#include "engine/kernels/relu.h"

namespace edgemond::engine {

void ReluKernel::Apply(const float* x, float* y, std::int64_t count) const {
  // The same function a fused Relu applies (engine/activation.h), so fusing changes nothing.
  for (std::int64_t i = 0; i < count; ++i) y[i] = ReluValue(x[i]);
}

}  // namespace edgemond::engine
