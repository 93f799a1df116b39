#include "engine/kernels/reduce_sum.h"

#include <type_traits>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status ReduceSumKernel::Run(const RunContext& context) const {
  if (PassThrough(context)) return Status::Ok();
  const ConstTensorView& x = context.input(0);
  return DispatchSignedNumeric(dtype_, [&]<typename T>() {
    const std::span<T> out = context.output(0).values<T>();
    for (T& v : out) v = T{0};
    ForEachElement(x.data<T>(), x.num_elements(), [&](std::int64_t offset, T v) {
      T& sum = out[static_cast<std::size_t>(offset)];
      if constexpr (std::is_integral_v<T>) {
        sum = static_cast<T>(static_cast<std::uint64_t>(sum) + static_cast<std::uint64_t>(v));
      } else {
        sum += v;
      }
    });
  });
}

}  // namespace edgemond::engine
