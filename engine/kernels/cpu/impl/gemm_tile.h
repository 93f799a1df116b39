// The GEMM micro-kernels: the register tiles of the convolutions and how they read their input
// (in place, through an indirection table, or in reduction chunks) and store their output.
//
// The GEMM micro-kernel keeps a kRows x kPanelWidth block of the output in registers and
// walks the reduction one packed-weight row at a time: kPanelWidth / Vec::kWidth vector loads
// of weights and kRows broadcasts of input values feed kRows x (kPanelWidth / Vec::kWidth)
// fused multiply-adds. Input rows come through a small table of pointers built per tile
// (an indirection table): the pixel a tap reads, or a zero row for padding, so that 1x1,
// strided, dilated and padded convolutions share one kernel and no im2col buffer exists.
// A part of fast_kernels_impl.h, which includes it (see there): compiled once per ISA, over that
// ISA's Vec, with internal linkage.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_IMPL_GEMM_TILE_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_IMPL_GEMM_TILE_H_

namespace edgemond::engine::cpu {
namespace {

// The convolution is a blocked GEMM. A whole tile (kRows pixels) reads its input in place:
// from one corner with constant offsets (DirectTile) or, at the borders and across the end of
// an output row, through the indirection table with a register per row (IndirectTile; the
// 6-row tiles leave x86-64 enough general registers for that, the first 12-row AVX-512 tile
// did not). Layers whose weights do not stay in the L2 cache run their reduction (taps x
// input channels) in chunks of at most kReductionChunk, the tiles' partial sums waiting in the
// output between chunks. The partial last tile of a pixel block has its rows copied, chunk by
// chunk, into a buffer whose row stride is a compile-time constant (MicroTile), which lets it
// compute only the rows it stores (kReductionChunk: conv_plan.h).

// A tile's reduction rows: row r is the concatenation over taps t of rows[t * kRows + r][0, cin).
struct TileRows {
  const float* const* rows;
  int64_t taps;
  int64_t cin;
};

// Copies reduction elements [k0, k0 + len) of the kRows rows into buf (row stride
// kReductionChunk).
inline void PackChunk(const TileRows& src, int64_t k0, int64_t len, float* buf) {
  int64_t t = k0 / src.cin;
  int64_t c = k0 - t * src.cin;
  for (int64_t done = 0; done < len; ++t, c = 0) {
    const int64_t seg = MinI(src.cin - c, len - done);
    for (int r = 0; r < kRows; ++r) {
      const float* from = src.rows[t * kRows + r] + c;
      float* to = buf + r * kReductionChunk + done;
      if (seg == kW) {
        Store(to, Load(from));
        continue;
      }
      int64_t i = 0;
      for (; i + kW <= seg; i += kW) Store(to + i, Load(from + i));
      for (; i < seg; ++i) to[i] = from[i];
    }
    done += seg;
  }
}

// Weights that a tile fetches toward the L2 cache while it runs, for the tiles that come after
// it (the next chunk of the reduction): `rows` packed rows of `panels` panels from `first`
// (GroupWeights' strides), one row every `every` steps of the tile's reduction.
struct TilePrefetch {
  const float* first = nullptr;
  int64_t panel_stride = 0;
  int64_t row_step = 0;
  int panels = 0;
  int64_t rows = 0;
  int64_t every = 1;
};

// Walks a TilePrefetch: Step() once per step of the tile's reduction.
class PrefetchCursor {
 public:
  explicit PrefetchCursor(const TilePrefetch& p)
      : row_(p.first),
        rows_left_(p.rows),
        panel_stride_(p.panel_stride),
        row_step_(p.row_step),
        every_(p.every),
        panels_(p.panels) {}
  __attribute__((always_inline)) void Step() {
    if (rows_left_ > 0 && --countdown_ == 0) {
      for (int q = 0; q < panels_; ++q) {
        __builtin_prefetch(row_ + q * panel_stride_, 0, 2);  // Toward the L2 cache.
      }
      row_ += row_step_;
      --rows_left_;
      countdown_ = every_;
    }
  }

