#include "engine/kernels/conv_transpose.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/window.h"

namespace edgemond::engine {
namespace {

// Beyond this, a stride, dilation, pad or requested size only comes from a corrupt model; the
// bound keeps every size computation below exact in int64.
constexpr std::int64_t kMaxGeometryValue = std::int64_t{1} << 24;

}  // namespace

Status ConvTransposeKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 3));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(1, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 3, 5));
  const Shape& x = context.input(0).shape;
  const Shape& w = context.input(1).shape;
  const int spatial = x.rank() - 2;
  const auto rank = static_cast<std::size_t>(spatial);
  if (w.rank() != x.rank()) {
    return Status::InvalidArgument("W has shape " + w.ToString() + " for X of shape " +
                                   x.ToString());
  }
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(geometry_.group, attributes.GetInt("group", 1));
  const std::int64_t group = geometry_.group;
  geometry_.batch = x.dim(0);
  geometry_.in_channels = x.dim(1);
  if (group < 1 || w.dim(0) != geometry_.in_channels || geometry_.in_channels % group != 0) {
    return Status::InvalidArgument("W of shape " + w.ToString() + " and group " +
                                   std::to_string(group) + " do not match " +
                                   std::to_string(geometry_.in_channels) + " input channels");
  }
  geometry_.out_channels = w.dim(1) * group;
  const std::vector<std::int64_t> kernel(w.dims().begin() + 2, w.dims().end());
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> kernel_shape,
                            attributes.GetInts("kernel_shape"));
  if (!kernel_shape.empty() && kernel_shape != kernel) {
    return Status::InvalidArgument("kernel_shape does not match W of shape " + w.ToString());
  }
  if (context.has_input(2)) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(2, {DataType::kFloat32}));
    const Shape& b = context.input(2).shape;
    if (b.rank() != 1 || b.dim(0) != geometry_.out_channels) {
      return Status::InvalidArgument("B has shape " + b.ToString() + "; expected " +
                                     std::to_string(geometry_.out_channels));
    }
    has_bias_ = true;
  }
  EDGEMOND_ASSIGN_OR_RETURN(const WindowAttributes window,
                            ReadWindowAttributes(attributes, spatial, /*has_ceil_mode=*/false,
                                                 /*has_dilations=*/true));
  EDGEMOND_ASSIGN_OR_RETURN(std::vector<std::int64_t> output_padding,
                            attributes.GetInts("output_padding"));
  if (output_padding.empty()) output_padding.assign(rank, 0);
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> output_shape,
                            attributes.GetInts("output_shape"));
  if (output_padding.size() != rank || (!output_shape.empty() && output_shape.size() != rank)) {
    return Status::InvalidArgument("output_padding and output_shape need " + std::to_string(rank) +
                                   " values");
  }
  for (std::size_t i = 0; i < rank; ++i) {
    const bool bad =
        window.strides[i] > kMaxGeometryValue || window.dilations[i] > kMaxGeometryValue ||
        window.pads[i] > kMaxGeometryValue || window.pads[i + rank] > kMaxGeometryValue ||
        output_padding[i] < 0 ||
        output_padding[i] >= std::max(window.strides[i], window.dilations[i]) ||
        (!output_shape.empty() && (output_shape[i] < 0 || output_shape[i] > kMaxGeometryValue)) ||
        kernel[i] > kMaxGeometryValue;
    if (bad) {
      return Status::InvalidArgument(
          "strides, dilations, pads, output_padding or output_shape out of range for spatial "
          "dimension " +
          std::to_string(i) + " (output_padding must be below the stride or the dilation)");
    }
  }

  std::vector<std::int64_t> y_dims = {geometry_.batch, geometry_.out_channels};
  const int lead = 3 - spatial;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t in = x.dim(static_cast<int>(i) + 2);
    // The output size with no padding removed.
    const std::int64_t full = window.strides[i] * (in - 1) + output_padding[i] +
                              (kernel[i] - 1) * window.dilations[i] + 1;
    std::int64_t out = 0;
    std::int64_t pad_begin = 0;
    if (window.auto_pad == AutoPad::kSameUpper || window.auto_pad == AutoPad::kSameLower) {
      out = output_shape.empty() ? in * window.strides[i] : output_shape[i];
      const std::int64_t total = full - out;
      pad_begin =
          window.auto_pad == AutoPad::kSameUpper ? FloorDiv(total, 2) : total - FloorDiv(total, 2);
    } else {
      // VALID and NOTSET: explicit pads (zero for VALID); an explicit output_shape fixes the
      // size, with the pads' leading part still removed in front (as ONNX's reference does).
      pad_begin = window.pads[i];
      out = output_shape.empty() ? full - window.pads[i] - window.pads[i + rank] : output_shape[i];
    }
    if (out < 0) {
      return Status::InvalidArgument(
          "the output would have a negative size in spatial "
          "dimension " +
          std::to_string(i));
    }
    const auto g = static_cast<std::size_t>(static_cast<int>(i) + lead);
    geometry_.in[g] = in;
    geometry_.out[g] = out;
    geometry_.kernel[g] = kernel[i];
    geometry_.stride[g] = window.strides[i];
    geometry_.dilation[g] = window.dilations[i];
    geometry_.pad_begin[g] = pad_begin;
    y_dims.push_back(out);
  }
  const std::uint64_t taps =
      static_cast<std::uint64_t>(geometry_.out_channels / group) *
      static_cast<std::uint64_t>(geometry_.kernel[0] * geometry_.kernel[1] * geometry_.kernel[2]);
  const std::uint64_t inputs =
      static_cast<std::uint64_t>(geometry_.batch * geometry_.in_channels * geometry_.in[0] *
                                 geometry_.in[1] * geometry_.in[2]);
  context.SetFlops(2 * inputs * taps);
  return context.SetOutput(0, DataType::kFloat32, Shape(std::move(y_dims)));
}

