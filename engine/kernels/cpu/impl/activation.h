// The fused activations: Exp and the activation functions over Vec, and WithActivation, which
// turns the runtime activation kind into the template argument every kernel is instantiated with.
// A part of fast_kernels_impl.h, which includes it (see there): compiled once per ISA, over that
// ISA's Vec, with internal linkage.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_IMPL_ACTIVATION_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_IMPL_ACTIVATION_H_

namespace edgemond::engine::cpu {
namespace {

// exp(x), relative error about 2 ulp over the clamped range (Cephes' expf polynomial after
// range reduction by powers of 2).
inline Vec Exp(Vec x) {
  x = Min(Set1(88.0f), x);
  x = Max(Set1(-87.0f), x);
  const Vec n = Round(Mul(x, Set1(1.44269504088896341f)));
  Vec r = Fma(n, Set1(-0.693359375f), x);
  r = Fma(n, Set1(2.12194440e-4f), r);
  Vec p = Set1(1.9875691500e-4f);
  p = Fma(p, r, Set1(1.3981999507e-3f));
  p = Fma(p, r, Set1(8.3334519073e-3f));
  p = Fma(p, r, Set1(4.1665795894e-2f));
  p = Fma(p, r, Set1(1.6666665459e-1f));
  p = Fma(p, r, Set1(5.0000001201e-1f));
  p = Fma(p, Mul(r, r), Add(r, Set1(1.0f)));
  return Mul(p, Pow2(n));
}

inline Vec Sigmoid(Vec x) {
  const Vec one = Set1(1.0f);
  return Div(one, Add(one, Exp(Sub(Zero(), x))));
}

template <Activation kAct>
inline Vec Activate(Vec x, const ActivationParams& p) {
  if constexpr (kAct == Activation::kNone) {
    return x;
  } else if constexpr (kAct == Activation::kRelu) {
    return Max(Zero(), x);
  } else if constexpr (kAct == Activation::kLeakyRelu) {
    return Fma(Set1(p.a), Min(Zero(), x), Max(Zero(), x));
  } else if constexpr (kAct == Activation::kClip) {
    return Min(Set1(p.b), Max(Set1(p.a), x));
  } else if constexpr (kAct == Activation::kHardSigmoid) {
    return Min(Set1(1.0f), Max(Zero(), Fma(Set1(p.a), x, Set1(p.b))));
  } else if constexpr (kAct == Activation::kHardSwish) {
    const Vec gate = Min(Set1(1.0f), Max(Zero(), Fma(Set1(1.0f / 6.0f), x, Set1(0.5f))));
    return Mul(x, gate);
  } else if constexpr (kAct == Activation::kSigmoid) {
    return Sigmoid(x);
  } else {
    return Mul(x, Sigmoid(x));
  }
}

// Calls f.template operator()<kAct>() for the runtime activation kind.
template <typename F>
inline void WithActivation(Activation kind, F&& f) {
  switch (kind) {
    case Activation::kNone:
      f.template operator()<Activation::kNone>();
      return;
    case Activation::kRelu:
      f.template operator()<Activation::kRelu>();
      return;
    case Activation::kLeakyRelu:
      f.template operator()<Activation::kLeakyRelu>();
      return;
    case Activation::kClip:
      f.template operator()<Activation::kClip>();
      return;
    case Activation::kHardSigmoid:
      f.template operator()<Activation::kHardSigmoid>();
      return;
    case Activation::kHardSwish:
      f.template operator()<Activation::kHardSwish>();
      return;
    case Activation::kSigmoid:
      f.template operator()<Activation::kSigmoid>();
      return;
    case Activation::kSilu:
      f.template operator()<Activation::kSilu>();
      return;
  }
}

// Applies the activation to count floats in place-or-copy; the tail goes through a padded
// buffer so that every element sees the same vector code.
template <Activation kAct>
inline void ActivateSpan(const float* x, float* y, int64_t count, const ActivationParams& p) {
  int64_t i = 0;
  for (; i + kW <= count; i += kW) Store(y + i, Activate<kAct>(Load(x + i), p));
  if (i < count) {
    float buffer[kW] = {};
    for (int64_t j = 0; j < count - i; ++j) buffer[j] = x[i + j];
    Store(buffer, Activate<kAct>(Load(buffer), p));
    for (int64_t j = 0; j < count - i; ++j) y[i + j] = buffer[j];
  }
}

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_IMPL_ACTIVATION_H_
