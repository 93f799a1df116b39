#include "engine/kernels/resize.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {
namespace {

// Sizes past this only come from corrupt models; the bound keeps size arithmetic exact.
constexpr double kMaxResizedDim = 1099511627776.0;  // 2^40
// Antialiased downsampling reads about 4 / scale inputs per output; far more is absurd.
constexpr std::int64_t kMaxTaps = 1024;

// The float values of a float32 or float64 constant.
Result<std::vector<double>> ReadFloats(const Tensor& tensor, std::string_view what) {
  std::vector<double> values;
  if (tensor.dtype() == DataType::kFloat32) {
    for (const float v : tensor.values<float>()) values.push_back(v);
  } else if (tensor.dtype() == DataType::kFloat64) {
    for (const double v : tensor.values<double>()) values.push_back(v);
  } else {
    return Status::InvalidArgument(std::string(what) + " must be float32 or float64, not " +
                                   std::string(DataTypeName(tensor.dtype())));
  }
  return values;
}

// A constant optional input, or nullptr when absent or empty (ONNX writes "" or an empty
// tensor for the unused one of scales and sizes). kUnsupported when it is computed at run time.
Result<const Tensor*> OptionalConstant(const PrepareContext& context, int index,
                                       std::string_view what) {
  if (!context.has_input(index)) return static_cast<const Tensor*>(nullptr);
  const Tensor* tensor = context.constant(index);
  if (tensor == nullptr) {
    return Status::Unsupported(std::string(what) + " computed at run time are not supported");
  }
  return tensor->num_elements() == 0 ? nullptr : tensor;
}

double CubicCoefficient(double x, double a) {
  x = std::fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0.0;
}

// Number of taps of an (antialiased, when `antialias`) linear or cubic filter at `scale`, and
// the offset of the first tap relative to floor(x).
std::int64_t FilterStart(bool cubic, bool antialias, double scale) {
  const double s = antialias ? std::min(scale, 1.0) : 1.0;
  return static_cast<std::int64_t>(std::floor((cubic ? -2.0 : -1.0) / s)) + 1;
}

}  // namespace

