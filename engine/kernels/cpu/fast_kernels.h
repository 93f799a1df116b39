// The optimized CPU kernels behind the engine's NHWC operators: one table of functions per
// instruction set (engine/cpu/cpu_features.h), all written once in fast_kernels_impl.h over a
// small vector type and compiled per ISA (fast_kernels_<isa>.cc). Every entry is tested
// against the reference kernels on every ISA the test machine supports
// (fast_kernels_test.cc); docs/adr/0108-engine-cpu-kernels.md.
//
// Data layout: activations are NHWC (channels innermost). Convolution weights are packed at
// load by PackConvWeights into panels of kPanelWidth output channels, output channels past the
// end zero-filled, K = kernel_h * kernel_w * in_channels rows in (kh, kw, c) order. Two layouts
// (`packed_panels`): 1, each panel's K rows of kPanelWidth floats one after another; or the
// ISA's FastKernels::tile_panels, the panels in groups of that many (the last group may have
// fewer), each group K rows of its panels' floats side by side. A micro-kernel's tile covers
// one group of tile_panels panels and reads one row of each per step of its reduction: one
// stream of weights in the second layout, tile_panels streams K rows apart in the first
// (ConvPackedPanels says which a layer gets).
//
// Thread safety: the functions are pure over their arguments; they split their work over
// `pool` (which may be null) and write only their outputs.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_FAST_KERNELS_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_FAST_KERNELS_H_

#include <cstdint>
#include <vector>

#include "engine/cpu/cpu_features.h"
#include "engine/cpu/thread_pool.h"

