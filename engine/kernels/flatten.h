// Flatten (ai.onnx 1-28): reshapes to 2-D, [d0 * ... * d(axis-1), d(axis) * ... * dn]; axis
// defaults to 1 and may be negative (opset 11+). Any tensor type.

#ifndef EDGEMOND_ENGINE_KERNELS_FLATTEN_H_
#define EDGEMOND_ENGINE_KERNELS_FLATTEN_H_

#include "engine/kernel.h"

namespace edgemond::engine {

class FlattenKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_FLATTEN_H_
