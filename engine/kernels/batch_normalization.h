// BatchNormalization (ai.onnx 7-28):
//   y = scale * (x - mean) / sqrt(var + epsilon) + bias, per channel (dimension 1).
// In inference mode mean and var are the inputs (opset 7-8: `spatial` must be 1; the
// training-only outputs of opsets before 14 are refused). With training_mode = 1 (opset 14+)
// they are the batch's statistics over every dimension but the channel (population variance),
// and the optional outputs 1 and 2 are the updated running statistics,
// input * momentum + batch * (1 - momentum) (momentum 0.9 by default). float32; statistics in
// double.

#ifndef EDGEMOND_ENGINE_KERNELS_BATCH_NORMALIZATION_H_
#define EDGEMOND_ENGINE_KERNELS_BATCH_NORMALIZATION_H_

#include <cstdint>

#include "engine/kernel.h"

namespace edgemond::engine {

class BatchNormalizationKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  // training_mode = 1: batch statistics and the running-statistics outputs.
  Status RunTraining(const RunContext& context) const;

  float epsilon_ = 1e-5f;
  bool training_ = false;
  float momentum_ = 0.9f;
  std::int64_t batch_ = 0;
  std::int64_t channels_ = 0;
  std::int64_t plane_ = 0;  // Elements per channel per batch item.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_BATCH_NORMALIZATION_H_
