#include "engine/kernels/global_average_pool.h"

#include <vector>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status GlobalAveragePoolKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 3, kMaxRank));
  const Shape& x = context.input(0).shape;
  planes_ = x.dim(0) * x.dim(1);
  plane_size_ = DimProduct(x.dims(), 2, x.rank());
  std::vector<std::int64_t> y_dims(static_cast<std::size_t>(x.rank()), 1);
  y_dims[0] = x.dim(0);
  y_dims[1] = x.dim(1);
  context.SetFlops(static_cast<std::uint64_t>(x.num_elements()));
  return context.SetOutput(0, DataType::kFloat32, Shape(std::move(y_dims)));
}

Status GlobalAveragePoolKernel::Run(const RunContext& context) const {
  const float* x = context.input(0).data<float>();
  float* y = context.output(0).data<float>();
  for (std::int64_t p = 0; p < planes_; ++p) {
    const float* xp = x + p * plane_size_;
    float sum = 0.0f;
    for (std::int64_t i = 0; i < plane_size_; ++i) sum += xp[i];
    y[p] = sum / static_cast<float>(plane_size_);
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
