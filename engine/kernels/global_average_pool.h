// GlobalAveragePool (ai.onnx 1-28): the mean of each channel over all spatial positions;
// [N, C, D1, ...] becomes [N, C, 1, ...]. float32.

#ifndef EDGEMOND_ENGINE_KERNELS_GLOBAL_AVERAGE_POOL_H_
#define EDGEMOND_ENGINE_KERNELS_GLOBAL_AVERAGE_POOL_H_

#include <cstdint>

#include "engine/kernel.h"

namespace edgemond::engine {

class GlobalAveragePoolKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  std::int64_t planes_ = 0;
  std::int64_t plane_size_ = 0;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_GLOBAL_AVERAGE_POOL_H_
