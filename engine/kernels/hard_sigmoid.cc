#include "engine/kernels/hard_sigmoid.h"

namespace edgemond::engine {

Status HardSigmoidKernel::PrepareAttributes(AttributeReader& attributes) {
  EDGEMOND_ASSIGN_OR_RETURN(alpha_, attributes.GetFloat("alpha", 0.2f));
  EDGEMOND_ASSIGN_OR_RETURN(beta_, attributes.GetFloat("beta", 0.5f));
  return Status::Ok();
}

void HardSigmoidKernel::Apply(const float* x, float* y, std::int64_t count) const {
  // The same function a fused HardSigmoid applies (engine/activation.h); NaN stays NaN.
  for (std::int64_t i = 0; i < count; ++i) y[i] = HardSigmoidValue(x[i], alpha_, beta_);
}

}  // namespace edgemond::engine
