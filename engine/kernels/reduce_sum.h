// ReduceSum (ai.onnx 1-28): the sum over `axes` (engine/kernels/reduce.h; axes are an input
// from opset 13). The sum of an empty set is 0. float32, float64, int32, int64 (integers
// wrap).

#ifndef EDGEMOND_ENGINE_KERNELS_REDUCE_SUM_H_
#define EDGEMOND_ENGINE_KERNELS_REDUCE_SUM_H_

#include "engine/kernels/reduce.h"

namespace edgemond::engine {

class ReduceSumKernel : public ReduceKernel {
 public:
  Status Run(const RunContext& context) const override;

 protected:
  int AxesInputSince() const override { return 13; }
  bool AcceptsType(DataType type, int opset) const override {
    (void)opset;
    return type == DataType::kFloat32 || type == DataType::kFloat64 || type == DataType::kInt32 ||
           type == DataType::kInt64;
  }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_REDUCE_SUM_H_
