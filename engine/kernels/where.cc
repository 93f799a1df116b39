#include "engine/kernels/where.h"

#include <string>

#include "engine/kernels/broadcast.h"
#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status WhereKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(3, 3));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kBool}));
  const TensorInfo& x = context.input(1);
  const TensorInfo& y = context.input(2);
  if (x.dtype != y.dtype) {
    return Status::InvalidArgument("X is " + std::string(DataTypeName(x.dtype)) + " and Y " +
                                   std::string(DataTypeName(y.dtype)));
  }
  const Shape& condition = context.input(0).shape;
  EDGEMOND_ASSIGN_OR_RETURN(const Shape values, BroadcastShape(x.shape, y.shape));
  EDGEMOND_ASSIGN_OR_RETURN(out_, BroadcastShape(condition, values));
  condition_strides_ = BroadcastStrides(condition, out_);
  x_strides_ = BroadcastStrides(x.shape, out_);
  y_strides_ = BroadcastStrides(y.shape, out_);
  return context.SetOutput(0, x.dtype, out_);
}

Status WhereKernel::Run(const RunContext& context) const {
  // Read as bytes: a byte other than 0 or 1 in a hostile model must not be loaded as a bool.
  const auto* condition = static_cast<const std::uint8_t*>(context.input(0).raw_data());
  const int rank = out_.rank();
  const std::int64_t inner = rank > 0 ? out_.dim(rank - 1) : 1;
  const auto last = static_cast<std::size_t>(rank > 0 ? rank - 1 : 0);
  const std::int64_t sc = rank > 0 ? condition_strides_[last] : 0;
  const std::int64_t sx = rank > 0 ? x_strides_[last] : 0;
  const std::int64_t sy = rank > 0 ? y_strides_[last] : 0;
  DispatchByElementSize(DataTypeSize(context.input(1).dtype()), [&]<typename U>() {
    const auto* x = static_cast<const U*>(context.input(1).raw_data());
    const auto* y = static_cast<const U*>(context.input(2).raw_data());
    auto* out = static_cast<U*>(context.output(0).raw_data());
    ForEachBroadcastRow<3>(out_, {&condition_strides_, &x_strides_, &y_strides_},
                           [&](std::int64_t start, const std::array<std::int64_t, 3>& offsets) {
                             for (std::int64_t i = 0; i < inner; ++i) {
                               out[start + i] = condition[offsets[0] + i * sc] != 0
                                                    ? x[offsets[1] + i * sx]
                                                    : y[offsets[2] + i * sy];
                             }
                           });
  });
  return Status::Ok();
}

}  // namespace edgemond::engine
