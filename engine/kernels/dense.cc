#include "engine/kernels/dense.h"

#include <string>

#include "engine/kernels/cpu/fused_activation.h"

namespace edgemond::engine {

Status DenseKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 3));
  for (int i = 0; i < context.num_inputs(); ++i) {
    if (context.has_input(i)) {
      EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(i, {DataType::kFloat32}));
    }
  }
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 2, 2));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(1, 2, 2));
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t trans_b, context.attributes().GetInt("transB", 0));
  const Tensor* b = context.constant(1);
  const Tensor* c = context.has_input(2) ? context.constant(2) : nullptr;
  if (b == nullptr || (context.has_input(2) && c == nullptr)) {
    return Status::Unsupported("B and C must be constants");
  }
  const Shape& a = context.input(0).shape;
  const std::int64_t m = a.dim(0), k = a.dim(1);
  const std::int64_t n = trans_b != 0 ? b->shape().dim(0) : b->shape().dim(1);
  if ((trans_b != 0 ? b->shape().dim(1) : b->shape().dim(0)) != k) {
    return Status::InvalidArgument("B of shape " + b->shape().ToString() + " does not match A " +
                                   a.ToString());
  }
  const std::int64_t padded = cpu::PaddedChannels(n);
  bias_.assign(static_cast<std::size_t>(padded), 0.0f);
  if (c != nullptr) {
    const std::int64_t count = c->num_elements();
    const bool row =
        c->shape().rank() >= 1 && c->shape().dim(c->shape().rank() - 1) == n && count == n;
    if (!row && count != 1) {
      return Status::InvalidArgument("C of shape " + c->shape().ToString() +
                                     " is not one bias per column");
    }
    for (std::int64_t j = 0; j < n; ++j) {
      bias_[static_cast<std::size_t>(j)] = c->data<float>()[row ? j : 0];
    }
  }
  EDGEMOND_RETURN_IF_ERROR(packed_.Allocate(padded * k));
  kernels_ = &cpu::FastKernelsFor(BestIsa());
  // One panel after another (ConvPackedPanels): a dense layer's weights come from memory.
  cpu::PackDenseWeights(b->data<float>(), k, n, trans_b != 0, /*packed_panels=*/1, packed_.data());
  args_.batch = 1;
  args_.in_h = args_.out_h = m;
  args_.in_c = k;
  args_.out_c = n;
  args_.x_pixel_stride = k;
  args_.y_pixel_stride = n;
  args_.packed_w = packed_.data();
  args_.bias = bias_.data();
  args_.zero = bias_.data();  // Never read: a 1x1 kernel has no padding taps.
  args_.activation = cpu::ToActivationParams(context.activation());
  context.SetFlops(2 * static_cast<std::uint64_t>(m * n * k));
  return context.SetOutput(0, DataType::kFloat32, Shape{m, n});
}

Status DenseKernel::Run(const RunContext& context) const {
  cpu::ConvArgs args = args_;
  args.x = context.input(0).data<float>();
  args.y = context.output(0).data<float>();
  args.other_weight_bytes = context.OtherConstantBytes(PackedBytes());
  kernels_->conv(args, context.pool());
  return Status::Ok();
}

}  // namespace edgemond::engine