Status ResizeKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(
      context.RequireInputCount(context.opset() < 11 ? 2 : 1, context.opset() < 11 ? 2 : 4));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  const int rank = context.input(0).shape.rank();
  AttributeReader& attributes = context.attributes();
  Spec spec;
  EDGEMOND_ASSIGN_OR_RETURN(const std::string mode, attributes.GetString("mode", "nearest"));
  if (mode == "nearest") {
    spec.mode = Mode::kNearest;
  } else if (mode == "linear") {
    spec.mode = Mode::kLinear;
  } else if (mode == "cubic" && context.opset() >= 11) {
    spec.mode = Mode::kCubic;
  } else {
    return Status::Unsupported("mode '" + mode + "' is not supported");
  }
  spec.resized.assign(static_cast<std::size_t>(rank), true);

  if (context.opset() < 11) {
    spec.coordinates = Coordinates::kAsymmetric;
    spec.nearest = Nearest::kFloor;
    EDGEMOND_ASSIGN_OR_RETURN(const Tensor* scales, OptionalConstant(context, 1, "scales"));
    if (scales == nullptr) return Status::InvalidArgument("scales are required");
    EDGEMOND_ASSIGN_OR_RETURN(spec.scales, ReadFloats(*scales, "scales"));
    return PrepareResize(context, std::move(spec));
  }

  EDGEMOND_ASSIGN_OR_RETURN(const std::string coordinates,
                            attributes.GetString("coordinate_transformation_mode", "half_pixel"));
  if (coordinates == "half_pixel") {
    spec.coordinates = Coordinates::kHalfPixel;
  } else if (coordinates == "half_pixel_symmetric" && context.opset() >= 19) {
    spec.coordinates = Coordinates::kHalfPixelSymmetric;
  } else if (coordinates == "pytorch_half_pixel") {
    spec.coordinates = Coordinates::kPytorchHalfPixel;
  } else if (coordinates == "align_corners") {
    spec.coordinates = Coordinates::kAlignCorners;
  } else if (coordinates == "asymmetric") {
    spec.coordinates = Coordinates::kAsymmetric;
  } else if (coordinates == "tf_half_pixel_for_nn" && context.opset() < 18) {
    spec.coordinates = Coordinates::kTfHalfPixelForNn;
  } else if (coordinates == "tf_crop_and_resize") {
    spec.coordinates = Coordinates::kTfCropAndResize;
  } else {
    return Status::Unsupported("coordinate_transformation_mode '" + coordinates +
                               "' is not supported");
  }
  EDGEMOND_ASSIGN_OR_RETURN(const std::string nearest,
                            attributes.GetString("nearest_mode", "round_prefer_floor"));
  if (nearest == "round_prefer_floor") {
    spec.nearest = Nearest::kRoundPreferFloor;
  } else if (nearest == "round_prefer_ceil") {
    spec.nearest = Nearest::kRoundPreferCeil;
  } else if (nearest == "floor") {
    spec.nearest = Nearest::kFloor;
  } else if (nearest == "ceil") {
    spec.nearest = Nearest::kCeil;
  } else {
    return Status::InvalidArgument("nearest_mode '" + nearest + "' is not valid");
  }
  EDGEMOND_ASSIGN_OR_RETURN(const float cubic_a, attributes.GetFloat("cubic_coeff_a", -0.75f));
  spec.cubic_a = cubic_a;
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t exclude, attributes.GetInt("exclude_outside", 0));
  spec.exclude_outside = exclude != 0;
  EDGEMOND_ASSIGN_OR_RETURN(spec.extrapolation_value,
                            attributes.GetFloat("extrapolation_value", 0.0f));

  std::vector<std::int64_t> axes;
  if (context.opset() >= 18) {
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t antialias, attributes.GetInt("antialias", 0));
    spec.antialias = antialias != 0;
    if (spec.antialias && spec.mode == Mode::kNearest) {
      return Status::InvalidArgument("antialias applies to linear and cubic modes only");
    }
    EDGEMOND_ASSIGN_OR_RETURN(axes, attributes.GetInts("axes"));
    EDGEMOND_ASSIGN_OR_RETURN(const std::string policy,
                              attributes.GetString("keep_aspect_ratio_policy", "stretch"));
    if (policy == "stretch") {
      spec.policy = Spec::Policy::kStretch;
    } else if (policy == "not_larger") {
      spec.policy = Spec::Policy::kNotLarger;
    } else if (policy == "not_smaller") {
      spec.policy = Spec::Policy::kNotSmaller;
    } else {
      return Status::InvalidArgument("keep_aspect_ratio_policy '" + policy + "' is not valid");
    }
  }
  std::vector<int> dims;  // The dimensions scales/sizes/roi list, in their order.
  if (axes.empty()) {
    for (int d = 0; d < rank; ++d) dims.push_back(d);
  } else {
    spec.resized.assign(static_cast<std::size_t>(rank), false);
    for (const std::int64_t axis : axes) {
      EDGEMOND_ASSIGN_OR_RETURN(const int d, NormalizeAxis(axis, rank, "axes entry"));
      if (spec.resized[static_cast<std::size_t>(d)]) {
        return Status::InvalidArgument("axes has a repeated entry");
      }
      spec.resized[static_cast<std::size_t>(d)] = true;
      dims.push_back(d);
    }
  }

  EDGEMOND_ASSIGN_OR_RETURN(const Tensor* roi, OptionalConstant(context, 1, "roi"));
  EDGEMOND_ASSIGN_OR_RETURN(const Tensor* scales, OptionalConstant(context, 2, "scales"));
  EDGEMOND_ASSIGN_OR_RETURN(const Tensor* sizes, OptionalConstant(context, 3, "sizes"));
  if ((scales == nullptr) == (sizes == nullptr)) {
    return Status::InvalidArgument("exactly one of scales and sizes must be given");
  }
  const std::size_t listed = dims.size();
  if (scales != nullptr) {
    EDGEMOND_ASSIGN_OR_RETURN(const std::vector<double> given, ReadFloats(*scales, "scales"));
    if (given.size() != listed) {
      return Status::InvalidArgument("scales has " + std::to_string(given.size()) + " values for " +
                                     std::to_string(listed) + " dimensions");
    }
    spec.scales.assign(static_cast<std::size_t>(rank), 1.0);
    for (std::size_t i = 0; i < listed; ++i) {
      spec.scales[static_cast<std::size_t>(dims[i])] = given[i];
    }
  } else {
    EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> given, ReadInt64s(*sizes, "sizes"));
    if (given.size() != listed) {
      return Status::InvalidArgument("sizes has " + std::to_string(given.size()) + " values for " +
                                     std::to_string(listed) + " dimensions");
    }
    const Shape& x = context.input(0).shape;
    spec.sizes = x.vector();
    for (std::size_t i = 0; i < listed; ++i) {
      spec.sizes[static_cast<std::size_t>(dims[i])] = given[i];
    }
  }
  if (spec.coordinates == Coordinates::kTfCropAndResize) {
    if (roi == nullptr) return Status::InvalidArgument("tf_crop_and_resize needs roi");
    EDGEMOND_ASSIGN_OR_RETURN(const std::vector<double> given, ReadFloats(*roi, "roi"));
    if (given.size() != 2 * listed) {
      return Status::InvalidArgument("roi has " + std::to_string(given.size()) + " values for " +
                                     std::to_string(listed) + " dimensions");
    }
    spec.roi.assign(2 * static_cast<std::size_t>(rank), 0.0);
    for (int d = 0; d < rank; ++d) spec.roi[static_cast<std::size_t>(rank + d)] = 1.0;
    for (std::size_t i = 0; i < listed; ++i) {
      spec.roi[static_cast<std::size_t>(dims[i])] = given[i];
      spec.roi[static_cast<std::size_t>(rank + dims[i])] = given[listed + i];
    }
  }
  return PrepareResize(context, std::move(spec));
}

