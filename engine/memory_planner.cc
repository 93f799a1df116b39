#include "engine/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace edgemond::engine {
namespace {

std::int64_t AlignUp(std::int64_t value, std::int64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

bool Overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

}  // namespace

MemoryPlan PlanMemory(std::span<const BufferRequest> requests, std::int64_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<std::size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (requests[a].bytes != requests[b].bytes) return requests[a].bytes > requests[b].bytes;
    return requests[a].first_step < requests[b].first_step;
  });

  struct Placed {
    std::int64_t offset;
    std::int64_t end;
  };
  std::vector<std::size_t> placed;
  std::vector<Placed> conflicts;
  for (const std::size_t index : order) {
    const BufferRequest& request = requests[index];
    const std::int64_t size = AlignUp(request.bytes, alignment);
    conflicts.clear();
    for (const std::size_t other : placed) {
      if (Overlap(request, requests[other])) {
        const std::int64_t offset = plan.offsets[other];
        conflicts.push_back({offset, offset + AlignUp(requests[other].bytes, alignment)});
      }
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
    // First gap, scanning upwards, that fits.
    std::int64_t candidate = 0;
    for (const Placed& conflict : conflicts) {
      if (conflict.offset - candidate >= size) break;
      candidate = std::max(candidate, conflict.end);
    }
    plan.offsets[index] = candidate;
    plan.arena_bytes = std::max(plan.arena_bytes, candidate + size);
    placed.push_back(index);
  }
  return plan;
}

}  // namespace edgemond::engine
