// LRN (ai.onnx 1-28): local response normalization across channels (GoogLeNet v1, AlexNet):
// y = x / (bias + alpha / size * sum(x^2 over channels c - floor((size - 1) / 2) through
// c + ceil((size - 1) / 2)))^beta, for X of shape [N, C, D1, ...]. float32.

#ifndef EDGEMOND_ENGINE_KERNELS_LRN_H_
#define EDGEMOND_ENGINE_KERNELS_LRN_H_

#include <cstdint>

#include "engine/kernel.h"

namespace edgemond::engine {

class LrnKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  std::int64_t batch_ = 0;
  std::int64_t channels_ = 0;
  std::int64_t plane_ = 0;
  std::int64_t before_ = 0;  // Channels below c in the window.
  std::int64_t after_ = 0;   // Channels above c in the window.
  float alpha_ = 1e-4f;
  float beta_ = 0.75f;
  float bias_ = 1.0f;
  std::int64_t size_ = 1;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_LRN_H_
