// Sum (ai.onnx 6-28): the element-wise sum of one or more inputs, broadcast together (opset
// 8+), added left to right. float32, float64.

#ifndef EDGEMOND_ENGINE_KERNELS_SUM_H_
#define EDGEMOND_ENGINE_KERNELS_SUM_H_

#include <type_traits>

#include "engine/kernels/variadic.h"

namespace edgemond::engine {

struct SumOp {
  static constexpr bool kMean = false;
  template <typename T>
  static constexpr bool kAccepts = std::is_floating_point_v<T>;
  static std::initializer_list<DataType> Types() { return kFloatTypes; }
  template <typename T>
  static T Apply(T a, T b) {
    return a + b;
  }
};

class SumKernel : public VariadicKernel<SumOp> {};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_SUM_H_
