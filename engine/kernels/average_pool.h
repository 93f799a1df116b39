// AveragePool (ai.onnx 7-28): mean over sliding windows, with pads, auto_pad, strides,
// count_include_pad, ceil_mode (opset 10+) and dilations (opset 19+). float32.
//
// The divisor counts the window's taps inside the input, or with count_include_pad also those
// in the explicit or automatic padding, never those a ceil_mode window hangs past the padding.

#ifndef EDGEMOND_ENGINE_KERNELS_AVERAGE_POOL_H_
#define EDGEMOND_ENGINE_KERNELS_AVERAGE_POOL_H_

#include "engine/kernel.h"
#include "engine/kernels/pool.h"

namespace edgemond::engine {

class AveragePoolKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  PoolGeometry geometry_;
  bool count_include_pad_ = false;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_AVERAGE_POOL_H_
