#include "engine/kernels/broadcast.h"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Result<BroadcastPlan> PlanBroadcast(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<std::int64_t> out(static_cast<std::size_t>(rank));
  // Dimension i of the output aligns with the trailing dimensions of each input.
  for (int i = 0; i < rank; ++i) {
    const int ai = i - (rank - a.rank());
    const int bi = i - (rank - b.rank());
    const std::int64_t da = ai >= 0 ? a.dim(ai) : 1;
    const std::int64_t db = bi >= 0 ? b.dim(bi) : 1;
    if (da != db && da != 1 && db != 1) {
      return Status::InvalidArgument("shapes " + a.ToString() + " and " + b.ToString() +
                                     " do not broadcast");
    }
    out[static_cast<std::size_t>(i)] = da == 1 ? db : da;
  }
  BroadcastPlan plan;
  plan.out = Shape(out);
  // Operands may be intermediate shapes (Max's running broadcast of several inputs, Expand's
  // requested shape) that no tensor check has seen; bounding them keeps the strides below
  // exact.
  for (const Shape* shape : std::initializer_list<const Shape*>{&a, &b, &plan.out}) {
    const Result<std::int64_t> elements = CheckedByteSize(*shape, DataType::kUint8);
    if (!elements.ok()) {
      return elements.status().WithContext("broadcasting " + a.ToString() + " and " + b.ToString());
    }
  }
  plan.a_strides.assign(static_cast<std::size_t>(rank), 0);
  plan.b_strides.assign(static_cast<std::size_t>(rank), 0);
  const std::vector<std::int64_t> a_own = Strides(a.dims());
  const std::vector<std::int64_t> b_own = Strides(b.dims());
  for (int i = 0; i < rank; ++i) {
    const int ai = i - (rank - a.rank());
    const int bi = i - (rank - b.rank());
    if (ai >= 0 && a.dim(ai) != 1) {
      plan.a_strides[static_cast<std::size_t>(i)] = a_own[static_cast<std::size_t>(ai)];
    }
    if (bi >= 0 && b.dim(bi) != 1) {
      plan.b_strides[static_cast<std::size_t>(i)] = b_own[static_cast<std::size_t>(bi)];
    }
  }
  return plan;
}

Result<Shape> BroadcastShape(const Shape& a, const Shape& b) {
  EDGEMOND_ASSIGN_OR_RETURN(BroadcastPlan plan, PlanBroadcast(a, b));
  return std::move(plan.out);
}

std::vector<std::int64_t> BroadcastStrides(const Shape& in, const Shape& out) {
  const int rank = out.rank();
  std::vector<std::int64_t> strides(static_cast<std::size_t>(rank), 0);
  const std::vector<std::int64_t> own = Strides(in.dims());
  for (int i = 0; i < rank; ++i) {
    const int ii = i - (rank - in.rank());
    if (ii >= 0 && in.dim(ii) != 1) {
      strides[static_cast<std::size_t>(i)] = own[static_cast<std::size_t>(ii)];
    }
  }
  return strides;
}

}  // namespace edgemond::engine