Status ConvTransposeKernel::Run(const RunContext& context) const {
  const ConvGeometry& g = geometry_;
  const float* x = context.input(0).data<float>();
  const float* w = context.input(1).data<float>();
  const float* bias = has_bias_ ? context.input(2).data<float>() : nullptr;
  float* y = context.output(0).data<float>();

  const std::int64_t in_per_group = g.in_channels / g.group;
  const std::int64_t out_per_group = g.out_channels / g.group;
  const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const std::int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  const std::int64_t kernel_volume = g.kernel[0] * g.kernel[1] * g.kernel[2];

  for (std::int64_t n = 0; n < g.batch; ++n) {
    for (std::int64_t m = 0; m < g.out_channels; ++m) {
      float* y_plane = y + (n * g.out_channels + m) * out_plane;
      std::fill(y_plane, y_plane + out_plane, bias != nullptr ? bias[m] : 0.0f);
    }
    for (std::int64_t c = 0; c < g.in_channels; ++c) {
      const std::int64_t group = c / in_per_group;
      const float* x_plane = x + (n * g.in_channels + c) * in_plane;
      for (std::int64_t ml = 0; ml < out_per_group; ++ml) {
        const std::int64_t m = group * out_per_group + ml;
        float* y_plane = y + (n * g.out_channels + m) * out_plane;
        const float* w_taps = w + (c * out_per_group + ml) * kernel_volume;
        for (std::int64_t id = 0; id < g.in[0]; ++id) {
          for (std::int64_t ih = 0; ih < g.in[1]; ++ih) {
            for (std::int64_t iw = 0; iw < g.in[2]; ++iw) {
              const float v = x_plane[(id * g.in[1] + ih) * g.in[2] + iw];
              for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd) {
                const std::int64_t od = id * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
                if (od < 0 || od >= g.out[0]) continue;
                for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                  const std::int64_t oh = ih * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
                  if (oh < 0 || oh >= g.out[1]) continue;
                  for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    const std::int64_t ow = iw * g.stride[2] + kw * g.dilation[2] - g.pad_begin[2];
                    if (ow < 0 || ow >= g.out[2]) continue;
                    y_plane[(od * g.out[1] + oh) * g.out[2] + ow] +=
                        v * w_taps[(kd * g.kernel[1] + kh) * g.kernel[2] + kw];
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
