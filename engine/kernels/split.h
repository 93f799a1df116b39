// Split (ai.onnx 2-28): cuts the input along `axis` (default 0) into the node's outputs. The
// sizes come from `split` (an attribute before opset 13, an input known at load time from 13),
// or else are equal (the dimension must divide evenly before opset 18; from 18 `num_outputs`
// is required and the last part may be smaller). Any tensor type.

#ifndef EDGEMOND_ENGINE_KERNELS_SPLIT_H_
#define EDGEMOND_ENGINE_KERNELS_SPLIT_H_

#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class SplitKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override { return index == 0; }

 protected:
  std::int64_t outer_ = 1;           // Product of the dimensions before the axis.
  std::int64_t inner_ = 1;           // Product of the dimensions after it.
  std::vector<std::int64_t> sizes_;  // Along the axis, one per output.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_SPLIT_H_
