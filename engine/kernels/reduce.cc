#include "engine/kernels/reduce.h"

#include <string>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status ReduceKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 2));
  const TensorInfo& x = context.input(0);
  if (!AcceptsType(x.dtype, context.opset())) {
    return Status::Unsupported("input 0 has type " + std::string(DataTypeName(x.dtype)) +
                               ", which is not supported");
  }
  AttributeReader& attributes = context.attributes();
  std::vector<std::int64_t> axes;
  bool noop_with_empty_axes = false;
  if (context.opset() < AxesInputSince()) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
    EDGEMOND_ASSIGN_OR_RETURN(axes, attributes.GetInts("axes"));
  } else {
    if (context.has_input(1)) {
      const Tensor* axes_tensor = context.constant(1);
      if (axes_tensor == nullptr) {
        return Status::Unsupported("axes computed at run time are not supported");
      }
      EDGEMOND_ASSIGN_OR_RETURN(axes, ReadInt64s(*axes_tensor, "axes"));
    }
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t noop,
                              attributes.GetInt("noop_with_empty_axes", 0));
    noop_with_empty_axes = noop != 0;
  }
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t keepdims, attributes.GetInt("keepdims", 1));
  dtype_ = x.dtype;
  const int rank = x.shape.rank();
  in_dims_ = x.shape.vector();
  passthrough_ = axes.empty() && noop_with_empty_axes;
  if (passthrough_) return context.SetOutput(0, x.dtype, x.shape);
  std::vector<bool> reduced(static_cast<std::size_t>(rank), axes.empty());
  for (const std::int64_t axis : axes) {
    EDGEMOND_ASSIGN_OR_RETURN(const int a, NormalizeAxis(axis, rank, "axes entry"));
    reduced[static_cast<std::size_t>(a)] = true;
  }
  std::vector<std::int64_t> dims;
  reduced_count_ = 1;
  out_strides_.assign(static_cast<std::size_t>(rank), 0);
  std::int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const auto du = static_cast<std::size_t>(d);
    if (reduced[du]) {
      reduced_count_ *= x.shape.dim(d);
    } else {
      out_strides_[du] = stride;
      stride *= x.shape.dim(d);
    }
  }
  for (int d = 0; d < rank; ++d) {
    if (reduced[static_cast<std::size_t>(d)]) {
      if (keepdims != 0) dims.push_back(1);
    } else {
      dims.push_back(x.shape.dim(d));
    }
  }
  context.SetFlops(static_cast<std::uint64_t>(x.shape.num_elements()));
  return context.SetOutput(0, x.dtype, Shape(std::move(dims)));
}

}  // namespace edgemond::engine
