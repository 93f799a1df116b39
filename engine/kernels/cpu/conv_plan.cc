#include "engine/kernels/cpu/conv_plan.h"

#include <algorithm>

namespace edgemond::engine::cpu {

using std::int64_t;

ConvPlan PlanConv(const ConvArgs& g, ConvTile tile, int64_t threads) {
  ConvPlan p;
  const int64_t cache_budget =
      g.cache_budget_bytes > 0 ? g.cache_budget_bytes : ConvCacheBudgetBytes();
  p.pixels = g.out_h * g.out_w;
  p.taps = g.kernel_h * g.kernel_w;
  p.k = p.taps * g.in_c;
  p.panels = PaddedChannels(g.out_c) / kPanelWidth;
  p.panel_groups = (p.panels + tile.panels - 1) / tile.panels;
  p.pointwise = p.taps == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_top == 0 &&
                g.pad_left == 0 && g.in_h == g.out_h && g.in_w == g.out_w;
  // Pixel blocks: the input a block reads (about pixels x in_c floats) stays in the L2 cache.
  const int64_t budget_pixels = 65536 / std::max<int64_t>(1, g.in_c);
  int64_t block_tiles = std::max<int64_t>(1, std::min<int64_t>(64, budget_pixels / tile.rows));
  // Threads share the tasks in chunks (ThreadPool::ParallelFor): smaller blocks make enough of
  // them that a thread losing its core in the middle of one holds back little. Every block
  // reads all of its slice's weights, though: where they are beyond the L2 cache and outweigh
  // the input (the last layers of a network), the threads split the output channels first
  // (slices of one panel group, below), and blocks shrink only to give each thread 4 tasks.
  const int64_t weight_bytes = p.k * p.panels * kPanelWidth * 4;
  const int64_t input_bytes = g.in_h * g.in_w * g.in_c * 4;
  p.split_channels = weight_bytes > (1 << 20) && weight_bytes > 4 * input_bytes;
  const int64_t tasks_per_block = p.split_channels ? p.panel_groups : 1;
  const int64_t min_tasks = (p.split_channels ? 4 : 16) * threads;
  while (threads > 1 && block_tiles > 4 &&
         g.batch * g.groups *
                 ((p.pixels + block_tiles * tile.rows - 1) / (block_tiles * tile.rows)) *
                 tasks_per_block <
             min_tasks) {
    block_tiles /= 2;
  }
  p.block = block_tiles * tile.rows;
  p.blocks = (p.pixels + p.block - 1) / p.block;
  // Slices of panel groups: one chunk of a slice's weights (at most 256 KiB) stays in the L2
  // cache while all tiles of a block pass over it. Small images with many output channels
  // (the last layers of a network) get narrower slices, so that every thread has work.
  // Chunks are of equal length (a 3x3 layer of 64 channels, 576, runs as 3 x 192 rather than
  // 256 + 256 + 64): each chunk costs a copy and a pass of the tile's accumulators through
  // memory.
  const int64_t chunks = (p.k + kReductionChunk - 1) / kReductionChunk;
  p.chunk = (p.k + chunks - 1) / chunks;
  const int64_t chunk_group_bytes = p.chunk * tile.panels * kPanelWidth * 4;
  p.slice =
      std::max<int64_t>(1, std::min<int64_t>(p.panel_groups, (256 << 10) / chunk_group_bytes));
  while (p.slice > 1 && g.batch * g.groups * p.blocks * ((p.panel_groups + p.slice - 1) / p.slice) <
                            16 * threads) {
    p.slice = (p.slice + 1) / 2;
  }
  // A slice whose whole weights stay in the L2 cache (the cache budget) runs tile by tile, each
  // tile its whole reduction, mostly in place (DirectTile); a wider one runs chunk by chunk. A
  // slice is narrowed to that size where one panel group fits.
  //
  // Where the layer's weights come from memory, a task's tiles also fetch the next task's slice
  // of weights, so slices are narrowed to half the budget for both to fit. The weights come from
  // memory where they are beyond the budget, and also where the rest of the network's weights,
  // which pass through the cache between two runs of the layer, take them beyond it: else a
  // task's first tile would wait for its whole slice from memory. (ADR 0108 has the figures.)
  const int64_t group_weight_bytes = PanelGroupWeightBytes(p.k, tile.panels);
  p.weights_from_memory = weight_bytes + g.other_weight_bytes > cache_budget;
  const int64_t slice_budget = p.weights_from_memory && 2 * group_weight_bytes <= cache_budget
                                   ? cache_budget / 2
                                   : cache_budget;
  if (p.slice * group_weight_bytes > slice_budget && group_weight_bytes <= slice_budget) {
    const int64_t fewest = (p.panel_groups + p.slice - 1) / p.slice;  // The slices so far.
    const int64_t widest = slice_budget / group_weight_bytes;
    // Slices of equal width, as many as the size asks for (or were there).
    const int64_t count = std::max<int64_t>(fewest, (p.panel_groups + widest - 1) / widest);
    p.slice = (p.panel_groups + count - 1) / count;
  }
  p.slices = (p.panel_groups + p.slice - 1) / p.slice;
  // Chunk by chunk as well where the layer's weights come from memory and few tiles pass over
  // them once they are in the L2 cache: a block's tiles where the weights are beyond the cache
  // (a 7x7 image: 9), and where they stay in it from one block to the next, a thread's share of
  // the image's. Tile by tile, a panel group's first tile reads its weights from memory, faster
  // than memory delivers them, and the few tiles after it hardly make up for that; chunk by
  // chunk, each chunk's tiles fetch the next chunk's weights while they work (TilePrefetch).
  const int64_t block_tile_count =
      (std::min<int64_t>(p.block, p.pixels) + tile.rows - 1) / tile.rows;
  const int64_t tiles_per_fetch = weight_bytes > cache_budget
                                      ? block_tile_count
                                      : (p.pixels + tile.rows - 1) / tile.rows / threads;
  p.chunks_outer = p.slice * group_weight_bytes > cache_budget ||
                   (p.weights_from_memory && tiles_per_fetch < kFewTilesPerBlock);
  p.prefetch_next_slice =
      p.weights_from_memory && !p.chunks_outer && 2 * p.slice * group_weight_bytes <= cache_budget;
  // A thread's first task of a layer whose weights are beyond the L2 cache runs chunk by chunk
  // too: no task before it fetched its slice, and on several threads each thread's first slice
  // comes from memory at the same time as the others'. Tile by tile, the first tile waits for
  // all of it; chunk by chunk, for the first chunk only. On one thread the first task waits
  // alone, and chunking it gains nothing.
  p.first_task_chunked = threads > 1 && !p.chunks_outer && weight_bytes > cache_budget;
  // Tasks: (image, group, block, slice), slice fastest: the tiles of a block pass over every
  // slice while the block's input is in the L2 cache. Where the weights outweigh the input
  // (split_channels), (image, group, slice, block), block fastest, instead: a slice's weights
  // serve every block from the L2 cache rather than coming from memory once per block. The
  // same where that order reads less from beyond the L2 cache: weights beyond it are read once
  // per block, an input beyond it once per slice.
  const int64_t weight_reads =
      weight_bytes <= cache_budget ? weight_bytes : p.blocks * weight_bytes;
  const int64_t input_reads = input_bytes <= cache_budget ? input_bytes : p.slices * input_bytes;
  p.blocks_inner = p.split_channels || input_bytes + weight_reads > weight_bytes + input_reads;
  p.tasks = g.batch * g.groups * p.blocks * p.slices;
  // Where a thread's share of the input is beyond the L2 cache, only the part of it that the
  // layer before wrote last is still there: each thread runs its range of tasks back to front,
  // so that it reads that part first, before its own reads and writes push it out. Such a layer
  // writes its output back to front too, so the layer after it, forward where its input is
  // smaller, again reads first what was written last.
  p.backward = input_bytes > cache_budget * threads;
  return p;
}

}  // namespace edgemond::engine::cpu
