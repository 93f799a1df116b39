#include "engine/kernels/cpu/fast_kernels.h"

#include <unistd.h>

#include <algorithm>
#include <vector>

namespace edgemond::engine::cpu {

// Defined in fast_kernels_<isa>.cc, each compiled only for its architecture.
#if defined(__x86_64__)
const FastKernels& Avx2Kernels();
const FastKernels& Avx512Kernels();
#endif
#if defined(__aarch64__)
const FastKernels& NeonKernels();
#endif
const FastKernels& PortableKernels();

const FastKernels& FastKernelsFor(Isa isa) {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::kAvx2:
      return Avx2Kernels();
    case Isa::kAvx512:
      return Avx512Kernels();
#endif
#if defined(__aarch64__)
    case Isa::kNeon:
      return NeonKernels();
#endif
    default:
      return PortableKernels();
  }
}

std::int64_t ConvCacheBudgetBytes() {
  static const std::int64_t budget = [] {
    const long l2_bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
    // Below 128 KiB or above 64 MiB is not a per-core L2 cache we know how to use.
    if (l2_bytes < (128 << 10) || l2_bytes > (64 << 20)) return std::int64_t{512} << 10;
    return static_cast<std::int64_t>(l2_bytes) / 4 * 3;
  }();
  return budget;
}

namespace {

// Writes one panel row: `lanes` values from value(lane), then zeros up to kPanelWidth.
template <typename Value>
inline void PanelRow(std::int64_t lanes, const Value& value, float* row) {
  std::int64_t lane = 0;
  for (; lane < lanes; ++lane) row[lane] = value(lane);
  for (; lane < kPanelWidth; ++lane) row[lane] = 0.0f;
}

// Writes the panel layout of the k x n matrix whose element (i, j) is row(i)[j * lane_stride]:
// groups of `packed_panels` panels (the last group may have fewer), each group k rows of its
// panels' kPanelWidth lanes side by side.
template <typename Row>
void PackPanels(std::int64_t k, std::int64_t n, int packed_panels, const Row& row,
                std::int64_t lane_stride, float* packed) {
  const std::int64_t panels = (n + kPanelWidth - 1) / kPanelWidth;
  for (std::int64_t q0 = 0; q0 < panels; q0 += packed_panels) {
    const std::int64_t q_end = std::min<std::int64_t>(panels, q0 + packed_panels);
    for (std::int64_t i = 0; i < k; ++i) {
      const float* first = row(i);
      for (std::int64_t q = q0; q < q_end; ++q, packed += kPanelWidth) {
        const std::int64_t j0 = q * kPanelWidth;
        PanelRow(
            std::min<std::int64_t>(kPanelWidth, n - j0),
            [&](std::int64_t lane) { return first[(j0 + lane) * lane_stride]; }, packed);
      }
    }
  }
}

}  // namespace

int ConvPackedPanels(const FastKernels& kernels, std::int64_t k) {
  return PanelGroupWeightBytes(k, kernels.tile_panels) <= ConvCacheBudgetBytes()
             ? kernels.tile_panels
             : 1;
}

// The packers write every float of `packed` once, in order (the panel rows one after the
// other), so `packed` need not be initialized: a model's weights are written once at load.
void PackConvWeights(const float* w, std::int64_t groups, std::int64_t out_c, std::int64_t in_c,
                     std::int64_t kernel_h, std::int64_t kernel_w, int packed_panels,
                     float* packed) {
  const std::int64_t taps = kernel_h * kernel_w;
  const std::int64_t filter_floats = in_c * taps;  // One output channel's [in_c][kh][kw].
  // Reduction element i = t * in_c + c (tap t of input channel c) lies at offset[i] of a filter.
  std::vector<std::int64_t> offset(static_cast<std::size_t>(filter_floats));
  for (std::int64_t t = 0, i = 0; t < taps; ++t) {
    for (std::int64_t c = 0; c < in_c; ++c, ++i) offset[static_cast<std::size_t>(i)] = c * taps + t;
  }
  for (std::int64_t g = 0; g < groups; ++g) {
    const float* filters = w + g * out_c * filter_floats;
    PackPanels(
        filter_floats, out_c, packed_panels,
        [&](std::int64_t i) { return filters + offset[static_cast<std::size_t>(i)]; },
        filter_floats, packed);
    packed += PackedConvFloats(out_c, in_c, kernel_h, kernel_w);
  }
}

void ScalePackedConvWeights(const float* packed, std::int64_t out_c, std::int64_t in_c,
                            std::int64_t kernel_h, std::int64_t kernel_w, int packed_panels,
                            const float* scale, float* scaled) {
  const std::int64_t taps = kernel_h * kernel_w;
  const std::int64_t panels = (out_c + kPanelWidth - 1) / kPanelWidth;
  // PackPanels' order: panel groups, then reduction rows (tap-major), then the group's lanes.
  for (std::int64_t q0 = 0; q0 < panels; q0 += packed_panels) {
    const std::int64_t width =
        (std::min<std::int64_t>(panels, q0 + packed_panels) - q0) * kPanelWidth;
    for (std::int64_t t = 0; t < taps; ++t) {
      for (std::int64_t c = 0; c < in_c; ++c, packed += width, scaled += width) {
        const float s = scale[c];
        for (std::int64_t j = 0; j < width; ++j) scaled[j] = packed[j] * s;
      }
    }
  }
}

void PackNchwInputConvWeights(const float* w, std::int64_t out_c, std::int64_t in_c,
                              std::int64_t kernel_h, std::int64_t kernel_w, int packed_panels,
                              float* packed) {
  // Each output channel's filter [in_c][kh][kw] is one row of a transposed dense matrix.
  PackDenseWeights(w, in_c * kernel_h * kernel_w, out_c, /*transposed=*/true, packed_panels,
                   packed);
}

void PackDenseWeights(const float* w, std::int64_t k, std::int64_t n, bool transposed,
                      int packed_panels, float* packed) {
  if (transposed) {
    PackPanels(
        k, n, packed_panels, [&](std::int64_t i) { return w + i; }, k, packed);
  } else {
    PackPanels(
        k, n, packed_panels, [&](std::int64_t i) { return w + i * n; }, 1, packed);
  }
}

void PackWinogradWeights(const float* w, std::int64_t out_c, std::int64_t in_c, int packed_panels,
                         float* packed) {
  // G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]].
  static constexpr double kG[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  const std::size_t point_floats = static_cast<std::size_t>(out_c * in_c);
  std::vector<float> points(kWinogradPoints * point_floats);  // [point][out_c][in_c].
  for (std::int64_t o = 0; o < out_c; ++o) {
    for (std::int64_t c = 0; c < in_c; ++c) {
      const float* g = w + (o * in_c + c) * 9;
      double gt[4][3];  // G g
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 3; ++j) {
          gt[i][j] = kG[i][0] * g[j] + kG[i][1] * g[3 + j] + kG[i][2] * g[6 + j];
        }
      }
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          const double u = gt[i][0] * kG[j][0] + gt[i][1] * kG[j][1] + gt[i][2] * kG[j][2];
          points[static_cast<std::size_t>(i * 4 + j) * point_floats +
                 static_cast<std::size_t>(o * in_c + c)] = static_cast<float>(u);
        }
      }
    }
  }
  for (std::int64_t p = 0; p < kWinogradPoints; ++p) {
    PackDenseWeights(points.data() + static_cast<std::size_t>(p) * point_floats, in_c, out_c,
                     /*transposed=*/true, packed_panels,
                     packed + p * PackedConvFloats(out_c, in_c, 1, 1));
  }
}

}  // namespace edgemond::engine::cpu
