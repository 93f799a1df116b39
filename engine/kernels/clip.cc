#include "engine/kernels/clip.h"

namespace edgemond::engine {

Status ClipKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  if (context.opset() < 11) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
    EDGEMOND_ASSIGN_OR_RETURN(min_, context.attributes().GetFloat("min", min_));
    EDGEMOND_ASSIGN_OR_RETURN(max_, context.attributes().GetFloat("max", max_));
  } else {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 3));
    for (int i = 1; i <= 2; ++i) {
      if (!context.has_input(i)) continue;
      const TensorInfo& bound = context.input(i);
      if (bound.dtype != DataType::kFloat32 || bound.shape.num_elements() != 1) {
        return Status::InvalidArgument(std::string(i == 1 ? "min" : "max") +
                                       " must be a float32 scalar, not " + bound.ToString());
      }
      bounds_from_inputs_ = true;
    }
  }
  const TensorInfo& x = context.input(0);
  context.SetFlops(2 * static_cast<std::uint64_t>(x.shape.num_elements()));
  return context.SetOutput(0, DataType::kFloat32, x.shape);
}

Status ClipKernel::Run(const RunContext& context) const {
  float lo = min_;
  float hi = max_;
  if (bounds_from_inputs_) {
    if (context.has_input(1)) lo = context.input(1).data<float>()[0];
    if (context.has_input(2)) hi = context.input(2).data<float>()[0];
  }
  const ConstTensorView& x = context.input(0);
  const float* in = x.data<float>();
  float* out = context.output(0).data<float>();
  const std::int64_t count = x.num_elements();
  // The same function a fused Clip applies (engine/activation.h).
  for (std::int64_t i = 0; i < count; ++i) out[i] = ClipValue(in[i], lo, hi);
  return Status::Ok();
}

}  // namespace edgemond::engine
