// Cast (ai.onnx 6-28): converts element types among float32/64, float16, bfloat16, the 8- to
// 64-bit integers and bool. Floating-point values convert to integers by truncation toward
// zero, saturating at the target's range (NaN becomes 0) where C++ would leave the result
// undefined; to bool, non-zero is true. Strings and float8/4-bit types are refused.

#ifndef EDGEMOND_ENGINE_KERNELS_CAST_H_
#define EDGEMOND_ENGINE_KERNELS_CAST_H_

#include "engine/kernel.h"

namespace edgemond::engine {

class CastKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  DataType to_ = DataType::kFloat32;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_CAST_H_
