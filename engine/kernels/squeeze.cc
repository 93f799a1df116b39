#include "engine/kernels/squeeze.h"

#include <cstring>
#include <string>
#include <vector>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status SqueezeKernel::Prepare(PrepareContext& context) {
  std::vector<std::int64_t> axes;
  bool axes_given = false;
  if (context.opset() < 13) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
    axes_given = context.attributes().Has("axes");
    EDGEMOND_ASSIGN_OR_RETURN(axes, context.attributes().GetInts("axes"));
  } else {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 2));
    if (context.has_input(1)) {
      const Tensor* axes_tensor = context.constant(1);
      if (axes_tensor == nullptr) {
        return Status::Unsupported("axes computed at run time are not supported");
      }
      EDGEMOND_ASSIGN_OR_RETURN(axes, ReadInt64s(*axes_tensor, "axes"));
      axes_given = true;
    }
  }
  const TensorInfo& x = context.input(0);
  const int rank = x.shape.rank();
  std::vector<bool> removed(static_cast<std::size_t>(rank), false);
  if (axes_given && !axes.empty()) {
    for (const std::int64_t axis : axes) {
      EDGEMOND_ASSIGN_OR_RETURN(const int a, NormalizeAxis(axis, rank, "axes entry"));
      if (x.shape.dim(a) != 1) {
        return Status::InvalidArgument("cannot squeeze dimension " + std::to_string(a) +
                                       " of size " + std::to_string(x.shape.dim(a)));
      }
      removed[static_cast<std::size_t>(a)] = true;
    }
  } else {
    for (int d = 0; d < rank; ++d) removed[static_cast<std::size_t>(d)] = x.shape.dim(d) == 1;
  }
  std::vector<std::int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!removed[static_cast<std::size_t>(d)]) dims.push_back(x.shape.dim(d));
  }
  return context.SetOutput(0, x.dtype, Shape(std::move(dims)));
}

Status SqueezeKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  if (x.byte_size() > 0) std::memcpy(context.output(0).raw_data(), x.raw_data(), x.byte_size());
  return Status::Ok();
}

}  // namespace edgemond::engine