Status ResizeKernel::PrepareResize(PrepareContext& context, Spec spec) {
  const Shape& x = context.input(0).shape;
  const int rank = x.rank();
  if (!spec.scales.empty() && static_cast<int>(spec.scales.size()) != rank) {
    return Status::InvalidArgument("scales has " + std::to_string(spec.scales.size()) +
                                   " values for rank " + std::to_string(rank));
  }
  axes_.assign(static_cast<std::size_t>(rank), Axis{});
  if (!spec.sizes.empty()) {
    for (int d = 0; d < rank; ++d) {
      const auto du = static_cast<std::size_t>(d);
      if (spec.sizes[du] < 0 || static_cast<double>(spec.sizes[du]) > kMaxResizedDim) {
        return Status::InvalidArgument("size " + std::to_string(spec.sizes[du]) +
                                       " is out of range");
      }
      if (x.dim(d) == 0 && spec.sizes[du] != 0) {
        return Status::InvalidArgument("cannot resize an empty dimension");
      }
      axes_[du].scale =
          x.dim(d) == 0 ? 1.0 : static_cast<double>(spec.sizes[du]) / static_cast<double>(x.dim(d));
      axes_[du].out = spec.sizes[du];
    }
    if (spec.policy != Spec::Policy::kStretch) {
      double scale = spec.policy == Spec::Policy::kNotLarger ? INFINITY : 0.0;
      for (int d = 0; d < rank; ++d) {
        if (!spec.resized[static_cast<std::size_t>(d)]) continue;
        const double s = axes_[static_cast<std::size_t>(d)].scale;
        scale = spec.policy == Spec::Policy::kNotLarger ? std::min(scale, s) : std::max(scale, s);
      }
      for (int d = 0; d < rank; ++d) {
        Axis& axis = axes_[static_cast<std::size_t>(d)];
        if (!spec.resized[static_cast<std::size_t>(d)]) {
          axis.scale = 1.0;
          axis.out = x.dim(d);
          continue;
        }
        axis.scale = scale;
        axis.out = static_cast<std::int64_t>(scale * static_cast<double>(x.dim(d)) + 0.5);
      }
    }
  } else {
    for (int d = 0; d < rank; ++d) {
      const double scale = spec.scales[static_cast<std::size_t>(d)];
      const double out = scale * static_cast<double>(x.dim(d));
      if (!(scale > 0.0) || !(out <= kMaxResizedDim)) {
        return Status::InvalidArgument("scale " + std::to_string(scale) +
                                       " is out of range for dimension " + std::to_string(d));
      }
      axes_[static_cast<std::size_t>(d)].scale = scale;
      axes_[static_cast<std::size_t>(d)].out = static_cast<std::int64_t>(std::floor(out));
    }
  }
  std::vector<std::int64_t> y_dims;
  table_entries_ = 0;
  for (int d = 0; d < rank; ++d) {
    Axis& axis = axes_[static_cast<std::size_t>(d)];
    axis.in = x.dim(d);
    if (!(axis.scale > 0.0) || !std::isfinite(axis.scale)) {
      return Status::InvalidArgument("the scale of dimension " + std::to_string(d) +
                                     " is not a positive number");
    }
    if (spec.mode == Mode::kNearest) {
      axis.taps = 1;
    } else {
      axis.taps = 2 - 2 * FilterStart(spec.mode == Mode::kCubic, spec.antialias, axis.scale);
      if (axis.taps > kMaxTaps) {
        return Status::Unsupported("antialiased downsampling by " + std::to_string(axis.scale) +
                                   " is not supported");
      }
    }
    axis.table_offset = table_entries_;
    table_entries_ += axis.out * axis.taps;
    y_dims.push_back(axis.out);
  }
  spec_ = std::move(spec);
  const Shape y(std::move(y_dims));
  EDGEMOND_RETURN_IF_ERROR(context.SetOutput(0, DataType::kFloat32, y));
  // Tap tables live in scratch (filled by every Run()), so that their memory is planned and
  // limited with the arena's.
  context.SetScratchBytes(static_cast<std::size_t>(table_entries_) *
                          (sizeof(std::int64_t) + sizeof(double)));
  std::uint64_t taps = 1;
  for (const Axis& axis : axes_) taps *= static_cast<std::uint64_t>(axis.taps);
  context.SetFlops(2 * taps * static_cast<std::uint64_t>(y.num_elements()));
  return Status::Ok();
}

