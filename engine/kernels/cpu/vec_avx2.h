// The 8-lane float vector of the AVX2+FMA kernels (fast_kernels_impl.h). Include only from a
// file compiled with -mavx2 -mfma.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_VEC_AVX2_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_VEC_AVX2_H_

#include <immintrin.h>

namespace edgemond::engine::cpu {
namespace {

struct Vec {
  static constexpr int kWidth = 8;
  __m256 v;
};

inline Vec Zero() { return {_mm256_setzero_ps()}; }
inline Vec Set1(float x) { return {_mm256_set1_ps(x)}; }
inline Vec Load(const float* p) { return {_mm256_loadu_ps(p)}; }
inline void Store(float* p, Vec a) { _mm256_storeu_ps(p, a.v); }
// The first n (0 <= n <= 8) lanes; the others load as 0 and are not stored. Memory past them
// is not touched (masked moves).
inline __m256i LaneMask(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline Vec LoadPartial(const float* p, int n) { return {_mm256_maskload_ps(p, LaneMask(n))}; }
inline void StorePartial(float* p, Vec a, int n) { _mm256_maskstore_ps(p, LaneMask(n), a.v); }
inline Vec Fma(Vec a, Vec b, Vec c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
inline Vec Add(Vec a, Vec b) { return {_mm256_add_ps(a.v, b.v)}; }
inline Vec Sub(Vec a, Vec b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline Vec Mul(Vec a, Vec b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline Vec Div(Vec a, Vec b) { return {_mm256_div_ps(a.v, b.v)}; }
// max(a, b) and min(a, b) return b when either is NaN (the x86 rule); callers put the value
// that may be NaN second where NaN must survive.
inline Vec Max(Vec a, Vec b) { return {_mm256_max_ps(a.v, b.v)}; }
inline Vec Min(Vec a, Vec b) { return {_mm256_min_ps(a.v, b.v)}; }
inline Vec Round(Vec a) {
  return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
}
// 2^n for integral n in [-126, 127], by building the exponent bits.
inline Vec Pow2(Vec n) {
  const __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n.v), _mm256_set1_epi32(127)), 23);
  return {_mm256_castsi256_ps(bits)};
}
inline float Lane0(Vec a) { return _mm256_cvtss_f32(a.v); }

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_VEC_AVX2_H_
