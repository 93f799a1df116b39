#include "engine/kernels/global_max_pool.h"

#include <limits>

namespace edgemond::engine {

Status GlobalMaxPoolKernel::Run(const RunContext& context) const {
  const float* x = context.input(0).data<float>();
  float* y = context.output(0).data<float>();
  for (std::int64_t p = 0; p < planes_; ++p) {
    const float* xp = x + p * plane_size_;
    float best = -std::numeric_limits<float>::infinity();
    for (std::int64_t i = 0; i < plane_size_; ++i) {
      if (xp[i] > best || xp[i] != xp[i]) best = xp[i];
      if (best != best) break;
    }
    y[p] = best;
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
