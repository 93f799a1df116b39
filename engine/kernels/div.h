// Div (ai.onnx 7-28): y = a / b with multidirectional broadcasting. Floating-point division
// follows IEEE 754 (x / 0 is ±inf or NaN); integer division truncates toward zero, as ONNX's
// reference does, and a zero divisor is an error instead of a crash.

#ifndef EDGEMOND_ENGINE_KERNELS_DIV_H_
#define EDGEMOND_ENGINE_KERNELS_DIV_H_

#include <limits>

#include "engine/kernels/binary.h"

namespace edgemond::engine {

struct DivOp : BinaryOpBase {
  template <typename T>
  static Status Check(std::span<const T> divisor) {
    if constexpr (std::is_integral_v<T>) {
      for (const T d : divisor) {
        if (d == 0) return Status::InvalidArgument("integer division by zero");
      }
    }
    return Status::Ok();
  }

  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      // The minimum value divided by -1 overflows; its wrapped result is the minimum itself.
      if (b == -1)
        return WrapInteger(T{0}, a, [](std::uint64_t x, std::uint64_t y) { return x - y; });
      return static_cast<T>(a / b);
    } else {
      return static_cast<T>(a / b);
    }
  }
};

class DivKernel : public BinaryKernel<DivOp> {};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_DIV_H_
