#include "engine/kernels/unsqueeze.h"

#include <cstring>
#include <vector>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status UnsqueezeKernel::Prepare(PrepareContext& context) {
  std::vector<std::int64_t> axes;
  if (context.opset() < 13) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
    EDGEMOND_ASSIGN_OR_RETURN(axes, context.attributes().GetInts("axes"));
  } else {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 2));
    const Tensor* axes_tensor = context.constant(1);
    if (axes_tensor == nullptr) {
      return Status::Unsupported("axes computed at run time are not supported");
    }
    EDGEMOND_ASSIGN_OR_RETURN(axes, ReadInt64s(*axes_tensor, "axes"));
  }
  const TensorInfo& x = context.input(0);
  const int out_rank = x.shape.rank() + static_cast<int>(axes.size());
  std::vector<bool> inserted(static_cast<std::size_t>(out_rank), false);
  for (const std::int64_t axis : axes) {
    EDGEMOND_ASSIGN_OR_RETURN(const int a, NormalizeAxis(axis, out_rank, "axes entry"));
    if (inserted[static_cast<std::size_t>(a)]) {
      return Status::InvalidArgument("axes has a repeated entry");
    }
    inserted[static_cast<std::size_t>(a)] = true;
  }
  std::vector<std::int64_t> dims;
  int next = 0;
  for (int i = 0; i < out_rank; ++i) {
    dims.push_back(inserted[static_cast<std::size_t>(i)] ? 1 : x.shape.dim(next++));
  }
  return context.SetOutput(0, x.dtype, Shape(std::move(dims)));
}

Status UnsqueezeKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  if (x.byte_size() > 0) std::memcpy(context.output(0).raw_data(), x.raw_data(), x.byte_size());
  return Status::Ok();
}

}  // namespace edgemond::engine
