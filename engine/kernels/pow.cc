#include "engine/kernels/pow.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {
namespace {

// base ^ exponent for integers, by squaring in uint64 (so that overflow wraps, whatever the
// exponent's size). A negative exponent truncates toward zero: only bases 1 and -1 keep a
// non-zero result.
template <typename T>
T IntegerPower(T base, bool negative, std::uint64_t magnitude) {
  if (negative) {
    if (base == 1) return 1;
    if constexpr (std::is_signed_v<T>) {
      if (base == -1) return (magnitude % 2 == 0) ? 1 : -1;
    }
    return 0;
  }
  std::uint64_t result = 1;
  auto factor = static_cast<std::uint64_t>(base);
  for (std::uint64_t e = magnitude; e != 0; e >>= 1) {
    if ((e & 1) != 0) result *= factor;
    factor *= factor;
  }
  return static_cast<T>(result);
}

template <typename X, typename Y>
X Power(X x, Y y) {
  if constexpr (std::is_integral_v<X> && std::is_integral_v<Y>) {
    if constexpr (std::is_signed_v<Y>) {
      // The magnitude in unsigned arithmetic, so that the minimum does not overflow.
      const bool negative = y < 0;
      const auto bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(y));
      return IntegerPower(x, negative, negative ? std::uint64_t{0} - bits : bits);
    } else {
      return IntegerPower(x, false, static_cast<std::uint64_t>(y));
    }
  } else {
    const double z = std::pow(static_cast<double>(x), static_cast<double>(y));
    if constexpr (std::is_integral_v<X>) {
      // Truncation toward zero, as NumPy's cast does; out-of-range results (and NaN) would be
      // undefined behaviour in C++, so they saturate.
      if (!(z == z)) return 0;
      if (z >= static_cast<double>(std::numeric_limits<X>::max())) {
        return std::numeric_limits<X>::max();
      }
      if (z <= static_cast<double>(std::numeric_limits<X>::min())) {
        return std::numeric_limits<X>::min();
      }
    }
    return static_cast<X>(z);
  }
}

}  // namespace

Status PowKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 2));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(
      0, {DataType::kFloat32, DataType::kFloat64, DataType::kInt32, DataType::kInt64}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(1, kNumericTypes));
  const TensorInfo& x = context.input(0);
  const TensorInfo& y = context.input(1);
  if (context.opset() < 12 && x.dtype != y.dtype) {
    return Status::InvalidArgument("before opset 12 both inputs must have the same type");
  }
  EDGEMOND_ASSIGN_OR_RETURN(plan_, PlanBroadcast(x.shape, y.shape));
  base_type_ = x.dtype;
  exponent_type_ = y.dtype;
  context.SetFlops(8 * static_cast<std::uint64_t>(plan_.out.num_elements()));
  return context.SetOutput(0, x.dtype, plan_.out);
}

Status PowKernel::Run(const RunContext& context) const {
  return DispatchSignedNumeric(base_type_, [&]<typename X>() {
    const Status status = DispatchNumeric(exponent_type_, [&]<typename Y>() {
      BroadcastBinary(plan_, context.input(0).data<X>(), context.input(1).data<Y>(),
                      context.output(0).data<X>(), [](X x, Y y) { return Power(x, y); });
    });
    (void)status;  // Prepare() admitted only types DispatchNumeric handles.
  });
}

}  // namespace edgemond::engine
