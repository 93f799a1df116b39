// Identity (ai.onnx 1-28): y = x, any tensor type. The RemoveIdentities pass replaces it by a
// rename, so this kernel runs only where the graph keeps it (none of the built-in passes do).

#ifndef EDGEMOND_ENGINE_KERNELS_IDENTITY_H_
#define EDGEMOND_ENGINE_KERNELS_IDENTITY_H_

#include "engine/kernel.h"

namespace edgemond::engine {

class IdentityKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_IDENTITY_H_
