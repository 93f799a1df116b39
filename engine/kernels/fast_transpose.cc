#include "engine/kernels/fast_transpose.h"

#include <cstring>

namespace edgemond::engine {

Status FastTransposeKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(TransposeKernel::Prepare(context));
  batch_ = 0;
  if (out_dims_.size() != 4 || DataTypeSize(context.input(0).dtype) != 4) return Status::Ok();
  const std::vector<std::int64_t>& d = out_dims_;
  const std::vector<std::int64_t>& s = in_strides_;
  if (s[2] == 1 && s[1] == d[2] && s[3] == d[1] * d[2]) {
    // (0, 2, 3, 1): [N, C, H, W] -> [N, H, W, C].
    batch_ = d[0];
    rows_ = d[1] * d[2];
    cols_ = d[3];
  } else if (s[1] == 1 && s[3] == d[1] && s[2] == d[3] * d[1]) {
    // (0, 3, 1, 2): [N, H, W, C] -> [N, C, H, W].
    batch_ = d[0];
    rows_ = d[1];
    cols_ = d[2] * d[3];
  }
  return Status::Ok();
}

Status FastTransposeKernel::Run(const RunContext& context) const {
  if (batch_ == 0) return TransposeKernel::Run(context);
  const auto* in = static_cast<const std::uint32_t*>(context.input(0).raw_data());
  auto* out = static_cast<std::uint32_t*>(context.output(0).raw_data());
  constexpr std::int64_t kBlock = 32;
  const std::int64_t row_blocks = (rows_ + kBlock - 1) / kBlock;
  ParallelFor(context.pool(), batch_ * row_blocks, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t n = task / row_blocks;
      const std::int64_t i0 = (task % row_blocks) * kBlock;
      const std::int64_t i1 = i0 + kBlock < rows_ ? i0 + kBlock : rows_;
      const std::uint32_t* src = in + n * rows_ * cols_;
      std::uint32_t* dst = out + n * rows_ * cols_;
      for (std::int64_t j0 = 0; j0 < cols_; j0 += kBlock) {
        const std::int64_t j1 = j0 + kBlock < cols_ ? j0 + kBlock : cols_;
        for (std::int64_t i = i0; i < i1; ++i) {
          for (std::int64_t j = j0; j < j1; ++j) dst[i * cols_ + j] = src[j * rows_ + i];
        }
      }
    }
  });
  return Status::Ok();
}

Status FastSliceKernel::Run(const RunContext& context) const {
  const int rank = static_cast<int>(out_dims_.size());
  if (rank == 0 || in_strides_.back() != 1) return SliceKernel::Run(context);
  const TensorView& y = context.output(0);
  const std::size_t element = DataTypeSize(y.dtype());
  const std::int64_t row = out_dims_.back();
  const std::int64_t rows = row == 0 ? 0 : y.num_elements() / row;
  const auto* in = static_cast<const std::byte*>(context.input(0).raw_data());
  auto* out = static_cast<std::byte*>(y.raw_data());
  std::int64_t index[kMaxRank] = {};
  std::int64_t offset = start_offset_;
  for (std::int64_t r = 0; r < rows; ++r) {
    std::memcpy(out + static_cast<std::size_t>(r * row) * element,
                in + static_cast<std::size_t>(offset) * element,
                static_cast<std::size_t>(row) * element);
    for (int d = rank - 2; d >= 0; --d) {
      const auto du = static_cast<std::size_t>(d);
      offset += in_strides_[du];
      if (++index[d] < out_dims_[du]) break;
      offset -= in_strides_[du] * out_dims_[du];
      index[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
