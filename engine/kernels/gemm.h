// Gemm (ai.onnx 7-28): Y = alpha * A' * B' + beta * C, where A' and B' are A and B, transposed
// when transA/transB are set, and C (optional from opset 11) broadcasts to [M, N]. float32.
// PyTorch's Linear exports Gemm with transB = 1, so the reference reads B row by row then.
// Applies any fused activation (engine/activation.h) to each finished element of Y.

#ifndef EDGEMOND_ENGINE_KERNELS_GEMM_H_
#define EDGEMOND_ENGINE_KERNELS_GEMM_H_

#include <cstdint>

#include "engine/kernel.h"

namespace edgemond::engine {

class GemmKernel : public Kernel {
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
  bool trans_a_ = false;
  bool trans_b_ = false;
  float alpha_ = 1.0f;
  float beta_ = 1.0f;
  bool has_c_ = false;
  std::int64_t c_row_stride_ = 0;  // 0 when C broadcasts along M.
  std::int64_t c_col_stride_ = 0;  // 0 when C broadcasts along N.
  FusedActivation activation_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_GEMM_H_
