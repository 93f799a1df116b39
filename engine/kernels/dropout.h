// Dropout (ai.onnx 7-28) in inference mode: y = x, and the optional mask is all true (bool
// from opset 10, the input's type before). From opset 12, training_mode and ratio must be
// known at load; in training mode only ratio 0, where Dropout is also the identity, is
// supported (any other ratio draws random masks). Types: float32, float64.

#ifndef EDGEMOND_ENGINE_KERNELS_DROPOUT_H_
#define EDGEMOND_ENGINE_KERNELS_DROPOUT_H_

#include "engine/kernel.h"

namespace edgemond::engine {

class DropoutKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_DROPOUT_H_