 private:
  const float* row_;
  int64_t rows_left_;
  int64_t countdown_ = 1;
  int64_t panel_stride_;
  int64_t row_step_;
  int64_t every_;
  int panels_;
};

// Where a micro-tile starts from and what it does with its result.
// The residual joins the bias at the start, not the sums at the end, so that it is read before
// anything is stored: y may be the residual's own buffer (ConvArgs::residual), partial sums
// between chunks included. (DirectTile's late variant runs its whole reduction at once and
// reads the residual after it, still before its own store.)
struct TileIo {
  TilePrefetch prefetch;  // None by default.
  const float* bias;      // First chunk: start from the bias (and the residual); otherwise from
                          // the partial sums in y.
  float* y;               // Output tile, row stride ldy.
  int64_t ldy;
  bool last;              // Last chunk: activate. Otherwise store partial sums.
  const float* residual;  // Row stride ldy, or null.
  int mr;                 // Rows and columns to store (the rest of the tile is dropped).
  int nc;
};

// Columns of vector j of a tile to load and store: all kW, or fewer in the last panel of a layer
// whose channel count is not a multiple of the tile's (those go through masked moves).
inline int TileLanes(const TileIo& io, int j) {
  return static_cast<int>(MinI(kW, MaxI(0, io.nc - j * kW)));
}

// Fetches the rows a tile will store toward the L1 cache, for writing, while its reduction runs
// (PlanarTile). A first layer's output is beyond the L2 cache (ResNet's 112x112 stem of 64
// channels: 3.2 MB) and its reduction short (147 steps), so the tile's stores would wait for
// their lines. Not in the other tiles: their reductions are long or their output stays in the L2
// cache, and the fetch gained nothing there or cost a little (ADR 0108).
template <int kVecs>
__attribute__((always_inline)) inline void PrefetchTileOutput(const TileIo& io) {
  for (int r = 0; r < io.mr; ++r) {
#pragma GCC unroll 32
    for (int j = 0; j < kVecs; ++j) {
      if (j * kW < io.nc) __builtin_prefetch(io.y + r * io.ldy + j * kW, 1, 3);
    }
  }
}

// Loads a tile's first accumulators: on the first chunk the bias, plus the residual in the
// first `rows` rows; on the others the partial sums in y. Always inlined, like StoreTile.
//
// Here and in StoreTile every loop over the accumulators is unrolled completely: GCC 12 leaves
// some of them rolled otherwise, and one rolled loop that indexes the accumulator array puts the
// whole array in memory: every tile would store its accumulators to the stack and load them
// back, before its reduction and after it. The price is code size (ADR 0108).
template <int kR, int kVecs>
__attribute__((always_inline)) inline void InitTile(Vec (&acc)[kR][kVecs], int rows,
                                                    const TileIo& io) {
  if (rows == kR && io.nc >= kVecs * kW) {
    // A whole tile (most of them), without the general loop's conditions per accumulator.
    if (io.bias == nullptr) {
#pragma GCC unroll 32
      for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 32
        for (int j = 0; j < kVecs; ++j) acc[r][j] = Load(io.y + r * io.ldy + j * kW);
      }
      return;
    }
#pragma GCC unroll 32
    for (int j = 0; j < kVecs; ++j) {
      const Vec bias = Load(io.bias + j * kW);
#pragma GCC unroll 32
      for (int r = 0; r < kR; ++r) {
        acc[r][j] =
            io.residual == nullptr ? bias : Add(bias, Load(io.residual + r * io.ldy + j * kW));
      }
    }
    return;
  }
#pragma GCC unroll 32
  for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 32
    for (int j = 0; j < kVecs; ++j) {
      const int n = r < rows ? TileLanes(io, j) : 0;
      if (io.bias == nullptr) {
        acc[r][j] =
            n == kW ? Load(io.y + r * io.ldy + j * kW) : LoadPartial(io.y + r * io.ldy + j * kW, n);
        continue;
      }
      acc[r][j] = Load(io.bias + j * kW);
      if (io.residual == nullptr || n == 0) continue;
      const float* residual = io.residual + r * io.ldy + j * kW;
      acc[r][j] = Add(acc[r][j], n == kW ? Load(residual) : LoadPartial(residual, n));
    }
  }
}

// Stores the first `rows` rows of a tile's accumulators: after the last chunk of the reduction
// with the activation applied, before it the partial sums as they are. Always inlined: the
// accumulators must stay in registers, not be passed through memory.
template <Activation kAct, int kR, int kVecs>
__attribute__((always_inline)) inline void StoreTile(Vec (&acc)[kR][kVecs], int rows,
                                                     const TileIo& io, const ActivationParams& p) {
  if (rows == kR && io.nc >= kVecs * kW) {
#pragma GCC unroll 32
    for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 32
      for (int j = 0; j < kVecs; ++j) {
        Store(io.y + r * io.ldy + j * kW, io.last ? Activate<kAct>(acc[r][j], p) : acc[r][j]);
      }
    }
    return;
  }
