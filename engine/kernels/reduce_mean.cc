#include "engine/kernels/reduce_mean.h"

namespace edgemond::engine {

Status ReduceMeanKernel::Run(const RunContext& context) const {
  if (PassThrough(context)) return Status::Ok();
  const ConstTensorView& x = context.input(0);
  const std::span<float> out = context.output(0).values<float>();
  for (float& v : out) v = 0.0f;
  ForEachElement(x.data<float>(), x.num_elements(),
                 [&](std::int64_t offset, float v) { out[static_cast<std::size_t>(offset)] += v; });
  const auto divisor = static_cast<float>(reduced_count_);
  for (float& v : out) v /= divisor;
  return Status::Ok();
}

}  // namespace edgemond::engine
