// Unsqueeze (ai.onnx 1-28): inserts unit dimensions at `axes`, given as an attribute before
// opset 13 and as an input (which must be known at load time) from 13. Axes refer to the
// output and may be negative (opset 11+). Any tensor type.

#ifndef EDGEMOND_ENGINE_KERNELS_UNSQUEEZE_H_
#define EDGEMOND_ENGINE_KERNELS_UNSQUEEZE_H_

#include "engine/kernel.h"

namespace edgemond::engine {

class UnsqueezeKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override { return index == 0; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_UNSQUEEZE_H_
