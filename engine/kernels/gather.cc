#include "engine/kernels/gather.h"

#include <cstring>
#include <vector>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status GatherKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 2));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(1, {DataType::kInt64, DataType::kInt32}));
  const TensorInfo& data = context.input(0);
  const Shape& indices = context.input(1).shape;
  const int rank = data.shape.rank();
  if (rank < 1) return Status::InvalidArgument("data must have rank 1 or more");
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t axis_attribute,
                            context.attributes().GetInt("axis", 0));
  EDGEMOND_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(axis_attribute, rank));
  outer_ = DimProduct(data.shape.dims(), 0, axis);
  axis_dim_ = data.shape.dim(axis);
  inner_ = DimProduct(data.shape.dims(), axis + 1, rank);
  std::vector<std::int64_t> dims(data.shape.dims().begin(), data.shape.dims().begin() + axis);
  dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), data.shape.dims().begin() + axis + 1, data.shape.dims().end());
  return context.SetOutput(0, data.dtype, Shape(std::move(dims)));
}

Status GatherKernel::Run(const RunContext& context) const {
  const ConstTensorView& data = context.input(0);
  const ConstTensorView& indices = context.input(1);
  const std::int64_t count = indices.num_elements();
  const std::size_t block = static_cast<std::size_t>(inner_) * DataTypeSize(data.dtype());
  const auto* in = static_cast<const std::byte*>(data.raw_data());
  auto* out = static_cast<std::byte*>(context.output(0).raw_data());
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t index = indices.dtype() == DataType::kInt64 ? indices.data<std::int64_t>()[i]
                                                             : indices.data<std::int32_t>()[i];
    if (index < -axis_dim_ || index >= axis_dim_) {
      return Status::InvalidArgument("index " + std::to_string(index) +
                                     " is out of range for a dimension of " +
                                     std::to_string(axis_dim_));
    }
    if (index < 0) index += axis_dim_;
    if (block == 0) continue;
    for (std::int64_t o = 0; o < outer_; ++o) {
      std::memcpy(out + static_cast<std::size_t>(o * count + i) * block,
                  in + static_cast<std::size_t>(o * axis_dim_ + index) * block, block);
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
