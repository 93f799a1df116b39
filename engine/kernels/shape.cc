#include "engine/kernels/shape.h"

#include <algorithm>

namespace edgemond::engine {

Status ShapeKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  const Shape& x = context.input(0).shape;
  const std::int64_t rank = x.rank();
  std::int64_t start = 0;
  std::int64_t end = rank;
  if (context.opset() >= 15) {
    EDGEMOND_ASSIGN_OR_RETURN(start, context.attributes().GetInt("start", 0));
    EDGEMOND_ASSIGN_OR_RETURN(end, context.attributes().GetInt("end", rank));
  }
  // Negative values count from the end; both are clamped to [0, rank].
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<std::int64_t>(start, 0, rank);
  end = std::clamp<std::int64_t>(end, 0, rank);
  dims_.assign(x.dims().begin() + start, x.dims().begin() + std::max(start, end));
  return context.SetOutput(0, DataType::kInt64, Shape{static_cast<std::int64_t>(dims_.size())});
}

Status ShapeKernel::Run(const RunContext& context) const {
  std::int64_t* out = context.output(0).data<std::int64_t>();
  std::copy(dims_.begin(), dims_.end(), out);
  return Status::Ok();
}

}  // namespace edgemond::engine