void ResizeKernel::FillTaps(const Axis& axis, std::int64_t* index, double* weight) const {
  const auto in = static_cast<double>(axis.in);
  const double scale = axis.scale;
  const double out_float = scale * in;
  const int d = static_cast<int>(&axis - axes_.data());
  const std::int64_t n = axis.taps;
  for (std::int64_t o = 0; o < axis.out; ++o) {
    std::int64_t* idx = index + o * n;
    double* w = weight + o * n;
    const auto x = static_cast<double>(o);
    double x_in = 0.0;
    switch (spec_.coordinates) {
      case Coordinates::kHalfPixel:
        x_in = (x + 0.5) / scale - 0.5;
        break;
      case Coordinates::kHalfPixelSymmetric: {
        const double adjustment = static_cast<double>(axis.out) / out_float;
        const double offset = in / 2 * (1 - adjustment);
        x_in = offset + (x + 0.5) / scale - 0.5;
        break;
      }
      case Coordinates::kPytorchHalfPixel:
        x_in = out_float == 1.0 ? -0.5 : (x + 0.5) / scale - 0.5;
        break;
      case Coordinates::kAlignCorners:
        x_in = out_float == 1.0 ? 0.0 : x * (in - 1) / (out_float - 1);
        break;
      case Coordinates::kAsymmetric:
        x_in = x / scale;
        break;
      case Coordinates::kTfHalfPixelForNn:
        x_in = (x + 0.5) / scale;
        break;
      case Coordinates::kTfCropAndResize: {
        const std::size_t rank = axes_.size();
        const double start = spec_.roi[static_cast<std::size_t>(d)];
        const double end = spec_.roi[rank + static_cast<std::size_t>(d)];
        x_in = out_float == 1.0 ? (end - start) * (in - 1) / 2
                                : x * (end - start) * (in - 1) / (out_float - 1);
        x_in += start * (in - 1);
        if (x_in < 0 || x_in > in - 1) {
          for (std::int64_t t = 0; t < n; ++t) {
            idx[t] = -1;
            w[t] = 0.0;
          }
          continue;
        }
        break;
      }
    }
    // As ONNX's reference: the ratio is in (0, 1], so an integral position counts as the
    // right end of the interval below it.
    const bool integral = x_in == std::floor(x_in);
    const auto floor = static_cast<std::int64_t>(std::floor(x_in)) - (integral ? 1 : 0);
    const double ratio = integral ? 1.0 : x_in - std::floor(x_in);
    const auto clamp = [&](std::int64_t i) { return std::clamp<std::int64_t>(i, 0, axis.in - 1); };

    if (spec_.mode == Mode::kNearest) {
      bool up = false;
      switch (spec_.nearest) {
        case Nearest::kRoundPreferFloor:
          up = ratio > 0.5;
          break;
        case Nearest::kRoundPreferCeil:
          up = ratio >= 0.5;
          break;
        case Nearest::kFloor:
          up = integral;
          break;
        case Nearest::kCeil:
          up = true;
          break;
      }
      idx[0] = clamp(floor + (up ? 1 : 0));
      w[0] = 1.0;
      continue;
    }

    const bool cubic = spec_.mode == Mode::kCubic;
    const std::int64_t start = FilterStart(cubic, spec_.antialias, scale);
    const double s = spec_.antialias ? std::min(scale, 1.0) : 1.0;
    double sum = 0.0;
    for (std::int64_t t = 0; t < n; ++t) {
      const double distance = (static_cast<double>(start + t) - ratio) * s;
      double c = 0.0;
      if (cubic) {
        c = CubicCoefficient(distance, spec_.cubic_a);
      } else {
        c = std::clamp(1.0 - std::fabs(distance), 0.0, 1.0);
      }
      const std::int64_t i = floor + start + t;
      if (spec_.exclude_outside && (i < 0 || i >= axis.in)) c = 0.0;
      idx[t] = clamp(i);
      w[t] = c;
      sum += c;
    }
    if ((spec_.antialias || spec_.exclude_outside) && sum != 0.0) {
      for (std::int64_t t = 0; t < n; ++t) w[t] /= sum;
    }
  }
}

