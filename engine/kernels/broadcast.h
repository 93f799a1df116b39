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

// kInvalidArgument when a dimension pair is neither equal nor has a 1.
Result<BroadcastPlan> PlanBroadcast(const Shape& a, const Shape& b);

// y[i] = op(a[...], b[...]) over the broadcast output. Allocates nothing.
template <typename T, typename Op>
void BroadcastBinary(const BroadcastPlan& plan, const T* a, const T* b, T* y, Op op) {
  const int rank = plan.out.rank();
  if (rank == 0) {
    y[0] = op(a[0], b[0]);
    return;
  }
  const std::int64_t total = plan.out.num_elements();
  const std::int64_t inner = plan.out.dim(rank - 1);
  if (total == 0) return;
  const std::int64_t sa = plan.a_strides[static_cast<std::size_t>(rank) - 1];
  const std::int64_t sb = plan.b_strides[static_cast<std::size_t>(rank) - 1];
  std::array<std::int64_t, kMaxRank> index{};
  std::int64_t a_offset = 0;
  std::int64_t b_offset = 0;
  for (std::int64_t start = 0; start < total; start += inner) {
    for (std::int64_t i = 0; i < inner; ++i) {
      y[start + i] = op(a[a_offset + i * sa], b[b_offset + i * sb]);
    }
    // Advance the odometer over the outer dimensions.
    for (int d = rank - 2; d >= 0; --d) {
      const auto du = static_cast<std::size_t>(d);
      a_offset += plan.a_strides[du];
      b_offset += plan.b_strides[du];
      if (++index[du] < plan.out.dim(d)) break;
      a_offset -= plan.a_strides[du] * plan.out.dim(d);
      b_offset -= plan.b_strides[du] * plan.out.dim(d);
      index[du] = 0;
    }
  }
}

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_BROADCAST_H_