#pragma GCC unroll 32
  for (int r = 0; r < kR; ++r) {
    if (r >= rows) break;
#pragma GCC unroll 32
    for (int j = 0; j < kVecs; ++j) {
      const int n = TileLanes(io, j);
      if (n == 0) continue;
      float* y = io.y + r * io.ldy + j * kW;
      const Vec v = io.last ? Activate<kAct>(acc[r][j], p) : acc[r][j];
      if (n == kW) {
        Store(y, v);
      } else {
        StorePartial(y, v, n);
      }
    }
  }
}

// Where a tile's weights lie: the first row of its first panel at `first`, the same row of the
// next panel panel_stride floats on, the next row row_step floats on. PackConvWeights' two
// layouts: rows that interleave the tile's panels (panel_stride kPanelWidth, row_step kP
// panels), or one panel's rows after another (panel_stride K rows, row_step one row).
struct TileWeights {
  const float* first;
  int64_t panel_stride;
  int64_t row_step;
};

// Panel group q's weights (tile_panels panels) from reduction element k0 on, in one group's
// packed weights at `packed`, K = k rows, as PackConvWeights laid them out for packed_panels.
inline TileWeights GroupWeights(const float* packed, int64_t k, int64_t packed_panels, int64_t q,
                                int tile_panels, int64_t k0) {
  const int64_t row_step = packed_panels == 1 ? kPanelWidth : tile_panels * kPanelWidth;
  return TileWeights{packed + q * kTilePanels * k * kPanelWidth + k0 * row_step,
                     packed_panels == 1 ? k * kPanelWidth : kPanelWidth, row_step};
}

// One step of a tile's reduction: the kP panels' weights of one row at w (panel_stride floats
// apart) times the broadcast of each row's input value x(r), added to the accumulators. Every
// tile kind below runs this; they differ in where a row's value lies.
template <int kR, int kP, typename RowValue>
__attribute__((always_inline)) inline void TileStep(Vec (&acc)[kR][kP * kPanelVecs], const float* w,
                                                    int64_t panel_stride, RowValue x) {
  constexpr int kVecs = kP * kPanelVecs;
  Vec b[kVecs];
  for (int q = 0; q < kP; ++q) {
    for (int j = 0; j < kPanelVecs; ++j)
      b[q * kPanelVecs + j] = Load(w + q * panel_stride + j * kW);
  }
  for (int r = 0; r < kR; ++r) {
    const Vec s = Set1(x(r));
    for (int j = 0; j < kVecs; ++j) acc[r][j] = Fma(s, b[j], acc[r][j]);
  }
}

// One kR x (kP * kPanelWidth) output tile over one chunk of the reduction:
// acc[r][n] (+)= sum_k buf[r][k] * w[k][n], from bias + residual on the first chunk; after the
// last chunk y = act(acc). w is the chunk's first packed row of the kP panels. kR < kRows
// serves the last rows of a block (and dense layers of one row) without computing rows that would
// be dropped; kP > 1 divides the broadcasts per multiply-add where the register file allows
// (AVX-512: 6 x 4 accumulators).
template <Activation kAct, int kR, int kP>
inline void MicroTile(const float* buf, int64_t len, const TileWeights& tw, const TileIo& io,
                      const ActivationParams& p) {
  constexpr int kVecs = kP * kPanelVecs;
  const float* w = tw.first;
  const int rows = io.mr < kR ? io.mr : kR;
  Vec acc[kR][kVecs];
  InitTile(acc, rows, io);
  for (int64_t k = 0; k < len; ++k) {
    TileStep<kR, kP>(acc, w, tw.panel_stride, [&](int r) { return buf[r * kReductionChunk + k]; });
    w += tw.row_step;
  }
  StoreTile<kAct>(acc, rows, io, p);
}

template <Activation kAct, int kP>
inline void MicroTileRows(const float* buf, int64_t len, const TileWeights& w, const TileIo& io,
                          const ActivationParams& p) {
  if (io.mr > kRows / 2) {
    MicroTile<kAct, kRows, kP>(buf, len, w, io, p);
  } else if (io.mr > 1) {
    MicroTile<kAct, kRows / 2, kP>(buf, len, w, io, p);
  } else {
    MicroTile<kAct, 1, kP>(buf, len, w, io, p);
  }
}

// A tile of `tile_panels` (<= kTilePanels) panels.
template <Activation kAct>
inline void MicroTilePanels(int tile_panels, const float* buf, int64_t len, const TileWeights& w,
                            const TileIo& io, const ActivationParams& p) {
  if constexpr (kTilePanels >= 4) {
    if (tile_panels == 4) return MicroTileRows<kAct, 4>(buf, len, w, io, p);
    if (tile_panels == 3) return MicroTileRows<kAct, 3>(buf, len, w, io, p);
  }
  if constexpr (kTilePanels >= 2) {
    if (tile_panels == 2) return MicroTileRows<kAct, 2>(buf, len, w, io, p);
  }
  MicroTileRows<kAct, 1>(buf, len, w, io, p);
}

