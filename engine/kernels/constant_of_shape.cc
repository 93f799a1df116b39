#include "engine/kernels/constant_of_shape.h"

#include <cstring>
#include <string>
#include <vector>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status ConstantOfShapeKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kInt64}));
  const Tensor* shape_tensor = context.constant(0);
  if (shape_tensor == nullptr) {
    return Status::Unsupported("a shape computed at run time is not supported");
  }
  if (shape_tensor->shape().rank() != 1) {
    return Status::InvalidArgument("the shape input must be 1-D, not " +
                                   shape_tensor->shape().ToString());
  }
  EDGEMOND_ASSIGN_OR_RETURN(std::vector<std::int64_t> dims, ReadInt64s(*shape_tensor, "shape"));
  EDGEMOND_ASSIGN_OR_RETURN(const Tensor* value, context.attributes().GetTensor("value"));
  DataType dtype = DataType::kFloat32;
  value_.fill(std::byte{0});
  element_size_ = DataTypeSize(dtype);
  if (value != nullptr) {
    if (value->num_elements() != 1) {
      return Status::InvalidArgument("value must have one element, not " +
                                     std::to_string(value->num_elements()));
    }
    dtype = value->dtype();
    element_size_ = DataTypeSize(dtype);
    std::memcpy(value_.data(), value->raw_data(), element_size_);
  }
  for (const std::int64_t dim : dims) {
    if (dim < 0) {
      return Status::InvalidArgument("negative dimension in shape " + Shape(dims).ToString());
    }
  }
  return context.SetOutput(0, dtype, Shape(std::move(dims)));
}

Status ConstantOfShapeKernel::Run(const RunContext& context) const {
  const TensorView& y = context.output(0);
  auto* out = static_cast<std::byte*>(y.raw_data());
  const auto count = static_cast<std::size_t>(y.num_elements());
  for (std::size_t i = 0; i < count; ++i) {
    std::memcpy(out + i * element_size_, value_.data(), element_size_);
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
