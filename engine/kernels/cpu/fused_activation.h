// The fused activation a node carries (engine/activation.h), in the form the optimized kernels
// take.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_FUSED_ACTIVATION_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_FUSED_ACTIVATION_H_

#include "engine/activation.h"
#include "engine/kernels/cpu/fast_kernels.h"

namespace edgemond::engine::cpu {

inline ActivationParams ToActivationParams(const FusedActivation& activation) {
  ActivationParams p;
  p.a = activation.alpha;
  p.b = activation.beta;
  switch (activation.kind) {
    case ActivationKind::kNone:
      p.kind = Activation::kNone;
      break;
    case ActivationKind::kRelu:
      p.kind = Activation::kRelu;
      break;
    case ActivationKind::kLeakyRelu:
      p.kind = Activation::kLeakyRelu;
      break;
    case ActivationKind::kClip:
      p.kind = Activation::kClip;
      break;
    case ActivationKind::kHardSigmoid:
      p.kind = Activation::kHardSigmoid;
      break;
    case ActivationKind::kHardSwish:
      p.kind = Activation::kHardSwish;
      break;
    case ActivationKind::kSigmoid:
      p.kind = Activation::kSigmoid;
      break;
    case ActivationKind::kSilu:
      p.kind = Activation::kSilu;
      break;
  }
  return p;
}

}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_FUSED_ACTIVATION_H_
