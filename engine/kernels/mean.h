// Mean (ai.onnx 6-28): the element-wise mean of one or more inputs, broadcast together (opset
// 8+): their sum, added left to right, divided by their count. float32, float64.

#ifndef EDGEMOND_ENGINE_KERNELS_MEAN_H_
#define EDGEMOND_ENGINE_KERNELS_MEAN_H_

#include <type_traits>

#include "engine/kernels/variadic.h"

namespace edgemond::engine {

struct MeanOp {
  static constexpr bool kMean = true;
  template <typename T>
  static constexpr bool kAccepts = std::is_floating_point_v<T>;
  static std::initializer_list<DataType> Types() { return kFloatTypes; }
  template <typename T>
  static T Apply(T a, T b) {
    return a + b;
  }
};

class MeanKernel : public VariadicKernel<MeanOp> {};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_MEAN_H_
