// Every optimized kernel on every instruction set this machine has, against the reference
// kernels (ncnn's test_layer pattern): random shapes with edge sizes (channel counts around the
// vector and panel widths, odd spatial sizes, 1x1 to 7x7 kernels, strides, dilations, pads,
// groups), each fused activation (with every shape and every variant, not every pair of them:
// see ActivationsFor) and the residual input.

#include "engine/kernels/cpu/fast_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/benchmark.h"
#include "engine/testing/op_tester.h"

namespace edgemond::engine::cpu {
namespace {

using testing::OpTester;

std::vector<float> RandomFloats(std::int64_t count, std::uint64_t seed) {
  const Result<Tensor> t =
      MakeDeterministicTensor(TensorInfo{DataType::kFloat32, Shape{count}, Layout::kPlain}, seed);
  EXPECT_TRUE(t.ok());
  const std::span<const float> v = t->values<float>();
  return {v.begin(), v.end()};
}

Tensor ToTensor(Shape shape, const std::vector<float>& values) {
  return testing::FloatTensor(std::move(shape), values);
}

// [N][C][H][W] -> [N][H][W][C].
std::vector<float> NchwToNhwc(const std::vector<float>& x, std::int64_t n, std::int64_t c,
                              std::int64_t h, std::int64_t w) {
  std::vector<float> y(x.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < c; ++j)
      for (std::int64_t k = 0; k < h * w; ++k)
        y[static_cast<std::size_t>((i * h * w + k) * c + j)] =
            x[static_cast<std::size_t>((i * c + j) * h * w + k)];
  return y;
}
float ApplyActivation(const ActivationParams& p, float x) {
  switch (p.kind) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x < 0.0f ? 0.0f : x;
    case Activation::kLeakyRelu:
      return x < 0.0f ? p.a * x : x;
    case Activation::kClip: {
      const float v = x < p.a ? p.a : x;
      return v > p.b ? p.b : v;
    }
    case Activation::kHardSigmoid:
      return std::fmax(0.0f, std::fmin(1.0f, p.a * x + p.b));
    case Activation::kHardSwish:
      return x * std::fmax(0.0f, std::fmin(1.0f, x / 6.0f + 0.5f));
    case Activation::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case Activation::kSilu:
      return x / (1.0f + std::exp(-x));
  }
  return x;
}

const ActivationParams kActivations[] = {
    {Activation::kNone, 0, 0},
    {Activation::kRelu, 0, 0},
    {Activation::kLeakyRelu, 0.1f, 0},
    {Activation::kClip, 0.0f, 0.5f},
    {Activation::kHardSigmoid, 0.2f, 0.5f},
    {Activation::kHardSwish, 0, 0},
    {Activation::kSigmoid, 0, 0},
    {Activation::kSilu, 0, 0},
};

// The fused activations a convolution run checks: two of the eight, rotated by `turn`. A test
// turns by its case and its variant (threads, layouts, budgets, residuals), so that every
// activation meets every variant on several shapes and every shape with every activation, while
// each run checks two of them, not eight: an activation is a per-element step of the tile stores
// (one template instance per activation, below the same tiling), so what a shape and a variant
// choose is the store path, and the pairs cover each store path with each activation. A
// Coverage checks that the rotation did that.
std::array<ActivationParams, 2> ActivationsFor(std::size_t turn) {
  constexpr std::size_t kCount = std::size(kActivations);
  return {kActivations[turn % kCount], kActivations[(turn + kCount / 2) % kCount]};
}

// Which activations ran with each value of a dimension of a test (its variant, its case).
class Coverage {
 public:
  void Ran(int key, const ActivationParams& activation) {
    seen_[key].insert(static_cast<int>(activation.kind));
  }
  // Every key that ran ran every activation.
  void ExpectEveryActivation(const std::string& what) const {
    for (const auto& [key, kinds] : seen_) {
      EXPECT_EQ(kinds.size(), std::size(kActivations))
          << what << " " << key << " ran " << kinds.size() << " of the activations";
    }
  }

 private:
  std::map<int, std::set<int>> seen_;
};

// `scale` widens the tolerance for long reductions. Their float rounding, in the reference and
// in the kernel, grows with the square root of their length times the size of the partial sums,
// which for random terms grows with it too: a result that cancels out to about 1 keeps the
// rounding of sums about sqrt(length) / 3 in size (uniform terms in [-1, 1)). So the length
// over 256, not its square root: a 3x3 reduction over 128 channels differs by 2.5e-5 at -0.64
// when the kernel sums in another order.
void ExpectClose(const std::vector<float>& actual, const std::vector<float>& expected,
                 const std::string& what, float scale = 1.0f) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int reported = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const float tolerance = scale * (1e-5f * std::fmax(1.0f, std::fabs(expected[i])) + 1e-6f);
    if (!(std::fabs(actual[i] - expected[i]) <= tolerance) && reported++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << actual[i] << ", expected "
                    << expected[i];
    }
  }
}

