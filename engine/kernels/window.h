// Sliding-window geometry shared by Conv, MaxPool and AveragePool: reads auto_pad, pads,
// strides, dilations and ceil_mode, and computes output sizes and effective padding the way
// ONNX defines them (including the rule, shared with PyTorch, that in ceil mode the last
// window must start inside the input or its leading padding).

#ifndef EDGEMOND_ENGINE_KERNELS_WINDOW_H_
#define EDGEMOND_ENGINE_KERNELS_WINDOW_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "engine/kernel.h"

namespace edgemond::engine {

enum class AutoPad : std::uint8_t { kNotSet, kSameUpper, kSameLower, kValid };

struct WindowAttributes {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<std::int64_t> strides;    // One per spatial dimension.
  std::vector<std::int64_t> dilations;  // One per spatial dimension.
  std::vector<std::int64_t> pads;       // Begin values, then end values.
  bool ceil_mode = false;
};

// Reads the window attributes for `spatial_rank` dimensions, filling defaults (strides and
// dilations 1, pads 0). `ceil_mode` and `dilations` are read only when the op has them.
Result<WindowAttributes> ReadWindowAttributes(AttributeReader& attributes, int spatial_rank,
                                              bool has_ceil_mode, bool has_dilations);

struct WindowGeometry {
  std::vector<std::int64_t> output;     // Output spatial sizes.
  std::vector<std::int64_t> pad_begin;  // Effective leading padding.
  std::vector<std::int64_t> pad_end;    // Effective trailing padding (explicit or automatic).
};

// Output sizes for `input` spatial sizes and `kernel` sizes. kInvalidArgument when a window
// does not fit the padded input.
Result<WindowGeometry> ComputeWindow(std::span<const std::int64_t> input,
                                     std::span<const std::int64_t> kernel,
                                     const WindowAttributes& attributes);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_WINDOW_H_