// A whole kRows x (kTilePanels * kPanelWidth) tile over the whole reduction, reading the input
// in place instead of through the chunk buffer: for kRows pixels of one output row whose
// windows lie inside the image (or any kRows consecutive pixels of a pointwise layer), row r
// of tap t starts at corner + tap_offset[t] + r * pixel stride. Where the stride is a
// compile-time kPixelStride every row is a constant offset from one register, as in the
// buffer; kPixelStride 0 takes it at run time (a register per row), for the other layers.
// Saves the copy and the partial sums' trips through memory between chunks.
//
// kLateResidual (a layer with a residual, ConvImpl): the tile fetches its residual toward the
// L1 cache when it starts and adds it when its reduction ends, rather than loading it into the
// accumulators first (InitTile). A residual from beyond the L2 cache (a 56x56 layer's, 3.2 MB)
// would make every multiply-add chain of the tile wait for its loads, and the reorder buffer
// fills long before they return; moving the add to the end alone makes its loads miss there.
// A variant of its own, not a run-time choice in every tile: with the choice made per tile,
// GCC's code for the layers without a residual is slower (ADR 0108 has the figures).
template <Activation kAct, int kPixelStride, int kP = kTilePanels, bool kLateResidual = false>
inline void DirectTile(const float* corner, const int64_t* tap_offset, int64_t taps, int64_t cin,
                       int64_t pixel_stride, const TileWeights& tw, const TileIo& io,
                       const ActivationParams& p) {
  const int64_t stride = kPixelStride > 0 ? kPixelStride : pixel_stride;
  const float* w = tw.first;
  constexpr int kVecs = kP * kPanelVecs;
  Vec acc[kRows][kVecs];
  if constexpr (kLateResidual) {
#pragma GCC unroll 32
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 32
      for (int j = 0; j < kVecs; ++j) {
        if (j * kW < io.nc) __builtin_prefetch(io.residual + r * io.ldy + j * kW, 0, 3);
      }
    }
    TileIo start = io;
    start.residual = nullptr;
    InitTile(acc, kRows, start);
  } else {
    InitTile(acc, kRows, io);
  }
  PrefetchCursor prefetch(io.prefetch);
  for (int64_t t = 0; t < taps; ++t) {
    const float* x = corner + tap_offset[t];
    for (int64_t c = 0; c < cin; ++c) {
      prefetch.Step();
      TileStep<kRows, kP>(acc, w, tw.panel_stride, [&](int r) { return x[r * stride + c]; });
      w += tw.row_step;
    }
  }
  if constexpr (kLateResidual) {
#pragma GCC unroll 32
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 32
      for (int j = 0; j < kVecs; ++j) {
        const int n = TileLanes(io, j);
        const float* residual = io.residual + r * io.ldy + j * kW;
        if (n == kW) {
          acc[r][j] = Add(acc[r][j], Load(residual));
        } else if (n > 0) {
          acc[r][j] = Add(acc[r][j], LoadPartial(residual, n));
        }
      }
    }
  }
  StoreTile<kAct>(acc, kRows, io, p);
}

// DirectTile for a pixel stride (floats): compiled for a stride-1 or stride-2 layer of 16 to
// 512 channels, at run time for the others; for a layer with a residual, the variant that adds
// it late. A compile-time stride keeps every row a constant offset from one register.
using DirectTileFn = void (*)(const float*, const int64_t*, int64_t, int64_t, int64_t,
                              const TileWeights&, const TileIo&, const ActivationParams&);
template <Activation kAct, bool kLateResidual>
inline DirectTileFn DirectTileFor(int64_t pixel_stride) {
  switch (pixel_stride) {
    case 16:
      return &DirectTile<kAct, 16, kTilePanels, kLateResidual>;
    case 32:
      return &DirectTile<kAct, 32, kTilePanels, kLateResidual>;
    case 48:
      return &DirectTile<kAct, 48, kTilePanels, kLateResidual>;
    case 64:
      return &DirectTile<kAct, 64, kTilePanels, kLateResidual>;
    case 128:
      return &DirectTile<kAct, 128, kTilePanels, kLateResidual>;
    case 256:
      return &DirectTile<kAct, 256, kTilePanels, kLateResidual>;
    case 512:
      return &DirectTile<kAct, 512, kTilePanels, kLateResidual>;
    default:
      return &DirectTile<kAct, 0, kTilePanels, kLateResidual>;
  }
}
// The late variant only for the activations that follow a residual sum in the networks we
// know (ResNet's ReLU, none in MobileNet's and EfficientNet's blocks): 0.2 MB more code, where
// every activation took 1.9 MB. The others add their residual first.
template <Activation kAct>
inline DirectTileFn DirectTileFor(int64_t pixel_stride, bool residual) {
  if constexpr (kAct == Activation::kNone || kAct == Activation::kRelu) {
    if (residual) return DirectTileFor<kAct, true>(pixel_stride);
  }
  return DirectTileFor<kAct, false>(pixel_stride);
}

