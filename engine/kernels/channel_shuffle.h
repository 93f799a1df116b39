// edgemond.ChannelShuffle (internal, opset 1): ShuffleNet's channel shuffle on the last axis,
// which the layout pass (engine/layout_pass.h) makes of the exporters'
// Reshape [N, g, C/g, H, W] -> Transpose (0, 2, 1, 3, 4) -> Reshape [N, C, H, W] on NHWC data.
// Y[..., j * g + i] = X[..., i * (C / g) + j]. Attribute: group. Any fixed-size type.

#ifndef EDGEMOND_ENGINE_KERNELS_CHANNEL_SHUFFLE_H_
#define EDGEMOND_ENGINE_KERNELS_CHANNEL_SHUFFLE_H_

#include "engine/kernel.h"

namespace edgemond::engine {

class ChannelShuffleKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 private:
  std::int64_t group_ = 1;
  std::int64_t channels_ = 0;
  std::int64_t rows_ = 0;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_CHANNEL_SHUFFLE_H_
