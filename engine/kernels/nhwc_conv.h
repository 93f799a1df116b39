// edgemond.NhwcConv (internal, opset 1): a 2-D convolution on NHWC data, with packed weights,
// a fused bias, residual input and activation. Made by the layout pass (engine/layout_pass.h)
// from ONNX Conv nodes with constant weights; models cannot use it directly (the loader
// refuses the "edgemond" domain).
//
// Inputs: X [N, H, W, C] (NHWC), W [M, C / group, kH, kW] (ONNX's layout, constant), B [M]
// (optional, constant), R [N, OH, OW, M] (optional, NHWC), S [1, 1, 1, C] (optional; group 1,
// X in NHWC): Y = act(conv(X * S, W) + B + R), S scaling X's channels. With S, a run first
// scales the packed weights by it into scratch memory (cpu::ScalePackedConvWeights): the layout
// pass gives S to a convolution whose input was Mul(X, S) when that pass over the weights is
// shorter than the Mul's over X (squeeze-and-excitation blocks).
// Attributes: group, strides [2], dilations [2], pads [4] (top, left, bottom, right; already
// resolved from auto_pad), nchw_input (default 0; 1: X is [N, C, H, W], for a first layer with
// few input channels, group 1 and a reduction of at most cpu::kMaxNchwInputReduction),
// y_pixel_stride (default M; more when Y is written in place into the channels of a larger
// tensor: group 1, not depthwise, no R; edgemond.NhwcConcat).
// Output: Y [N, OH, OW, M].
//
// Prepare() packs W (and B) for the fast kernels (engine/kernels/cpu/fast_kernels.h) and the
// model then drops the constants (ReadsInputAtRun). Depthwise convolutions (group == C == M)
// get the depthwise kernel; 3x3 convolutions of stride 1 large enough to gain run as
// Winograd's F(2x2, 3x3) (docs/adr/0109-engine-winograd-3x3.md), with scratch memory for the
// transformed input and products; everything else the implicit-GEMM kernel.

#ifndef EDGEMOND_ENGINE_KERNELS_NHWC_CONV_H_
#define EDGEMOND_ENGINE_KERNELS_NHWC_CONV_H_

#include <vector>

#include "engine/kernel.h"
#include "engine/kernels/cpu/fast_kernels.h"
#include "engine/kernels/cpu/packed_weights.h"

namespace edgemond::engine {

// Kernel windows larger than this (taps) stay with the reference Conv.
inline constexpr std::int64_t kNhwcConvMaxTaps = 64;

class NhwcConvKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputAtRun(int index) const override { return index == 0 || index >= 3; }
  // The residual R: the implicit-GEMM kernel reads each element of it before it writes the
  // same element of Y (cpu::ConvArgs::residual). The depthwise kernel computes some channels
  // twice and so may not.
  std::optional<int> OutputReusesInput() const override {
    return depthwise_ ? std::nullopt : std::optional<int>(3);
  }
  std::size_t PackedBytes() const override {
    return sizeof(float) * (packed_.size() + bias_.size() + zero_.size() + zero_bias_.size());
  }
  bool SupportsActivation(ActivationKind kind) const override {
    (void)kind;
    return true;
  }

 private:
  const cpu::FastKernels* kernels_ = nullptr;
  bool depthwise_ = false;
  bool scaled_ = false;              // Input S: the weights are scaled per run.
  bool winograd_ = false;            // packed_ holds Winograd's points (cpu::PackWinogradWeights).
  cpu::WinogradArgs winograd_args_;  // Pointers to data filled in per run.
  std::vector<float> zero_bias_;     // The products' bias: none.
  cpu::ConvArgs conv_;               // Pointers to data filled in per run.
  cpu::DepthwiseArgs depthwise_args_;
  cpu::PackedWeights packed_;
  std::vector<float> bias_;
  std::vector<float> zero_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_NHWC_CONV_H_
