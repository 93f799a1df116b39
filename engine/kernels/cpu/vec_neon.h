// The 4-lane float vector of the aarch64 NEON kernels (fast_kernels_impl.h).

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_VEC_NEON_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_VEC_NEON_H_

#include <arm_neon.h>

namespace edgemond::engine::cpu {
namespace {

struct Vec {
  static constexpr int kWidth = 4;
  float32x4_t v;
};

inline Vec Zero() { return {vdupq_n_f32(0.0f)}; }
inline Vec Set1(float x) { return {vdupq_n_f32(x)}; }
inline Vec Load(const float* p) { return {vld1q_f32(p)}; }
inline void Store(float* p, Vec a) { vst1q_f32(p, a.v); }
// The first n (0 <= n <= 4) lanes; the others load as 0 and are not stored.
inline Vec LoadPartial(const float* p, int n) {
  float lanes[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int i = 0; i < n; ++i) lanes[i] = p[i];
  return {vld1q_f32(lanes)};
}
inline void StorePartial(float* p, Vec a, int n) {
  float lanes[4];
  vst1q_f32(lanes, a.v);
  for (int i = 0; i < n; ++i) p[i] = lanes[i];
}
inline Vec Fma(Vec a, Vec b, Vec c) { return {vfmaq_f32(c.v, a.v, b.v)}; }
inline Vec Add(Vec a, Vec b) { return {vaddq_f32(a.v, b.v)}; }
inline Vec Sub(Vec a, Vec b) { return {vsubq_f32(a.v, b.v)}; }
inline Vec Mul(Vec a, Vec b) { return {vmulq_f32(a.v, b.v)}; }
inline Vec Div(Vec a, Vec b) { return {vdivq_f32(a.v, b.v)}; }
// vmaxq/vminq propagate NaN from either operand, which the x86 rule (return b) also allows
// for the uses here (the activation input is always the second operand).
inline Vec Max(Vec a, Vec b) { return {vmaxq_f32(a.v, b.v)}; }
inline Vec Min(Vec a, Vec b) { return {vminq_f32(a.v, b.v)}; }
inline Vec Round(Vec a) { return {vrndnq_f32(a.v)}; }
inline Vec Pow2(Vec n) {
  const int32x4_t bits = vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(n.v), vdupq_n_s32(127)), 23);
  return {vreinterpretq_f32_s32(bits)};
}
inline float Lane0(Vec a) { return vgetq_lane_f32(a.v, 0); }

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_VEC_NEON_H_
