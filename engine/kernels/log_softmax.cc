#include "engine/kernels/log_softmax.h"

#include <cmath>
#include <limits>

namespace edgemond::engine {

Status LogSoftmaxKernel::Run(const RunContext& context) const {
  const float* x = context.input(0).data<float>();
  float* y = context.output(0).data<float>();
  for (std::int64_t o = 0; o < outer_; ++o) {
    for (std::int64_t i = 0; i < inner_; ++i) {
      const float* xl = x + o * axis_ * inner_ + i;
      float* yl = y + o * axis_ * inner_ + i;
      float max = -std::numeric_limits<float>::infinity();
      for (std::int64_t a = 0; a < axis_; ++a) max = std::fmax(max, xl[a * inner_]);
      double sum = 0.0;
      for (std::int64_t a = 0; a < axis_; ++a) sum += std::exp(xl[a * inner_] - max);
      const auto log_sum = static_cast<float>(std::log(sum));
      for (std::int64_t a = 0; a < axis_; ++a) yl[a * inner_] = xl[a * inner_] - max - log_sum;
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
