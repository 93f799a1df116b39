#include "engine/kernels/conv.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/window.h"

namespace edgemond::engine {
namespace {

// The output positions o in [0, out) whose input position o * stride + offset is in [0, in).
void ValidRange(std::int64_t offset, std::int64_t stride, std::int64_t in, std::int64_t out,
                std::int64_t& first, std::int64_t& last) {
  first = std::max<std::int64_t>(0, FloorDiv(-offset + stride - 1, stride));
  last = std::min<std::int64_t>(out, FloorDiv(in - 1 - offset, stride) + 1);
}

}  // namespace

Status ConvKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 3));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(1, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 3, 5));
  const Shape& x = context.input(0).shape;
  const Shape& w = context.input(1).shape;
  const int spatial = x.rank() - 2;
  if (w.rank() != x.rank()) {
    return Status::InvalidArgument("W has shape " + w.ToString() + " for X of shape " +
                                   x.ToString());
  }
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(geometry_.group, attributes.GetInt("group", 1));
  const std::int64_t group = geometry_.group;
  geometry_.batch = x.dim(0);
  geometry_.in_channels = x.dim(1);
  geometry_.out_channels = w.dim(0);
  if (group < 1 || geometry_.in_channels % group != 0 || geometry_.out_channels % group != 0 ||
      w.dim(1) * group != geometry_.in_channels) {
    return Status::InvalidArgument("W of shape " + w.ToString() + " and group " +
                                   std::to_string(group) + " do not match " +
                                   std::to_string(geometry_.in_channels) + " input channels");
  }
  std::vector<std::int64_t> kernel(w.dims().begin() + 2, w.dims().end());
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
  const std::vector<std::int64_t> input(x.dims().begin() + 2, x.dims().end());
  EDGEMOND_ASSIGN_OR_RETURN(const WindowGeometry out, ComputeWindow(input, kernel, window));

  std::vector<std::int64_t> y_dims = {geometry_.batch, geometry_.out_channels};
  const int lead = 3 - spatial;  // Unit dimensions in front of the real ones.
  for (int i = 0; i < spatial; ++i) {
    const auto s = static_cast<std::size_t>(i);
    const auto g = static_cast<std::size_t>(i + lead);
    geometry_.in[g] = input[s];
    geometry_.out[g] = out.output[s];
    geometry_.kernel[g] = kernel[s];
    geometry_.stride[g] = window.strides[s];
    geometry_.dilation[g] = window.dilations[s];
    geometry_.pad_begin[g] = out.pad_begin[s];
    y_dims.push_back(out.output[s]);
  }
  const std::uint64_t taps =
      static_cast<std::uint64_t>(geometry_.in_channels / group) *
      static_cast<std::uint64_t>(geometry_.kernel[0] * geometry_.kernel[1] * geometry_.kernel[2]);
  const std::uint64_t outputs =
      static_cast<std::uint64_t>(geometry_.batch * geometry_.out_channels * geometry_.out[0] *
                                 geometry_.out[1] * geometry_.out[2]);
  activation_ = context.activation();
  context.SetFlops(2 * outputs * taps + outputs * ActivationFlopsPerElement(activation_.kind));
  return context.SetOutput(0, DataType::kFloat32, Shape(std::move(y_dims)));
}

Status ConvKernel::Run(const RunContext& context) const {
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
      const std::int64_t first_channel = (m / out_per_group) * in_per_group;
      for (std::int64_t c = 0; c < in_per_group; ++c) {
        const float* x_plane = x + (n * g.in_channels + first_channel + c) * in_plane;
        const float* w_taps = w + (m * in_per_group + c) * kernel_volume;
        // Each kernel tap adds w * (a shifted, strided view of x) to the output; the valid
        // output range per dimension is computed once, so the inner loop has no branches.
        for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd) {
          const std::int64_t off_d = kd * g.dilation[0] - g.pad_begin[0];
          std::int64_t d0, d1;
          ValidRange(off_d, g.stride[0], g.in[0], g.out[0], d0, d1);
          for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh) {
            const std::int64_t off_h = kh * g.dilation[1] - g.pad_begin[1];
            std::int64_t h0, h1;
            ValidRange(off_h, g.stride[1], g.in[1], g.out[1], h0, h1);
            for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
              const std::int64_t off_w = kw * g.dilation[2] - g.pad_begin[2];
              std::int64_t w0, w1;
              ValidRange(off_w, g.stride[2], g.in[2], g.out[2], w0, w1);
              const float weight = w_taps[(kd * g.kernel[1] + kh) * g.kernel[2] + kw];
              for (std::int64_t od = d0; od < d1; ++od) {
                const std::int64_t id = od * g.stride[0] + off_d;
                for (std::int64_t oh = h0; oh < h1; ++oh) {
                  const std::int64_t ih = oh * g.stride[1] + off_h;
                  const float* x_row = x_plane + (id * g.in[1] + ih) * g.in[2];
                  float* y_row = y_plane + (od * g.out[1] + oh) * g.out[2];
                  for (std::int64_t ow = w0; ow < w1; ++ow) {
                    y_row[ow] += weight * x_row[ow * g.stride[2] + off_w];
                  }
                }
              }
            }
          }
        }
      }
      ActivateInPlace(activation_, y_plane, out_plane);
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
