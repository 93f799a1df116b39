// Min (ai.onnx 6-28): the element-wise minimum of one or more inputs, broadcast together
// (opset 8+). float32, float64 and the 8- to 64-bit integers (opset 12+; floats before).
// NaN wins, as in NumPy's minimum.

#ifndef EDGEMOND_ENGINE_KERNELS_MIN_H_
#define EDGEMOND_ENGINE_KERNELS_MIN_H_

#include "engine/kernels/variadic.h"

namespace edgemond::engine {

struct MinOp {
  static constexpr bool kMean = false;
  template <typename T>
  static constexpr bool kAccepts = true;
  static std::initializer_list<DataType> Types() { return kNumericTypes; }
  template <typename T>
  static T Apply(T a, T b) {
    if (a != a) return a;  // NaN (never true for integers).
    return b < a || b != b ? b : a;
  }
};

class MinKernel : public VariadicKernel<MinOp> {};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_MIN_H_
