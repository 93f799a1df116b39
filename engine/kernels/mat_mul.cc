#include "engine/kernels/mat_mul.h"

#include <algorithm>
#include <array>
#include <string>

namespace edgemond::engine {

Status MatMulKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 2));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(1, {DataType::kFloat32}));
  const Shape& a_in = context.input(0).shape;
  const Shape& b_in = context.input(1).shape;
  if (a_in.rank() < 1 || b_in.rank() < 1) {
    return Status::InvalidArgument("MatMul operands must have rank 1 or more");
  }
  // Promote 1-D operands: A [K] -> [1, K], B [K] -> [K, 1].
  std::vector<std::int64_t> a = a_in.vector();
  std::vector<std::int64_t> b = b_in.vector();
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  m_ = a[a.size() - 2];
  k_ = a[a.size() - 1];
  n_ = b[b.size() - 1];
  if (b[b.size() - 2] != k_) {
    return Status::InvalidArgument("shapes " + a_in.ToString() + " and " + b_in.ToString() +
                                   " cannot be multiplied");
  }
  const std::size_t a_batch_rank = a.size() - 2;
  const std::size_t b_batch_rank = b.size() - 2;
  const std::size_t rank = std::max(a_batch_rank, b_batch_rank);
  batch_.assign(rank, 1);
  a_batch_strides_.assign(rank, 0);
  b_batch_strides_.assign(rank, 0);
  std::int64_t a_stride = 1;
  std::int64_t b_stride = 1;
  for (std::size_t i = rank; i-- > 0;) {
    const std::size_t from_end = rank - 1 - i;
    const std::int64_t da = from_end < a_batch_rank ? a[a_batch_rank - 1 - from_end] : 1;
    const std::int64_t db = from_end < b_batch_rank ? b[b_batch_rank - 1 - from_end] : 1;
    if (da != db && da != 1 && db != 1) {
      return Status::InvalidArgument("batch dimensions of " + a_in.ToString() + " and " +
                                     b_in.ToString() + " do not broadcast");
    }
    batch_[i] = std::max(da, db);
    if (da != 1) a_batch_strides_[i] = a_stride;
    if (db != 1) b_batch_strides_[i] = b_stride;
    a_stride *= da;
    b_stride *= db;
  }
  std::vector<std::int64_t> y = batch_;
  if (a_in.rank() > 1) y.push_back(m_);
  if (b_in.rank() > 1) y.push_back(n_);
  Shape y_shape(std::move(y));
  activation_ = context.activation();
  context.SetFlops(2 * static_cast<std::uint64_t>(y_shape.num_elements() * k_) +
                   static_cast<std::uint64_t>(y_shape.num_elements()) *
                       ActivationFlopsPerElement(activation_.kind));
  return context.SetOutput(0, DataType::kFloat32, std::move(y_shape));
}

Status MatMulKernel::Run(const RunContext& context) const {
  const float* a = context.input(0).data<float>();
  const float* b = context.input(1).data<float>();
  float* y = context.output(0).data<float>();
  std::int64_t batches = 1;
  for (const std::int64_t d : batch_) batches *= d;
  const std::size_t rank = batch_.size();
  std::array<std::int64_t, kMaxRank> index{};
  std::int64_t a_matrix = 0;
  std::int64_t b_matrix = 0;
  for (std::int64_t batch = 0; batch < batches; ++batch) {
    const float* am = a + a_matrix * m_ * k_;
    const float* bm = b + b_matrix * k_ * n_;
    float* ym = y + batch * m_ * n_;
    for (std::int64_t i = 0; i < m_; ++i) {
      for (std::int64_t j = 0; j < n_; ++j) ym[i * n_ + j] = 0.0f;
      for (std::int64_t p = 0; p < k_; ++p) {
        const float av = am[i * k_ + p];
        for (std::int64_t j = 0; j < n_; ++j) ym[i * n_ + j] += av * bm[p * n_ + j];
      }
      ActivateInPlace(activation_, ym + i * n_, n_);
    }
    for (std::size_t d = rank; d-- > 0;) {
      a_matrix += a_batch_strides_[d];
      b_matrix += b_batch_strides_[d];
      if (++index[d] < batch_[d]) break;
      a_matrix -= a_batch_strides_[d] * batch_[d];
      b_matrix -= b_batch_strides_[d] * batch_[d];
      index[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
