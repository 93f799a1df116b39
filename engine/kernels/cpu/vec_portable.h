// The portable "vector": 4 floats in plain C++, which compilers map to the baseline SIMD of the
// target (SSE2 on x86-64) or keep scalar. Used where no ISA-specific kernels are available, and
// as a second implementation the tests compare with the reference.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_VEC_PORTABLE_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_VEC_PORTABLE_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace edgemond::engine::cpu {
namespace {

struct Vec {
  static constexpr int kWidth = 4;
  float v[4];
};

#define EDGEMOND_PORTABLE_MAP(expr)            \
  Vec r;                                       \
  for (int i = 0; i < 4; ++i) r.v[i] = (expr); \
  return r

inline Vec Zero() { return {{0.0f, 0.0f, 0.0f, 0.0f}}; }
inline Vec Set1(float x) { return {{x, x, x, x}}; }
inline Vec Load(const float* p) { EDGEMOND_PORTABLE_MAP(p[i]); }
inline void Store(float* p, Vec a) {
  for (int i = 0; i < 4; ++i) p[i] = a.v[i];
}
// The first n (0 <= n <= 4) lanes; the others load as 0 and are not stored.
inline Vec LoadPartial(const float* p, int n) { EDGEMOND_PORTABLE_MAP(i < n ? p[i] : 0.0f); }
inline void StorePartial(float* p, Vec a, int n) {
  for (int i = 0; i < n; ++i) p[i] = a.v[i];
}
inline Vec Fma(Vec a, Vec b, Vec c) { EDGEMOND_PORTABLE_MAP(a.v[i] * b.v[i] + c.v[i]); }
inline Vec Add(Vec a, Vec b) { EDGEMOND_PORTABLE_MAP(a.v[i] + b.v[i]); }
inline Vec Sub(Vec a, Vec b) { EDGEMOND_PORTABLE_MAP(a.v[i] - b.v[i]); }
inline Vec Mul(Vec a, Vec b) { EDGEMOND_PORTABLE_MAP(a.v[i] * b.v[i]); }
inline Vec Div(Vec a, Vec b) { EDGEMOND_PORTABLE_MAP(a.v[i] / b.v[i]); }
// As on x86: b when either is NaN.
inline Vec Max(Vec a, Vec b) { EDGEMOND_PORTABLE_MAP(a.v[i] > b.v[i] ? a.v[i] : b.v[i]); }
inline Vec Min(Vec a, Vec b) { EDGEMOND_PORTABLE_MAP(a.v[i] < b.v[i] ? a.v[i] : b.v[i]); }
inline Vec Round(Vec a) { EDGEMOND_PORTABLE_MAP(std::nearbyint(a.v[i])); }
inline Vec Pow2(Vec n) {
  Vec r;
  for (int i = 0; i < 4; ++i) {
    // A NaN lane (Exp of a NaN input) would make the conversion undefined; its result is NaN
    // anyway, as the caller multiplies it by a NaN polynomial, so any exponent serves.
    const std::int32_t k = std::isnan(n.v[i]) ? 0 : static_cast<std::int32_t>(n.v[i]);
    const std::uint32_t bits = static_cast<std::uint32_t>(k + 127) << 23;
    std::memcpy(&r.v[i], &bits, sizeof(float));
  }
  return r;
}
inline float Lane0(Vec a) { return a.v[0]; }

#undef EDGEMOND_PORTABLE_MAP

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_VEC_PORTABLE_H_
