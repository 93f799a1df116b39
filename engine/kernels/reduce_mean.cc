#include "engine/kernels/reduce_mean.h"

#include <array>
#include <cstring>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status ReduceMeanKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  AttributeReader& attributes = context.attributes();
  std::vector<std::int64_t> axes;
  bool noop_with_empty_axes = false;
  if (context.opset() < 18) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
    EDGEMOND_ASSIGN_OR_RETURN(axes, attributes.GetInts("axes"));
  } else {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 2));
    if (context.has_input(1)) {
      const Tensor* axes_tensor = context.constant(1);
      if (axes_tensor == nullptr) {
        return Status::Unsupported("axes computed at run time are not supported");
      }
      EDGEMOND_ASSIGN_OR_RETURN(axes, ReadInt64s(*axes_tensor, "axes"));
    }
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t noop,
                              attributes.GetInt("noop_with_empty_axes", 0));
    noop_with_empty_axes = noop != 0;
  }
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t keepdims, attributes.GetInt("keepdims", 1));
  const Shape& x = context.input(0).shape;
  const int rank = x.rank();
  in_dims_ = x.vector();
  if (axes.empty() && noop_with_empty_axes) {
    passthrough_ = true;
    return context.SetOutput(0, DataType::kFloat32, x);
  }
  reduced_.assign(static_cast<std::size_t>(rank), axes.empty());
  for (const std::int64_t axis : axes) {
    EDGEMOND_ASSIGN_OR_RETURN(const int a, NormalizeAxis(axis, rank, "axes entry"));
    reduced_[static_cast<std::size_t>(a)] = true;
  }
  std::vector<std::int64_t> dims;
  reduced_count_ = 1;
  for (int i = 0; i < rank; ++i) {
    if (reduced_[static_cast<std::size_t>(i)]) {
      reduced_count_ *= x.dim(i);
      if (keepdims != 0) dims.push_back(1);
    } else {
      dims.push_back(x.dim(i));
    }
  }
  context.SetFlops(static_cast<std::uint64_t>(x.num_elements()));
  return context.SetOutput(0, DataType::kFloat32, Shape(std::move(dims)));
}

Status ReduceMeanKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  const TensorView& y = context.output(0);
  if (passthrough_) {
    if (x.byte_size() > 0) std::memcpy(y.raw_data(), x.raw_data(), x.byte_size());
    return Status::Ok();
  }
  const float* in = x.data<float>();
  float* out = y.data<float>();
  const std::int64_t out_count = y.num_elements();
  for (std::int64_t i = 0; i < out_count; ++i) out[i] = 0.0f;
  // Walk the input once; each element adds to the output position with reduced indices
  // dropped. The output offset of an input index is its dot product with these strides.
  const int rank = static_cast<int>(in_dims_.size());
  std::array<std::int64_t, kMaxRank> out_strides{};
  std::int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const auto du = static_cast<std::size_t>(d);
    out_strides[du] = reduced_[du] ? 0 : stride;
    if (!reduced_[du]) stride *= in_dims_[du];
  }
  std::array<std::int64_t, kMaxRank> index{};
  std::int64_t offset = 0;
  const std::int64_t total = x.num_elements();
  for (std::int64_t i = 0; i < total; ++i) {
    out[offset] += in[i];
    for (int d = rank - 1; d >= 0; --d) {
      const auto du = static_cast<std::size_t>(d);
      offset += out_strides[du];
      if (++index[du] < in_dims_[du]) break;
      offset -= out_strides[du] * in_dims_[du];
      index[du] = 0;
    }
  }
  const auto divisor = static_cast<float>(reduced_count_);
  for (std::int64_t i = 0; i < out_count; ++i) out[i] /= divisor;
  return Status::Ok();
}

}  // namespace edgemond::engine
