// Squeeze (ai.onnx 1-28): removes unit dimensions: those listed in `axes` (an attribute before
// opset 13, an optional input known at load time from 13; negative from 11), or every unit
// dimension when no axes are given. Any tensor type.

#ifndef EDGEMOND_ENGINE_KERNELS_SQUEEZE_H_
#define EDGEMOND_ENGINE_KERNELS_SQUEEZE_H_

#include "engine/kernel.h"

namespace edgemond::engine {

class SqueezeKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override { return index == 0; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_SQUEEZE_H_
