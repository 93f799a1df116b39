#include "engine/kernels/abs.h"

#include <cmath>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status AbsKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, kSignedNumericTypes));
  const TensorInfo& x = context.input(0);
  dtype_ = x.dtype;
  context.SetFlops(static_cast<std::uint64_t>(x.shape.num_elements()));
  return context.SetOutput(0, x.dtype, x.shape);
}

Status AbsKernel::Run(const RunContext& context) const {
  return DispatchSignedNumeric(dtype_, [&]<typename T>() {
    const std::span<const T> x = context.input(0).values<T>();
    T* y = context.output(0).data<T>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      if constexpr (std::is_integral_v<T>) {
        y[i] =
            x[i] < 0 ? static_cast<T>(std::uint64_t{0} - static_cast<std::uint64_t>(x[i])) : x[i];
      } else {
        y[i] = std::fabs(x[i]);
      }
    }
  });
}

}  // namespace edgemond::engine
