// Constant (ai.onnx 1-28): a tensor from exactly one of the attributes value, value_float(s)
// and value_int(s) (opset 12+). Sparse and string values are refused. It has no inputs, so it
// always folds at load time.

#ifndef EDGEMOND_ENGINE_KERNELS_CONSTANT_H_
#define EDGEMOND_ENGINE_KERNELS_CONSTANT_H_

#include <memory>

#include "engine/kernel.h"

namespace edgemond::engine {

class ConstantKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  std::shared_ptr<const Tensor> value_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_CONSTANT_H_
