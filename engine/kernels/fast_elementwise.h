// Optimized variants of the element-wise kernels: each subclasses its reference kernel
// (ncnn's ReLU_arm : ReLU), keeps the reference's Prepare() and checks, and runs float32 data
// on the vectorized, multi-threaded kernels of engine/kernels/cpu/fast_kernels.h where the
// shapes allow; anything else goes to the reference Run(). builtin_kernels.cc registers these.
//
// Binary ops take the fast path when one operand has the output's shape and the other
// broadcasts as [outer dims equal to the output's] x [ones] x [inner dims equal to the
// output's]: equal shapes, a per-channel vector over NHWC pixels, an SE block's [N, 1, 1, C]
// scale. Add and Mul also take it with the operands swapped.

#ifndef EDGEMOND_ENGINE_KERNELS_FAST_ELEMENTWISE_H_
#define EDGEMOND_ENGINE_KERNELS_FAST_ELEMENTWISE_H_

#include <cstdint>

#include "engine/kernels/add.h"
#include "engine/kernels/clip.h"
#include "engine/kernels/cpu/fast_kernels.h"
#include "engine/kernels/cpu/fused_activation.h"
#include "engine/kernels/div.h"
#include "engine/kernels/hard_sigmoid.h"
#include "engine/kernels/hard_swish.h"
#include "engine/kernels/mul.h"
#include "engine/kernels/relu.h"
#include "engine/kernels/sigmoid.h"
#include "engine/kernels/sub.h"

namespace edgemond::engine {

// How a binary op maps onto FastKernels::binary: for each of `outer` blocks, `rows` x `cols`
// of the full operand against `cols` (b_row_stride 0) or `rows` x `cols` (b_row_stride cols)
// of the other.
struct FastBinaryPlan {
  bool usable = false;
  bool swapped = false;  // The full-shape operand is input 1.
  std::int64_t outer = 1, rows = 1, cols = 1, b_row_stride = 0;
};

// The plan for output `out` from operands `a` and `b`; unusable when neither operand has the
// output's shape or the other does not broadcast as described in the file comment.
FastBinaryPlan PlanFastBinary(const Shape& a, const Shape& b, const Shape& out, bool commutative);

template <typename Reference, cpu::BinaryOp kOp>
class FastBinaryKernel : public Reference {
 public:
  Status Prepare(PrepareContext& context) override {
    EDGEMOND_RETURN_IF_ERROR(Reference::Prepare(context));
    fast_ = FastBinaryPlan();
    if (this->dtype_ == DataType::kFloat32) {
      fast_ = PlanFastBinary(context.input(0).shape, context.input(1).shape, this->plan_.out,
                             kOp == cpu::BinaryOp::kAdd || kOp == cpu::BinaryOp::kMul);
      kernels_ = &cpu::FastKernelsFor(BestIsa());
    }
    return Status::Ok();
  }

  Status Run(const RunContext& context) const override {
    if (!fast_.usable) return Reference::Run(context);
    const float* a = context.input(fast_.swapped ? 1 : 0).template data<float>();
    const float* b = context.input(fast_.swapped ? 0 : 1).template data<float>();
    float* y = context.output(0).template data<float>();
    const cpu::ActivationParams activation = cpu::ToActivationParams(this->activation_);
    const std::int64_t block = fast_.rows * fast_.cols;
    const std::int64_t b_block = fast_.b_row_stride == 0 ? fast_.cols : block;
    for (std::int64_t o = 0; o < fast_.outer; ++o) {
      kernels_->binary(kOp, a + o * block, b + o * b_block, y + o * block, fast_.rows, fast_.cols,
                       fast_.b_row_stride, activation, context.pool());
    }
    return Status::Ok();
  }

 private:
  FastBinaryPlan fast_;
  const cpu::FastKernels* kernels_ = nullptr;
};

using FastAddKernel = FastBinaryKernel<AddKernel, cpu::BinaryOp::kAdd>;
using FastSubKernel = FastBinaryKernel<SubKernel, cpu::BinaryOp::kSub>;
using FastMulKernel = FastBinaryKernel<MulKernel, cpu::BinaryOp::kMul>;
using FastDivKernel = FastBinaryKernel<DivKernel, cpu::BinaryOp::kDiv>;

// Relu, Sigmoid, HardSwish and HardSigmoid on the vectorized activation functions.
template <typename Reference, cpu::Activation kKind>
class FastActivationKernel : public Reference {
 public:
  Status Prepare(PrepareContext& context) override {
    EDGEMOND_RETURN_IF_ERROR(Reference::Prepare(context));
    kernels_ = &cpu::FastKernelsFor(BestIsa());
    return Status::Ok();
  }
  Status Run(const RunContext& context) const override {
    const ConstTensorView& x = context.input(0);
    kernels_->activation(x.data<float>(), context.output(0).template data<float>(),
                         x.num_elements(), Params(), context.pool());
    return Status::Ok();
  }

 private:
  cpu::ActivationParams Params() const {
    if constexpr (kKind == cpu::Activation::kHardSigmoid) {
      return {kKind, this->alpha_, this->beta_};
    } else {
      return {kKind, 0.0f, 0.0f};
    }
  }
  const cpu::FastKernels* kernels_ = nullptr;
};

using FastReluKernel = FastActivationKernel<ReluKernel, cpu::Activation::kRelu>;
using FastSigmoidKernel = FastActivationKernel<SigmoidKernel, cpu::Activation::kSigmoid>;
using FastHardSwishKernel = FastActivationKernel<HardSwishKernel, cpu::Activation::kHardSwish>;
using FastHardSigmoidKernel =
    FastActivationKernel<HardSigmoidKernel, cpu::Activation::kHardSigmoid>;

class FastClipKernel : public ClipKernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 private:
  const cpu::FastKernels* kernels_ = nullptr;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_FAST_ELEMENTWISE_H_
