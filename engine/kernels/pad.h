// Pad (ai.onnx 2-28): pads (or, with negative pads, crops) every dimension, or those in `axes`
// (opset 18+), by `pads` = [begin..., end...] (an attribute before opset 11, an int64 input
// known at load time from 11). Modes: constant (the `value` attribute before 11, the optional
// constant_value input from 11; 0 by default), reflect, edge and wrap (opset 19+). Negative
// pads crop first; positive pads then extend what is left. Any fixed-size type (float types
// only before opset 11, whose pad value is a float attribute).

#ifndef EDGEMOND_ENGINE_KERNELS_PAD_H_
#define EDGEMOND_ENGINE_KERNELS_PAD_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class PadKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override { return index == 0 || index == 2; }

 protected:
  enum class Mode : std::uint8_t { kConstant, kReflect, kEdge, kWrap };
  // How one dimension maps: output index o reads input index crop_begin + r for
  // r = o - pad_begin in [0, kept), and the mode decides for r outside.
  struct Axis {
    std::int64_t crop_begin = 0;
    std::int64_t kept = 0;
    std::int64_t pad_begin = 0;
  };
  // The input index output index `o` of `axis` copies, or -1 for the pad value.
  std::int64_t Source(const Axis& axis, std::int64_t o) const;

  Mode mode_ = Mode::kConstant;
  std::vector<Axis> axes_;
  std::vector<std::int64_t> in_strides_;
  std::vector<std::int64_t> out_dims_;
  bool value_from_input_ = false;
  std::array<std::byte, 8> value_{};  // The pad value's bytes when it is an attribute.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_PAD_H_
