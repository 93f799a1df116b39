// Expand (ai.onnx 8-28): broadcasts the input to the shape given by the int64 second input
// (known at load time), NumPy style: the result has the broadcast of both shapes, so a 1 in the
// given shape keeps the input's dimension. Any fixed-size type.

#ifndef EDGEMOND_ENGINE_KERNELS_EXPAND_H_
#define EDGEMOND_ENGINE_KERNELS_EXPAND_H_

#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class ExpandKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override { return index == 0; }

 protected:
  Shape out_;
  std::vector<std::int64_t> strides_;  // The input in the output's index space.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_EXPAND_H_
