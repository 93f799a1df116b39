#include "engine/kernels/batch_normalization.h"

#include <cmath>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status BatchNormalizationKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(5, 5));
  for (int i = 0; i < 5; ++i) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(i, {DataType::kFloat32}));
  }
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(epsilon_, attributes.GetFloat("epsilon", 1e-5f));
  if (context.opset() < 9) {
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t spatial, attributes.GetInt("spatial", 1));
    if (spatial != 1) return Status::Unsupported("spatial = 0 is not supported");
  }
  training_ = false;
  if (context.opset() >= 14) {
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t training, attributes.GetInt("training_mode", 0));
    training_ = training != 0;
  }
  if (training_) {
    EDGEMOND_ASSIGN_OR_RETURN(momentum_, attributes.GetFloat("momentum", 0.9f));
  } else {
    attributes.Ignore("momentum");  // Has no effect in inference.
    for (int i = 1; i < context.num_outputs(); ++i) {
      if (context.has_output(i)) {
        return Status::Unsupported(
            "output " + std::to_string(i) +
            " exists only in training mode, which is not supported" +
            (context.opset() >= 14 ? " without training_mode = 1" : " before opset 14"));
      }
    }
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
  context.SetFlops((training_ ? 6 : 2) * static_cast<std::uint64_t>(x.num_elements()));
  EDGEMOND_RETURN_IF_ERROR(context.SetOutput(0, DataType::kFloat32, x));
  if (training_) {
    for (int i = 1; i < 3; ++i) {
      EDGEMOND_RETURN_IF_ERROR(context.SetOutput(i, DataType::kFloat32, Shape({channels_})));
    }
  }
  return Status::Ok();
}

Status BatchNormalizationKernel::Run(const RunContext& context) const {
  if (training_) return RunTraining(context);
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

Status BatchNormalizationKernel::RunTraining(const RunContext& context) const {
  const float* x = context.input(0).data<float>();
  const float* scale = context.input(1).data<float>();
  const float* bias = context.input(2).data<float>();
  const float* input_mean = context.input(3).data<float>();
  const float* input_var = context.input(4).data<float>();
  float* y = context.output(0).data<float>();
  float* running_mean = context.has_output(1) ? context.output(1).data<float>() : nullptr;
  float* running_var = context.has_output(2) ? context.output(2).data<float>() : nullptr;
  const auto count = static_cast<double>(batch_ * plane_);
  for (std::int64_t c = 0; c < channels_; ++c) {
    double sum = 0.0;
    for (std::int64_t n = 0; n < batch_; ++n) {
      const float* xp = x + (n * channels_ + c) * plane_;
      for (std::int64_t i = 0; i < plane_; ++i) sum += xp[i];
    }
    const double mean = count > 0 ? sum / count : 0.0;
    double squares = 0.0;
    for (std::int64_t n = 0; n < batch_; ++n) {
      const float* xp = x + (n * channels_ + c) * plane_;
      for (std::int64_t i = 0; i < plane_; ++i) squares += (xp[i] - mean) * (xp[i] - mean);
    }
    const double var = count > 0 ? squares / count : 0.0;
    const double inv_std = 1.0 / std::sqrt(var + static_cast<double>(epsilon_));
    for (std::int64_t n = 0; n < batch_; ++n) {
      const float* xp = x + (n * channels_ + c) * plane_;
      float* yp = y + (n * channels_ + c) * plane_;
      for (std::int64_t i = 0; i < plane_; ++i) {
        yp[i] = static_cast<float>(scale[c] * (xp[i] - mean) * inv_std + bias[c]);
      }
    }
    const double momentum = momentum_;
    if (running_mean != nullptr) {
      running_mean[c] = static_cast<float>(input_mean[c] * momentum + mean * (1.0 - momentum));
    }
    if (running_var != nullptr) {
      running_var[c] = static_cast<float>(input_var[c] * momentum + var * (1.0 - momentum));
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
