#include "engine/kernels/nhwc_conv.h"

#include <string>

#include "engine/kernels/cpu/fused_activation.h"

namespace edgemond::engine {
namespace {

Result<std::vector<std::int64_t>> ReadPair(AttributeReader& attributes, std::string_view name,
                                           std::size_t count, std::int64_t min) {
  EDGEMOND_ASSIGN_OR_RETURN(std::vector<std::int64_t> values, attributes.GetInts(name));
  if (values.size() != count) {
    return Status::InvalidArgument(std::string(name) + " must have " + std::to_string(count) +
                                   " values");
  }
  for (const std::int64_t v : values) {
    if (v < min)
      return Status::InvalidArgument(std::string(name) + " has a value below " +
                                     std::to_string(min));
  }
  return values;
}

// The image sizes and padding that the fast kernels' argument structs share.
template <typename Args>
void SetSizes(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t out_h,
              std::int64_t out_w, const std::vector<std::int64_t>& pads, Args& args) {
  args.batch = n;
  args.in_h = h;
  args.in_w = w;
  args.out_h = out_h;
  args.out_w = out_w;
  args.pad_top = pads[0];
  args.pad_left = pads[1];
}

// The window that cpu::ConvArgs and cpu::DepthwiseArgs share.
template <typename Args>
void SetWindow(std::int64_t kh, std::int64_t kw, const std::vector<std::int64_t>& strides,
               const std::vector<std::int64_t>& dilations, Args& args) {
  args.kernel_h = kh;
  args.kernel_w = kw;
  args.stride_h = strides[0];
  args.stride_w = strides[1];
  args.dilation_h = dilations[0];
  args.dilation_w = dilations[1];
}

// Whether a 3x3 convolution of stride 1 runs as Winograd's F(2x2, 3x3) (cpu::WinogradArgs):
// 16 products per 2x2 tile and channel pair instead of 36, for 16/9 of the weights and a
// transformed copy of the input and of the products in scratch memory. Sum of per-node
// minima against the implicit GEMM over alternating rounds on an AVX-512 Xeon
// (docs/adr/0109-engine-winograd-3x3.md): ResNet-18's and ResNet-50's 56x56, 28x28 and 14x14 layers
// 0.52-0.81, ResNet-50 0.87 (1 thread) and 0.80 (2 threads), ResNet-18 0.84 at 1 thread. Not
// where few tiles share the larger weights: ResNet's 7x7 layers of 512 channels (16 tiles)
// ran 1.12-1.19, their weights streaming from memory for too few tiles. Not for 16 input
// channels: SqueezeNet's 55x55 layers of 16 -> 64 channels ran 0.86-1.07 and slowed the
// layers around them (a reduction of 16 per point, against 144 for the implicit GEMM).
bool WinogradPays(std::int64_t batch, std::int64_t out_h, std::int64_t out_w, std::int64_t in_c,
                  std::int64_t out_c) {
  return cpu::WinogradTiles(batch, out_h, out_w) >= 32 && in_c >= 32 && out_c >= 16;
}

}  // namespace

Status NhwcConvKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 5));
  for (int i = 0; i < context.num_inputs(); ++i) {
    if (context.has_input(i)) {
      EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(i, {DataType::kFloat32}));
    }
  }
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 4, 4));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(1, 4, 4));
  const Tensor* w = context.constant(1);
  const Tensor* b = context.has_input(2) ? context.constant(2) : nullptr;
  if (w == nullptr || (context.has_input(2) && b == nullptr)) {
    return Status::Unsupported("W and B must be constants");
  }
  const Shape& x = context.input(0).shape;
  const Shape& ws = w->shape();
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t group, attributes.GetInt("group", 1));
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> strides,
                            ReadPair(attributes, "strides", 2, 1));
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> dilations,
                            ReadPair(attributes, "dilations", 2, 1));
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> pads,
                            ReadPair(attributes, "pads", 4, 0));
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t nchw_input, attributes.GetInt("nchw_input", 0));
  const bool planar = nchw_input != 0;
  const std::int64_t n = x.dim(0);
  const std::int64_t h = planar ? x.dim(2) : x.dim(1);
  const std::int64_t wd = planar ? x.dim(3) : x.dim(2);
  const std::int64_t c = planar ? x.dim(1) : x.dim(3);
  const std::int64_t m = ws.dim(0), kh = ws.dim(2), kw = ws.dim(3);
  if (group < 1 || c % group != 0 || m % group != 0 || ws.dim(1) * group != c) {
    return Status::InvalidArgument("W of shape " + ws.ToString() + " and group " +
                                   std::to_string(group) + " do not match X of shape " +
                                   x.ToString() + " (NHWC)");
  }
  if (kh * kw > kNhwcConvMaxTaps || kh < 1 || kw < 1) {
    return Status::Unsupported("kernel " + std::to_string(kh) + "x" + std::to_string(kw));
  }
  if (b != nullptr && (b->shape().rank() != 1 || b->shape().dim(0) != m)) {
    return Status::InvalidArgument("B has shape " + b->shape().ToString());
  }
  const std::int64_t span_h = dilations[0] * (kh - 1) + 1;
  const std::int64_t span_w = dilations[1] * (kw - 1) + 1;
  if (h + pads[0] + pads[2] < span_h || wd + pads[1] + pads[3] < span_w) {
    return Status::InvalidArgument("the kernel does not fit the padded input");
  }
  const std::int64_t out_h = (h + pads[0] + pads[2] - span_h) / strides[0] + 1;
  const std::int64_t out_w = (wd + pads[1] + pads[3] - span_w) / strides[1] + 1;
  if (context.has_input(3)) {
    const Shape& r = context.input(3).shape;
    if (r != Shape{n, out_h, out_w, m}) {
      return Status::InvalidArgument("R has shape " + r.ToString() + "; the output is " +
                                     Shape{n, out_h, out_w, m}.ToString());
    }
  }
  scaled_ = context.has_input(4);
  if (scaled_) {
    const Shape& scale = context.input(4).shape;
    if (group != 1 || planar || c == 1 || scale != Shape{1, 1, 1, c}) {
      return Status::InvalidArgument("S has shape " + scale.ToString() + "; it needs [1, 1, 1, " +
                                     std::to_string(c) +
                                     "], group 1, NHWC input and more than one input channel");
    }
  }
  kernels_ = &cpu::FastKernelsFor(BestIsa());
  const cpu::ActivationParams activation = cpu::ToActivationParams(context.activation());
  const float* w_data = w->data<float>();
  if (planar && (group != 1 || kh * kw * c > cpu::kMaxNchwInputReduction)) {
    return Status::InvalidArgument("nchw_input needs group 1 and a reduction of at most " +
                                   std::to_string(cpu::kMaxNchwInputReduction) + ", not " +
                                   std::to_string(kh * kw * c));
  }
  depthwise_ = !planar && group == c && group == m;
  // Floats from one output pixel to the next: m, or more when the output is a slice of the
  // channels of a larger tensor (an in-place Concat's, edgemond.NhwcConcat).
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t y_pixel_stride,
                            attributes.GetInt("y_pixel_stride", m));
  if (y_pixel_stride != m &&
      (y_pixel_stride < m || depthwise_ || context.has_input(3) || group != 1)) {
    return Status::InvalidArgument(
        "y_pixel_stride " + std::to_string(y_pixel_stride) +
        " needs at least the output's channels, group 1 and no residual input");
  }
  if (depthwise_) {
    EDGEMOND_RETURN_IF_ERROR(packed_.Allocate(kh * kw * c));
    for (std::int64_t t = 0; t < kh * kw; ++t) {
      for (std::int64_t ch = 0; ch < c; ++ch) packed_.data()[t * c + ch] = w_data[ch * kh * kw + t];
    }
    bias_.assign(static_cast<std::size_t>(c), 0.0f);
    if (b != nullptr) {
      for (std::int64_t ch = 0; ch < c; ++ch) {
        bias_[static_cast<std::size_t>(ch)] = b->data<float>()[ch];
      }
    }
    cpu::DepthwiseArgs& d = depthwise_args_;
    SetSizes(n, h, wd, out_h, out_w, pads, d);
    SetWindow(kh, kw, strides, dilations, d);
    d.channels = c;
    d.packed_w = packed_.data();
    d.bias = bias_.data();
    d.activation = activation;
  } else {
    const std::int64_t in_c = c / group;
    const std::int64_t out_c = m / group;
    winograd_ = group == 1 && !planar && !scaled_ && kh == 3 && kw == 3 && strides[0] == 1 &&
                strides[1] == 1 && dilations[0] == 1 && dilations[1] == 1 &&
                WinogradPays(n, out_h, out_w, in_c, out_c);
    const std::int64_t padded = cpu::PaddedChannels(out_c);
    bias_.assign(static_cast<std::size_t>(group * padded), 0.0f);
    if (b != nullptr) {
      for (std::int64_t g = 0; g < group; ++g) {
        for (std::int64_t o = 0; o < out_c; ++o) {
          bias_[static_cast<std::size_t>(g * padded + o)] = b->data<float>()[g * out_c + o];
        }
      }
    }
    zero_.assign(static_cast<std::size_t>(in_c), 0.0f);
    if (winograd_) {
      const int packed_panels = cpu::ConvPackedPanels(*kernels_, in_c);
      EDGEMOND_RETURN_IF_ERROR(packed_.Allocate(cpu::PackedWinogradFloats(out_c, in_c)));
      cpu::PackWinogradWeights(w_data, out_c, in_c, packed_panels, packed_.data());
      zero_bias_.assign(static_cast<std::size_t>(padded), 0.0f);
      cpu::WinogradArgs& a = winograd_args_;
      SetSizes(n, h, wd, out_h, out_w, pads, a);
      a.in_c = in_c;
      a.out_c = out_c;
      a.x_pixel_stride = c;
      a.y_pixel_stride = y_pixel_stride;
      a.packed_u = packed_.data();
      a.packed_panels = packed_panels;
      a.bias = bias_.data();
      a.zero_bias = zero_bias_.data();
      a.zero = zero_.data();
      a.activation = activation;
      context.SetScratchBytes(sizeof(float) *
                              cpu::WinogradScratchFloats(n, out_h, out_w, in_c, out_c));
    } else {
      EDGEMOND_RETURN_IF_ERROR(
          packed_.Allocate(group * cpu::PackedConvFloats(out_c, in_c, kh, kw)));
      const int packed_panels = cpu::ConvPackedPanels(*kernels_, kh * kw * in_c);
      if (planar) {
        cpu::PackNchwInputConvWeights(w_data, out_c, in_c, kh, kw, packed_panels, packed_.data());
      } else {
        cpu::PackConvWeights(w_data, group, out_c, in_c, kh, kw, packed_panels, packed_.data());
      }
      cpu::ConvArgs& a = conv_;
      SetSizes(n, h, wd, out_h, out_w, pads, a);
      SetWindow(kh, kw, strides, dilations, a);
      a.in_c = in_c;
      a.out_c = out_c;
      a.groups = group;
      a.x_pixel_stride = c;
      a.x_nchw = planar;
      a.y_pixel_stride = y_pixel_stride;
      a.packed_w = packed_.data();
      a.packed_panels = packed_panels;
      a.bias = bias_.data();
      a.zero = zero_.data();
      a.activation = activation;
      if (scaled_) context.SetScratchBytes(sizeof(float) * packed_.size());
    }
  }
  context.SetFlops(2 * static_cast<std::uint64_t>(n * out_h * out_w * m) *
                   static_cast<std::uint64_t>(kh * kw * (c / group)));
  return context.SetOutput(0, DataType::kFloat32, Shape{n, out_h, out_w, m});
}

