// Add (ai.onnx 7-28): y = a + b with multidirectional broadcasting. float32, float64 and the
// 8- to 64-bit integers (wrapping on overflow). Applies any fused activation to float32 sums
// (engine/activation.h): a residual block's Add + Relu runs as one step.

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

class AddKernel : public BinaryKernel<AddOp> {
 public:
  bool SupportsActivation(ActivationKind kind) const override {
    (void)kind;
    return true;
  }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_ADD_H_
