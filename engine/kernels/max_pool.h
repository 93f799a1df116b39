// MaxPool (ai.onnx 1-28): max over sliding windows, with pads, auto_pad, strides, dilations
// (opset 10+) and ceil_mode (opset 10+). float32. The optional Indices output is refused.

#ifndef EDGEMOND_ENGINE_KERNELS_MAX_POOL_H_
#define EDGEMOND_ENGINE_KERNELS_MAX_POOL_H_

#include "engine/kernel.h"
#include "engine/kernels/pool.h"

namespace edgemond::engine {

class MaxPoolKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

  const PoolGeometry& geometry() const { return geometry_; }

 protected:
  PoolGeometry geometry_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_MAX_POOL_H_
