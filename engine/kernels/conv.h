// Conv (ai.onnx 1-28): N-d convolution for 1, 2 and 3 spatial dimensions, with groups
// (depthwise included), strides, dilations, explicit pads and auto_pad, and an optional bias.
// float32. Applies any fused activation (engine/activation.h) to each finished output plane.
//
// The reference kernel treats every convolution as 3-D (1-D and 2-D get leading unit
// dimensions) and runs plain loops; an optimized variant overrides Prepare() to pack W and
// Run() to use it, and reuses ConvGeometry.

#ifndef EDGEMOND_ENGINE_KERNELS_CONV_H_
#define EDGEMOND_ENGINE_KERNELS_CONV_H_

#include <array>
#include <cstdint>

#include "engine/kernel.h"

namespace edgemond::engine {

// A convolution's sizes in 3-D form.
struct ConvGeometry {
  std::int64_t batch = 0;
  std::int64_t in_channels = 0;
  std::int64_t out_channels = 0;
  std::int64_t group = 1;
  std::array<std::int64_t, 3> in{1, 1, 1};
  std::array<std::int64_t, 3> out{1, 1, 1};
  std::array<std::int64_t, 3> kernel{1, 1, 1};
  std::array<std::int64_t, 3> stride{1, 1, 1};
  std::array<std::int64_t, 3> dilation{1, 1, 1};
  std::array<std::int64_t, 3> pad_begin{0, 0, 0};
};

class ConvKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool SupportsActivation(ActivationKind kind) const override {
    (void)kind;
    return true;
  }

  const ConvGeometry& geometry() const { return geometry_; }
  const FusedActivation& activation() const { return activation_; }

 protected:
  ConvGeometry geometry_;
  bool has_bias_ = false;
  FusedActivation activation_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_CONV_H_
