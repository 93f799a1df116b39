// ReduceMean (ai.onnx 1-28): the mean over `axes` (all by default), keeping reduced
// dimensions as 1 when keepdims (default). Axes are an attribute before opset 18 and an
// optional input, known at load time, from 18; there an empty axes list with
// noop_with_empty_axes = 1 passes the input through. float32.

#ifndef EDGEMOND_ENGINE_KERNELS_REDUCE_MEAN_H_
#define EDGEMOND_ENGINE_KERNELS_REDUCE_MEAN_H_

#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class ReduceMeanKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override { return index == 0; }

 protected:
  std::vector<std::int64_t> in_dims_;
  std::vector<bool> reduced_;  // Per input dimension.
  std::int64_t reduced_count_ = 1;
  bool passthrough_ = false;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_REDUCE_MEAN_H_
