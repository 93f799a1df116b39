#include "engine/kernels/dropout.h"

#include <cstring>

namespace edgemond::engine {

Status DropoutKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32, DataType::kFloat64}));
  if (context.opset() < 12) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
    context.attributes().Ignore("ratio");  // Has no effect in inference.
  } else {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 3));
    context.attributes().Ignore("seed");
    if (context.has_input(2)) {
      const Tensor* training = context.constant(2);
      if (training == nullptr || training->dtype() != DataType::kBool ||
          training->num_elements() != 1) {
        return Status::Unsupported("training_mode must be a constant bool (inference only)");
      }
      if (training->data<bool>()[0]) {
        return Status::Unsupported("training mode is not supported");
      }
    }
  }
  const TensorInfo& x = context.input(0);
  EDGEMOND_RETURN_IF_ERROR(context.SetOutput(0, x.dtype, x.shape));
  return context.SetOutput(1, context.opset() >= 10 ? DataType::kBool : x.dtype, x.shape);
}

Status DropoutKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  if (x.byte_size() > 0) std::memcpy(context.output(0).raw_data(), x.raw_data(), x.byte_size());
  if (context.has_output(1)) {
    const TensorView& mask = context.output(1);
    switch (mask.dtype()) {
      case DataType::kBool:
        for (bool& m : mask.values<bool>()) m = true;
        break;
      case DataType::kFloat32:
        for (float& m : mask.values<float>()) m = 1.0f;
        break;
      case DataType::kFloat64:
        for (double& m : mask.values<double>()) m = 1.0;
        break;
      default:
        return Status::Internal("unexpected mask type");
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
