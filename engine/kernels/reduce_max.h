// ReduceMax (ai.onnx 1-28): the maximum over `axes` (engine/kernels/reduce.h; axes are an
// input from opset 18). NaN wins; the maximum of an empty set is -inf (the type's minimum for
// integers, false for bool). float32, float64, the 8- to 64-bit integers, and bool (opset 20+;
// logical or).

#ifndef EDGEMOND_ENGINE_KERNELS_REDUCE_MAX_H_
#define EDGEMOND_ENGINE_KERNELS_REDUCE_MAX_H_

#include "engine/kernels/reduce.h"

namespace edgemond::engine {

class ReduceMaxKernel : public ReduceKernel {
 public:
  Status Run(const RunContext& context) const override;

 protected:
  int AxesInputSince() const override { return 18; }
  bool AcceptsType(DataType type, int opset) const override;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_REDUCE_MAX_H_
