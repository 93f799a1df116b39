// Static memory planning: every intermediate tensor and scratch buffer of a model gets a fixed
// offset in one arena, computed once at load. Buffers whose lifetimes do not overlap share
// memory, so a session allocates once and an inference allocates nothing.
//
// The planner is greedy by size, like tflite-micro's GreedyMemoryPlanner: buffers are placed
// largest first, each at the lowest aligned offset that does not collide with an already placed
// buffer alive at the same time. It is not optimal (the problem is NP-hard) but close on
// chain-like CNN graphs, and deterministic.

#ifndef EDGEMOND_ENGINE_MEMORY_PLANNER_H_
#define EDGEMOND_ENGINE_MEMORY_PLANNER_H_

#include <cstdint>
#include <span>
#include <vector>

namespace edgemond::engine {

// A buffer alive from the start of step `first_step` to the end of step `last_step`.
struct BufferRequest {
  std::int64_t bytes = 0;
  int first_step = 0;
  int last_step = 0;
};

struct MemoryPlan {
  std::vector<std::int64_t> offsets;  // One per request, multiples of the alignment.
  std::int64_t arena_bytes = 0;       // Smallest arena that holds the plan.
};

// REQUIRES: alignment is a power of two; bytes >= 0; first_step <= last_step.
MemoryPlan PlanMemory(std::span<const BufferRequest> requests, std::int64_t alignment);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_MEMORY_PLANNER_H_
