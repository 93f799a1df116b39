#include "engine/kernels/cpu/fast_kernels.h"

#include <cstring>

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

void PackConvWeights(const float* w, std::int64_t groups, std::int64_t out_c, std::int64_t in_c,
                     std::int64_t kernel_h, std::int64_t kernel_w, float* packed) {
  const std::int64_t taps = kernel_h * kernel_w;
  const std::int64_t k = taps * in_c;
  const std::int64_t padded = PaddedChannels(out_c);
  std::memset(packed, 0, sizeof(float) * static_cast<std::size_t>(groups * padded * k));
  for (std::int64_t g = 0; g < groups; ++g) {
    float* group = packed + g * padded * k;
    for (std::int64_t o = 0; o < out_c; ++o) {
      const float* filter = w + (g * out_c + o) * in_c * taps;  // [in_c][kh][kw]
      float* panel = group + (o / kPanelWidth) * k * kPanelWidth;
      const std::int64_t lane = o % kPanelWidth;
      for (std::int64_t c = 0; c < in_c; ++c) {
        for (std::int64_t t = 0; t < taps; ++t) {
          panel[(t * in_c + c) * kPanelWidth + lane] = filter[c * taps + t];
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
  const std::int64_t padded = PaddedChannels(n);
  std::memset(packed, 0, sizeof(float) * static_cast<std::size_t>(padded * k));
  for (std::int64_t j = 0; j < n; ++j) {
    float* panel = packed + (j / kPanelWidth) * k * kPanelWidth;
    const std::int64_t lane = j % kPanelWidth;
    for (std::int64_t i = 0; i < k; ++i) {
      panel[i * kPanelWidth + lane] = transposed ? w[j * k + i] : w[i * n + j];
    }
  }
}

}  // namespace edgemond::engine::cpu
