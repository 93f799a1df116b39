// PRelu (ai.onnx 7-28): y = x < 0 ? slope * x : x, where slope broadcasts to x
// (unidirectionally: y has x's shape). float32. A per-channel slope ([C, 1, 1]) is the common
// exported form.

#ifndef EDGEMOND_ENGINE_KERNELS_PRELU_H_
#define EDGEMOND_ENGINE_KERNELS_PRELU_H_

#include "engine/kernel.h"
#include "engine/kernels/broadcast.h"

namespace edgemond::engine {

class PReluKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  BroadcastPlan plan_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_PRELU_H_
