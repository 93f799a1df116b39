// edgemond.Dense (internal, opset 1): Y = act(A * B' + C) with packed weights; what the layout
// pass (engine/layout_pass.h) makes of ONNX Gemm nodes with a constant B, alpha = beta = 1, no
// transA, and a constant C that broadcasts along the rows (PyTorch's Linear).
//
// Inputs: A [M, K], B [K, N] or, with transB = 1, [N, K] (constant), C [N], [1, N] or one
// element (optional, constant). Output: Y [M, N]. It runs as a 1x1 convolution of M pixels on
// the implicit-GEMM kernel (engine/kernels/cpu/fast_kernels.h).

#ifndef EDGEMOND_ENGINE_KERNELS_DENSE_H_
#define EDGEMOND_ENGINE_KERNELS_DENSE_H_

#include <vector>

#include "engine/kernel.h"
#include "engine/kernels/cpu/fast_kernels.h"
#include "engine/kernels/cpu/packed_weights.h"

namespace edgemond::engine {

class DenseKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputAtRun(int index) const override { return index == 0; }
  std::size_t PackedBytes() const override {
    return sizeof(float) * (packed_.size() + bias_.size());
  }
  bool SupportsActivation(ActivationKind kind) const override {
    (void)kind;
    return true;
  }

 private:
  const cpu::FastKernels* kernels_ = nullptr;
  cpu::ConvArgs args_;
  cpu::PackedWeights packed_;
  std::vector<float> bias_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_DENSE_H_
