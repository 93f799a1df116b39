#include "engine/kernels/window.h"

#include <algorithm>
#include <string>

namespace edgemond::engine {
namespace {

Status CheckLength(const std::vector<std::int64_t>& values, std::size_t expected,
                   std::string_view name) {
  if (values.size() != expected) {
    return Status::InvalidArgument("attribute '" + std::string(name) + "' has " +
                                   std::to_string(values.size()) + " values; expected " +
                                   std::to_string(expected));
  }
  return Status::Ok();
}

}  // namespace

Result<WindowAttributes> ReadWindowAttributes(AttributeReader& attributes, int spatial_rank,
                                              bool has_ceil_mode, bool has_dilations) {
  WindowAttributes window;
  const auto rank = static_cast<std::size_t>(spatial_rank);
  EDGEMOND_ASSIGN_OR_RETURN(const std::string auto_pad, attributes.GetString("auto_pad", "NOTSET"));
  if (auto_pad == "NOTSET") {
    window.auto_pad = AutoPad::kNotSet;
  } else if (auto_pad == "SAME_UPPER") {
    window.auto_pad = AutoPad::kSameUpper;
  } else if (auto_pad == "SAME_LOWER") {
    window.auto_pad = AutoPad::kSameLower;
  } else if (auto_pad == "VALID") {
    window.auto_pad = AutoPad::kValid;
  } else {
    return Status::InvalidArgument("auto_pad '" + auto_pad +
                                   "' is not one of NOTSET, "
                                   "SAME_UPPER, SAME_LOWER, VALID");
  }

  EDGEMOND_ASSIGN_OR_RETURN(window.strides, attributes.GetInts("strides"));
  if (window.strides.empty()) window.strides.assign(rank, 1);
  EDGEMOND_RETURN_IF_ERROR(CheckLength(window.strides, rank, "strides"));
  if (has_dilations) {
    EDGEMOND_ASSIGN_OR_RETURN(window.dilations, attributes.GetInts("dilations"));
  }
  if (window.dilations.empty()) window.dilations.assign(rank, 1);
  EDGEMOND_RETURN_IF_ERROR(CheckLength(window.dilations, rank, "dilations"));
  for (std::size_t i = 0; i < rank; ++i) {
    if (window.strides[i] < 1 || window.dilations[i] < 1) {
      return Status::InvalidArgument("strides and dilations must be positive");
    }
  }

  EDGEMOND_ASSIGN_OR_RETURN(window.pads, attributes.GetInts("pads"));
  if (window.pads.empty()) window.pads.assign(2 * rank, 0);
  EDGEMOND_RETURN_IF_ERROR(CheckLength(window.pads, 2 * rank, "pads"));
  for (const std::int64_t pad : window.pads) {
    if (pad < 0) return Status::InvalidArgument("pads must not be negative");
    // ONNX forbids pads together with auto_pad; exporters sometimes write zeros anyway.
    if (pad != 0 && window.auto_pad != AutoPad::kNotSet) {
      return Status::InvalidArgument("pads cannot be combined with auto_pad");
    }
  }
  if (has_ceil_mode) {
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t ceil_mode, attributes.GetInt("ceil_mode", 0));
    window.ceil_mode = ceil_mode != 0;
  }
  return window;
}

Result<WindowGeometry> ComputeWindow(std::span<const std::int64_t> input,
                                     std::span<const std::int64_t> kernel,
                                     const WindowAttributes& attributes) {
  const std::size_t rank = input.size();
  WindowGeometry geometry;
  geometry.output.resize(rank);
  geometry.pad_begin.resize(rank);
  geometry.pad_end.resize(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t in = input[i];
    const std::int64_t stride = attributes.strides[i];
    if (kernel[i] < 1) return Status::InvalidArgument("kernel sizes must be positive");
    const std::int64_t span = (kernel[i] - 1) * attributes.dilations[i] + 1;
    std::int64_t out = 0;
    std::int64_t begin = 0;
    std::int64_t end = 0;
    switch (attributes.auto_pad) {
      case AutoPad::kNotSet:
      case AutoPad::kValid: {
        if (attributes.auto_pad == AutoPad::kNotSet) {
          begin = attributes.pads[i];
          end = attributes.pads[i + rank];
        }
        const std::int64_t room = in + begin + end - span;
        if (room < 0) {
          return Status::InvalidArgument("window of " + std::to_string(span) +
                                         " does not fit input size " + std::to_string(in) +
                                         " with padding");
        }
        out = (attributes.ceil_mode ? (room + stride - 1) / stride : room / stride) + 1;
        // The last window must start inside the input or the leading padding.
        if (attributes.ceil_mode && (out - 1) * stride >= in + begin) --out;
        break;
      }
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        out = (in + stride - 1) / stride;
        const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * stride + span - in);
        begin = attributes.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
        end = total - begin;
        break;
      }
    }
    geometry.output[i] = out;
    geometry.pad_begin[i] = begin;
    geometry.pad_end[i] = end;
  }
  return geometry;
}

}  // namespace edgemond::engine
