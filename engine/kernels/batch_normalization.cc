#include "engine/kernels/batch_normalization.h"

#include <cmath>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status BatchNormalizationKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(5, 5));
  for (int i = 0; i < 5; ++i) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(i, {DataType::kFloat32}));
  }
  for (int i = 1; i < context.num_outputs(); ++i) {
    if (context.has_output(i)) {
      return Status::Unsupported("output " + std::to_string(i) +
                                 " exists only in training mode, which is not supported");
    }
  }
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(epsilon_, attributes.GetFloat("epsilon", 1e-5f));
  attributes.Ignore("momentum");
  if (context.opset() < 9) {
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t spatial, attributes.GetInt("spatial", 1));
    if (spatial != 1) return Status::Unsupported("spatial = 0 is not supported");
  }
  if (context.opset() >= 14) {
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t training, attributes.GetInt("training_mode", 0));
    if (training != 0) return Status::Unsupported("training mode is not supported");
  }
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 2, kMaxRank));
  const Shape& x = context.input(0).shape;
  batch_ = x.dim(0);
  channels_ = x.dim(1);
  plane_ = DimProduct(x.dims(), 2, x.rank());
  for (int i = 1; i < 5; ++i) {
    const Shape& p = context.input(i).shape;
    if (p.rank() != 1 || p.dim(0) != channels_) {
      return Status::InvalidArgument("input " + std::to_string(i) + " has shape " + p.ToString() +
                                     "; expected " + std::to_string(channels_));
    }
  }
  context.SetFlops(2 * static_cast<std::uint64_t>(x.num_elements()));
  return context.SetOutput(0, DataType::kFloat32, x);
}

Status BatchNormalizationKernel::Run(const RunContext& context) const {
  const float* x = context.input(0).data<float>();
  const float* scale = context.input(1).data<float>();
  const float* bias = context.input(2).data<float>();
  const float* mean = context.input(3).data<float>();
  const float* var = context.input(4).data<float>();
  float* y = context.output(0).data<float>();
  for (std::int64_t n = 0; n < batch_; ++n) {
    for (std::int64_t c = 0; c < channels_; ++c) {
      const float inv_std = 1.0f / std::sqrt(var[c] + epsilon_);
      const float* xp = x + (n * channels_ + c) * plane_;
      float* yp = y + (n * channels_ + c) * plane_;
      for (std::int64_t i = 0; i < plane_; ++i) {
        yp[i] = scale[c] * (xp[i] - mean[c]) * inv_std + bias[c];
      }
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
