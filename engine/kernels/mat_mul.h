// MatMul (ai.onnx 1-28): matrix product with NumPy semantics: 1-D operands are promoted (and
// the added dimension removed from the result) and leading batch dimensions broadcast.
// float32. Applies any fused activation (engine/activation.h) to each finished row of Y.

#ifndef EDGEMOND_ENGINE_KERNELS_MAT_MUL_H_
#define EDGEMOND_ENGINE_KERNELS_MAT_MUL_H_

#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class MatMulKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool SupportsActivation(ActivationKind kind) const override {
    (void)kind;
    return true;
  }

 protected:
  std::int64_t m_ = 0;
  std::int64_t n_ = 0;
  std::int64_t k_ = 0;
  std::vector<std::int64_t> batch_;            // Broadcast batch dimensions of the output.
  std::vector<std::int64_t> a_batch_strides_;  // In matrices; 0 where A broadcasts.
  std::vector<std::int64_t> b_batch_strides_;
  FusedActivation activation_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_MAT_MUL_H_
