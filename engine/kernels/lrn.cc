#include "engine/kernels/lrn.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status LrnKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 3, kMaxRank));
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(alpha_, attributes.GetFloat("alpha", 1e-4f));
  EDGEMOND_ASSIGN_OR_RETURN(beta_, attributes.GetFloat("beta", 0.75f));
  EDGEMOND_ASSIGN_OR_RETURN(bias_, attributes.GetFloat("bias", 1.0f));
  EDGEMOND_ASSIGN_OR_RETURN(size_, attributes.GetRequiredInt("size"));
  const Shape& x = context.input(0).shape;
  if (size_ < 1 || size_ > x.dim(1) * 2 + 1) {
    return Status::InvalidArgument("size " + std::to_string(size_) + " is out of range for " +
                                   std::to_string(x.dim(1)) + " channels");
  }
  batch_ = x.dim(0);
  channels_ = x.dim(1);
  plane_ = DimProduct(x.dims(), 2, x.rank());
  before_ = (size_ - 1) / 2;
  after_ = size_ - 1 - before_;
  context.SetFlops(static_cast<std::uint64_t>(x.num_elements()) *
                   static_cast<std::uint64_t>(2 * size_ + 4));
  return context.SetOutput(0, DataType::kFloat32, x);
}

Status LrnKernel::Run(const RunContext& context) const {
  const float* x = context.input(0).data<float>();
  float* y = context.output(0).data<float>();
  const double scale = static_cast<double>(alpha_) / static_cast<double>(size_);
  for (std::int64_t n = 0; n < batch_; ++n) {
    const float* xn = x + n * channels_ * plane_;
    float* yn = y + n * channels_ * plane_;
    for (std::int64_t c = 0; c < channels_; ++c) {
      const std::int64_t first = std::max<std::int64_t>(0, c - before_);
      const std::int64_t last = std::min<std::int64_t>(channels_ - 1, c + after_);
      for (std::int64_t i = 0; i < plane_; ++i) {
        double sum = 0.0;
        for (std::int64_t k = first; k <= last; ++k) {
          const double v = xn[k * plane_ + i];
          sum += v * v;
        }
        const double denominator =
            std::pow(static_cast<double>(bias_) + scale * sum, static_cast<double>(beta_));
        yn[c * plane_ + i] = static_cast<float>(xn[c * plane_ + i] / denominator);
      }
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
