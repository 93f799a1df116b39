// Softmax (ai.onnx 1-28). Opset 13+ normalizes along `axis` (default -1). Opsets 1-12 coerce
// the input to 2-D at `axis` (default 1) and normalize each row of that matrix, i.e. over all
// dimensions from `axis` on. Subtracts the maximum first, so large inputs do not overflow.
// float32.

#ifndef EDGEMOND_ENGINE_KERNELS_SOFTMAX_H_
#define EDGEMOND_ENGINE_KERNELS_SOFTMAX_H_

#include <cstdint>

#include "engine/kernel.h"

namespace edgemond::engine {

class SoftmaxKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  // The tensor is viewed as [outer, axis, inner]; each (outer, inner) line is normalized.
  std::int64_t outer_ = 1;
  std::int64_t axis_ = 1;
  std::int64_t inner_ = 1;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_SOFTMAX_H_
