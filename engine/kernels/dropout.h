// Dropout (ai.onnx 7-28) in inference mode: y = x, and the optional mask is all true (bool
// from opset 10, the input's type before). Opset 12+ training_mode must be absent or a
// constant false; training is refused. Types: float32, float64.

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
