#include "engine/kernels/concat.h"

#include <cstring>
#include <vector>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status ConcatKernel::Prepare(PrepareContext& context) {
  if (context.num_inputs() < 1) return Status::InvalidArgument("Concat needs an input");
  for (int i = 0; i < context.num_inputs(); ++i) {
    if (!context.has_input(i)) return Status::InvalidArgument("inputs must not be omitted");
  }
  const TensorInfo& first = context.input(0);
  const int rank = first.shape.rank();
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t axis, context.attributes().GetRequiredInt("axis"));
  EDGEMOND_ASSIGN_OR_RETURN(axis_, NormalizeAxis(axis, rank));
  std::vector<std::int64_t> dims = first.shape.vector();
  dims[static_cast<std::size_t>(axis_)] = 0;
  for (int i = 0; i < context.num_inputs(); ++i) {
    const TensorInfo& in = context.input(i);
    bool compatible = in.dtype == first.dtype && in.shape.rank() == rank;
    for (int d = 0; compatible && d < rank; ++d) {
      if (d != axis_ && in.shape.dim(d) != first.shape.dim(d)) compatible = false;
    }
    if (!compatible) {
      return Status::InvalidArgument("input " + std::to_string(i) + " (" + in.ToString() +
                                     ") does not match input 0 (" + first.ToString() +
                                     ") off axis " + std::to_string(axis_));
    }
    dims[static_cast<std::size_t>(axis_)] += in.shape.dim(axis_);
  }
  outer_ = DimProduct(first.shape.dims(), 0, axis_);
  return context.SetOutput(0, first.dtype, Shape(std::move(dims)));
}

Status ConcatKernel::Run(const RunContext& context) const {
  const TensorView& y = context.output(0);
  const std::size_t element = DataTypeSize(y.dtype());
  // Each output row (one index over the dimensions before the axis) is the inputs' rows, in
  // order.
  const std::size_t y_row = y.byte_size() / static_cast<std::size_t>(outer_ == 0 ? 1 : outer_);
  auto* out = static_cast<std::byte*>(y.raw_data());
  std::size_t offset = 0;
  for (int i = 0; i < context.num_inputs(); ++i) {
    const ConstTensorView& x = context.input(i);
    const std::size_t x_row =
        static_cast<std::size_t>(DimProduct(x.dims(), axis_, x.rank())) * element;
    const auto* in = static_cast<const std::byte*>(x.raw_data());
    for (std::int64_t o = 0; o < outer_ && x_row > 0; ++o) {
      std::memcpy(out + static_cast<std::size_t>(o) * y_row + offset,
                  in + static_cast<std::size_t>(o) * x_row, x_row);
    }
    offset += x_row;
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
