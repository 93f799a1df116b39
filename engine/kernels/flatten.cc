#include "engine/kernels/flatten.h"

#include <cstring>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status FlattenKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  const TensorInfo& x = context.input(0);
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t axis_attribute,
                            context.attributes().GetInt("axis", 1));
  const int rank = x.shape.rank();
  // The axis may equal the rank (everything goes to the first dimension).
  if (axis_attribute < -rank || axis_attribute > rank) {
    return Status::InvalidArgument("axis " + std::to_string(axis_attribute) +
                                   " is out of range for rank " + std::to_string(rank));
  }
  const int axis = static_cast<int>(axis_attribute < 0 ? axis_attribute + rank : axis_attribute);
  return context.SetOutput(
      0, x.dtype,
      Shape{DimProduct(x.shape.dims(), 0, axis), DimProduct(x.shape.dims(), axis, rank)});
}

Status FlattenKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  if (x.byte_size() > 0) std::memcpy(context.output(0).raw_data(), x.raw_data(), x.byte_size());
  return Status::Ok();
}

}  // namespace edgemond::engine