namespace edgemond::engine::cpu {

inline constexpr int kPanelWidth = 16;

// An activation applied to a kernel's result before it is stored (a fused epilogue).
enum class Activation : std::uint8_t {
  kNone,
  kRelu,         // max(0, x)
  kLeakyRelu,    // x < 0 ? a * x : x
  kClip,         // min(b, max(a, x))
  kHardSigmoid,  // max(0, min(1, a * x + b))
  kHardSwish,    // x * max(0, min(1, x / 6 + 1 / 2))
  kSigmoid,      // 1 / (1 + exp(-x))
  kSilu,         // x * sigmoid(x)
};

struct ActivationParams {
  Activation kind = Activation::kNone;
  float a = 0.0f;
  float b = 0.0f;
};

// A convolution as an implicit GEMM over NHWC data: rows are output pixels, columns output
// channels, the reduction runs over kernel taps x input channels. Grouped convolutions run
// group by group (each group's channels are a slice of the pixel). A dense layer is the
// 1x1 case with in_h = out_h = rows and in_w = out_w = 1.
struct ConvArgs {
  std::int64_t batch = 1;
  std::int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  std::int64_t in_c = 0;   // Per group.
  std::int64_t out_c = 0;  // Per group.
  std::int64_t groups = 1;
  std::int64_t kernel_h = 1, kernel_w = 1;
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_left = 0;
  std::int64_t x_pixel_stride = 0;  // Floats from one input pixel to the next.
  // The input is planar (NCHW, one image after another) instead: a network's first layer,
  // which then needs no transposed copy of the image. REQUIRES: groups == 1 and
  // kernel_h * kernel_w * in_c <= kMaxNchwInputReduction; packed_w from
  // PackNchwInputConvWeights. x_pixel_stride is unused.
  bool x_nchw = false;
  std::int64_t y_pixel_stride = 0;  // Floats from one output pixel to the next.
  const float* x = nullptr;
  float* y = nullptr;
  // Added before the activation; laid out like y, or null. May be y itself: every element of
  // the residual is read before the same element of y is first written, and no other.
  const float* residual = nullptr;
  const float* packed_w = nullptr;  // Groups one after another, each PackedConvFloats() long.
  // The packers' packed_panels for packed_w: 1 or the kernels' tile_panels.
  int packed_panels = 1;
  const float* bias = nullptr;  // groups x PaddedChannels(out_c), zero where absent.
  const float* zero = nullptr;  // in_c zeros, read for padding taps.
  ActivationParams activation;
  // Bytes of weights the kernel may keep in one core's L2 cache while its tiles pass over them
  // (which layers run tile by tile, each tile its whole reduction, and which chunk by chunk);
  // 0: ConvCacheBudgetBytes().
  std::int64_t cache_budget_bytes = 0;
  // Bytes of other weights that pass through the cache between two runs of this layer (the
  // rest of a network's): where these and the layer's own are beyond the cache budget, the
  // layer's weights come from memory on every run, as they do when its own alone are. >= 0.
  std::int64_t other_weight_bytes = 0;
};

// A 3x3 convolution of stride 1 and dilation 1 (one group) by Winograd's minimal filtering
// F(2x2, 3x3) over NHWC data: each 2x2 block of output pixels (a tile) reads a 4x4 window of
// the input, which the input transform turns into 16 points of in_c values (V = B^T d B);
// point by point, a 1x1 convolution with that point's transformed weights (U = G g G^T,
// PackWinogradWeights) makes 16 points of out_c values (M = V U), and the output transform
// turns them into the tile's 4 pixels (Y = A^T M A), adding the bias and the residual and
// applying the activation. 16 products per tile and channel pair instead of 36
// (docs/adr/0109-engine-winograd-3x3.md).
struct WinogradArgs {
  std::int64_t batch = 1;
  std::int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  std::int64_t in_c = 0, out_c = 0;
  std::int64_t pad_top = 0, pad_left = 0;
  std::int64_t x_pixel_stride = 0;  // Floats from one input pixel to the next.
  std::int64_t y_pixel_stride = 0;  // Floats from one output pixel to the next.
  const float* x = nullptr;
  float* y = nullptr;
  // Added before the activation; laid out like y, or null. May be y itself (as ConvArgs').
  const float* residual = nullptr;
  const float* packed_u = nullptr;   // PackWinogradWeights.
  int packed_panels = 1;             // ConvPackedPanels(kernels, in_c).
  const float* bias = nullptr;       // PaddedChannels(out_c), zero where absent.
  const float* zero_bias = nullptr;  // PaddedChannels(out_c) zeros.
  const float* zero = nullptr;       // in_c zeros.
  ActivationParams activation;
  // WinogradScratchFloats() floats of working memory: the transformed input and products.
  float* scratch = nullptr;
  std::int64_t cache_budget_bytes = 0;  // As ConvArgs'.
  std::int64_t other_weight_bytes = 0;  // As ConvArgs'.
};

inline constexpr std::int64_t kWinogradPoints = 16;

// Tiles of 2x2 output pixels of a Winograd convolution.
inline std::int64_t WinogradTiles(std::int64_t batch, std::int64_t out_h, std::int64_t out_w) {
  return batch * ((out_h + 1) / 2) * ((out_w + 1) / 2);
}
// Floats of WinogradArgs::scratch.
inline std::int64_t WinogradScratchFloats(std::int64_t batch, std::int64_t out_h,
                                          std::int64_t out_w, std::int64_t in_c,
                                          std::int64_t out_c) {
  return kWinogradPoints * WinogradTiles(batch, out_h, out_w) * (in_c + out_c);
}

// Depthwise convolution (group == channels, one filter per channel) over NHWC data.
struct DepthwiseArgs {
  std::int64_t batch = 1;
  std::int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  std::int64_t channels = 0;
  std::int64_t kernel_h = 1, kernel_w = 1;
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_left = 0;
  const float* x = nullptr;
  float* y = nullptr;
  const float* residual = nullptr;
  const float* packed_w = nullptr;  // [kernel_h * kernel_w][channels].
  const float* bias = nullptr;      // [channels], zeros where absent.
  ActivationParams activation;
  // An image larger than this runs pixel by pixel (DepthwiseImpl); 0: ConvCacheBudgetBytes().
  std::int64_t cache_budget_bytes = 0;
};

// Max pooling over NHWC data.
struct PoolArgs {
  std::int64_t batch = 1;
  std::int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  std::int64_t channels = 0;
  std::int64_t kernel_h = 1, kernel_w = 1;
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_left = 0;
  const float* x = nullptr;
  float* y = nullptr;
};

enum class BinaryOp : std::uint8_t { kAdd, kSub, kMul, kDiv };

struct FastKernels {
  Isa isa = Isa::kPortable;
  // Panels one tile of conv covers (the packers' packed_panels, besides 1).
  int tile_panels = 1;
  void (*conv)(const ConvArgs& args, ThreadPool* pool) = nullptr;
  void (*winograd_conv)(const WinogradArgs& args, ThreadPool* pool) = nullptr;
  void (*depthwise)(const DepthwiseArgs& args, ThreadPool* pool) = nullptr;
  void (*max_pool)(const PoolArgs& args, ThreadPool* pool) = nullptr;
  // y[n][c] = mean over the pixels of x[n][p][c].
  void (*global_average_pool)(const float* x, float* y, std::int64_t batch, std::int64_t pixels,
                              std::int64_t channels, ThreadPool* pool) = nullptr;
  // y[i] = act(x[i]) for i < count.
  void (*activation)(const float* x, float* y, std::int64_t count, ActivationParams activation,
                     ThreadPool* pool) = nullptr;
  // y[r][c] = act(a[r][c] op b[r * b_row_stride + c]) for r < rows, c < cols: b_row_stride is
  // cols for equal shapes and 0 for a row broadcast over the rows. A one-element b with
  // cols == 1 is a scalar.
  void (*binary)(BinaryOp op, const float* a, const float* b, float* y, std::int64_t rows,
                 std::int64_t cols, std::int64_t b_row_stride, ActivationParams activation,
                 ThreadPool* pool) = nullptr;
};

// The kernels for `isa`. REQUIRES: IsaSupported(isa).
const FastKernels& FastKernelsFor(Isa isa);

// Three quarters of one core's L2 cache as the C library reports it (sysconf; x86-64 from
// CPUID), or 512 KiB where it does not (aarch64's glibc, for one). Detected once.
std::int64_t ConvCacheBudgetBytes();

// Output channels rounded up to whole panels.
inline std::int64_t PaddedChannels(std::int64_t channels) {
  return (channels + kPanelWidth - 1) / kPanelWidth * kPanelWidth;
}
// Floats of one group's packed weights.
inline std::int64_t PackedConvFloats(std::int64_t out_c, std::int64_t in_c, std::int64_t kernel_h,
                                     std::int64_t kernel_w) {
  return PaddedChannels(out_c) * in_c * kernel_h * kernel_w;
}

// Bytes of one panel group's packed weights over a reduction of k: what decides whether a
// layer runs tile by tile or chunk by chunk (the panel group within the L2 budget or not), and
// so its weights' layout (ConvPackedPanels).
inline std::int64_t PanelGroupWeightBytes(std::int64_t k, int tile_panels) {
  return k * tile_panels * kPanelWidth * static_cast<std::int64_t>(sizeof(float));
}

// The layout of a convolution's packed weights (ConvArgs::packed_panels) for `kernels`, K = k:
// the panels of a tile side by side where a panel group's weights stay in the L2 cache (the
// layers that run tile by tile), so a tile reads one stream rather than tile_panels streams K
// rows apart that share an L1 set where K is a multiple of 64; one panel after another where
// they do not (the layers that run chunk by chunk, whose several streams are faster). Dense
// layers keep one panel after another: their weights come from memory, where several streams
// are faster. ADR 0108 has the figures.
int ConvPackedPanels(const FastKernels& kernels, std::int64_t k);

// Packs ONNX convolution weights [groups * out_c][in_c][kernel_h][kernel_w] (OIHW) into
// `packed` (groups * PackedConvFloats(...) floats), as the file comment describes. Every float
// of `packed` is written, so it may be uninitialized (as may be the other packers').
void PackConvWeights(const float* w, std::int64_t groups, std::int64_t out_c, std::int64_t in_c,
                     std::int64_t kernel_h, std::int64_t kernel_w, int packed_panels,
                     float* packed);

// Weights packed by PackConvWeights (one group) for an input whose channel c is multiplied by
// scale[c]: scaled = packed with each reduction row t * in_c + c multiplied by scale[c], so that
// conv(x * scale, W) = conv(x, scaled). A squeeze-and-excitation block's Mul folded into the
// convolution after it costs this pass over the weights instead of one over the image
// (edgemond.NhwcConv's input S). Writes every float of `scaled`.
void ScalePackedConvWeights(const float* packed, std::int64_t out_c, std::int64_t in_c,
                            std::int64_t kernel_h, std::int64_t kernel_w, int packed_panels,
                            const float* scale, float* scaled);

// The longest reduction (kernel_h * kernel_w * in_c) of a convolution with planar input.
inline constexpr std::int64_t kMaxNchwInputReduction = 256;

// Packs ONNX convolution weights (OIHW, one group) for ConvArgs::x_nchw: the reduction runs in
// (c, kh, kw) order, the weights' own.
void PackNchwInputConvWeights(const float* w, std::int64_t out_c, std::int64_t in_c,
                              std::int64_t kernel_h, std::int64_t kernel_w, int packed_panels,
                              float* packed);

// Floats of a Winograd convolution's packed weights: one 1x1 convolution's per point.
inline std::int64_t PackedWinogradFloats(std::int64_t out_c, std::int64_t in_c) {
  return kWinogradPoints * PackedConvFloats(out_c, in_c, 1, 1);
}

// Transforms 3x3 ONNX convolution weights [out_c][in_c][3][3] (OIHW, one group) into
// Winograd's 16 points (U = G g G^T, computed in double) and packs each point's [out_c][in_c]
// like a 1x1 convolution's, the points one after another (PackedWinogradFloats in all).
void PackWinogradWeights(const float* w, std::int64_t out_c, std::int64_t in_c, int packed_panels,
                         float* packed);

// Packs dense weights given as W[k][n] (transposed = false) or W[n][k]
// (transposed = true) into the same panel layout with K = k, for a 1x1 convolution.
void PackDenseWeights(const float* w, std::int64_t k, std::int64_t n, bool transposed,
                      int packed_panels, float* packed);

}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_FAST_KERNELS_H_