std::string IsaLabel(Isa isa) { return std::string(IsaName(isa)); }

struct ConvCase {
  std::int64_t n, c, h, w, m, group, kh, kw, stride, dilation, pad_t, pad_l, pad_b, pad_r;
};

// The reference Conv (NCHW) through the whole engine.
std::vector<float> ReferenceConv(const ConvCase& k, const std::vector<float>& x,
                                 const std::vector<float>& w, const std::vector<float>& b,
                                 std::int64_t& out_h, std::int64_t& out_w) {
  OpTester test("Conv", 13);
  test.Input("x", ToTensor({k.n, k.c, k.h, k.w}, x))
      .Constant("w", ToTensor({k.m, k.c / k.group, k.kh, k.kw}, w))
      .Constant("b", ToTensor({k.m}, b))
      .AttrInt("group", k.group)
      .AttrInts("strides", {k.stride, k.stride})
      .AttrInts("dilations", {k.dilation, k.dilation})
      .AttrInts("pads", {k.pad_t, k.pad_l, k.pad_b, k.pad_r})
      .Output("y");
  const Result<std::vector<Tensor>> y = test.Run();
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  out_h = (*y)[0].shape().dim(2);
  out_w = (*y)[0].shape().dim(3);
  const std::span<const float> v = (*y)[0].values<float>();
  return {v.begin(), v.end()};
}

// A case's random input, weights, bias and residual (seeds seed, seed + 1, ...: seed ends past
// the last one used), and the reference's output in NHWC.
struct ConvData {
  std::vector<float> x, w, b, expected_nhwc, residual;
  std::int64_t out_h = 0, out_w = 0;
};
ConvData MakeConvData(const ConvCase& k, std::uint64_t& seed) {
  ConvData d;
  d.x = RandomFloats(k.n * k.c * k.h * k.w, seed++);
  d.w = RandomFloats(k.m * (k.c / k.group) * k.kh * k.kw, seed++);
  d.b = RandomFloats(k.m, seed++);
  const std::vector<float> reference = ReferenceConv(k, d.x, d.w, d.b, d.out_h, d.out_w);
  if (!reference.empty()) d.expected_nhwc = NchwToNhwc(reference, k.n, k.m, d.out_h, d.out_w);
  d.residual = RandomFloats(k.n * k.m * d.out_h * d.out_w, seed++);
  return d;
}

// The sizes that ConvArgs, DepthwiseArgs and PoolArgs share, from a test case and the
// reference's output size.
template <typename Args, typename Case>
void SetSizes(const Case& k, std::int64_t out_h, std::int64_t out_w, Args& args) {
  args.batch = k.n;
  args.in_h = k.h;
  args.in_w = k.w;
  args.out_h = out_h;
  args.out_w = out_w;
}

// The window geometry that ConvArgs and DepthwiseArgs share, from a test case (ConvCase or
// DepthwiseMatchesReference's) and the reference's output size.
template <typename Args, typename Case>
void SetWindow(const Case& k, std::int64_t out_h, std::int64_t out_w, Args& args) {
  SetSizes(k, out_h, out_w, args);
  args.kernel_h = k.kh;
  args.kernel_w = k.kw;
  args.stride_h = args.stride_w = k.stride;
  args.dilation_h = args.dilation_w = k.dilation;
  args.pad_top = k.pad_t;
  args.pad_left = k.pad_l;
}

// What a kernel with a fused epilogue should store: the activation of the convolution's output
// plus the residual (when there is one).
std::vector<float> WithEpilogue(const std::vector<float>& conv, const ActivationParams& activation,
                                const std::vector<float>* residual) {
  std::vector<float> y = conv;
  for (std::size_t i = 0; i < y.size(); ++i) {
    y[i] = ApplyActivation(activation, y[i] + (residual != nullptr ? (*residual)[i] : 0.0f));
  }
  return y;
}

class FastKernelsTest : public ::testing::TestWithParam<Isa> {};

