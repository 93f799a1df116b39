#include "engine/kernels/dropout.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>

namespace edgemond::engine {

namespace {

// Training mode draws a random mask unless the ratio is 0, where it keeps every element and
// scales by 1 / (1 - 0): the identity, as in inference.
Status RequireZeroRatio(const PrepareContext& context) {
  if (!context.has_input(1)) {
    return Status::Unsupported("training mode with the default ratio 0.5 is not supported");
  }
  const Tensor* ratio = context.constant(1);
  if (ratio == nullptr) {
    return Status::Unsupported("a ratio computed at run time is not supported in training mode");
  }
  if (ratio->num_elements() != 1 ||
      (ratio->dtype() != DataType::kFloat32 && ratio->dtype() != DataType::kFloat64)) {
    return Status::InvalidArgument("ratio must be one float, not " + ratio->info().ToString());
  }
  const double value =
      ratio->dtype() == DataType::kFloat32 ? ratio->values<float>()[0] : ratio->values<double>()[0];
  if (value != 0.0) {
    char text[32];
    const auto [end, error] = std::to_chars(text, text + sizeof(text), value);
    return Status::Unsupported("training mode with ratio " +
                               std::string(text, error == std::errc() ? end : text) +
                               " (a random mask) is not supported");
  }
  return Status::Ok();
}

}  // namespace

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
      if (training == nullptr) {
        return Status::Unsupported("a training_mode computed at run time is not supported");
      }
      if (training->dtype() != DataType::kBool || training->num_elements() != 1) {
        return Status::InvalidArgument("training_mode must be one bool, not " +
                                       training->info().ToString());
      }
      // A byte, not a bool load: a hostile model may hold bytes other than 0 and 1.
      if (*static_cast<const std::uint8_t*>(training->raw_data()) != 0) {
        EDGEMOND_RETURN_IF_ERROR(RequireZeroRatio(context));
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
