// The convolution of a planar (NCHW) image, a network's first layer: its tiles read the image
// in place, with no transposed copy.
// A part of fast_kernels_impl.h, which includes it (see there): compiled once per ISA, over that
// ISA's Vec, with internal linkage.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_IMPL_CONV_PLANAR_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_IMPL_CONV_PLANAR_H_

namespace edgemond::engine::cpu {
namespace {

// Where a planar tile reads: value i = (c, kh, kw) of the window of the tile's row r is
// x[offset[i] + r * kStride], offset[i] = c * plane + kh * row_step + kw for the image or the
// patch the window lies in.
struct PlanarWindow {
  const float* x;
  const int64_t* offset;
};

// A tile of kRows pixels of one output row of a convolution on a planar (NCHW) image: the
// reduction (c, kh, kw) reads each input value straight from the image (or from a zero-padded
// patch of it, at the borders), the kR values of one step kStride floats apart, so from one
// base register with constant offsets. Stores io.mr rows.
template <Activation kAct, int kP, int kStride>
inline void PlanarTile(const ConvArgs& g, const PlanarWindow& in, const TileWeights& tw,
                       const TileIo& io) {
  constexpr int kR = kRows;
  const float* w = tw.first;
  constexpr int kVecs = kP * kPanelVecs;
  Vec acc[kR][kVecs];
  PrefetchTileOutput<kVecs>(io);
  InitTile(acc, io.mr, io);
  // One loop over the whole reduction through the offset table, not three nested ones: a 7x7
  // first layer's kernel_w loop would run 7 steps and then leave, and such short loops' exits
  // cost more than their work.
  const int64_t k = g.in_c * g.kernel_h * g.kernel_w;
  for (int64_t i = 0; i < k; ++i) {
    const float* row = in.x + in.offset[i];
    TileStep<kR, kP>(acc, w, tw.panel_stride, [&](int r) { return row[r * kStride]; });
    w += tw.row_step;
  }
  StoreTile<kAct>(acc, io.mr, io, g.activation);
}

// PlanarTile over the tile_panels (<= kTilePanels) panels of one panel group.
template <Activation kAct, int kStride>
inline void PlanarTilePanels(int tile_panels, const ConvArgs& g, const PlanarWindow& in,
                             const TileWeights& w, const TileIo& io) {
  if constexpr (kTilePanels >= 4) {
    if (tile_panels == 4) return PlanarTile<kAct, 4, kStride>(g, in, w, io);
    if (tile_panels == 3) return PlanarTile<kAct, 3, kStride>(g, in, w, io);
  }
  if constexpr (kTilePanels >= 2) {
    if (tile_panels == 2) return PlanarTile<kAct, 2, kStride>(g, in, w, io);
  }
  PlanarTile<kAct, 1, kStride>(g, in, w, io);
}

// The floats of the zero-padded patch that a border tile of a planar first layer reads: at
// most in_c * kernel_h rows (kMaxNchwInputReduction / kernel_w) of (kRows - 1) * 2 + kernel_w
// floats.
constexpr int64_t kPlanarPatchFloats = kMaxNchwInputReduction * (2 * kRows - 1);

// A first layer on a planar (NCHW) image, tile by tile along the output rows. With a
// horizontal stride of 1 or 2 and no horizontal dilation, every tile runs PlanarTile: whole
// tiles inside the image read it in place; the others (at the borders, or the last tile of a
// row) read a copy of their window rows with the padding's zeros written in. Other layers
// gather their im2col rows, in (c, kh, kw) order, into the chunk buffer for the general
// micro-kernel. Every panel group of the layer runs over each tile.
template <Activation kAct>
void NchwInputConvImpl(const ConvArgs& g, ThreadPool* pool) {
  const int64_t pixels = g.out_h * g.out_w;
  const int64_t k = g.kernel_h * g.kernel_w * g.in_c;
  const int64_t plane = g.in_h * g.in_w;
  const int64_t panels = PaddedChannels(g.out_c) / kPanelWidth;
  const int64_t panel_groups = (panels + kTilePanels - 1) / kTilePanels;
  const int64_t row_tiles = (g.out_w + kRows - 1) / kRows;
  const bool planar_tiles = g.dilation_w == 1 && (g.stride_w == 1 || g.stride_w == 2);
  // Output columns whose windows lie inside the image.
  int64_t ow_lo = 0;
  while (ow_lo < g.out_w && ow_lo * g.stride_w - g.pad_left < 0) ++ow_lo;
  int64_t ow_hi = g.out_w;
  while (ow_hi > ow_lo && (ow_hi - 1) * g.stride_w - g.pad_left + g.kernel_w > g.in_w) --ow_hi;
  const int64_t pitch = (kRows - 1) * g.stride_w + g.kernel_w;
  // Where each step (c, kh, kw) of the reduction reads, in the image and in a border tile's patch.
  int64_t image_offset[kMaxNchwInputReduction];
  int64_t patch_offset[kMaxNchwInputReduction];
  for (int64_t c = 0, i = 0; c < g.in_c; ++c) {
    for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < g.kernel_w; ++kw, ++i) {
        image_offset[i] = c * plane + kh * g.dilation_h * g.in_w + kw;
        patch_offset[i] = (c * g.kernel_h + kh) * pitch + kw;
      }
    }
  }
  ParallelFor(pool, g.batch * g.out_h, 1, [&](int64_t begin, int64_t end) {
    alignas(64) float buf[kRows * kReductionChunk];
    alignas(64) float patch[kPlanarPatchFloats];
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / g.out_h;
      const int64_t oh = task - n * g.out_h;
      const float* x = g.x + n * g.in_c * plane;
      const int64_t ih0 = oh * g.stride_h - g.pad_top;
      const bool rows_inside = ih0 >= 0 && ih0 + (g.kernel_h - 1) * g.dilation_h < g.in_h;
      for (int64_t tile = 0; tile < row_tiles; ++tile) {
        const int64_t ow0 = tile * kRows;
        const int mr = static_cast<int>(MinI(kRows, g.out_w - ow0));
        const int64_t p0 = oh * g.out_w + ow0;
        const int64_t y_base = (n * pixels + p0) * g.y_pixel_stride;
        const int64_t iw0 = ow0 * g.stride_w - g.pad_left;
        PlanarWindow in{patch, patch_offset};
        if (planar_tiles && rows_inside && mr == kRows && ow0 >= ow_lo && ow0 + kRows <= ow_hi) {
          in = PlanarWindow{x + ih0 * g.in_w + iw0, image_offset};
        } else if (planar_tiles) {
          // The window rows of the tile, zero outside the image.
          for (int64_t c = 0; c < g.in_c; ++c) {
            for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
              float* to = patch + (c * g.kernel_h + kh) * pitch;
              const int64_t ih = ih0 + kh * g.dilation_h;
              // [lo, hi): the columns inside the image.
              int64_t lo = pitch, hi = pitch;
              if (ih >= 0 && ih < g.in_h) {
                lo = MinI(pitch, MaxI(0, -iw0));
                hi = MaxI(lo, MinI(pitch, g.in_w - iw0));
              }
              const int64_t from = c * plane + ih * g.in_w + iw0;
              int64_t i = 0;
              for (; i < lo; ++i) to[i] = 0.0f;
              for (; i < hi; ++i) to[i] = x[from + i];
              for (; i < pitch; ++i) to[i] = 0.0f;
            }
          }
        }
        if (!planar_tiles) {
          for (int r = 0; r < kRows; ++r) {
            const int64_t ow = ow0 + (r < mr ? r : mr - 1);
            const int64_t iw_r = ow * g.stride_w - g.pad_left;
            float* to = buf + r * kReductionChunk;
            for (int64_t c = 0; c < g.in_c; ++c) {
              for (int64_t kh = 0; kh < g.kernel_h; ++kh, to += g.kernel_w) {
                const int64_t ih = ih0 + kh * g.dilation_h;
                const bool row_inside = ih >= 0 && ih < g.in_h;
                for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
                  const int64_t iw = iw_r + kw * g.dilation_w;
                  to[kw] =
                      row_inside && iw >= 0 && iw < g.in_w ? x[c * plane + ih * g.in_w + iw] : 0.0f;
                }
              }
            }
          }
        }
        for (int64_t q = 0; q < panel_groups; ++q) {
          const int64_t panel = q * kTilePanels;
          const int tile_panels = static_cast<int>(MinI(kTilePanels, panels - panel));
          const int64_t y_offset = y_base + panel * kPanelWidth;
          TileIo io;
          io.bias = g.bias + panel * kPanelWidth;
          io.y = g.y + y_offset;
          io.ldy = g.y_pixel_stride;
          io.last = true;
          io.residual = g.residual != nullptr ? g.residual + y_offset : nullptr;
          io.mr = mr;
          io.nc = static_cast<int>(MinI(tile_panels * kPanelWidth, g.out_c - panel * kPanelWidth));
          const TileWeights w = GroupWeights(g.packed_w, k, g.packed_panels, q, tile_panels, 0);
          if (!planar_tiles) {
            MicroTilePanels<kAct>(tile_panels, buf, k, w, io, g.activation);
          } else if (g.stride_w == 1) {
            PlanarTilePanels<kAct, 1>(tile_panels, g, in, w, io);
          } else {
            PlanarTilePanels<kAct, 2>(tile_panels, g, in, w, io);
          }
        }
      }
    }
  });
}

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_IMPL_CONV_PLANAR_H_
