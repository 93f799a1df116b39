#include "engine/kernels/layer_normalization.h"

#include <cmath>

#include "engine/kernels/broadcast.h"
#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {
namespace {

// Whether `param` broadcasts to `normalized` without growing it.
bool BroadcastsTo(const Shape& param, const Shape& normalized) {
  const Result<Shape> out = BroadcastShape(param, normalized);
  return out.ok() && *out == normalized;
}

// Element offset, in a parameter with `strides` in the normalized index space, of the
// normalized element `i` (row-major over `normalized`). Empty strides: the parameter has the
// normalized shape itself.
std::int64_t ParamOffset(std::int64_t i, const Shape& normalized,
                         const std::vector<std::int64_t>& strides) {
  if (strides.empty()) return i;
  std::int64_t offset = 0;
  for (int d = normalized.rank() - 1; d >= 0; --d) {
    const std::int64_t n = normalized.dim(d);
    offset += (i % n) * strides[static_cast<std::size_t>(d)];
    i /= n;
  }
  return offset;
}

}  // namespace

Status LayerNormalizationKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 3));
  for (int i = 0; i < 3; ++i) {
    if (i < 2 || context.has_input(i)) {
      EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(i, {DataType::kFloat32}));
    }
  }
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t axis_attribute, attributes.GetInt("axis", -1));
  EDGEMOND_ASSIGN_OR_RETURN(epsilon_, attributes.GetFloat("epsilon", 1e-5f));
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t stash_type, attributes.GetInt("stash_type", 1));
  if (stash_type != 1 && stash_type != 11) {
    return Status::Unsupported("stash_type " + std::to_string(stash_type) +
                               " is not supported (1 float32, 11 float64)");
  }
  const Shape& x = context.input(0).shape;
  if (x.rank() < 1) return Status::InvalidArgument("X must have rank 1 or more");
  EDGEMOND_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(axis_attribute, x.rank()));
  normalized_ = Shape(std::vector<std::int64_t>(x.dims().begin() + axis, x.dims().end()));
  rows_ = DimProduct(x.dims(), 0, axis);
  row_size_ = normalized_.num_elements();
  const Shape& scale = context.input(1).shape;
  if (!BroadcastsTo(scale, normalized_)) {
    return Status::InvalidArgument("Scale of shape " + scale.ToString() +
                                   " does not broadcast to the normalized shape " +
                                   normalized_.ToString());
  }
  // Parameters of the normalized shape (the usual case) are indexed directly.
  if (!(scale == normalized_)) scale_strides_ = BroadcastStrides(scale, normalized_);
  has_bias_ = context.has_input(2);
  if (has_bias_) {
    const Shape& bias = context.input(2).shape;
    if (!BroadcastsTo(bias, normalized_)) {
      return Status::InvalidArgument("B of shape " + bias.ToString() +
                                     " does not broadcast to the normalized shape " +
                                     normalized_.ToString());
    }
    if (!(bias == normalized_)) bias_strides_ = BroadcastStrides(bias, normalized_);
  }
  std::vector<std::int64_t> stats_dims = x.vector();
  for (std::size_t d = static_cast<std::size_t>(axis); d < stats_dims.size(); ++d) {
    stats_dims[d] = 1;
  }
  context.SetFlops(8 * static_cast<std::uint64_t>(x.num_elements()));
  EDGEMOND_RETURN_IF_ERROR(context.SetOutput(0, DataType::kFloat32, x));
  EDGEMOND_RETURN_IF_ERROR(context.SetOutput(1, DataType::kFloat32, Shape(stats_dims)));
  return context.SetOutput(2, DataType::kFloat32, Shape(std::move(stats_dims)));
}

Status LayerNormalizationKernel::Run(const RunContext& context) const {
  const float* x = context.input(0).data<float>();
  const float* scale = context.input(1).data<float>();
  const float* bias = has_bias_ ? context.input(2).data<float>() : nullptr;
  float* y = context.output(0).data<float>();
  float* mean_out = context.has_output(1) ? context.output(1).data<float>() : nullptr;
  float* inv_std_out = context.has_output(2) ? context.output(2).data<float>() : nullptr;
  for (std::int64_t r = 0; r < rows_; ++r) {
    const float* xr = x + r * row_size_;
    float* yr = y + r * row_size_;
    double sum = 0.0;
    for (std::int64_t i = 0; i < row_size_; ++i) sum += xr[i];
    const double mean = row_size_ > 0 ? sum / static_cast<double>(row_size_) : 0.0;
    double squares = 0.0;
    for (std::int64_t i = 0; i < row_size_; ++i) {
      const double d = xr[i] - mean;
      squares += d * d;
    }
    const double variance = row_size_ > 0 ? squares / static_cast<double>(row_size_) : 0.0;
    const double inv_std = 1.0 / std::sqrt(variance + static_cast<double>(epsilon_));
    for (std::int64_t i = 0; i < row_size_; ++i) {
      double v = (xr[i] - mean) * inv_std * scale[ParamOffset(i, normalized_, scale_strides_)];
      if (bias != nullptr) v += bias[ParamOffset(i, normalized_, bias_strides_)];
      yr[i] = static_cast<float>(v);
    }
    if (mean_out != nullptr) mean_out[r] = static_cast<float>(mean);
    if (inv_std_out != nullptr) inv_std_out[r] = static_cast<float>(inv_std);
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
