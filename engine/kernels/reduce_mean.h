// ReduceMean (ai.onnx 1-28): the mean over `axes` (engine/kernels/reduce.h; axes are an input
// from opset 18). The mean of an empty set is NaN. float32.

#ifndef EDGEMOND_ENGINE_KERNELS_REDUCE_MEAN_H_
#define EDGEMOND_ENGINE_KERNELS_REDUCE_MEAN_H_

#include "engine/kernels/reduce.h"

namespace edgemond::engine {

class ReduceMeanKernel : public ReduceKernel {
 public:
  Status Run(const RunContext& context) const override;

 protected:
  int AxesInputSince() const override { return 18; }
  bool AcceptsType(DataType type, int opset) const override {
    (void)opset;
    return type == DataType::kFloat32;
  }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_REDUCE_MEAN_H_
