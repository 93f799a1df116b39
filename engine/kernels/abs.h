// Abs (ai.onnx 6-28): y = |x|. float32, float64 and the signed integers (the absolute value of
// the minimum is the minimum, as in NumPy).

#ifndef EDGEMOND_ENGINE_KERNELS_ABS_H_
#define EDGEMOND_ENGINE_KERNELS_ABS_H_

#include "engine/kernel.h"

namespace edgemond::engine {

class AbsKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  DataType dtype_ = DataType::kFloat32;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_ABS_H_
