// LogSoftmax (ai.onnx 1-28): y = x - max - log(sum(exp(x - max))) along the same axis as
// Softmax (opset 13+: `axis`, default -1; before: the 2-D coercion at `axis`, default 1), so
// it neither overflows nor takes the log of an underflowed sum. float32. Reuses Softmax's
// attribute handling and geometry.

#ifndef EDGEMOND_ENGINE_KERNELS_LOG_SOFTMAX_H_
#define EDGEMOND_ENGINE_KERNELS_LOG_SOFTMAX_H_

#include "engine/kernels/softmax.h"

namespace edgemond::engine {

class LogSoftmaxKernel : public SoftmaxKernel {
 public:
  Status Run(const RunContext& context) const override;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_LOG_SOFTMAX_H_
