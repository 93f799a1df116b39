// The NHWC convolution: how a layer is cut into tiles and reduction chunks and spread over the
// threads, over the micro-kernels of gemm_tile.h.
// A part of fast_kernels_impl.h, which includes it (see there): compiled once per ISA, over that
// ISA's Vec, with internal linkage.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_IMPL_CONV_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_IMPL_CONV_H_

namespace edgemond::engine::cpu {
namespace {

template <Activation kAct>
void ConvImpl(const ConvArgs& g, ThreadPool* pool) {
  const int64_t threads = pool != nullptr ? pool->threads() : 1;
  const ConvPlan plan = PlanConv(g, ConvTile{kRows, kTilePanels}, threads);
  const int64_t pixels = plan.pixels;
  const int64_t taps = plan.taps;
  const int64_t k = plan.k;
  const int64_t panels = plan.panels;
  const int64_t panel_groups = plan.panel_groups;
  const int64_t block = plan.block;
  const int64_t blocks = plan.blocks;
  const int64_t chunk = plan.chunk;
  const int64_t slice = plan.slice;
  const int64_t slices = plan.slices;
  const int64_t tasks = plan.tasks;
  const bool pointwise = plan.pointwise;
  const bool chunks_outer = plan.chunks_outer;
  const bool blocks_inner = plan.blocks_inner;
  const int64_t group_floats = PackedConvFloats(g.out_c, g.in_c, g.kernel_h, g.kernel_w);

  // Where each tap reads, relative to the window's top-left pixel, and the output pixels whose
  // whole window lies inside the input (their rows need no bounds checks).
  int64_t tap_offset[kMaxTaps];
  for (int64_t kh = 0, t = 0; kh < g.kernel_h; ++kh) {
    for (int64_t kw = 0; kw < g.kernel_w; ++kw, ++t) {
      tap_offset[t] = (kh * g.dilation_h * g.in_w + kw * g.dilation_w) * g.x_pixel_stride;
    }
  }
  const int64_t span_h = (g.kernel_h - 1) * g.dilation_h;
  const int64_t span_w = (g.kernel_w - 1) * g.dilation_w;
  int64_t oh_lo = 0, ow_lo = 0, oh_hi = g.out_h, ow_hi = g.out_w;
  while (oh_lo < g.out_h && oh_lo * g.stride_h < g.pad_top) ++oh_lo;
  while (ow_lo < g.out_w && ow_lo * g.stride_w < g.pad_left) ++ow_lo;
  while (oh_hi > oh_lo && (oh_hi - 1) * g.stride_h - g.pad_top + span_h >= g.in_h) --oh_hi;
  while (ow_hi > ow_lo && (ow_hi - 1) * g.stride_w - g.pad_left + span_w >= g.in_w) --ow_hi;

  // Whole tiles that read the input in place (DirectTile): a layer of one group whose weights
  // stay in the L2 cache (the tile runs its whole reduction per panel group).
  const int64_t pixel_stride = pointwise ? g.in_c : g.stride_w * g.in_c;
  const bool direct_ok = g.groups == 1 && g.x_pixel_stride == g.in_c && !chunks_outer;
  const DirectTileFn direct =
      direct_ok ? DirectTileFor<kAct>(pixel_stride, g.residual != nullptr) : nullptr;
  const DirectTileFn direct_last =
      direct_ok ? DirectTilePanels<kAct>(panels % kTilePanels) : nullptr;

  // Backward: each thread runs its range of tasks back to front (ThreadRange mirrors them).
  const bool backward = plan.backward;
  ParallelFor(pool, tasks, 1, [&](int64_t begin, int64_t end) {
    // The task ParallelFor's step-th one runs: backward, its thread's range mirrored.
    const ThreadPool::TaskRange range =
        backward ? ThreadRange(pool, tasks, 1, begin) : ThreadPool::TaskRange{};
    const auto task_at = [&](int64_t step) {
      return backward ? range.begin + range.end - 1 - step : step;
    };
    // Indirection table for one tile: taps x kRows pointers (7x7 kernels: 294).
    const float* rows[kMaxTaps * kRows];
    // The tables of the tiles that run chunk by chunk together.
    const float* block_rows[kBlockRowPointers];
    alignas(64) float buf[kRows * kReductionChunk];
    // Task t's slice, pixel block, group and image.
    const auto slice_of = [&](int64_t t) {
      const int64_t inner = t % (blocks * slices);
      return blocks_inner ? inner / blocks : inner % slices;
    };
    const auto block_of = [&](int64_t t) {
      const int64_t inner = t % (blocks * slices);
      return blocks_inner ? inner % blocks : inner / slices;
    };
    const auto group_of = [&](int64_t t) { return t / (blocks * slices) % g.groups; };
    for (int64_t step = begin; step < end; ++step) {
      const int64_t task = task_at(step);
      const int64_t sl = slice_of(task);
      const int64_t b = block_of(task);
      const int64_t group = group_of(task);
      const int64_t n = task / (blocks * slices) / g.groups;
      const float* x = g.x + n * g.in_h * g.in_w * g.x_pixel_stride + group * g.in_c;
      const int64_t p_end = MinI(pixels, (b + 1) * block);
      const int64_t pg_begin = sl * slice;
      const int64_t pg_end = MinI(panel_groups, pg_begin + slice);
      // Tile p0's indirection table: where each tap of each row reads (a pointwise layer: one
      // tap, the pixel itself).
      // Rows past mr repeat the last pixel. One division per tile (a 64-bit division takes
      // some 40 to 90 cycles).
      const auto tile_rows = [&](int64_t p0, int mr, const float** table) {
        if (pointwise) {
          for (int r = 0; r < kRows; ++r) {
            table[r] = x + (p0 + (r < mr ? r : mr - 1)) * g.x_pixel_stride;
          }
          return;
        }
        int64_t oh = p0 / g.out_w;
        int64_t ow = p0 - oh * g.out_w;
        for (int r = 0; r < kRows; ++r) {
          if (r > 0 && r < mr && ++ow == g.out_w) {
            ow = 0;
            ++oh;
          }
          if (oh >= oh_lo && oh < oh_hi && ow >= ow_lo && ow < ow_hi) {
            const float* corner =
                x + ((oh * g.stride_h - g.pad_top) * g.in_w + ow * g.stride_w - g.pad_left) *
                        g.x_pixel_stride;
            for (int64_t t = 0; t < taps; ++t) table[t * kRows + r] = corner + tap_offset[t];
            continue;
          }
          int64_t t = 0;
          for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
            const int64_t ih = oh * g.stride_h - g.pad_top + kh * g.dilation_h;
            const bool row_ok = ih >= 0 && ih < g.in_h;
            for (int64_t kw = 0; kw < g.kernel_w; ++kw, ++t) {
              const int64_t iw = ow * g.stride_w - g.pad_left + kw * g.dilation_w;
              table[t * kRows + r] = row_ok && iw >= 0 && iw < g.in_w
                                         ? x + (ih * g.in_w + iw) * g.x_pixel_stride
                                         : g.zero;
            }
          }
        }
      };
      // Where the tile of pixels [p0, p0 + mr) over panel group q starts from and stores to, for
      // chunk k0 of len floats of the reduction.
      const auto tile_io = [&](int64_t p0, int mr, int64_t q, int64_t k0, int64_t len) {
        const int64_t panel = q * kTilePanels;
        const int64_t col = group * g.out_c + panel * kPanelWidth;
        const int64_t y_offset = (n * pixels + p0) * g.y_pixel_stride + col;
        TileIo io;
        io.bias =
            k0 == 0 ? g.bias + group * PaddedChannels(g.out_c) + panel * kPanelWidth : nullptr;
        io.y = g.y + y_offset;
        io.ldy = g.y_pixel_stride;
        io.last = k0 + len == k;
        io.residual = g.residual != nullptr ? g.residual + y_offset : nullptr;
        io.mr = mr;
        io.nc = static_cast<int>(MinI(kTilePanels * kPanelWidth, g.out_c - panel * kPanelWidth));
        return io;
      };
      const auto tile_panels = [&](int64_t q) {
        return static_cast<int>(MinI(kTilePanels, panels - q * kTilePanels));
      };
      const auto group_weights = [&](int64_t q, int64_t k0) {
        return GroupWeights(g.packed_w + group * group_floats, k, g.packed_panels, q,
                            tile_panels(q), k0);
      };
      // Tile p0's chunk k0 of the reduction over every panel group of the slice: a whole tile
      // reads its rows where the indirection table points, a partial one (the last of a
      // block) through the chunk buffer, computing only the rows it stores.
      // A whole tile's share of the weights that the tiles after it will read (the next chunk,
      // or the next task's slice), which it fetches toward the L2 cache while it runs: rows
      // [k0, k0 + rows) of panel group q + q_shift (those below q_end) of image group `group`,
      // for the tile's panel group q, one row every `every` steps.
      struct WeightShare {
        int64_t group = 0;
        int64_t q_shift = 0;
        int64_t q_end = 0;
        int64_t k0 = 0;
        int64_t rows = 0;
        int64_t every = 1;
      };
      const auto share_of = [&](const WeightShare& share, int64_t q) {
        const int64_t to_q = q + share.q_shift;
        if (share.rows <= 0 || to_q >= share.q_end) return TilePrefetch{};
        const TileWeights to = GroupWeights(g.packed_w + share.group * group_floats, k,
                                            g.packed_panels, to_q, tile_panels(to_q), share.k0);
        return TilePrefetch{to.first,          to.panel_stride, to.row_step,
                            tile_panels(to_q), share.rows,      share.every};
      };
      const auto tile_chunk = [&](int64_t p0, int mr, int64_t k0, int64_t len,
                                  const float* const* table, const WeightShare& share = {}) {
        if (mr < kRows) PackChunk(TileRows{table, taps, g.in_c}, k0, len, buf);
        for (int64_t q = pg_begin; q < pg_end; ++q) {
          TileIo io = tile_io(p0, mr, q, k0, len);
          const TileWeights w = group_weights(q, k0);
          io.prefetch = share_of(share, q);
          if (mr == kRows) {
            IndirectTilePanels<kAct>(tile_panels(q))(table, g.zero, k0, len, g.in_c, w, io,
                                                     g.activation);
          } else {
            MicroTilePanels<kAct>(tile_panels(q), buf, len, w, io, g.activation);
          }
        }
      };
      if (chunks_outer ||
          (plan.first_task_chunked && step == begin && StartsThreadRange(pool, tasks, 1, step))) {
        // A chunk of the slice's weights serves every tile of the block from the L2 cache; the
        // tiles' partial sums wait in the output between chunks. The whole tiles of a chunk
        // share out the fetching of the next chunk's weights. The tiles' indirection tables
        // are built once, not once per chunk, as many tiles at a time as block_rows holds (a 3x3
        // layer: 37).
        const int64_t pass_pixels = MaxI(1, kBlockRowPointers / (taps * kRows)) * kRows;
        for (int64_t first = b * block; first < p_end; first += pass_pixels) {
          const int64_t last = MinI(p_end, first + pass_pixels);
          for (int64_t p0 = first, i = 0; p0 < last; p0 += kRows, i += taps * kRows) {
            tile_rows(p0, static_cast<int>(MinI(kRows, last - p0)), block_rows + i);
          }
          const int64_t whole_tiles = (last - first) / kRows;
          for (int64_t k0 = 0; k0 < k; k0 += chunk) {
            const int64_t len = MinI(chunk, k - k0);
            const int64_t next_len = MaxI(0, MinI(chunk, k - k0 - chunk));
            for (int64_t p0 = first, i = 0, tile = 0; p0 < last;
                 p0 += kRows, i += taps * kRows, ++tile) {
              WeightShare next;
              if (tile < whole_tiles) {
                const int64_t r0 = next_len * tile / whole_tiles;
                next = WeightShare{group, 0, pg_end, k0 + chunk + r0,
                                   next_len * (tile + 1) / whole_tiles - r0};
                next.every = MaxI(1, len / MaxI(1, next.rows));
              }
              tile_chunk(p0, static_cast<int>(MinI(kRows, last - p0)), k0, len, block_rows + i,
                         next);
            }
          }
        }
      } else {
        // The slice's weights fit in the L2 cache: each tile runs its whole reduction. Where
        // they come from memory and the next task's slice is another, the whole tiles share
        // out the fetching of its weights.
        const int64_t whole_tiles = (p_end - b * block) / kRows;
        WeightShare next_slice;
        const int64_t next_task = step + 1 < end ? task_at(step + 1) : -1;
        if (plan.prefetch_next_slice && next_task >= 0 &&
            (slice_of(next_task) != sl || group_of(next_task) != group)) {
          const int64_t next_begin = slice_of(next_task) * slice;
          next_slice = WeightShare{group_of(next_task), next_begin - pg_begin,
                                   MinI(panel_groups, next_begin + slice)};
        }
        const auto next_slice_share = [&](int64_t tile) {
          WeightShare share = next_slice;
          if (share.q_end == 0 || tile >= whole_tiles) return WeightShare{};
          share.k0 = k * tile / whole_tiles;
          share.rows = k * (tile + 1) / whole_tiles - share.k0;
          share.every = MaxI(1, k / MaxI(1, share.rows));
          return share;
        };
        for (int64_t p0 = b * block, tile = 0; p0 < p_end; p0 += kRows, ++tile) {
          const int mr = static_cast<int>(MinI(kRows, p_end - p0));
          if (direct != nullptr && mr == kRows) {
            // The tile's input in place: kRows pixels of one output row with their windows
            // inside the image, or any pixels of a pointwise layer.
            const float* corner = nullptr;
            if (pointwise) {
              corner = x + p0 * g.x_pixel_stride;
            } else {
              const int64_t oh = p0 / g.out_w;
              const int64_t ow = p0 - oh * g.out_w;
              if (oh >= oh_lo && oh < oh_hi && ow >= ow_lo && ow + kRows <= ow_hi) {
                corner =
                    x + ((oh * g.stride_h - g.pad_top) * g.in_w + ow * g.stride_w - g.pad_left) *
                            g.x_pixel_stride;
              }
            }
            if (corner != nullptr) {
              const WeightShare share = next_slice_share(tile);
              for (int64_t q = pg_begin; q < pg_end; ++q) {
                const DirectTileFn run = (q + 1) * kTilePanels <= panels ? direct : direct_last;
                TileIo io = tile_io(p0, kRows, q, 0, k);
                io.prefetch = share_of(share, q);
                run(corner, tap_offset, taps, g.in_c, pixel_stride, group_weights(q, 0), io,
                    g.activation);
              }
              continue;
            }
          }
          tile_rows(p0, mr, rows);
          if (mr == kRows) {
            tile_chunk(p0, mr, 0, k, rows, next_slice_share(tile));
          } else {
            for (int64_t k0 = 0; k0 < k; k0 += chunk) {
              tile_chunk(p0, mr, k0, MinI(chunk, k - k0), rows);
            }
          }
        }
      }
    }
  });
}

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_IMPL_CONV_H_
