#include "engine/kernels/transpose.h"

#include <array>
#include <cstring>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status TransposeKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  const TensorInfo& x = context.input(0);
  const int rank = x.shape.rank();
  EDGEMOND_ASSIGN_OR_RETURN(std::vector<std::int64_t> perm, context.attributes().GetInts("perm"));
  if (perm.empty()) {
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<int>(perm.size()) != rank) {
    return Status::InvalidArgument("perm has " + std::to_string(perm.size()) +
                                   " entries for rank " + std::to_string(rank));
  }
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  const std::vector<std::int64_t> strides = Strides(x.shape.dims());
  out_dims_.clear();
  in_strides_.clear();
  for (const std::int64_t p : perm) {
    EDGEMOND_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(p, rank, "perm entry"));
    if (seen[static_cast<std::size_t>(axis)]) {
      return Status::InvalidArgument("perm is not a permutation");
    }
    seen[static_cast<std::size_t>(axis)] = true;
    out_dims_.push_back(x.shape.dim(axis));
    in_strides_.push_back(strides[static_cast<std::size_t>(axis)]);
  }
  return context.SetOutput(0, x.dtype, Shape(out_dims_));
}

Status TransposeKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  const TensorView& y = context.output(0);
  const std::int64_t total = y.num_elements();
  const int rank = static_cast<int>(out_dims_.size());
  if (total == 0) return Status::Ok();
  if (rank == 0) {
    std::memcpy(y.raw_data(), x.raw_data(), x.byte_size());
    return Status::Ok();
  }
  DispatchByElementSize(DataTypeSize(x.dtype()), [&]<typename T>() {
    const T* in = static_cast<const T*>(x.raw_data());
    T* out = static_cast<T*>(y.raw_data());
    std::array<std::int64_t, kMaxRank> index{};
    std::int64_t offset = 0;
    for (std::int64_t i = 0; i < total; ++i) {
      out[i] = in[offset];
      for (int d = rank - 1; d >= 0; --d) {
        const auto du = static_cast<std::size_t>(d);
        offset += in_strides_[du];
        if (++index[du] < out_dims_[du]) break;
        offset -= in_strides_[du] * out_dims_[du];
        index[du] = 0;
      }
    }
  });
  return Status::Ok();
}

}  // namespace edgemond::engine
