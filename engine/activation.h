// Fused activations: the contract between the fusion pass and the kernels that honour it.
//
// An element-wise activation that directly follows an op (Conv -> Relu, Gemm -> Sigmoid,
// Add -> Relu for a residual block) can be applied by the producing op as it writes its output,
// which saves one pass over the tensor and one arena buffer. The activation is then carried by
// the producing node (Node::activation, engine/graph.h) and the activation node disappears.
//
// The contract, for every kernel and every pass:
//  1. A kernel declares which activation kinds it applies by overriding
//     Kernel::SupportsActivation(kind) (engine/kernel.h). The answer depends on the kernel class
//     only, never on Prepare() or the node: the pass asks a freshly created kernel. Kernels that
//     do not override it support none, and the engine refuses (kUnsupported, naming the node) a
//     node that carries an activation its kernel does not declare, so a fused activation can
//     never be silently dropped.
//  2. A kernel that declares a kind reads it in Prepare() from PrepareContext::activation() and
//     applies it in Run() to every element of output 0, after everything else the op computes
//     (bias, beta * C, the residual sum): y = Activate(activation, op(x)). It may apply it
//     anywhere in its loops (in a GEMM epilogue, per tile, per output plane) as long as each
//     element gets it exactly once, after its final value.
//  3. The reference kernels apply it with the scalar functions below, which are also what the
//     stand-alone activation kernels (Relu, Sigmoid, ...) compute: fusing is bit-exact for the
//     reference kernels. An optimized kernel may use a vectorized form (a polynomial exp for
//     Sigmoid/SiLU) and is then held to the tolerance of its tests against the reference.
//  4. An optimized kernel that subclasses a reference kernel and overrides Run() inherits the
//     reference's SupportsActivation(); it must either honour every kind declared there or
//     override SupportsActivation() to declare less. engine/fused_activation_test.cc checks
//     every registered kernel that declares a kind against the unfused graph.
//
// Which producers the pass fuses into, and which patterns (Sigmoid + Mul = SiLU, HardSigmoid +
// Mul = HardSwish) it recognises: engine/passes.h, FuseActivations.
//
// Thread safety: plain values and pure functions.

#ifndef EDGEMOND_ENGINE_ACTIVATION_H_
#define EDGEMOND_ENGINE_ACTIVATION_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace edgemond::engine {

enum class ActivationKind : std::uint8_t {
  kNone,
  kRelu,         // max(x, 0); NaN stays NaN.
  kLeakyRelu,    // x >= 0 ? x : alpha * x.
  kClip,         // min(max(x, alpha), beta): alpha is the lower bound, beta the upper (ReLU6:
                 // 0, 6); when alpha > beta every element becomes beta, as ONNX Clip says.
  kHardSigmoid,  // max(0, min(1, alpha * x + beta)).
  kHardSwish,    // x * HardSigmoid(x) with alpha = 1/6, beta = 0.5 (ONNX HardSwish).
  kSigmoid,      // 1 / (1 + exp(-x)).
  kSilu,         // x * Sigmoid(x) (also called Swish; EfficientNet's activation).
};

// The name ONNX (or, for SiLU, PyTorch) gives the activation: "Relu", "Clip", "Silu".
std::string_view ActivationKindName(ActivationKind kind);

// The activation a node carries: a kind and up to two parameters whose meaning depends on the
// kind (see ActivationKind); parameters a kind does not use are 0.
struct FusedActivation {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0.0f;
  float beta = 0.0f;

  static FusedActivation None() { return {}; }
  static FusedActivation Relu() { return {ActivationKind::kRelu, 0.0f, 0.0f}; }
  static FusedActivation LeakyRelu(float slope) {
    return {ActivationKind::kLeakyRelu, slope, 0.0f};
  }
  static FusedActivation Clip(float lower, float upper) {
    return {ActivationKind::kClip, lower, upper};
  }
  static FusedActivation HardSigmoid(float alpha, float beta) {
    return {ActivationKind::kHardSigmoid, alpha, beta};
  }
  static FusedActivation HardSwish() { return {ActivationKind::kHardSwish, 0.0f, 0.0f}; }
  static FusedActivation Sigmoid() { return {ActivationKind::kSigmoid, 0.0f, 0.0f}; }
  static FusedActivation Silu() { return {ActivationKind::kSilu, 0.0f, 0.0f}; }

  bool active() const { return kind != ActivationKind::kNone; }
  // "Relu", "Clip(0, 6)", "HardSigmoid(0.2, 0.5)", "LeakyRelu(0.01)"; "" for none.
  std::string ToString() const;

  friend bool operator==(const FusedActivation& a, const FusedActivation& b) = default;
};

// --- Scalar reference functions: the ground truth for fused and stand-alone activations. ---

inline float ReluValue(float x) { return x < 0.0f ? 0.0f : x; }  // NaN stays NaN.

inline float LeakyReluValue(float x, float alpha) { return x < 0.0f ? alpha * x : x; }

// Written so that NaN stays NaN and lower > upper yields upper.
inline float ClipValue(float x, float lower, float upper) {
  const float v = x < lower ? lower : x;
  return v > upper ? upper : v;
}

inline float HardSigmoidValue(float x, float alpha, float beta) {
  const float v = alpha * x + beta;
  // max(0, min(1, v)), with NaN propagated.
  return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

// ONNX HardSwish's constants; HardSigmoid(x, kHardSwishAlpha, kHardSwishBeta) * x is the
// decomposition exporters emit at opsets without HardSwish, so the two must round alike.
inline constexpr float kHardSwishAlpha = 1.0f / 6.0f;
inline constexpr float kHardSwishBeta = 0.5f;

inline float HardSwishValue(float x) {
  return x * HardSigmoidValue(x, kHardSwishAlpha, kHardSwishBeta);
}

inline float SigmoidValue(float x) {
  // Both branches take exp of a non-positive number, so neither overflows.
  if (x >= 0.0f) return 1.0f / (1.0f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.0f + e);
}

inline float SiluValue(float x) { return x * SigmoidValue(x); }

// Applies `activation` to one value. For kNone, returns x.
inline float Activate(const FusedActivation& activation, float x) {
  switch (activation.kind) {
    case ActivationKind::kNone:
      return x;
    case ActivationKind::kRelu:
      return ReluValue(x);
    case ActivationKind::kLeakyRelu:
      return LeakyReluValue(x, activation.alpha);
    case ActivationKind::kClip:
      return ClipValue(x, activation.alpha, activation.beta);
    case ActivationKind::kHardSigmoid:
      return HardSigmoidValue(x, activation.alpha, activation.beta);
    case ActivationKind::kHardSwish:
      return HardSwishValue(x);
    case ActivationKind::kSigmoid:
      return SigmoidValue(x);
    case ActivationKind::kSilu:
      return SiluValue(x);
  }
  return x;
}

// Applies `activation` in place to data[0, count): the reference epilogue. A no-op for kNone.
void ActivateInPlace(const FusedActivation& activation, float* data, std::int64_t count);

// FLOPs per element of the activation, for reports (0 for kNone).
std::uint64_t ActivationFlopsPerElement(ActivationKind kind);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_ACTIVATION_H_
