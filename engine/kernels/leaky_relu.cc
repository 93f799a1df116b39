#include "engine/kernels/leaky_relu.h"

namespace edgemond::engine {

Status LeakyReluKernel::PrepareAttributes(AttributeReader& attributes) {
  EDGEMOND_ASSIGN_OR_RETURN(alpha_, attributes.GetFloat("alpha", 0.01f));
  return Status::Ok();
}

void LeakyReluKernel::Apply(const float* x, float* y, std::int64_t count) const {
  // The same function a fused LeakyRelu applies (engine/activation.h).
  for (std::int64_t i = 0; i < count; ++i) y[i] = LeakyReluValue(x[i], alpha_);
}

}  // namespace edgemond::engine
