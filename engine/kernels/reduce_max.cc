#include "engine/kernels/reduce_max.h"

#include <limits>
#include <type_traits>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

bool ReduceMaxKernel::AcceptsType(DataType type, int opset) const {
  if (type == DataType::kBool) return opset >= 20;
  for (const DataType numeric : kNumericTypes) {
    if (type == numeric) return true;
  }
  return false;
}

Status ReduceMaxKernel::Run(const RunContext& context) const {
  if (PassThrough(context)) return Status::Ok();
  const ConstTensorView& x = context.input(0);
  if (dtype_ == DataType::kBool) {
    // Bytes, not bool loads: a hostile model may hold bytes other than 0 and 1.
    const std::span<std::uint8_t> out{static_cast<std::uint8_t*>(context.output(0).raw_data()),
                                      static_cast<std::size_t>(context.output(0).num_elements())};
    for (std::uint8_t& v : out) v = 0;
    ForEachElement(static_cast<const std::uint8_t*>(x.raw_data()), x.num_elements(),
                   [&](std::int64_t offset, std::uint8_t v) {
                     if (v != 0) out[static_cast<std::size_t>(offset)] = 1;
                   });
    return Status::Ok();
  }
  return DispatchNumeric(dtype_, [&]<typename T>() {
    const std::span<T> out = context.output(0).values<T>();
    const T lowest = std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                                 : std::numeric_limits<T>::lowest();
    for (T& v : out) v = lowest;
    ForEachElement(x.data<T>(), x.num_elements(), [&](std::int64_t offset, T v) {
      T& best = out[static_cast<std::size_t>(offset)];
      if (v > best || v != v) {
        if (best == best) best = v;  // Once NaN, stays NaN.
      }
    });
  });
}

}  // namespace edgemond::engine
