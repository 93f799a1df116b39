// The 16-lane float vector of the AVX-512F kernels (fast_kernels_impl.h). Include only from a
// file compiled with -mavx512f -mavx2 -mfma.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_VEC_AVX512_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_VEC_AVX512_H_

#include <immintrin.h>

namespace edgemond::engine::cpu {
namespace {

struct Vec {
  static constexpr int kWidth = 16;
  __m512 v;
};

inline Vec Zero() { return {_mm512_setzero_ps()}; }
inline Vec Set1(float x) { return {_mm512_set1_ps(x)}; }
inline Vec Load(const float* p) { return {_mm512_loadu_ps(p)}; }
inline void Store(float* p, Vec a) { _mm512_storeu_ps(p, a.v); }
// The first n (0 <= n <= 16) lanes; the others load as 0 and are not stored. Memory past them
// is not touched.
inline Vec LoadPartial(const float* p, int n) {
  return {_mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p)};
}
inline void StorePartial(float* p, Vec a, int n) {
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), a.v);
}
inline Vec Fma(Vec a, Vec b, Vec c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
inline Vec Add(Vec a, Vec b) { return {_mm512_add_ps(a.v, b.v)}; }
inline Vec Sub(Vec a, Vec b) { return {_mm512_sub_ps(a.v, b.v)}; }
inline Vec Mul(Vec a, Vec b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline Vec Div(Vec a, Vec b) { return {_mm512_div_ps(a.v, b.v)}; }
inline Vec Max(Vec a, Vec b) { return {_mm512_max_ps(a.v, b.v)}; }
inline Vec Min(Vec a, Vec b) { return {_mm512_min_ps(a.v, b.v)}; }
inline Vec Round(Vec a) {
  return {_mm512_roundscale_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
}
inline Vec Pow2(Vec n) {
  const __m512i bits =
      _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n.v), _mm512_set1_epi32(127)), 23);
  return {_mm512_castsi512_ps(bits)};
}
inline float Lane0(Vec a) { return _mm512_cvtss_f32(a.v); }

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_VEC_AVX512_H_
