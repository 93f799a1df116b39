#include "engine/kernels/unary.h"

namespace edgemond::engine {

Status UnaryFloatKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(PrepareAttributes(context.attributes()));
  const TensorInfo& x = context.input(0);
  context.SetFlops(FlopsPerElement() * static_cast<std::uint64_t>(x.shape.num_elements()));
  return context.SetOutput(0, DataType::kFloat32, x.shape);
}

Status UnaryFloatKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  Apply(x.data<float>(), context.output(0).data<float>(), x.num_elements());
  return Status::Ok();
}

}  // namespace edgemond::engine
