#include "engine/kernels/expand.h"

#include "engine/kernels/broadcast.h"
#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status ExpandKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 2));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(1, {DataType::kInt64}));
  const Tensor* shape_tensor = context.constant(1);
  if (shape_tensor == nullptr) {
    return Status::Unsupported("a shape computed at run time is not supported");
  }
  if (shape_tensor->shape().rank() != 1) {
    return Status::InvalidArgument("the shape input must be 1-D, not " +
                                   shape_tensor->shape().ToString());
  }
  EDGEMOND_ASSIGN_OR_RETURN(std::vector<std::int64_t> dims, ReadInt64s(*shape_tensor, "shape"));
  if (dims.size() > static_cast<std::size_t>(kMaxRank)) {
    return Status::InvalidArgument("shape has rank " + std::to_string(dims.size()));
  }
  for (const std::int64_t dim : dims) {
    if (dim < 0) {
      return Status::InvalidArgument("negative dimension in shape " + Shape(dims).ToString());
    }
  }
  const TensorInfo& x = context.input(0);
  EDGEMOND_ASSIGN_OR_RETURN(out_, BroadcastShape(x.shape, Shape(std::move(dims))));
  strides_ = BroadcastStrides(x.shape, out_);
  return context.SetOutput(0, x.dtype, out_);
}

Status ExpandKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  DispatchByElementSize(DataTypeSize(x.dtype()), [&]<typename U>() {
    BroadcastCopy(out_, strides_, static_cast<const U*>(x.raw_data()),
                  static_cast<U*>(context.output(0).raw_data()));
  });
  return Status::Ok();
}

}  // namespace edgemond::engine
