// The NHWC pooling operators the layout pass (engine/layout_pass.h) makes; internal, opset 1,
// float32, like edgemond.NhwcConv (nhwc_conv.h).
//
// edgemond.NhwcMaxPool: X [N, H, W, C] -> Y [N, OH, OW, C]. Attributes kernel_shape [2],
//   strides [2], dilations [2], pads [4] (top, left, bottom, right) and output_size [2] (OH, OW,
//   as the ONNX MaxPool computed them, ceil_mode included). Windows are clipped to the input.
// edgemond.NhwcGlobalAveragePool: X [N, H, W, C] -> Y [N, 1, 1, C].

#ifndef EDGEMOND_ENGINE_KERNELS_NHWC_POOL_H_
#define EDGEMOND_ENGINE_KERNELS_NHWC_POOL_H_

#include "engine/kernel.h"
#include "engine/kernels/cpu/fast_kernels.h"

namespace edgemond::engine {

class NhwcMaxPoolKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 private:
  const cpu::FastKernels* kernels_ = nullptr;
  cpu::PoolArgs args_;
};

class NhwcGlobalAveragePoolKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 private:
  const cpu::FastKernels* kernels_ = nullptr;
  std::int64_t batch_ = 0, pixels_ = 0, channels_ = 0;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_NHWC_POOL_H_
