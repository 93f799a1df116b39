// Add (ai.onnx 7-28): y = a + b with multidirectional broadcasting. float32, float64 and the
// 8- to 64-bit integers (wrapping on overflow).

#ifndef EDGEMOND_ENGINE_KERNELS_ADD_H_
#define EDGEMOND_ENGINE_KERNELS_ADD_H_

#include "engine/kernels/binary.h"

namespace edgemond::engine {

struct AddOp : BinaryOpBase {
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      return WrapInteger(a, b, [](std::uint64_t x, std::uint64_t y) { return x + y; });
    } else {
      return a + b;
    }
  }
};

class AddKernel : public BinaryKernel<AddOp> {};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_ADD_H_