Status NhwcConvKernel::Run(const RunContext& context) const {
  const float* x = context.input(0).data<float>();
  float* y = context.output(0).data<float>();
  const float* residual = context.has_input(3) ? context.input(3).data<float>() : nullptr;
  if (depthwise_) {
    cpu::DepthwiseArgs args = depthwise_args_;
    args.x = x;
    args.y = y;
    args.residual = residual;
    kernels_->depthwise(args, context.pool());
  } else if (winograd_) {
    cpu::WinogradArgs args = winograd_args_;
    args.x = x;
    args.y = y;
    args.residual = residual;
    args.scratch = reinterpret_cast<float*>(context.scratch().data());
    args.other_weight_bytes = context.OtherConstantBytes(PackedBytes());
    kernels_->winograd_conv(args, context.pool());
  } else {
    cpu::ConvArgs args = conv_;
    args.x = x;
    args.y = y;
    args.residual = residual;
    if (scaled_) {
      auto* scaled = reinterpret_cast<float*>(context.scratch().data());
      cpu::ScalePackedConvWeights(conv_.packed_w, conv_.out_c, conv_.in_c, conv_.kernel_h,
                                  conv_.kernel_w, conv_.packed_panels,
                                  context.input(4).data<float>(), scaled);
      args.packed_w = scaled;
    } else {
      // Scaled weights were just written, so they are in the cache; these were last read one
      // run ago, before the rest of the model's weights passed through it.
      args.other_weight_bytes = context.OtherConstantBytes(PackedBytes());
    }
    kernels_->conv(args, context.pool());
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
