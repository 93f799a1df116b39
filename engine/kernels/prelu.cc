#include "engine/kernels/prelu.h"

namespace edgemond::engine {

Status PReluKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 2));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(1, {DataType::kFloat32}));
  const Shape& x = context.input(0).shape;
  const Shape& slope = context.input(1).shape;
  EDGEMOND_ASSIGN_OR_RETURN(plan_, PlanBroadcast(x, slope));
  if (!(plan_.out == x)) {
    return Status::InvalidArgument("slope of shape " + slope.ToString() +
                                   " does not broadcast to X of shape " + x.ToString());
  }
  context.SetFlops(2 * static_cast<std::uint64_t>(x.num_elements()));
  return context.SetOutput(0, DataType::kFloat32, x);
}

Status PReluKernel::Run(const RunContext& context) const {
  BroadcastBinary(plan_, context.input(0).data<float>(), context.input(1).data<float>(),
                  context.output(0).data<float>(),
                  [](float x, float slope) { return x < 0.0f ? slope * x : x; });
  return Status::Ok();
}

}  // namespace edgemond::engine
