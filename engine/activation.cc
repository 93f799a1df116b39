#include "engine/activation.h"

#include <cstdio>

namespace edgemond::engine {
namespace {

std::string FormatFloat(float value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", static_cast<double>(value));
  return buffer;
}

}  // namespace

std::string_view ActivationKindName(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::kNone:
      return "None";
    case ActivationKind::kRelu:
      return "Relu";
    case ActivationKind::kLeakyRelu:
      return "LeakyRelu";
    case ActivationKind::kClip:
      return "Clip";
    case ActivationKind::kHardSigmoid:
      return "HardSigmoid";
    case ActivationKind::kHardSwish:
      return "HardSwish";
    case ActivationKind::kSigmoid:
      return "Sigmoid";
    case ActivationKind::kSilu:
      return "Silu";
  }
  return "None";
}

std::string FusedActivation::ToString() const {
  switch (kind) {
    case ActivationKind::kNone:
      return "";
    case ActivationKind::kLeakyRelu:
      return "LeakyRelu(" + FormatFloat(alpha) + ")";
    case ActivationKind::kClip:
      return "Clip(" + FormatFloat(alpha) + ", " + FormatFloat(beta) + ")";
    case ActivationKind::kHardSigmoid:
      return "HardSigmoid(" + FormatFloat(alpha) + ", " + FormatFloat(beta) + ")";
    default:
      return std::string(ActivationKindName(kind));
  }
}

void ActivateInPlace(const FusedActivation& activation, float* data, std::int64_t count) {
  // One loop per kind keeps the switch out of the element loop.
  switch (activation.kind) {
    case ActivationKind::kNone:
      return;
    case ActivationKind::kRelu:
      for (std::int64_t i = 0; i < count; ++i) data[i] = ReluValue(data[i]);
      return;
    case ActivationKind::kLeakyRelu:
      for (std::int64_t i = 0; i < count; ++i) {
        data[i] = LeakyReluValue(data[i], activation.alpha);
      }
      return;
    case ActivationKind::kClip:
      for (std::int64_t i = 0; i < count; ++i) {
        data[i] = ClipValue(data[i], activation.alpha, activation.beta);
      }
      return;
    case ActivationKind::kHardSigmoid:
      for (std::int64_t i = 0; i < count; ++i) {
        data[i] = HardSigmoidValue(data[i], activation.alpha, activation.beta);
      }
      return;
    case ActivationKind::kHardSwish:
      for (std::int64_t i = 0; i < count; ++i) data[i] = HardSwishValue(data[i]);
      return;
    case ActivationKind::kSigmoid:
      for (std::int64_t i = 0; i < count; ++i) data[i] = SigmoidValue(data[i]);
      return;
    case ActivationKind::kSilu:
      for (std::int64_t i = 0; i < count; ++i) data[i] = SiluValue(data[i]);
      return;
  }
}

std::uint64_t ActivationFlopsPerElement(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::kNone:
      return 0;
    case ActivationKind::kRelu:
    case ActivationKind::kLeakyRelu:
      return 1;
    case ActivationKind::kClip:
      return 2;
    case ActivationKind::kHardSigmoid:
      return 4;
    case ActivationKind::kHardSwish:
    case ActivationKind::kSigmoid:
      return 5;
    case ActivationKind::kSilu:
      return 6;
  }
  return 0;
}

}  // namespace edgemond::engine
