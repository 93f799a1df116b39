#include "engine/kernels/gemm.h"

#include <string>

namespace edgemond::engine {

Status GemmKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 3));
  for (int i = 0; i < context.num_inputs(); ++i) {
    if (context.has_input(i)) {
      EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(i, {DataType::kFloat32}));
    }
  }
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 2, 2));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(1, 2, 2));
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t trans_a, attributes.GetInt("transA", 0));
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t trans_b, attributes.GetInt("transB", 0));
  EDGEMOND_ASSIGN_OR_RETURN(alpha_, attributes.GetFloat("alpha", 1.0f));
  EDGEMOND_ASSIGN_OR_RETURN(beta_, attributes.GetFloat("beta", 1.0f));
  trans_a_ = trans_a != 0;
  trans_b_ = trans_b != 0;
  const Shape& a = context.input(0).shape;
  const Shape& b = context.input(1).shape;
  m_ = trans_a_ ? a.dim(1) : a.dim(0);
  k_ = trans_a_ ? a.dim(0) : a.dim(1);
  const std::int64_t k_b = trans_b_ ? b.dim(1) : b.dim(0);
  n_ = trans_b_ ? b.dim(0) : b.dim(1);
  if (k_ != k_b) {
    return Status::InvalidArgument("A' is " + std::to_string(m_) + "x" + std::to_string(k_) +
                                   " but B' is " + std::to_string(k_b) + "x" + std::to_string(n_));
  }
  if (context.has_input(2)) {
    // C broadcasts unidirectionally to [M, N].
    const Shape& c = context.input(2).shape;
    const std::int64_t c_rows = c.rank() == 2 ? c.dim(0) : 1;
    const std::int64_t c_cols = c.rank() >= 1 ? c.dim(c.rank() - 1) : 1;
    if (c.rank() > 2 || (c_rows != 1 && c_rows != m_) || (c_cols != 1 && c_cols != n_)) {
      return Status::InvalidArgument("C of shape " + c.ToString() + " does not broadcast to " +
                                     std::to_string(m_) + "x" + std::to_string(n_));
    }
    has_c_ = true;
    c_col_stride_ = c_cols == 1 ? 0 : 1;
    c_row_stride_ = c_rows == 1 ? 0 : c_cols;
  }
  activation_ = context.activation();
  context.SetFlops(2 * static_cast<std::uint64_t>(m_ * n_ * k_) +
                   static_cast<std::uint64_t>(m_ * n_) *
                       ActivationFlopsPerElement(activation_.kind));
  return context.SetOutput(0, DataType::kFloat32, Shape{m_, n_});
}

Status GemmKernel::Run(const RunContext& context) const {
  const float* a = context.input(0).data<float>();
  const float* b = context.input(1).data<float>();
  const float* c = has_c_ ? context.input(2).data<float>() : nullptr;
  float* y = context.output(0).data<float>();
  // Element strides of A' and B' so one loop serves every transposition.
  const std::int64_t a_row = trans_a_ ? 1 : k_;
  const std::int64_t a_col = trans_a_ ? m_ : 1;
  const std::int64_t b_row = trans_b_ ? 1 : n_;
  const std::int64_t b_col = trans_b_ ? k_ : 1;
  for (std::int64_t i = 0; i < m_; ++i) {
    for (std::int64_t j = 0; j < n_; ++j) {
      float sum = 0.0f;
      for (std::int64_t p = 0; p < k_; ++p)
        sum += a[i * a_row + p * a_col] * b[p * b_row + j * b_col];
      float value = alpha_ * sum;
      if (c != nullptr) value += beta_ * c[i * c_row_stride_ + j * c_col_stride_];
      y[i * n_ + j] = Activate(activation_, value);
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