// DirectTile for the last panel group of a layer whose panels do not fill it (AVX-512's 4-panel
// groups: 96, 144 or 240 channels), at a run-time pixel stride; null where groups are whole.
template <Activation kAct>
inline DirectTileFn DirectTilePanels(int64_t tile_panels) {
  if constexpr (kTilePanels >= 4) {
    if (tile_panels == 3) return &DirectTile<kAct, 0, 3>;
  }
  if constexpr (kTilePanels >= 3) {
    if (tile_panels == 2) return &DirectTile<kAct, 0, 2>;
  }
  if constexpr (kTilePanels >= 2) {
    if (tile_panels == 1) return &DirectTile<kAct, 0, 1>;
  }
  return nullptr;
}

// The most taps one indirection table holds (kNhwcConvMaxTaps).
constexpr int kMaxTaps = 64;
// Pointers of the indirection tables that tiles running chunk by chunk keep (16 KiB of stack).
constexpr int64_t kBlockRowPointers = 2048;

// A kRows x (kP * kPanelWidth) tile over elements [k0, k0 + len) of the reduction (tap-major:
// element t * cin + c), reading each tap's rows where the indirection table points
// (rows[t * kRows + r], `cin` floats: in the image, or the zeros of the padding) instead of
// through the chunk buffer's copy. Serves the tiles DirectTile cannot: those at the image's
// borders and those that run over the end of an output row (most tiles of a 14x14 layer), and
// layers whose weights are read chunk by chunk (7x7 layers of 512 channels). A tap that every
// row reads from the padding (`zero`) is skipped: a tile in the first or last output row of a
// 3x3 layer has three such taps. Fetches io.prefetch's rows on the way. Stores io.mr rows.
template <Activation kAct, int kP = kTilePanels>
inline void IndirectTile(const float* const* rows, const float* zero, int64_t k0, int64_t len,
                         int64_t cin, const TileWeights& tw, const TileIo& io,
                         const ActivationParams& p) {
  constexpr int kVecs = kP * kPanelVecs;
  const float* w = tw.first;
  Vec acc[kRows][kVecs];
  InitTile(acc, io.mr, io);
  PrefetchCursor prefetch(io.prefetch);
  int64_t t = k0 / cin;
  int64_t c0 = k0 - t * cin;
  for (int64_t done = 0; done < len; ++t, c0 = 0) {
    const int64_t seg = MinI(cin - c0, len - done);
    // A tap whose every row reads the padding adds nothing: skip its weights.
    bool padding = true;
    for (int r = 0; r < kRows; ++r) padding &= rows[t * kRows + r] == zero;
    if (padding) {
      w += seg * tw.row_step;
      done += seg;
      continue;
    }
    const float* x[kRows];
    for (int r = 0; r < kRows; ++r) x[r] = rows[t * kRows + r] + c0;
    for (int64_t c = 0; c < seg; ++c) {
      prefetch.Step();
      TileStep<kRows, kP>(acc, w, tw.panel_stride, [&](int r) { return x[r][c]; });
      w += tw.row_step;
    }
    done += seg;
  }
  StoreTile<kAct>(acc, io.mr, io, p);
}

using IndirectTileFn = void (*)(const float* const*, const float*, int64_t, int64_t, int64_t,
                                const TileWeights&, const TileIo&, const ActivationParams&);

// IndirectTile over tile_panels (<= kTilePanels) panels.
template <Activation kAct>
inline IndirectTileFn IndirectTilePanels(int64_t tile_panels) {
  if constexpr (kTilePanels >= 4) {
    if (tile_panels == 4) return &IndirectTile<kAct, 4>;
    if (tile_panels == 3) return &IndirectTile<kAct, 3>;
  }
  if constexpr (kTilePanels >= 2) {
    if (tile_panels == 2) return &IndirectTile<kAct, 2>;
  }
  return &IndirectTile<kAct, 1>;
}

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_IMPL_GEMM_TILE_H_
