// The portable "vector": 4 floats in GCC's vector extension (Clang has it too), which the
// compiler lowers to the target's baseline SIMD (SSE2 on x86-64, NEON on arm64) or to scalar
// code. Used where no ISA-specific kernels are available, and as a second implementation the
// tests compare with the reference.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_VEC_PORTABLE_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_VEC_PORTABLE_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace edgemond::engine::cpu {
namespace {

// Each operation is one statement on a 16-byte value rather than a four-float loop: the
// compiler need not vectorize loops again in each of the kernels' instantiations, which is
// most of what compiling this ISA's kernels costs.
using Lanes = float __attribute__((vector_size(16)));
using IntLanes = std::int32_t __attribute__((vector_size(16)));

struct Vec {
  static constexpr int kWidth = 4;
  Lanes v;
};

inline Vec Zero() { return {Lanes{0.0f, 0.0f, 0.0f, 0.0f}}; }
inline Vec Set1(float x) { return {Lanes{x, x, x, x}}; }
inline Vec Load(const float* p) {
  Vec r;
  std::memcpy(&r.v, p, sizeof(r.v));
  return r;
}
inline void Store(float* p, Vec a) { std::memcpy(p, &a.v, sizeof(a.v)); }
// The first n (0 <= n <= 4) lanes; the others load as 0 and are not stored.
inline Vec LoadPartial(const float* p, int n) {
  Vec r = Zero();
  for (int i = 0; i < n; ++i) r.v[i] = p[i];
  return r;
}
inline void StorePartial(float* p, Vec a, int n) {
  for (int i = 0; i < n; ++i) p[i] = a.v[i];
}
inline Vec Fma(Vec a, Vec b, Vec c) { return {a.v * b.v + c.v}; }
inline Vec Add(Vec a, Vec b) { return {a.v + b.v}; }
inline Vec Sub(Vec a, Vec b) { return {a.v - b.v}; }
inline Vec Mul(Vec a, Vec b) { return {a.v * b.v}; }
inline Vec Div(Vec a, Vec b) { return {a.v / b.v}; }
// As on x86: b when either is NaN.
inline Vec Max(Vec a, Vec b) { return {a.v > b.v ? a.v : b.v}; }
inline Vec Min(Vec a, Vec b) { return {a.v < b.v ? a.v : b.v}; }
inline Vec Round(Vec a) {
  Vec r;
  for (int i = 0; i < 4; ++i) r.v[i] = std::nearbyint(a.v[i]);
  return r;
}
inline Vec Pow2(Vec n) {
  // A NaN lane (Exp of a NaN input) would make the conversion undefined; its result is NaN
  // anyway, as the caller multiplies it by a NaN polynomial, so any exponent serves.
  const Lanes finite = n.v == n.v ? n.v : Lanes{0.0f, 0.0f, 0.0f, 0.0f};
  const IntLanes bits = (__builtin_convertvector(finite, IntLanes) + 127) << 23;
  Vec r;
  std::memcpy(&r.v, &bits, sizeof(r.v));
  return r;
}
inline float Lane0(Vec a) { return a.v[0]; }

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_VEC_PORTABLE_H_
