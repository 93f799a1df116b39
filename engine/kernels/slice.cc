#include "engine/kernels/slice.h"

#include <algorithm>
#include <array>
#include <limits>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {
namespace {

Result<std::vector<std::int64_t>> ConstantInts(const PrepareContext& context, int index,
                                               std::string_view what) {
  const Tensor* tensor = context.constant(index);
  if (tensor == nullptr) {
    return Status::Unsupported(std::string(what) +
                               " computed at run time are not supported; they must be known at "
                               "load time");
  }
  if (tensor->shape().rank() != 1) {
    return Status::InvalidArgument(std::string(what) + " must be 1-D");
  }
  return ReadInt64s(*tensor, what);
}

}  // namespace

Status SliceKernel::Prepare(PrepareContext& context) {
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t> ends;
  std::vector<std::int64_t> axes;
  std::vector<std::int64_t> steps;
  if (context.opset() < 10) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
    AttributeReader& attributes = context.attributes();
    EDGEMOND_ASSIGN_OR_RETURN(starts, attributes.GetInts("starts"));
    EDGEMOND_ASSIGN_OR_RETURN(ends, attributes.GetInts("ends"));
    EDGEMOND_ASSIGN_OR_RETURN(axes, attributes.GetInts("axes"));
  } else {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(3, 5));
    EDGEMOND_ASSIGN_OR_RETURN(starts, ConstantInts(context, 1, "starts"));
    EDGEMOND_ASSIGN_OR_RETURN(ends, ConstantInts(context, 2, "ends"));
    if (context.has_input(3)) {
      EDGEMOND_ASSIGN_OR_RETURN(axes, ConstantInts(context, 3, "axes"));
    }
    if (context.has_input(4)) {
      EDGEMOND_ASSIGN_OR_RETURN(steps, ConstantInts(context, 4, "steps"));
    }
  }
  const TensorInfo& x = context.input(0);
  const int rank = x.shape.rank();
  if (axes.empty()) {
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return Status::InvalidArgument("starts, ends, axes and steps differ in length");
  }

  const std::vector<std::int64_t> strides = Strides(x.shape.dims());
  out_dims_ = x.shape.vector();
  in_strides_ = strides;
  start_offset_ = 0;
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    EDGEMOND_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(axes[i], rank, "axes entry"));
    if (seen[static_cast<std::size_t>(axis)]) {
      return Status::InvalidArgument("axes has a repeated entry");
    }
    seen[static_cast<std::size_t>(axis)] = true;
    const std::int64_t dim = x.shape.dim(axis);
    const std::int64_t step = steps[i];
    if (step == 0) return Status::InvalidArgument("steps must not be 0");
    std::int64_t start = starts[i];
    std::int64_t end = ends[i];
    if (start < 0) start += dim;  // Cannot overflow: dim >= 0 and start < 0.
    if (end < 0) end += dim;
    std::int64_t count = 0;
    if (step > 0) {
      start = std::clamp<std::int64_t>(start, 0, dim);
      end = std::clamp<std::int64_t>(end, 0, dim);
      if (end > start) count = (end - start + step - 1) / step;
    } else {
      start = std::clamp<std::int64_t>(start, 0, dim - 1);
      end = std::clamp<std::int64_t>(end, -1, dim - 1);
      // Steps near INT64_MIN: -step would overflow, but any such step takes one element.
      if (start > end) {
        count = step == std::numeric_limits<std::int64_t>::min()
                    ? 1
                    : (start - end + (-step) - 1) / (-step);
      }
    }
    const auto a = static_cast<std::size_t>(axis);
    out_dims_[a] = count;
    if (count > 0) start_offset_ += start * strides[a];
    in_strides_[a] = strides[a] * (count > 1 ? step : 1);
  }
  return context.SetOutput(0, x.dtype, Shape(out_dims_));
}

Status SliceKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  const TensorView& y = context.output(0);
  const std::int64_t total = y.num_elements();
  const int rank = static_cast<int>(out_dims_.size());
  if (total == 0) return Status::Ok();
  DispatchByElementSize(DataTypeSize(x.dtype()), [&]<typename T>() {
    const T* in = static_cast<const T*>(x.raw_data());
    T* out = static_cast<T*>(y.raw_data());
    std::array<std::int64_t, kMaxRank> index{};
    std::int64_t offset = start_offset_;
    for (std::int64_t i = 0; i < total; ++i) {
      out[i] = in[offset];
      for (int d = rank - 1; d >= 0; --d) {
        const auto du = static_cast<std::size_t>(d);
        offset += in_strides_[du];
        if (++index[du] < out_dims_[du]) break;
        offset -= in_strides_[du] * out_dims_[du];
        index[du] = 0;
      }
    }
  });
  return Status::Ok();
}

}  // namespace edgemond::engine
