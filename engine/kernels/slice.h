// Slice (ai.onnx 1-28): a strided sub-tensor. Opset 1-9 take starts/ends/axes as attributes;
// opset 10+ take starts, ends and optional axes and steps as inputs, which must be known at
// load time. Out-of-range starts and ends are clamped as ONNX specifies, negative steps
// included. Any tensor type.

#ifndef EDGEMOND_ENGINE_KERNELS_SLICE_H_
#define EDGEMOND_ENGINE_KERNELS_SLICE_H_

#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class SliceKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override { return index == 0; }

 protected:
  std::vector<std::int64_t> out_dims_;
  std::vector<std::int64_t> in_strides_;  // Input element stride per output step, per dim.
  std::int64_t start_offset_ = 0;         // Input offset of the first output element.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_SLICE_H_
