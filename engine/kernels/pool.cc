#include "engine/kernels/pool.h"

#include <vector>

#include "engine/kernels/window.h"

namespace edgemond::engine {

Result<PoolGeometry> PreparePool(PrepareContext& context, bool has_ceil_mode, bool has_dilations,
                                 std::initializer_list<DataType> types) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, types));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 3, 5));
  const Shape& x = context.input(0).shape;
  const int spatial = x.rank() - 2;
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> kernel,
                            attributes.GetInts("kernel_shape"));
  if (kernel.size() != static_cast<std::size_t>(spatial)) {
    return Status::InvalidArgument("kernel_shape must have " + std::to_string(spatial) +
                                   " values for input of shape " + x.ToString());
  }
  EDGEMOND_ASSIGN_OR_RETURN(
      const WindowAttributes window,
      ReadWindowAttributes(attributes, spatial, has_ceil_mode, has_dilations));
  const std::vector<std::int64_t> input(x.dims().begin() + 2, x.dims().end());
  EDGEMOND_ASSIGN_OR_RETURN(const WindowGeometry out, ComputeWindow(input, kernel, window));

  PoolGeometry geometry;
  geometry.planes = x.dim(0) * x.dim(1);
  std::vector<std::int64_t> y_dims = {x.dim(0), x.dim(1)};
  const int lead = 3 - spatial;
  for (int i = 0; i < spatial; ++i) {
    const auto s = static_cast<std::size_t>(i);
    const auto g = static_cast<std::size_t>(i + lead);
    geometry.in[g] = input[s];
    geometry.out[g] = out.output[s];
    geometry.kernel[g] = kernel[s];
    geometry.stride[g] = window.strides[s];
    geometry.dilation[g] = window.dilations[s];
    geometry.pad_begin[g] = out.pad_begin[s];
    geometry.pad_end[g] = out.pad_end[s];
    y_dims.push_back(out.output[s]);
  }
  const std::uint64_t taps =
      static_cast<std::uint64_t>(geometry.kernel[0] * geometry.kernel[1] * geometry.kernel[2]);
  Shape y(std::move(y_dims));
  context.SetFlops(static_cast<std::uint64_t>(y.num_elements()) * taps);
  EDGEMOND_RETURN_IF_ERROR(context.SetOutput(0, context.input(0).dtype, std::move(y)));
  return geometry;
}

}  // namespace edgemond::engine
