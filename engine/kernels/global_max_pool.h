// GlobalMaxPool (ai.onnx 1-28): the maximum of each channel over all spatial positions;
// [N, C, D1, ...] becomes [N, C, 1, ...]. NaN wins. float32. Reuses GlobalAveragePool's
// geometry.

#ifndef EDGEMOND_ENGINE_KERNELS_GLOBAL_MAX_POOL_H_
#define EDGEMOND_ENGINE_KERNELS_GLOBAL_MAX_POOL_H_

#include "engine/kernels/global_average_pool.h"

namespace edgemond::engine {

class GlobalMaxPoolKernel : public GlobalAveragePoolKernel {
 public:
  Status Run(const RunContext& context) const override;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_GLOBAL_MAX_POOL_H_
