#include "engine/kernels/softmax.h"

#include <cmath>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status SoftmaxKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  const Shape& x = context.input(0).shape;
  const int rank = x.rank();
  const bool per_axis = context.opset() >= 13;
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t axis_attribute,
                            context.attributes().GetInt("axis", per_axis ? -1 : 1));
  if (rank == 0) return Status::InvalidArgument("Softmax needs rank 1 or more");
  EDGEMOND_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(axis_attribute, rank));
  outer_ = DimProduct(x.dims(), 0, axis);
  if (per_axis) {
    axis_ = x.dim(axis);
    inner_ = DimProduct(x.dims(), axis + 1, rank);
  } else {
    axis_ = DimProduct(x.dims(), axis, rank);
    inner_ = 1;
  }
  context.SetFlops(5 * static_cast<std::uint64_t>(x.num_elements()));
  return context.SetOutput(0, DataType::kFloat32, x);
}

Status SoftmaxKernel::Run(const RunContext& context) const {
  const float* x = context.input(0).data<float>();
  float* y = context.output(0).data<float>();
  for (std::int64_t o = 0; o < outer_; ++o) {
    for (std::int64_t i = 0; i < inner_; ++i) {
      const float* xl = x + o * axis_ * inner_ + i;
      float* yl = y + o * axis_ * inner_ + i;
      float max = -INFINITY;
      for (std::int64_t a = 0; a < axis_; ++a) max = std::fmax(max, xl[a * inner_]);
      float sum = 0.0f;
      for (std::int64_t a = 0; a < axis_; ++a) {
        const float e = std::exp(xl[a * inner_] - max);
        yl[a * inner_] = e;
        sum += e;
      }
      for (std::int64_t a = 0; a < axis_; ++a) yl[a * inner_] /= sum;
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
