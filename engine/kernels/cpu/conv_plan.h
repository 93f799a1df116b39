// How the NHWC convolution (impl/conv.h) runs a layer: the pixel blocks and panel-group slices
// its tasks cover, their order, the reduction chunk, and whether tiles run their whole reduction
// or chunk by chunk. A pure function of the layer's shape, the micro-kernel's tile, the threads
// and the L2 cache budget, so that a test can show which plan a layer gets on a given CPU.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_CONV_PLAN_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_CONV_PLAN_H_

#include <cstdint>

#include "engine/kernels/cpu/fast_kernels.h"

namespace edgemond::engine::cpu {

// The longest stretch of the reduction (taps x input channels) a tile runs at once when it runs
// chunk by chunk.
inline constexpr std::int64_t kReductionChunk = 256;

// Blocks of fewer tiles run chunk by chunk where the layer's weights are beyond the L2 cache.
inline constexpr std::int64_t kFewTilesPerBlock = 16;

// The micro-kernel of an ISA: pixel rows per tile and panels per tile (FastKernels::tile_panels).
struct ConvTile {
  int rows = 6;
  int panels = 1;
};

struct ConvPlan {
  std::int64_t pixels = 0;        // Output pixels per image.
  std::int64_t taps = 0;          // kernel_h * kernel_w.
  std::int64_t k = 0;             // The reduction: taps * in_c.
  std::int64_t panels = 0;        // Panels of kPanelWidth output channels.
  std::int64_t panel_groups = 0;  // Panels in groups of the tile's panels.
  // 1x1, stride 1, no padding, output as large as the input: a tile's rows are its pixels.
  bool pointwise = false;
  std::int64_t block = 0;   // Output pixels per task, a multiple of the tile's rows.
  std::int64_t blocks = 0;  // Blocks per image and group.
  std::int64_t chunk =
      0;  // Reduction floats per chunk (<= kReductionChunk), chunks of equal length.
  std::int64_t slice = 0;   // Panel groups per task.
  std::int64_t slices = 0;  // Slices per image and group.
  // The weights outweigh the input and are beyond 1 MiB: the threads split the output channels.
  bool split_channels = false;
  // The layer's weights (with the rest of the network's) are beyond the cache budget.
  bool weights_from_memory = false;
  // Every tile runs chunk by chunk (else each tile runs its whole reduction).
  bool chunks_outer = false;
  // Tiles fetch the next task's slice of weights while they run.
  bool prefetch_next_slice = false;
  // A thread's first task runs chunk by chunk even where the others do not.
  bool first_task_chunked = false;
  // Tasks are (image, group, slice, block), block fastest; else slice fastest.
  bool blocks_inner = false;
  // Each thread runs its tasks back to front.
  bool backward = false;
  std::int64_t tasks = 0;  // batch * groups * blocks * slices.
};

// The plan for `args` (its shape, cache_budget_bytes and other_weight_bytes; the pointers are
// not read) on `threads` threads with `tile`. cache_budget_bytes <= 0 in `args` means
// ConvCacheBudgetBytes().
ConvPlan PlanConv(const ConvArgs& args, ConvTile tile, std::int64_t threads);

}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_CONV_PLAN_H_
