#include "engine/kernels/cpu/fast_kernels.h"

#include <unistd.h>

#include <algorithm>

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

}  // namespace

// The packers write every float of `packed` once, in order (the panel rows one after the
// other), so `packed` need not be initialized: a model's weights are written once at load.
void PackConvWeights(const float* w, std::int64_t groups, std::int64_t out_c, std::int64_t in_c,
                     std::int64_t kernel_h, std::int64_t kernel_w, float* packed) {
  const std::int64_t taps = kernel_h * kernel_w;
  const std::int64_t filter_floats = in_c * taps;  // One output channel's [in_c][kh][kw].
  for (std::int64_t g = 0; g < groups; ++g) {
    for (std::int64_t o0 = 0; o0 < out_c; o0 += kPanelWidth) {
      const std::int64_t lanes = std::min<std::int64_t>(kPanelWidth, out_c - o0);
      const float* filters = w + (g * out_c + o0) * filter_floats;
      for (std::int64_t t = 0; t < taps; ++t) {
        for (std::int64_t c = 0; c < in_c; ++c, packed += kPanelWidth) {
          const float* first = filters + c * taps + t;
          PanelRow(
              lanes, [&](std::int64_t lane) { return first[lane * filter_floats]; }, packed);
        }
      }
    }
  }
}

void PackNchwInputConvWeights(const float* w, std::int64_t out_c, std::int64_t in_c,
                              std::int64_t kernel_h, std::int64_t kernel_w, float* packed) {
  // Each output channel's filter [in_c][kh][kw] is one row of a transposed dense matrix.
  PackDenseWeights(w, in_c * kernel_h * kernel_w, out_c, /*transposed=*/true, packed);
}

void PackDenseWeights(const float* w, std::int64_t k, std::int64_t n, bool transposed,
                      float* packed) {
  for (std::int64_t j0 = 0; j0 < n; j0 += kPanelWidth) {
    const std::int64_t lanes = std::min<std::int64_t>(kPanelWidth, n - j0);
    for (std::int64_t i = 0; i < k; ++i, packed += kPanelWidth) {
      if (transposed) {
        const float* first = w + j0 * k + i;
        PanelRow(
            lanes, [&](std::int64_t lane) { return first[lane * k]; }, packed);
      } else {
        const float* row = w + i * n + j0;
        PanelRow(
            lanes, [&](std::int64_t lane) { return row[lane]; }, packed);
      }
    }
  }
}

}  // namespace edgemond::engine::cpu