TEST_P(FastKernelsTest, ConvMatchesReference) {
  const FastKernels& kernels = FastKernelsFor(GetParam());
  const ConvCase cases[] = {
      // n, c, h, w, m, group, kh, kw, stride, dilation, pads (t, l, b, r)
      {1, 3, 17, 19, 16, 1, 3, 3, 2, 1, 1, 1, 1, 1},   // A stem: 3 channels, stride 2.
      {1, 8, 9, 7, 17, 1, 1, 1, 1, 1, 0, 0, 0, 0},     // Pointwise, one column past a panel.
      {2, 24, 5, 6, 40, 1, 1, 1, 1, 1, 0, 0, 0, 0},    // Batch 2, partial last panel.
      {1, 5, 8, 8, 33, 1, 3, 3, 1, 1, 1, 1, 1, 1},     // 3x3 same padding.
      {1, 4, 11, 13, 8, 1, 3, 3, 1, 2, 2, 2, 2, 2},    // Dilation 2.
      {1, 6, 12, 12, 15, 1, 5, 5, 2, 1, 2, 2, 1, 1},   // 5x5, stride 2, uneven pads.
      {1, 3, 15, 15, 7, 1, 7, 7, 2, 1, 3, 3, 3, 3},    // 7x7 stem.
      {1, 16, 7, 7, 32, 2, 3, 3, 1, 1, 1, 1, 1, 1},    // Two groups.
      {1, 12, 6, 5, 6, 3, 1, 1, 1, 1, 0, 0, 0, 0},     // Three groups, pointwise.
      {1, 32, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},     // One output channel.
      {1, 7, 1, 1, 48, 1, 1, 1, 1, 1, 0, 0, 0, 0},     // One pixel.
      {1, 2, 4, 4, 16, 1, 3, 3, 1, 1, 0, 0, 0, 0},     // No padding.
      {1, 4, 5, 5, 16, 1, 1, 1, 2, 1, 0, 0, 0, 0},     // Strided pointwise.
      {1, 40, 6, 7, 40, 1, 3, 3, 1, 1, 1, 1, 1, 1},    // Reduction of 360: two chunks.
      {1, 300, 5, 3, 300, 1, 1, 1, 1, 1, 0, 0, 0, 0},  // Two chunks, many panel groups.
      {1, 512, 3, 4, 33, 1, 3, 3, 1, 1, 1, 1, 1, 1},   // Reduction of 4608: chunks outermost.
      // Planar-input stems wide enough for tiles read in place, stride 2 and 1.
      {2, 3, 30, 61, 32, 1, 3, 3, 2, 1, 1, 1, 1, 1},
      {1, 3, 35, 70, 64, 1, 7, 7, 2, 1, 3, 3, 3, 3},
      {1, 4, 9, 40, 32, 1, 3, 3, 1, 1, 1, 1, 1, 1},
      // Planar-input stems of one panel, a partial panel and a panel group of one panel.
      {1, 3, 26, 60, 16, 1, 3, 3, 2, 1, 1, 1, 1, 1},
      {1, 3, 20, 40, 24, 1, 3, 3, 2, 1, 1, 1, 1, 1},
      {1, 3, 13, 30, 48, 1, 3, 3, 1, 1, 1, 1, 1, 1},
      // Tiles read in place (DirectTile, pixel strides of 64 to 512 floats) next to tiles
      // through the buffer: rows crossing an output row, the borders, partial panels.
      {1, 64, 9, 30, 64, 1, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 64, 7, 29, 20, 1, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 32, 10, 50, 32, 1, 3, 3, 2, 1, 1, 1, 1, 1},
      {1, 32, 10, 50, 64, 1, 3, 3, 2, 1, 1, 1, 1, 1},
      {2, 128, 6, 8, 20, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      {1, 256, 3, 9, 64, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      // Tiles read in place with the compiled pixel strides of 16 and 32 (stride 2), and with
      // pixel strides taken at run time (24, 96, 192: a stride-2 1x1).
      {1, 16, 7, 30, 64, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      {1, 16, 9, 28, 64, 1, 3, 3, 2, 1, 1, 1, 1, 1},
      {1, 24, 8, 20, 64, 1, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 96, 5, 14, 128, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      {1, 96, 8, 30, 64, 1, 1, 1, 2, 1, 0, 0, 0, 0},
      // Tiles read in place over a last panel group of 2 and 1 panels (AVX-512), 3 panels
      // alone, and partial panels.
      {1, 32, 6, 20, 96, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      {1, 40, 6, 13, 80, 1, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 24, 7, 19, 40, 1, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 64, 6, 14, 140, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      // A whole panel group with partial panels (AVX-512: 56 of its 64 columns), its residual
      // added after the reduction (DirectTile's late residual) through masked loads.
      {1, 48, 6, 14, 120, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      // Weights beyond 512 KiB whose panel groups fit it: slices narrowed to run in place.
      {1, 128, 6, 20, 128, 1, 3, 3, 1, 1, 1, 1, 1, 1},
      // Weights that outweigh the input, over two pixel blocks: tasks run slice by slice, the
      // blocks of a slice one after another.
      {1, 1024, 7, 10, 320, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      // 20 tiles over four panel groups (AVX-512; 13 panels elsewhere), the last of one
      // panel: with a budget of two groups (variant 7), slices of one group, tile by tile.
      {1, 64, 10, 12, 200, 1, 3, 3, 1, 1, 1, 1, 1, 1},
      // An input beyond three times that budget (variant 8): each thread runs its tasks back to
      // front, its first one chunk by chunk, the others fetching the next task's slice.
      {1, 8, 64, 72, 200, 1, 1, 1, 1, 1, 0, 0, 0, 0},
      // 1.2 MB of weights that outweigh the input: on three threads with a budget of two
      // groups (variant 8), two blocks of 16 tiles (AVX-512) tile by tile over slices of one
      // group, each thread's first task chunk by chunk.
      {1, 64, 10, 12, 512, 1, 3, 3, 1, 1, 1, 1, 1, 1},
  };
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(3);
  ASSERT_TRUE(pool.ok());
  std::uint64_t seed = 1;
  Coverage by_variant;
  Coverage by_case;
  for (std::size_t case_index = 0; case_index < std::size(cases); ++case_index) {
    const ConvCase& k = cases[case_index];
    const std::int64_t in_c = k.c / k.group;
    const std::int64_t out_c = k.m / k.group;
    const auto [x, w, b, expected_nhwc, residual, out_h, out_w] = MakeConvData(k, seed);
    ASSERT_FALSE(expected_nhwc.empty());

    // The packers write every float (the kernels allocate the storage without zeroing it):
    // NaN where nothing was written would be a lane left unpacked.
    const float unwritten = std::numeric_limits<float>::quiet_NaN();
    const auto all_written = [](const std::vector<float>& v) {
      return std::none_of(v.begin(), v.end(), [](float f) { return std::isnan(f); });
    };
    // Both layouts of the packed weights (ConvPackedPanels): one panel after another, and the
    // panels of a tile side by side.
    const int layouts[2] = {1, kernels.tile_panels};
    const bool planar_ok = k.group == 1 && k.c <= 4 && k.c * k.kh * k.kw <= kMaxNchwInputReduction;
    std::vector<float> packed[2];
    std::vector<float> planar_packed[2];
    for (int l = 0; l < 2; ++l) {
      packed[l].assign(
          static_cast<std::size_t>(k.group * PackedConvFloats(out_c, in_c, k.kh, k.kw)), unwritten);
      PackConvWeights(w.data(), k.group, out_c, in_c, k.kh, k.kw, layouts[l], packed[l].data());
      EXPECT_TRUE(all_written(packed[l])) << "PackConvWeights left a float unwritten";
      // First layers may read the planar (NCHW) image as it is.
      planar_packed[l].assign(packed[l].size(), unwritten);
      if (planar_ok) {
        PackNchwInputConvWeights(w.data(), out_c, in_c, k.kh, k.kw, layouts[l],
                                 planar_packed[l].data());
        EXPECT_TRUE(all_written(planar_packed[l]))
            << "PackNchwInputConvWeights left a float unwritten";
      }
    }
    std::vector<float> bias(static_cast<std::size_t>(k.group * PaddedChannels(out_c)), 0.0f);
    for (std::int64_t g = 0; g < k.group; ++g)
      for (std::int64_t o = 0; o < out_c; ++o)
        bias[static_cast<std::size_t>(g * PaddedChannels(out_c) + o)] =
            b[static_cast<std::size_t>(g * out_c + o)];
    const std::vector<float> zero(static_cast<std::size_t>(in_c), 0.0f);
    const std::vector<float> x_nhwc = NchwToNhwc(x, k.n, k.c, k.h, k.w);

    for (const int variant : {0, 1, 2, 3, 4, 5, 6, 7, 8}) {
      for (const ActivationParams& activation :
           ActivationsFor(case_index + static_cast<std::size_t>(variant))) {
        // Without and with a residual, with a residual on three threads, planar input with a
        // residual on three threads, and the output written over its residual (ConvArgs::
        // residual == y) on one and three threads and with planar input; with a residual and
        // a budget of two panel groups' weights, in a network whose other weights exceed it,
        // on one thread and on three.
        const bool planar = variant == 3 || variant == 6;
        const bool threads =
            variant == 2 || variant == 3 || variant == 5 || variant == 6 || variant == 8;
        const bool in_place = variant >= 4 && variant <= 6;
        if (planar && !planar_ok) continue;
        by_variant.Ran(variant, activation);
        by_case.Ran(static_cast<int>(case_index), activation);
        const bool with_residual = variant > 0;
        // Cache budgets that run every layer chunk by chunk (16 KiB: over its residual too, where
        // the first chunk's partial sums replace the residual they include) and every layer tile
        // by tile (64 MiB); two panel groups' weights, so that a layer of three groups or more has
        // its weights beyond the budget (they come from memory: slices of one group, each
        // task's tiles fetching the next slice's weights, and few-tile blocks chunk by chunk;
        // with the network's other weights, every layer's weights come from memory); the others
        // the machine's own.
        const std::int64_t cache_budget =
            variant == 1 || variant == 4 ? (16 << 10)
            : variant == 5               ? (64 << 20)
            : variant >= 7 ? 2 * PanelGroupWeightBytes(in_c * k.kh * k.kw, kernels.tile_panels)
                           : 0;
        ConvArgs args;
        SetWindow(k, out_h, out_w, args);
        args.in_c = in_c;
        args.out_c = out_c;
        args.groups = k.group;
        args.x_pixel_stride = k.c;
        args.y_pixel_stride = k.m;
        args.x = planar ? x.data() : x_nhwc.data();
        args.x_nchw = planar;
        std::vector<float> y(expected_nhwc.size(), -7.0f);
        if (in_place) y = residual;
        args.y = y.data();
        args.residual = in_place ? y.data() : with_residual ? residual.data() : nullptr;
        // Variants 1 (chunk by chunk), 3, 5 and 7 take one panel after another, the others the
        // panels of a tile side by side.
        const int layout = (variant + 1) % 2;
        args.packed_w = planar ? planar_packed[layout].data() : packed[layout].data();
        args.packed_panels = layouts[layout];
        args.bias = bias.data();
        args.zero = zero.data();
        args.activation = activation;
        args.cache_budget_bytes = cache_budget;
        args.other_weight_bytes = variant >= 7 ? cache_budget : 0;
        kernels.conv(args, threads ? pool->get() : nullptr);
        const std::vector<float> expected =
            WithEpilogue(expected_nhwc, activation, with_residual ? &residual : nullptr);
        ExpectClose(y, expected,
                    IsaLabel(GetParam()) + " conv c" + std::to_string(k.c) + " m" +
                        std::to_string(k.m) + " k" + std::to_string(k.kh) + " act " +
                        std::to_string(static_cast<int>(activation.kind)) +
                        (with_residual ? " residual" : "") + (in_place ? " in place" : "") +
                        (threads ? " threads" : "") + (planar ? " planar" : "") + " budget " +
                        std::to_string(cache_budget),
                    std::fmax(1.0f, static_cast<float>(in_c * k.kh * k.kw) / 256.0f));
      }
    }
  }
  by_case.ExpectEveryActivation("case");
  by_variant.ExpectEveryActivation("variant");
}

TEST_P(FastKernelsTest, WinogradConvMatchesReference) {
  const FastKernels& kernels = FastKernelsFor(GetParam());
  const ConvCase cases[] = {
      // n, c, h, w, m, group, kh, kw, stride, dilation, pads (t, l, b, r)
      {1, 16, 8, 8, 16, 1, 3, 3, 1, 1, 1, 1, 1, 1},    // Whole tiles, one vector.
      {1, 5, 7, 9, 17, 1, 3, 3, 1, 1, 1, 1, 1, 1},     // Odd sizes: half tiles; channel tails.
      {2, 20, 6, 5, 33, 1, 3, 3, 1, 1, 1, 1, 1, 1},    // Batch 2, partial panels.
      {1, 24, 9, 10, 40, 1, 3, 3, 1, 1, 0, 0, 0, 0},   // No padding.
      {1, 8, 6, 11, 16, 1, 3, 3, 1, 1, 2, 0, 1, 2},    // Uneven pads.
      {1, 64, 14, 14, 64, 1, 3, 3, 1, 1, 1, 1, 1, 1},  // A network's 14x14 layer.
      {1, 256, 5, 6, 72, 1, 3, 3, 1, 1, 1, 1, 1, 1},   // A reduction of 256 per point.
      {1, 3, 2, 2, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1},      // One tile.
  };
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(3);
  ASSERT_TRUE(pool.ok());
  std::uint64_t seed = 900;
  Coverage by_variant;
  Coverage by_case;
  for (std::size_t case_index = 0; case_index < std::size(cases); ++case_index) {
    const ConvCase& k = cases[case_index];
    const auto [x, w, b, expected_nhwc, residual, out_h, out_w] = MakeConvData(k, seed);
    ASSERT_FALSE(expected_nhwc.empty());
    const std::vector<float> x_nhwc = NchwToNhwc(x, k.n, k.c, k.h, k.w);
    std::vector<float> bias(static_cast<std::size_t>(PaddedChannels(k.m)), 0.0f);
    std::copy(b.begin(), b.end(), bias.begin());
    const std::vector<float> zero_bias(bias.size(), 0.0f);
    const std::vector<float> zero(static_cast<std::size_t>(k.c), 0.0f);
    for (const int layout_index : {0, 1}) {
      const int layout = layout_index == 0 ? 1 : kernels.tile_panels;
      std::vector<float> packed(static_cast<std::size_t>(PackedWinogradFloats(k.m, k.c)),
                                std::numeric_limits<float>::quiet_NaN());
      PackWinogradWeights(w.data(), k.m, k.c, layout, packed.data());
      EXPECT_TRUE(std::none_of(packed.begin(), packed.end(), [](float f) { return std::isnan(f); }))
          << "PackWinogradWeights left a float unwritten";
      std::vector<float> scratch(
          static_cast<std::size_t>(WinogradScratchFloats(k.n, out_h, out_w, k.c, k.m)));
      // 0: no residual, one thread; 1: a residual, three threads; 2: written over its
      // residual, three threads; 3: into the channels of a wider output (an in-place
      // Concat's), one thread. Each with the machine's cache budget, one that keeps every
      // case's weights in the cache (blocks of tiles start to end, per thread) and one that
      // keeps none (each step over all tiles, the threads sharing the points).
      for (const int variant : {0, 1, 2, 3}) {
        const std::int64_t budgets[] = {0, std::int64_t{64} << 20, std::int64_t{16} << 10};
        for (std::size_t budget_index = 0; budget_index < std::size(budgets); ++budget_index) {
          const std::int64_t cache_budget = budgets[budget_index];
          for (const ActivationParams& activation : ActivationsFor(
                   case_index + static_cast<std::size_t>(layout_index + variant) + budget_index)) {
            by_variant.Ran(variant, activation);
            by_case.Ran(static_cast<int>(case_index), activation);
            const std::int64_t y_stride = variant == 3 ? k.m + 5 : k.m;
            const std::int64_t pixels = k.n * out_h * out_w;
            WinogradArgs args;
            SetSizes(k, out_h, out_w, args);
            args.in_c = k.c;
            args.out_c = k.m;
            args.pad_top = k.pad_t;
            args.pad_left = k.pad_l;
            args.x_pixel_stride = k.c;
            args.y_pixel_stride = y_stride;
            args.x = x_nhwc.data();
            std::vector<float> y(static_cast<std::size_t>(pixels * y_stride), -7.0f);
            if (variant == 2) y = residual;
            args.y = y.data();
            args.residual = variant == 2 ? y.data() : variant == 1 ? residual.data() : nullptr;
            args.packed_u = packed.data();
            args.packed_panels = layout;
            args.bias = bias.data();
            args.zero_bias = zero_bias.data();
            args.zero = zero.data();
            args.activation = activation;
            args.scratch = scratch.data();
            args.cache_budget_bytes = cache_budget;
            kernels.winograd_conv(args, variant == 1 || variant == 2 ? pool->get() : nullptr);
            const bool with_residual = variant == 1 || variant == 2;
            const std::vector<float> expected =
                WithEpilogue(expected_nhwc, activation, with_residual ? &residual : nullptr);
            std::vector<float> actual(expected.size());
            for (std::int64_t p = 0; p < pixels; ++p) {
              for (std::int64_t o = 0; o < y_stride; ++o) {
                const float value = y[static_cast<std::size_t>(p * y_stride + o)];
                if (o < k.m) {
                  actual[static_cast<std::size_t>(p * k.m + o)] = value;
                } else {
                  ASSERT_EQ(value, -7.0f) << "wrote past the output's channels";
                }
              }
            }
            // The transforms add a few roundings of sums of four to each product.
            ExpectClose(actual, expected,
                        IsaLabel(GetParam()) + " winograd c" + std::to_string(k.c) + " m" +
                            std::to_string(k.m) + " " + std::to_string(k.h) + "x" +
                            std::to_string(k.w) + " layout " + std::to_string(layout) + " act " +
                            std::to_string(static_cast<int>(activation.kind)) + " variant " +
                            std::to_string(variant) + " budget " + std::to_string(cache_budget),
                        4.0f * std::fmax(1.0f, static_cast<float>(k.c * 9) / 256.0f));
          }
        }
      }
    }
  }
  by_case.ExpectEveryActivation("case");
  by_variant.ExpectEveryActivation("variant");
}

TEST_P(FastKernelsTest, DepthwiseMatchesReference) {
  const FastKernels& kernels = FastKernelsFor(GetParam());
  struct Case {
    std::int64_t n, c, h, w, kh, kw, stride, dilation, pad_t, pad_l, pad_b, pad_r;
  };
  const Case cases[] = {
      {1, 16, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 24, 10, 10, 3, 3, 2, 1, 1, 1, 1, 1},
      {1, 13, 7, 9, 5, 5, 1, 1, 2, 2, 2, 2},
      {2, 58, 8, 8, 3, 3, 2, 1, 1, 1, 1, 1},
      {1, 8, 12, 12, 5, 5, 2, 1, 2, 2, 1, 1},
      {1, 3, 5, 5, 3, 1, 1, 1, 1, 0, 1, 0},
      {1, 32, 6, 17, 3, 3, 1, 2, 2, 2, 2, 2},
      {1, 1, 4, 4, 3, 3, 1, 1, 0, 0, 0, 0},
      {1, 40, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 72, 14, 14, 5, 5, 2, 1, 2, 2, 2, 2},
      // Rows of many pixels: four at a time and the rest, pixel by pixel included.
      {1, 40, 9, 23, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 20, 11, 21, 5, 5, 2, 1, 2, 2, 2, 2},
      // A small image that is mostly border, with channel vectors four at a time and the rest
      // (the last overlapping the one before it); a kernel with no compiled interior.
      {1, 136, 7, 7, 5, 5, 1, 1, 2, 2, 2, 2},
      {1, 72, 6, 8, 3, 2, 1, 1, 1, 0, 1, 1},
  };
  std::uint64_t seed = 100;
  for (const Case& k : cases) {
    const std::vector<float> x = RandomFloats(k.n * k.c * k.h * k.w, seed++);
    const std::vector<float> w = RandomFloats(k.c * k.kh * k.kw, seed++);
    const std::vector<float> b = RandomFloats(k.c, seed++);
    const ConvCase as_conv{k.n,  k.c,      k.h,        k.w,     k.c,     k.c,     k.kh,
                           k.kw, k.stride, k.dilation, k.pad_t, k.pad_l, k.pad_b, k.pad_r};
    std::int64_t out_h = 0, out_w = 0;
    const std::vector<float> reference = ReferenceConv(as_conv, x, w, b, out_h, out_w);
    ASSERT_FALSE(reference.empty());
    const std::vector<float> expected_nhwc = NchwToNhwc(reference, k.n, k.c, out_h, out_w);
    const std::vector<float> residual = RandomFloats(k.n * k.c * out_h * out_w, seed++);
    // [kh * kw][c].
    std::vector<float> packed(static_cast<std::size_t>(k.kh * k.kw * k.c));
    for (std::int64_t c = 0; c < k.c; ++c)
      for (std::int64_t t = 0; t < k.kh * k.kw; ++t)
        packed[static_cast<std::size_t>(t * k.c + c)] =
            w[static_cast<std::size_t>(c * k.kh * k.kw + t)];
    const std::vector<float> x_nhwc = NchwToNhwc(x, k.n, k.c, k.h, k.w);
    // The machine's cache budget, and one of a byte: every image beyond it, so that the interior
    // runs pixel by pixel.
    for (const std::int64_t cache_budget : {std::int64_t{0}, std::int64_t{1}}) {
      for (const ActivationParams& activation : kActivations) {
        for (const bool with_residual : {false, true}) {
          DepthwiseArgs args;
          SetWindow(k, out_h, out_w, args);
          args.channels = k.c;
          args.x = x_nhwc.data();
          std::vector<float> y(expected_nhwc.size(), -7.0f);
          args.y = y.data();
          args.residual = with_residual ? residual.data() : nullptr;
          args.packed_w = packed.data();
          args.bias = b.data();
          args.activation = activation;
          args.cache_budget_bytes = cache_budget;
          kernels.depthwise(args, nullptr);
          const std::vector<float> expected =
              WithEpilogue(expected_nhwc, activation, with_residual ? &residual : nullptr);
          ExpectClose(y, expected,
                      IsaLabel(GetParam()) + " depthwise c" + std::to_string(k.c) + " k" +
                          std::to_string(k.kh) + "x" + std::to_string(k.kw) + " s" +
                          std::to_string(k.stride) + " act " +
                          std::to_string(static_cast<int>(activation.kind)) +
                          (with_residual ? " residual" : "") +
                          (cache_budget > 0 ? " by pixel" : ""));
        }
      }
    }
  }
}

TEST_P(FastKernelsTest, MaxPoolMatchesReference) {
  const FastKernels& kernels = FastKernelsFor(GetParam());
  struct Case {
    std::int64_t n, c, h, w, k, stride, pad;
    bool ceil;
  };
  const Case cases[] = {{1, 64, 13, 13, 3, 2, 0, true},
                        {1, 16, 12, 12, 3, 2, 1, false},
                        {2, 13, 9, 8, 2, 2, 0, true},
                        {1, 5, 7, 7, 3, 1, 1, false}};
  std::uint64_t seed = 200;
  for (const Case& k : cases) {
    const std::vector<float> x = RandomFloats(k.n * k.c * k.h * k.w, seed++);
    OpTester test("MaxPool", 13);
    test.Input("x", ToTensor({k.n, k.c, k.h, k.w}, x))
        .AttrInts("kernel_shape", {k.k, k.k})
        .AttrInts("strides", {k.stride, k.stride})
        .AttrInts("pads", {k.pad, k.pad, k.pad, k.pad})
        .AttrInt("ceil_mode", k.ceil ? 1 : 0)
        .Output("y");
    const Result<std::vector<Tensor>> ref = test.Run();
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    const std::int64_t out_h = (*ref)[0].shape().dim(2), out_w = (*ref)[0].shape().dim(3);
    const std::span<const float> rv = (*ref)[0].values<float>();
    const std::vector<float> expected = NchwToNhwc({rv.begin(), rv.end()}, k.n, k.c, out_h, out_w);
    const std::vector<float> x_nhwc = NchwToNhwc(x, k.n, k.c, k.h, k.w);
    std::vector<float> y(expected.size(), -7.0f);
    PoolArgs args;
    SetSizes(k, out_h, out_w, args);
    args.channels = k.c;
    args.kernel_h = args.kernel_w = k.k;
    args.stride_h = args.stride_w = k.stride;
    args.pad_top = args.pad_left = k.pad;
    args.x = x_nhwc.data();
    args.y = y.data();
    kernels.max_pool(args, nullptr);
    ExpectClose(y, expected, IsaLabel(GetParam()) + " max pool c" + std::to_string(k.c));
  }
}

TEST_P(FastKernelsTest, GlobalAveragePoolMatchesReference) {
  const FastKernels& kernels = FastKernelsFor(GetParam());
  for (const std::int64_t c : {1, 7, 16, 58, 1280}) {
    const std::int64_t n = 2, h = 7, w = 5;
    const std::vector<float> x = RandomFloats(n * c * h * w, static_cast<std::uint64_t>(c));
    OpTester test("GlobalAveragePool", 13);
    test.Input("x", ToTensor({n, c, h, w}, x)).Output("y");
    const Result<std::vector<Tensor>> ref = test.Run();
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    const std::span<const float> rv = (*ref)[0].values<float>();
    const std::vector<float> x_nhwc = NchwToNhwc(x, n, c, h, w);
    std::vector<float> y(static_cast<std::size_t>(n * c), -7.0f);
    kernels.global_average_pool(x_nhwc.data(), y.data(), n, h * w, c, nullptr);
    ExpectClose(y, {rv.begin(), rv.end()}, IsaLabel(GetParam()) + " global average pool");
  }
}

TEST_P(FastKernelsTest, ActivationsMatchReferenceIncludingExtremes) {
  const FastKernels& kernels = FastKernelsFor(GetParam());
  std::vector<float> x = RandomFloats(1003, 7);
  for (float& v : x) v *= 12.0f;
  for (const float extreme : {0.0f, -0.0f, 100.0f, -100.0f, 88.5f, -88.5f, 1e30f, -1e30f}) {
    x.push_back(extreme);
  }
  for (const ActivationParams& activation : kActivations) {
    std::vector<float> y(x.size(), -7.0f);
    kernels.activation(x.data(), y.data(), static_cast<std::int64_t>(x.size()), activation,
                       nullptr);
    std::vector<float> expected(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) expected[i] = ApplyActivation(activation, x[i]);
    ExpectClose(
        y, expected,
        IsaLabel(GetParam()) + " activation " + std::to_string(static_cast<int>(activation.kind)));
  }
  // NaN stays NaN through every activation.
  const float nan = std::nanf("");
  for (const ActivationParams& activation : kActivations) {
    float out[8];
    const float in[8] = {nan, nan, nan, nan, nan, nan, nan, nan};
    kernels.activation(in, out, 8, activation, nullptr);
    for (const float v : out) {
      EXPECT_TRUE(std::isnan(v)) << IsaLabel(GetParam()) << " activation "
                                 << static_cast<int>(activation.kind);
    }
  }
}

TEST_P(FastKernelsTest, BinaryMatchesScalar) {
  const FastKernels& kernels = FastKernelsFor(GetParam());
  for (const std::int64_t cols : {1, 5, 16, 37}) {
    const std::int64_t rows = 9;
    const std::vector<float> a = RandomFloats(rows * cols, 11);
    std::vector<float> b = RandomFloats(rows * cols, 12);
    for (float& v : b) v = v + (v < 0 ? -0.5f : 0.5f);  // Away from 0 for Div.
    for (const BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv}) {
      for (const std::int64_t b_stride : {cols, std::int64_t{0}}) {
        std::vector<float> y(a.size(), -7.0f);
        const ActivationParams relu{Activation::kRelu, 0, 0};
        kernels.binary(op, a.data(), b.data(), y.data(), rows, cols, b_stride, relu, nullptr);
        std::vector<float> expected(a.size());
        for (std::int64_t r = 0; r < rows; ++r) {
          for (std::int64_t c = 0; c < cols; ++c) {
            const float av = a[static_cast<std::size_t>(r * cols + c)];
            const float bv = b[static_cast<std::size_t>(r * b_stride + c)];
            const float v = op == BinaryOp::kAdd   ? av + bv
                            : op == BinaryOp::kSub ? av - bv
                            : op == BinaryOp::kMul ? av * bv
                                                   : av / bv;
            expected[static_cast<std::size_t>(r * cols + c)] = v < 0 ? 0 : v;
          }
        }
        ExpectClose(y, expected, IsaLabel(GetParam()) + " binary");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EverySupportedIsa, FastKernelsTest, ::testing::ValuesIn(SupportedIsas()),
                         [](const ::testing::TestParamInfo<Isa>& param) {
                           return std::string(IsaName(param.param));
                         });

}  // namespace
}  // namespace edgemond::engine::cpu