Status ResizeKernel::Run(const RunContext& context) const {
  const std::size_t entries = static_cast<std::size_t>(table_entries_);
  auto* index = reinterpret_cast<std::int64_t*>(context.scratch().data());
  auto* weight =
      reinterpret_cast<double*>(context.scratch().data() + entries * sizeof(std::int64_t));
  for (const Axis& axis : axes_) {
    FillTaps(axis, index + axis.table_offset, weight + axis.table_offset);
  }

  const ConstTensorView& input = context.input(0);
  const float* x = input.data<float>();
  float* y = context.output(0).data<float>();
  const int rank = static_cast<int>(axes_.size());
  const std::int64_t total = context.output(0).num_elements();
  if (total == 0) return Status::Ok();
  if (rank == 0) {
    y[0] = x[0];
    return Status::Ok();
  }
  std::array<std::int64_t, kMaxRank> in_strides{};
  in_strides[static_cast<std::size_t>(rank) - 1] = 1;
  for (int d = rank - 2; d >= 0; --d) {
    in_strides[static_cast<std::size_t>(d)] =
        in_strides[static_cast<std::size_t>(d) + 1] * axes_[static_cast<std::size_t>(d) + 1].in;
  }
  std::array<std::int64_t, kMaxRank> out_index{};
  std::array<std::int64_t, kMaxRank> tap{};
  for (std::int64_t e = 0; e < total; ++e) {
    // The element's taps in each dimension start at row `base` of that dimension's table.
    std::array<std::int64_t, kMaxRank> base{};
    bool outside = false;
    for (int d = 0; d < rank; ++d) {
      const Axis& axis = axes_[static_cast<std::size_t>(d)];
      base[static_cast<std::size_t>(d)] =
          axis.table_offset + out_index[static_cast<std::size_t>(d)] * axis.taps;
      if (index[base[static_cast<std::size_t>(d)]] < 0) outside = true;
    }
    double value = spec_.extrapolation_value;
    if (!outside) {
      // Sum over every combination of taps (an odometer over `tap`), skipping zero weights.
      value = 0.0;
      tap.fill(0);
      while (true) {
        double w = 1.0;
        std::int64_t offset = 0;
        for (int d = 0; d < rank && w != 0.0; ++d) {
          const std::int64_t entry =
              base[static_cast<std::size_t>(d)] + tap[static_cast<std::size_t>(d)];
          w *= weight[entry];
          offset += index[entry] * in_strides[static_cast<std::size_t>(d)];
        }
        if (w != 0.0) value += w * static_cast<double>(x[offset]);
        int d = rank - 1;
        for (; d >= 0; --d) {
          const auto du = static_cast<std::size_t>(d);
          if (++tap[du] < axes_[du].taps) break;
          tap[du] = 0;
        }
        if (d < 0) break;
      }
    }
    y[e] = static_cast<float>(value);
    for (int d = rank - 1; d >= 0; --d) {
      const auto du = static_cast<std::size_t>(d);
      if (++out_index[du] < axes_[du].out) break;
      out_index[du] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
