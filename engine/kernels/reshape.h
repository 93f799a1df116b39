// Reshape (ai.onnx 5-28): the same elements with the shape given by input 1, where 0 copies
// the input's dimension (unless allowzero, opset 14+) and -1 is inferred. The shape must be
// known at load time (a constant, or folded from the exporter's Shape arithmetic): plans are
// static. Any tensor type.

#ifndef EDGEMOND_ENGINE_KERNELS_RESHAPE_H_
#define EDGEMOND_ENGINE_KERNELS_RESHAPE_H_

#include "engine/kernel.h"

namespace edgemond::engine {

class ReshapeKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override { return index == 0; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_RESHAPE_H_
