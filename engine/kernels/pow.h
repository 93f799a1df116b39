// Pow (ai.onnx 7-28): z = x ^ y with multidirectional broadcasting. X (and Z) float32,
// float64, int32 or int64; Y any numeric type (opset 12+; the same type as X before).
// Floating-point results are computed in double and rounded once; integer bases with integer
// exponents are exact (wrapping on overflow), negative exponents truncate toward zero.

#ifndef EDGEMOND_ENGINE_KERNELS_POW_H_
#define EDGEMOND_ENGINE_KERNELS_POW_H_

#include "engine/kernel.h"
#include "engine/kernels/broadcast.h"

namespace edgemond::engine {

class PowKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  BroadcastPlan plan_;
  DataType base_type_ = DataType::kFloat32;
  DataType exponent_type_ = DataType::kFloat32;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_POW_H_
