#include "engine/kernels/cpu/conv_plan.h"

#include <gtest/gtest.h>

namespace edgemond::engine::cpu {
namespace {

// Each plan below is worked out by hand from the rules in conv_plan.cc.

// The NEON kernels' tile (6 rows, one panel) with glibc's aarch64 fallback budget of 512 KiB
// (it reports no L2 size): a Jetson Orin or a Raspberry Pi 4, four cores.
constexpr ConvTile kNeonTile{6, 1};
constexpr std::int64_t kArmBudgetBytes = 512 << 10;
// The AVX-512 kernels' tile (6 rows, four panels) on a Xeon with 1 MiB of L2 per core.
constexpr ConvTile kAvx512Tile{6, 4};
constexpr std::int64_t kXeonBudgetBytes = 768 << 10;

// A 3x3 convolution, stride 1, padding 1, `hw` x `hw` pixels, `in_c` -> `out_c` channels.
ConvArgs Conv3x3(std::int64_t hw, std::int64_t in_c, std::int64_t out_c,
                 std::int64_t budget_bytes) {
  ConvArgs a;
  a.in_h = a.in_w = a.out_h = a.out_w = hw;
  a.in_c = in_c;
  a.out_c = out_c;
  a.kernel_h = a.kernel_w = 3;
  a.pad_top = a.pad_left = 1;
  a.x_pixel_stride = in_c;
  a.y_pixel_stride = out_c;
  a.cache_budget_bytes = budget_bytes;
  return a;
}

TEST(ConvPlanTest, EarlyLayerOnFourArmCoresRunsTileByTileInManyBlocks) {
  // ResNet's first 3x3 layers: 56x56, 64 -> 64. 147 KB of weights stay in the cache; the
  // 3,136 pixels are cut until the four threads have 16 tasks each.
  const ConvPlan p = PlanConv(Conv3x3(56, 64, 64, kArmBudgetBytes), kNeonTile, 4);
  EXPECT_EQ(p.k, 576);
  EXPECT_EQ(p.panels, 4);
  EXPECT_FALSE(p.pointwise);
  EXPECT_FALSE(p.weights_from_memory);
  EXPECT_FALSE(p.split_channels);
  EXPECT_EQ(p.block, 48);  // 8 tiles of 6 pixels.
  EXPECT_EQ(p.blocks, 66);
  EXPECT_EQ(p.chunk, 192);  // 576 as 3 x 192 rather than 256 + 256 + 64.
  EXPECT_EQ(p.slice, 4);    // Every panel in one task.
  EXPECT_EQ(p.slices, 1);
  EXPECT_FALSE(p.chunks_outer);
  EXPECT_FALSE(p.first_task_chunked);
  EXPECT_FALSE(p.blocks_inner);
  EXPECT_FALSE(p.backward);  // A thread's quarter of the 800 KB input stays in the cache.
  EXPECT_EQ(p.tasks, 66);
}

TEST(ConvPlanTest, OneThreadKeepsLargeBlocksAndRunsBackwardOverAnInputBeyondTheCache) {
  const ConvPlan p = PlanConv(Conv3x3(56, 64, 64, kArmBudgetBytes), kNeonTile, 1);
  EXPECT_EQ(p.block, 384);  // 64 tiles, the most a block has.
  EXPECT_EQ(p.blocks, 9);
  EXPECT_EQ(p.slice, 2);  // Halved until there are 16 tasks.
  EXPECT_EQ(p.slices, 2);
  EXPECT_EQ(p.tasks, 18);
  EXPECT_TRUE(p.backward);  // 800 KB of input, 512 KiB of cache.
  EXPECT_FALSE(p.chunks_outer);
}

TEST(ConvPlanTest, LastLayerOnFourArmCoresSplitsTheChannelsAndRunsChunkByChunk) {
  // ResNet's last 3x3 layers: 7x7, 512 -> 512, 9.4 MB of weights against 100 KB of input.
  const ConvPlan p = PlanConv(Conv3x3(7, 512, 512, kArmBudgetBytes), kNeonTile, 4);
  EXPECT_EQ(p.k, 4608);
  EXPECT_TRUE(p.weights_from_memory);
  EXPECT_TRUE(p.split_channels);
  EXPECT_EQ(p.block, 126);  // The whole 49-pixel image is one block.
  EXPECT_EQ(p.blocks, 1);
  EXPECT_EQ(p.chunk, 256);
  EXPECT_EQ(p.slice, 1);  // One panel per task: 32 tasks for 4 threads.
  EXPECT_EQ(p.slices, 32);
  EXPECT_TRUE(p.chunks_outer);  // 9 tiles per fetch of weights from memory: too few.
  EXPECT_FALSE(p.prefetch_next_slice);
  EXPECT_FALSE(p.first_task_chunked);  // Already chunk by chunk.
  EXPECT_TRUE(p.blocks_inner);
  EXPECT_FALSE(p.backward);
  EXPECT_EQ(p.tasks, 32);
}

TEST(ConvPlanTest, MiddleLayerOnTwoXeonCoresChunksOnlyEachThreadsFirstTask) {
  // ResNet-50's 14x14 3x3 layers, 256 -> 256: 2.4 MB of weights, one panel group of 590 KB
  // per slice, within the 768 KiB budget.
  const ConvPlan p = PlanConv(Conv3x3(14, 256, 256, kXeonBudgetBytes), kAvx512Tile, 2);
  EXPECT_EQ(p.panels, 16);
  EXPECT_EQ(p.panel_groups, 4);
  EXPECT_TRUE(p.weights_from_memory);
  EXPECT_TRUE(p.split_channels);
  EXPECT_EQ(p.block, 126);  // 21-tile blocks.
  EXPECT_EQ(p.blocks, 2);
  EXPECT_EQ(p.slice, 1);
  EXPECT_EQ(p.slices, 4);
  EXPECT_FALSE(p.chunks_outer);
  EXPECT_FALSE(p.prefetch_next_slice);  // Two slices of 590 KB do not fit together.
  EXPECT_TRUE(p.first_task_chunked);
  EXPECT_TRUE(p.blocks_inner);
  EXPECT_EQ(p.tasks, 8);
}

TEST(ConvPlanTest, PointwiseLayerIsRecognizedAndTheOtherWeightsCount) {
  ConvArgs a;
  a.in_h = a.in_w = a.out_h = a.out_w = 28;
  a.in_c = 128;
  a.out_c = 512;
  a.x_pixel_stride = 128;
  a.y_pixel_stride = 512;
  a.cache_budget_bytes = kXeonBudgetBytes;
  const ConvPlan alone = PlanConv(a, kAvx512Tile, 1);
  EXPECT_TRUE(alone.pointwise);
  EXPECT_EQ(alone.k, 128);
  EXPECT_FALSE(alone.weights_from_memory);  // 262 KB of weights.
  // The rest of a network's weights pass through the cache between two runs of the layer.
  a.other_weight_bytes = 100'000'000;
  const ConvPlan in_network = PlanConv(a, kAvx512Tile, 1);
  EXPECT_TRUE(in_network.weights_from_memory);
  // A stride makes it a strided 1x1, not pointwise.
  a.stride_h = a.stride_w = 2;
  a.out_h = a.out_w = 14;
  EXPECT_FALSE(PlanConv(a, kAvx512Tile, 1).pointwise);
}

}  // namespace
}  // namespace edgemond::engine::cpu
