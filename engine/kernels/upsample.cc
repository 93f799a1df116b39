#include "engine/kernels/upsample.h"

#include <string>

namespace edgemond::engine {

Status UpsampleKernel::Prepare(PrepareContext& context) {
  const bool scales_input = context.opset() >= 9;
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(scales_input ? 2 : 1, scales_input ? 2 : 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  AttributeReader& attributes = context.attributes();
  Spec spec;
  EDGEMOND_ASSIGN_OR_RETURN(const std::string mode, attributes.GetString("mode", "nearest"));
  if (mode == "nearest") {
    spec.mode = Mode::kNearest;
  } else if (mode == "linear") {
    spec.mode = Mode::kLinear;
  } else {
    return Status::Unsupported("mode '" + mode + "' is not supported");
  }
  spec.coordinates = Coordinates::kAsymmetric;
  spec.nearest = Nearest::kFloor;
  spec.resized.assign(static_cast<std::size_t>(context.input(0).shape.rank()), true);
  if (scales_input) {
    const Tensor* scales = context.constant(1);
    if (scales == nullptr)
      return Status::Unsupported("scales computed at run time are not supported");
    if (scales->dtype() != DataType::kFloat32) {
      return Status::InvalidArgument("scales must be float32");
    }
    for (const float scale : scales->values<float>()) spec.scales.push_back(scale);
  } else {
    EDGEMOND_ASSIGN_OR_RETURN(const std::vector<float> scales, attributes.GetFloats("scales"));
    for (const float scale : scales) spec.scales.push_back(scale);
  }
  for (const double scale : spec.scales) {
    if (!(scale >= 1.0)) return Status::InvalidArgument("scales must be at least 1");
  }
  return PrepareResize(context, std::move(spec));
}

}  // namespace edgemond::engine
