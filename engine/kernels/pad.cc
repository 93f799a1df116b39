#include "engine/kernels/pad.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {
std::int64_t PadKernel::Source(const Axis& axis, std::int64_t o) const {
  const std::int64_t r = o - axis.pad_begin;
  const std::int64_t n = axis.kept;
  if (r >= 0 && r < n) return axis.crop_begin + r;
  switch (mode_) {
    case Mode::kConstant:
      return -1;
    case Mode::kEdge:
      return axis.crop_begin + (r < 0 ? 0 : n - 1);
    case Mode::kWrap:
      return axis.crop_begin + ((r % n) + n) % n;
    case Mode::kReflect: {
      if (n == 1) return axis.crop_begin;
      const std::int64_t period = 2 * (n - 1);
      const std::int64_t m = ((r % period) + period) % period;
      return axis.crop_begin + (m < n ? m : period - m);
    }
  }
  return -1;
}

Status PadKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 4));
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(const std::string mode_name, attributes.GetString("mode", "constant"));
  mode_ = Mode::kConstant;
  if (mode_name == "reflect") {
    mode_ = Mode::kReflect;
  } else if (mode_name == "edge") {
    mode_ = Mode::kEdge;
  } else if (mode_name == "wrap" && context.opset() >= 19) {
    mode_ = Mode::kWrap;
  } else if (mode_name != "constant") {
    return Status::Unsupported("mode '" + mode_name + "' is not supported");
  }
  const TensorInfo& x = context.input(0);
  const int rank = x.shape.rank();
  std::vector<std::int64_t> pads;
  std::vector<std::int64_t> axes;
  value_.fill(std::byte{0});
  value_from_input_ = false;
  if (context.opset() < 11) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32, DataType::kFloat64}));
    EDGEMOND_ASSIGN_OR_RETURN(pads, attributes.GetInts("pads"));
    EDGEMOND_ASSIGN_OR_RETURN(const float value, attributes.GetFloat("value", 0.0f));
    if (x.dtype == DataType::kFloat32) {
      std::memcpy(value_.data(), &value, sizeof(value));
    } else {
      const auto wide = static_cast<double>(value);
      std::memcpy(value_.data(), &wide, sizeof(wide));
    }
  } else {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, context.opset() >= 18 ? 4 : 3));
    const Tensor* pads_tensor = context.constant(1);
    if (pads_tensor == nullptr) {
      return Status::Unsupported("pads computed at run time are not supported");
    }
    EDGEMOND_ASSIGN_OR_RETURN(pads, ReadInt64s(*pads_tensor, "pads"));
    if (context.has_input(2)) {
      const TensorInfo& value = context.input(2);
      if (value.dtype != x.dtype || value.shape.num_elements() != 1) {
        return Status::InvalidArgument("constant_value must be one " +
                                       std::string(DataTypeName(x.dtype)) + " element, not " +
                                       value.ToString());
      }
      value_from_input_ = true;
    }
    if (context.has_input(3)) {
      const Tensor* axes_tensor = context.constant(3);
      if (axes_tensor == nullptr) {
        return Status::Unsupported("axes computed at run time are not supported");
      }
      EDGEMOND_ASSIGN_OR_RETURN(axes, ReadInt64s(*axes_tensor, "axes"));
    }
  }
  if (axes.empty()) {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size()) {
    return Status::InvalidArgument("pads has " + std::to_string(pads.size()) + " values for " +
                                   std::to_string(axes.size()) + " axes");
  }
  std::vector<std::int64_t> begin(static_cast<std::size_t>(rank), 0);
  std::vector<std::int64_t> end(static_cast<std::size_t>(rank), 0);
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    EDGEMOND_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(axes[i], rank, "axes entry"));
    if (seen[static_cast<std::size_t>(axis)]) {
      return Status::InvalidArgument("axes has a repeated entry");
    }
    seen[static_cast<std::size_t>(axis)] = true;
    begin[static_cast<std::size_t>(axis)] = pads[i];
    end[static_cast<std::size_t>(axis)] = pads[i + axes.size()];
  }

  out_dims_.assign(static_cast<std::size_t>(rank), 0);
  axes_.assign(static_cast<std::size_t>(rank), Axis{});
  for (int d = 0; d < rank; ++d) {
    const auto du = static_cast<std::size_t>(d);
    const std::int64_t n = x.shape.dim(d);
    // Pads beyond the tensor size limit are absurd; refusing them keeps the sums below exact.
    if (begin[du] > kMaxTensorBytes || end[du] > kMaxTensorBytes || begin[du] < -n ||
        end[du] < -n) {
      return Status::InvalidArgument("pads " + std::to_string(begin[du]) + ", " +
                                     std::to_string(end[du]) + " are out of range for dimension " +
                                     std::to_string(d) + " of size " + std::to_string(n));
    }
    Axis& axis = axes_[du];
    axis.crop_begin = begin[du] < 0 ? -begin[du] : 0;
    axis.kept = n + std::min<std::int64_t>(begin[du], 0) + std::min<std::int64_t>(end[du], 0);
    axis.pad_begin = begin[du] > 0 ? begin[du] : 0;
    out_dims_[du] = n + begin[du] + end[du];
    if (axis.kept < 0 || out_dims_[du] < 0) {
      return Status::InvalidArgument("pads crop dimension " + std::to_string(d) + " of size " +
                                     std::to_string(n) + " below zero");
    }
    if (axis.kept == 0 && out_dims_[du] > 0 && mode_ != Mode::kConstant) {
      return Status::InvalidArgument("mode '" + mode_name + "' cannot pad an empty dimension");
    }
  }
  EDGEMOND_RETURN_IF_ERROR(context.SetOutput(0, x.dtype, Shape(out_dims_)));
  in_strides_ = Strides(x.shape.dims());
  return Status::Ok();
}

Status PadKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  const TensorView& y = context.output(0);
  const int rank = static_cast<int>(out_dims_.size());
  const std::size_t element = DataTypeSize(x.dtype());
  const void* value = value_from_input_ ? context.input(2).raw_data() : value_.data();
  DispatchByElementSize(element, [&]<typename U>() {
    const auto* in = static_cast<const U*>(x.raw_data());
    auto* out = static_cast<U*>(y.raw_data());
    U fill;
    std::memcpy(&fill, value, sizeof(U));
    const std::int64_t total = y.num_elements();
    if (total == 0) return;
    if (rank == 0) {
      out[0] = in[0];
      return;
    }
    // Odometer over the output's outer dimensions; `base` is the input offset of the row, or
    // -1 when some outer index falls in the padding.
    std::array<std::int64_t, kMaxRank> index{};
    const std::int64_t inner = out_dims_[static_cast<std::size_t>(rank) - 1];
    const Axis& inner_axis = axes_[static_cast<std::size_t>(rank) - 1];
    for (std::int64_t start = 0; start < total; start += inner) {
      std::int64_t base = 0;
      for (int d = 0; d + 1 < rank && base >= 0; ++d) {
        const auto du = static_cast<std::size_t>(d);
        const std::int64_t source = Source(axes_[du], index[du]);
        base = source < 0 ? -1 : base + source * in_strides_[du];
      }
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::int64_t source = Source(inner_axis, i);
        out[start + i] = base < 0 || source < 0 ? fill : in[base + source];
      }
      for (int d = rank - 2; d >= 0; --d) {
        const auto du = static_cast<std::size_t>(d);
        if (++index[du] < out_dims_[du]) break;
        index[du] = 0;
      }
    }
  });
  return Status::Ok();
}

}  // namespace edgemond::engine
