#include "engine/kernels/fast_elementwise.h"

#include <vector>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {
namespace {

FastBinaryPlan PlanOneWay(const Shape& full, const Shape& other, const Shape& out) {
  FastBinaryPlan plan;
  if (!(full == out) || other.rank() > out.rank()) return plan;
  const int rank = out.rank();
  std::vector<std::int64_t> b(static_cast<std::size_t>(rank), 1);
  for (int i = 0; i < other.rank(); ++i) {
    b[static_cast<std::size_t>(rank - other.rank() + i)] = other.dim(i);
  }
  // [prefix equal] [ones] [suffix equal].
  int prefix = 0;
  while (prefix < rank && b[static_cast<std::size_t>(prefix)] == out.dim(prefix)) ++prefix;
  if (prefix == rank) {
    plan.usable = true;
    plan.cols = rank > 0 ? out.dim(rank - 1) : 1;
    plan.rows = plan.cols > 0 ? out.num_elements() / plan.cols : 0;
    plan.b_row_stride = plan.cols;
    return plan;
  }
  int suffix = rank;
  while (suffix > prefix && b[static_cast<std::size_t>(suffix - 1)] == out.dim(suffix - 1) &&
         b[static_cast<std::size_t>(suffix - 1)] != 1) {
    --suffix;
  }
  for (int i = prefix; i < suffix; ++i) {
    if (b[static_cast<std::size_t>(i)] != 1) return plan;
  }
  if (suffix == rank) return plan;  // No inner block: per-element scalars, not worth it.
  plan.usable = true;
  plan.outer = DimProduct(out.dims(), 0, prefix);
  plan.rows = DimProduct(out.dims(), prefix, suffix);
  plan.cols = DimProduct(out.dims(), suffix, rank);
  plan.b_row_stride = 0;
  return plan;
}

}  // namespace

FastBinaryPlan PlanFastBinary(const Shape& a, const Shape& b, const Shape& out, bool commutative) {
  if (out.num_elements() == 0) return {};
  FastBinaryPlan plan = PlanOneWay(a, b, out);
  if (plan.usable || !commutative) return plan;
  plan = PlanOneWay(b, a, out);
  plan.swapped = plan.usable;
  return plan;
}

Status FastClipKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(ClipKernel::Prepare(context));
  kernels_ = &cpu::FastKernelsFor(BestIsa());
  return Status::Ok();
}

Status FastClipKernel::Run(const RunContext& context) const {
  float lo = min_;
  float hi = max_;
  if (bounds_from_inputs_) {
    if (context.has_input(1)) lo = context.input(1).data<float>()[0];
    if (context.has_input(2)) hi = context.input(2).data<float>()[0];
  }
  const ConstTensorView& x = context.input(0);
  kernels_->activation(x.data<float>(), context.output(0).data<float>(), x.num_elements(),
                       {cpu::Activation::kClip, lo, hi}, context.pool());
  return Status::Ok();
}

}  // namespace edgemond::engine
