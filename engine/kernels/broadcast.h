// Multidirectional (NumPy) broadcasting, used by the element-wise binary operators.

#ifndef EDGEMOND_ENGINE_KERNELS_BROADCAST_H_
#define EDGEMOND_ENGINE_KERNELS_BROADCAST_H_

#include <array>
#include <cstdint>
#include <vector>

#include "core/result.h"
#include "engine/tensor.h"

namespace edgemond::engine {

// The output shape of broadcasting `a` with `b`, and each input's strides in the output's
// index space (0 along broadcast dimensions).
struct BroadcastPlan {
  Shape out;
  std::vector<std::int64_t> a_strides;  // out.rank() entries.
  std::vector<std::int64_t> b_strides;
};

// kInvalidArgument when a dimension pair is neither equal nor has a 1; the error of
// CheckedByteSize() when a, b or the result has more than kMaxTensorBytes elements.
Result<BroadcastPlan> PlanBroadcast(const Shape& a, const Shape& b);

// The shape `a` and `b` broadcast to; kInvalidArgument when they do not.
Result<Shape> BroadcastShape(const Shape& a, const Shape& b);

// The strides of `in` in `out`'s index space (0 along broadcast dimensions), out.rank()
// entries. REQUIRES: `in` broadcasts to `out`.
std::vector<std::int64_t> BroadcastStrides(const Shape& in, const Shape& out);

// Walks `out` one innermost row at a time: calls row(start, offsets) for each, where `start` is
// the row's first output element and offsets[k] the matching element offset of operand k
// (whose strides, in out's index space, are strides[k]). The row has out.dim(rank - 1)
// elements; along it operand k advances by strides[k][rank - 1]. A scalar output is one row of
// one element. Allocates nothing.
template <std::size_t N, typename F>
void ForEachBroadcastRow(const Shape& out,
                         const std::array<const std::vector<std::int64_t>*, N>& strides, F&& row) {
  const int rank = out.rank();
  std::array<std::int64_t, N> offsets{};
  if (rank == 0) {
    row(std::int64_t{0}, offsets);
    return;
  }
  const std::int64_t total = out.num_elements();
  const std::int64_t inner = out.dim(rank - 1);
  if (total == 0) return;
  std::array<std::int64_t, kMaxRank> index{};
  for (std::int64_t start = 0; start < total; start += inner) {
    row(start, offsets);
    // Advance the odometer over the outer dimensions.
    for (int d = rank - 2; d >= 0; --d) {
      const auto du = static_cast<std::size_t>(d);
      for (std::size_t k = 0; k < N; ++k) offsets[k] += (*strides[k])[du];
      if (++index[du] < out.dim(d)) break;
      for (std::size_t k = 0; k < N; ++k) offsets[k] -= (*strides[k])[du] * out.dim(d);
      index[du] = 0;
    }
  }
}

// y[i] = op(a[...], b[...]) over the broadcast output. Allocates nothing. `y` may be `a` when
// `a` has the output's shape.
template <typename A, typename B, typename Y, typename Op>
void BroadcastBinary(const BroadcastPlan& plan, const A* a, const B* b, Y* y, Op op) {
  const int rank = plan.out.rank();
  const std::int64_t sa = rank > 0 ? plan.a_strides[static_cast<std::size_t>(rank) - 1] : 0;
  const std::int64_t sb = rank > 0 ? plan.b_strides[static_cast<std::size_t>(rank) - 1] : 0;
  const std::int64_t inner = rank > 0 ? plan.out.dim(rank - 1) : 1;
  ForEachBroadcastRow<2>(plan.out, {&plan.a_strides, &plan.b_strides},
                         [&](std::int64_t start, const std::array<std::int64_t, 2>& offsets) {
                           const A* ar = a + offsets[0];
                           const B* br = b + offsets[1];
                           Y* yr = y + start;
                           for (std::int64_t i = 0; i < inner; ++i) {
                             yr[i] = op(ar[i * sa], br[i * sb]);
                           }
                         });
}

// Copies `x` broadcast to shape `to` into `y`; `strides` are BroadcastStrides(x's shape, to),
// computed ahead so that this allocates nothing.
template <typename T>
void BroadcastCopy(const Shape& to, const std::vector<std::int64_t>& strides, const T* x, T* y) {
  const int rank = to.rank();
  const std::int64_t inner = rank > 0 ? to.dim(rank - 1) : 1;
  const std::int64_t step = rank > 0 ? strides[static_cast<std::size_t>(rank) - 1] : 0;
  ForEachBroadcastRow<1>(to, {&strides},
                         [&](std::int64_t start, const std::array<std::int64_t, 1>& offsets) {
                           const T* xr = x + offsets[0];
                           T* yr = y + start;
                           for (std::int64_t i = 0; i < inner; ++i) yr[i] = xr[i * step];
                         });
}

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_BROADCAST_H_
