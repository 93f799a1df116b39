#include "engine/kernels/reshape.h"

#include <cstring>
#include <vector>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status ReshapeKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 2));
  const TensorInfo& x = context.input(0);
  std::int64_t allow_zero = 0;
  if (context.opset() >= 14) {
    EDGEMOND_ASSIGN_OR_RETURN(allow_zero, context.attributes().GetInt("allowzero", 0));
  }
  const Tensor* shape_tensor = context.constant(1);
  if (shape_tensor == nullptr) {
    return Status::Unsupported(
        "the target shape is computed at run time; only shapes known "
        "at load time are supported");
  }
  if (shape_tensor->shape().rank() != 1) {
    return Status::InvalidArgument("the shape input must be 1-D");
  }
  EDGEMOND_ASSIGN_OR_RETURN(std::vector<std::int64_t> dims, ReadInt64s(*shape_tensor, "shape"));
  int infer = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0 && allow_zero == 0) {
      if (static_cast<int>(i) >= x.shape.rank()) {
        return Status::InvalidArgument("shape dimension " + std::to_string(i) +
                                       " is 0 but the input has rank " +
                                       std::to_string(x.shape.rank()));
      }
      dims[i] = x.shape.dim(static_cast<int>(i));
    }
    if (dims[i] == -1) {
      if (infer >= 0) return Status::InvalidArgument("the shape has more than one -1");
      infer = static_cast<int>(i);
      continue;
    }
    if (dims[i] < 0) {
      return Status::InvalidArgument("invalid dimension " + std::to_string(dims[i]));
    }
    if (dims[i] > 0 && known > kMaxTensorBytes / dims[i]) {
      return Status::InvalidArgument("shape " + Shape(dims).ToString() + " is too large");
    }
    known *= dims[i];
  }
  const std::int64_t total = x.shape.num_elements();
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      return Status::InvalidArgument("cannot infer the -1 dimension for input " +
                                     x.shape.ToString());
    }
    dims[static_cast<std::size_t>(infer)] = total / known;
  } else if (known != total) {
    return Status::InvalidArgument("cannot reshape " + x.shape.ToString() + " (" +
                                   std::to_string(total) + " elements) to " +
                                   Shape(dims).ToString());
  }
  return context.SetOutput(0, x.dtype, Shape(std::move(dims)));
}

Status ReshapeKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  if (x.byte_size() > 0) std::memcpy(context.output(0).raw_data(), x.raw_data(), x.byte_size());
  return Status::Ok();
}

}  // namespace edgemond::engine
