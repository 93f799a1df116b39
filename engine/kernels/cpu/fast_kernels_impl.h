// The optimized kernels, written once over the vector type Vec (vec_<isa>.h) and compiled once
// per instruction set. Include in exactly one file per ISA, after that ISA's vec header and a
// definition of kRows (the micro-kernel's pixel rows); everything here has internal linkage,
// so the copies compiled with different -m flags never meet at link time. For the same reason
// this file calls no std:: function template (an out-of-line copy of one compiled for AVX2
// could be picked by the linker for the portable path).
//
// The GEMM micro-kernel keeps a kRows x kPanelWidth block of the output in registers and
// walks the reduction one packed-weight row at a time: kPanelWidth / Vec::kWidth vector loads
// of weights and kRows broadcasts of input values feed kRows x (kPanelWidth / Vec::kWidth)
// fused multiply-adds. Input rows come through a small table of pointers built per tile
// (an indirection table): the pixel a tap reads, or a zero row for padding, so that 1x1,
// strided, dilated and padded convolutions share one kernel and no im2col buffer exists.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_FAST_KERNELS_IMPL_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_FAST_KERNELS_IMPL_H_

#include <cstdint>
#include <cstring>

#include "engine/kernels/cpu/fast_kernels.h"

namespace edgemond::engine::cpu {
namespace {

using std::int64_t;

constexpr int kW = Vec::kWidth;
constexpr int kPanelVecs = kPanelWidth / kW;

inline int64_t MinI(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t MaxI(int64_t a, int64_t b) { return a > b ? a : b; }

// ---------------------------------------------------------------------------------------------
// Activations.

// exp(x), relative error about 2 ulp over the clamped range (Cephes' expf polynomial after
// range reduction by powers of 2).
inline Vec Exp(Vec x) {
  x = Min(Set1(88.0f), x);
  x = Max(Set1(-87.0f), x);
  const Vec n = Round(Mul(x, Set1(1.44269504088896341f)));
  Vec r = Fma(n, Set1(-0.693359375f), x);
  r = Fma(n, Set1(2.12194440e-4f), r);
  Vec p = Set1(1.9875691500e-4f);
  p = Fma(p, r, Set1(1.3981999507e-3f));
  p = Fma(p, r, Set1(8.3334519073e-3f));
  p = Fma(p, r, Set1(4.1665795894e-2f));
  p = Fma(p, r, Set1(1.6666665459e-1f));
  p = Fma(p, r, Set1(5.0000001201e-1f));
  p = Fma(p, Mul(r, r), Add(r, Set1(1.0f)));
  return Mul(p, Pow2(n));
}

inline Vec Sigmoid(Vec x) {
  const Vec one = Set1(1.0f);
  return Div(one, Add(one, Exp(Sub(Zero(), x))));
}

template <Activation kAct>
inline Vec Activate(Vec x, const ActivationParams& p) {
  if constexpr (kAct == Activation::kNone) {
    return x;
  } else if constexpr (kAct == Activation::kRelu) {
    return Max(Zero(), x);
  } else if constexpr (kAct == Activation::kLeakyRelu) {
    return Fma(Set1(p.a), Min(Zero(), x), Max(Zero(), x));
  } else if constexpr (kAct == Activation::kClip) {
    return Min(Set1(p.b), Max(Set1(p.a), x));
  } else if constexpr (kAct == Activation::kHardSigmoid) {
    return Min(Set1(1.0f), Max(Zero(), Fma(Set1(p.a), x, Set1(p.b))));
  } else if constexpr (kAct == Activation::kHardSwish) {
    const Vec gate = Min(Set1(1.0f), Max(Zero(), Fma(Set1(1.0f / 6.0f), x, Set1(0.5f))));
    return Mul(x, gate);
  } else if constexpr (kAct == Activation::kSigmoid) {
    return Sigmoid(x);
  } else {
    return Mul(x, Sigmoid(x));
  }
}

// Calls f.template operator()<kAct>() for the runtime activation kind.
template <typename F>
inline void WithActivation(Activation kind, F&& f) {
  switch (kind) {
    case Activation::kNone:
      f.template operator()<Activation::kNone>();
      return;
    case Activation::kRelu:
      f.template operator()<Activation::kRelu>();
      return;
    case Activation::kLeakyRelu:
      f.template operator()<Activation::kLeakyRelu>();
      return;
    case Activation::kClip:
      f.template operator()<Activation::kClip>();
      return;
    case Activation::kHardSigmoid:
      f.template operator()<Activation::kHardSigmoid>();
      return;
    case Activation::kHardSwish:
      f.template operator()<Activation::kHardSwish>();
      return;
    case Activation::kSigmoid:
      f.template operator()<Activation::kSigmoid>();
      return;
    case Activation::kSilu:
      f.template operator()<Activation::kSilu>();
      return;
  }
}

// Applies the activation to count floats in place-or-copy; the tail goes through a padded
// buffer so that every element sees the same vector code.
template <Activation kAct>
inline void ActivateSpan(const float* x, float* y, int64_t count, const ActivationParams& p) {
  int64_t i = 0;
  for (; i + kW <= count; i += kW) Store(y + i, Activate<kAct>(Load(x + i), p));
  if (i < count) {
    float buffer[kW] = {};
    for (int64_t j = 0; j < count - i; ++j) buffer[j] = x[i + j];
    Store(buffer, Activate<kAct>(Load(buffer), p));
    for (int64_t j = 0; j < count - i; ++j) y[i + j] = buffer[j];
  }
}

// ---------------------------------------------------------------------------------------------
// GEMM micro-kernel and convolution.

// The convolution is a blocked GEMM. A whole tile (kRows pixels) reads its input in place:
// from one corner with constant offsets (DirectTile) or, at the borders and across the end of
// an output row, through the indirection table with a register per row (IndirectTile; the
// 6-row tiles leave x86-64 enough general registers for that, the first 12-row AVX-512 tile
// did not). Layers whose weights do not stay in the L2 cache run their reduction (taps x
// input channels) in chunks of at most kReductionChunk, the tiles' partial sums waiting in the
// output between chunks. The partial last tile of a pixel block has its rows copied, chunk by
// chunk, into a buffer whose row stride is a compile-time constant (MicroTile), which lets it
// compute only the rows it stores.
constexpr int64_t kReductionChunk = 256;

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
// channels: 3.2 MB) and its reduction short (147 steps), so the tile's stores had waited for
// their lines: fetched when the tile starts, ResNet-50's 7x7 stem ran 0.953-0.985 of before and
// MobileNetV2's 3x3 one 0.80-0.91 (1 thread, sum of per-node minima, 8-12 alternating rounds,
// five runs). Not in the other tiles: DirectTile's layers moved within the noise (0.98-1.04), and
// the 7x7 512-channel 3x3 layers through IndirectTile, whose output stays in the L2 cache, ran
// 1.02-1.04.
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
// whole array in memory. Every tile then stored its accumulators to the stack and loaded them
// back, before its reduction and after it: 13 % of the samples of ResNet-50's 64->256 1x1 tiles.
// Unrolled, ResNet-50 0.964 and MobileNetV2 0.949 at 1 thread (sum of per-node minima, 6
// alternating rounds), for 2.4 MB more code.
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
// Saves the copy (10-15 % of a 3x3 layer of 64 channels) and the partial sums' trips through
// memory between chunks.
//
// kLateResidual (a layer with a residual, ConvImpl): the tile fetches its residual toward the
// L1 cache when it starts and adds it when its reduction ends, rather than loading it into the
// accumulators first (InitTile). A residual from beyond the L2 cache (a 56x56 layer's, 3.2 MB)
// had made every multiply-add chain of the tile wait for its loads, and the reorder buffer
// filled long before they returned. Neither the add moved to the end alone (its loads then
// missed there) nor a software prefetch one to four tiles ahead had helped; fetched at the
// start and added at the end, ResNet-50's 56x56 64->256 layers with their residual ran
// 0.91-0.95 of before and its 28x28 128->512 ones 0.97-0.99 (1 thread, sum of per-node minima,
// 12-14 alternating rounds); MobileNetV2 0.98 in all. A variant of its own, not a run-time choice
// in every tile: with the choice made per tile (in DirectTile, or in InitTile and StoreTile for
// every tile kind), GCC's code for the layers without a residual ran 5-30 % slower (ResNet-50's
// 56x56 1x1 layers, ResNet-18's 14x14 and 7x7 3x3 layers through IndirectTile).
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
// it late. Alone, on AVX-512, against the chunk buffer:
// 55x55 16->64 1x1 0.127 -> 0.098 ms, 3x3 0.63 -> 0.51; 27x27 32->128 3x3 0.73 -> 0.61;
// at run time 14x14 1024->256 1x1 1.38 -> 1.25, 7x7 2048->512 1.55 -> 1.40, 14x14 160->960
// 0.78 -> 0.73.
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

// Blocks of fewer tiles run chunk by chunk where the layer's weights are beyond the L2 cache
// (ConvImpl).
constexpr int64_t kFewTilesPerBlock = 16;

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

template <Activation kAct>
void ConvImpl(const ConvArgs& g, ThreadPool* pool) {
  const int64_t cache_budget =
      g.cache_budget_bytes > 0 ? g.cache_budget_bytes : ConvCacheBudgetBytes();
  const int64_t pixels = g.out_h * g.out_w;
  const int64_t taps = g.kernel_h * g.kernel_w;
  const int64_t k = taps * g.in_c;
  const int64_t panels = PaddedChannels(g.out_c) / kPanelWidth;
  const int64_t panel_groups = (panels + kTilePanels - 1) / kTilePanels;
  const int64_t group_floats = PackedConvFloats(g.out_c, g.in_c, g.kernel_h, g.kernel_w);
  const bool pointwise = taps == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_top == 0 &&
                         g.pad_left == 0 && g.in_h == g.out_h && g.in_w == g.out_w;
  // Pixel blocks: the input a block reads (about pixels x in_c floats) stays in the L2 cache.
  const int64_t budget_pixels = 65536 / MaxI(1, g.in_c);
  int64_t block_tiles = MaxI(1, MinI(64, budget_pixels / kRows));
  const int64_t threads = pool != nullptr ? pool->threads() : 1;
  // Threads share the tasks in chunks (ThreadPool::ParallelFor): smaller blocks make enough of
  // them that a thread losing its core in the middle of one holds back little. Every block
  // reads all of its slice's weights, though: where they are beyond the L2 cache and outweigh
  // the input (the last layers of a network), the threads split the output channels first
  // (slices of one panel group, below), and blocks shrink only to give each thread 4 tasks.
  const int64_t weight_bytes = k * panels * kPanelWidth * 4;
  const int64_t input_bytes = g.in_h * g.in_w * g.in_c * 4;
  const bool split_channels = weight_bytes > (1 << 20) && weight_bytes > 4 * input_bytes;
  const int64_t tasks_per_block = split_channels ? panel_groups : 1;
  const int64_t min_tasks = (split_channels ? 4 : 16) * threads;
  while (threads > 1 && block_tiles > 4 &&
         g.batch * g.groups * ((pixels + block_tiles * kRows - 1) / (block_tiles * kRows)) *
                 tasks_per_block <
             min_tasks) {
    block_tiles /= 2;
  }
  const int64_t block = block_tiles * kRows;
  const int64_t blocks = (pixels + block - 1) / block;
  // Slices of panel groups: one chunk of a slice's weights (at most 256 KiB) stays in the L2
  // cache while all tiles of a block pass over it. Small images with many output channels
  // (the last layers of a network) get narrower slices, so that every thread has work.
  // Chunks of equal length (a 3x3 layer of 64 channels, 576, runs as 2 x 288 rather than
  // 256 + 256 + 64): each chunk costs a copy and a pass of the tile's accumulators through
  // memory.
  const int64_t chunks = (k + kReductionChunk - 1) / kReductionChunk;
  const int64_t chunk = (k + chunks - 1) / chunks;
  const int64_t chunk_group_bytes = chunk * kTilePanels * kPanelWidth * 4;
  int64_t slice = MaxI(1, MinI(panel_groups, (256 << 10) / chunk_group_bytes));
  while (slice > 1 &&
         g.batch * g.groups * blocks * ((panel_groups + slice - 1) / slice) < 16 * threads) {
    slice = (slice + 1) / 2;
  }
  // A slice whose whole weights stay in the L2 cache (the cache budget) runs tile by tile, each
  // tile its whole reduction, mostly in place (DirectTile); a wider one runs chunk by chunk. A
  // slice is narrowed to that size where one panel group fits: 28x28 layers of 128 channels on
  // two threads, 5 % faster. A budget of 768 KiB (this Xeon's 1 MiB L2) rather than a fixed
  // 512 runs ResNet-50's 14x14 3x3 layers (590 KB of weights per group) tile by tile: 11-14 %
  // faster; 7x7 layers of 512 channels (1.2 MB per group) lose 5 % that way, so they stay
  // chunked.
  //
  // Where the layer's weights come from memory (below), a task's tiles also fetch the next
  // task's slice of weights, so slices are narrowed to half the budget for both to fit:
  // ResNet-50 at 1 thread 0.957 (sum of per-node minima, 8 alternating rounds; its 14x14
  // layers of 256 channels, one panel group of 590 KB per slice rather than two, 0.90-1.0),
  // 2 threads 0.99.
  //
  // The weights come from memory where they are beyond the L2 cache, and also where the rest of
  // the network's weights, which pass through the cache between two runs of the layer, take
  // them beyond it: in ResNet-50 (100 MB of weights), the 14x14 1x1 layers of 1 MB each had
  // run tile by tile, a task's first tile waiting for its whole slice from memory. Read as
  // coming from memory, those layers 0.89-0.90 and ResNet-50 0.978 at 1 thread, 0.988 at 2
  // (sum of per-node minima, 6 alternating rounds).
  const int64_t group_weight_bytes = PanelGroupWeightBytes(k, kTilePanels);
  const bool weights_from_memory = weight_bytes + g.other_weight_bytes > cache_budget;
  const int64_t slice_budget = weights_from_memory && 2 * group_weight_bytes <= cache_budget
                                   ? cache_budget / 2
                                   : cache_budget;
  if (slice * group_weight_bytes > slice_budget && group_weight_bytes <= slice_budget) {
    const int64_t fewest = (panel_groups + slice - 1) / slice;  // The slices so far.
    const int64_t widest = slice_budget / group_weight_bytes;
    // Slices of equal width, as many as the size asks for (or were there).
    const int64_t count = MaxI(fewest, (panel_groups + widest - 1) / widest);
    slice = (panel_groups + count - 1) / count;
  }
  const int64_t slices = (panel_groups + slice - 1) / slice;
  // Chunk by chunk as well where the layer's weights come from memory and few tiles pass over
  // them once they are in the L2 cache: a block's tiles where the weights are beyond the cache
  // (a 7x7 image: 9), and where they stay in it from one block to the next, a thread's share of
  // the image's. Tile by tile, a panel group's first tile reads its weights from memory, faster
  // than memory delivers them, and the few tiles after it hardly make up for that; chunk by
  // chunk, each chunk's tiles fetch the next chunk's weights while they work (TilePrefetch).
  // ResNet-18's 7x7 3x3 layers of 512 channels, 1 thread: 0.69-0.75 (sum of per-node minima,
  // 5 alternating rounds); its 14x14 layers (33 tiles) are no faster chunk by chunk
  // (1.00-1.02). Counting a block's tiles where the weights stay in the cache sent ResNet-50's
  // 28x28 3x3 layers, 4-tile blocks at 2 threads, chunk by chunk: 1.04-1.06.
  const int64_t block_tile_count = (MinI(block, pixels) + kRows - 1) / kRows;
  const int64_t tiles_per_fetch =
      weight_bytes > cache_budget ? block_tile_count : (pixels + kRows - 1) / kRows / threads;
  const bool chunks_outer = slice * group_weight_bytes > cache_budget ||
                            (weights_from_memory && tiles_per_fetch < kFewTilesPerBlock);
  const bool prefetch_next_slice =
      weights_from_memory && !chunks_outer && 2 * slice * group_weight_bytes <= cache_budget;
  // A thread's first task of a layer whose weights are beyond the L2 cache runs chunk by chunk
  // too: no task before it fetched its slice, and on several threads each thread's first slice
  // comes from memory at the same time as the others'. Tile by tile, the first tile waits for
  // all of it; chunk by chunk, for the first chunk only. ResNet-50's and ResNet-18's 14x14 3x3
  // layers of 256 channels (2.4 MB of weights, 21-tile blocks) on two threads: 0.96-0.97 (sum
  // of per-node minima, 12-30 alternating rounds), ResNet-50 0.99. On one thread the first
  // task waits alone and is one of four: no faster (1.00-1.01), so it stays tile by tile.
  const bool first_task_chunked = threads > 1 && !chunks_outer && weight_bytes > cache_budget;
  // Tasks: (image, group, block, slice), slice fastest: the tiles of a block pass over every
  // slice while the block's input is in the L2 cache. Where the weights outweigh the input
  // (split_channels), (image, group, slice, block), block fastest, instead: a slice's weights
  // serve every block from the L2 cache rather than coming from memory once per block. The
  // same where that order reads less from beyond the L2 cache: weights beyond it are read once
  // per block, an input beyond it once per slice. Threads shrink the blocks, so this is mostly
  // a many-thread order: ResNet-50's 14x14 1x1 layers of 1 MB of weights on two threads, 17
  // blocks of 2 tiles, 3-4 % faster; its stride-2 layers of 28x28 inputs 7-9 %.
  const int64_t weight_reads = weight_bytes <= cache_budget ? weight_bytes : blocks * weight_bytes;
  const int64_t input_reads = input_bytes <= cache_budget ? input_bytes : slices * input_bytes;
  const bool blocks_inner =
      split_channels || input_bytes + weight_reads > weight_bytes + input_reads;
  const int64_t tasks = g.batch * g.groups * blocks * slices;

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

  // Where a thread's share of the input is beyond the L2 cache, only the part of it that the
  // layer before wrote last is still there: each thread runs its range of tasks back to front
  // (ThreadRange mirrors them), so that it reads that part first, before its own reads and
  // writes push it out. ResNet-50's 1x1 layers that read 56x56 images of 256 channels (3.2 MB),
  // sum of per-node minima over 8-10 alternating rounds: one thread 0.985-0.99 on a quiet host
  // and 0.84-0.97 while other tenants loaded it, two threads (1.6 MB each) 0.98; the
  // downsampling layer that reads such an image after two other layers ran, 1.0; layers that
  // read 1.6 MB on one thread, 0.98-1.0. Such a layer writes its output back to front too, so
  // the layer after it, forward where its input is smaller, again reads first what was written
  // last. (Of two such layers in a row, the second would read first what was written first.)
  const bool backward = input_bytes > cache_budget * threads;
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
          (first_task_chunked && step == begin && StartsThreadRange(pool, tasks, 1, step))) {
        // A chunk of the slice's weights serves every tile of the block from the L2 cache; the
        // tiles' partial sums wait in the output between chunks. The whole tiles of a chunk
        // share out the fetching of the next chunk's weights. The tiles' indirection tables
        // are built once, not once per chunk (that had taken 8 % of a 7x7 512->512 3x3 layer),
        // as many tiles at a time as block_rows holds (a 3x3 layer: 37).
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
        if (prefetch_next_slice && next_task >= 0 &&
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
  // One loop over the whole reduction through the offset table, not three nested ones: the
  // kernel_w loop of a 7x7 first layer ran 7 steps and then left, and those exits took 15 % of
  // the layer (224x224 3->64 7x7, alone: 2.38 -> 2.02 ms on AVX-512).
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

void Conv(const ConvArgs& args, ThreadPool* pool) {
  if (args.x_nchw) {
    WithActivation(args.activation.kind,
                   [&]<Activation kAct>() { NchwInputConvImpl<kAct>(args, pool); });
    return;
  }
  WithActivation(args.activation.kind, [&]<Activation kAct>() { ConvImpl<kAct>(args, pool); });
}

// ---------------------------------------------------------------------------------------------
// Winograd F(2x2, 3x3) (WinogradArgs).

// The input transform of tiles [begin, end) into v: point p of tile t at
// v[p * v_point + (t - begin) * in_c]. V = B^T d B, B^T = [[1, 0, -1, 0], [0, 1, 1, 0],
// [0, -1, 1, 0], [0, 1, 0, -1]].
inline void WinogradInput(const WinogradArgs& g, int64_t begin, int64_t end, float* v,
                          int64_t v_point) {
  const int64_t tiles_h = (g.out_h + 1) / 2;
  const int64_t tiles_w = (g.out_w + 1) / 2;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / (tiles_h * tiles_w);
    const int64_t ih0 = t / tiles_w % tiles_h * 2 - g.pad_top;
    const int64_t iw0 = t % tiles_w * 2 - g.pad_left;
    // The window's 16 pixels, or the zero row for those in the padding.
    const float* d_rows[16];
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        const int64_t ih = ih0 + i, iw = iw0 + j;
        d_rows[i * 4 + j] = ih >= 0 && ih < g.in_h && iw >= 0 && iw < g.in_w
                                ? g.x + ((n * g.in_h + ih) * g.in_w + iw) * g.x_pixel_stride
                                : g.zero;
      }
    }
    float* const out = v + (t - begin) * g.in_c;
    for (int64_t c = 0; c < g.in_c; c += kW) {
      const int lanes = static_cast<int>(MinI(kW, g.in_c - c));
      Vec d[16];
      for (int p = 0; p < 16; ++p) {
        d[p] = lanes == kW ? Load(d_rows[p] + c) : LoadPartial(d_rows[p] + c, lanes);
      }
      Vec b[16];  // B^T d
      for (int j = 0; j < 4; ++j) {
        b[j] = Sub(d[j], d[8 + j]);
        b[4 + j] = Add(d[4 + j], d[8 + j]);
        b[8 + j] = Sub(d[8 + j], d[4 + j]);
        b[12 + j] = Sub(d[4 + j], d[12 + j]);
      }
      for (int i = 0; i < 4; ++i) {
        const Vec r[4] = {Sub(b[i * 4], b[i * 4 + 2]), Add(b[i * 4 + 1], b[i * 4 + 2]),
                          Sub(b[i * 4 + 2], b[i * 4 + 1]), Sub(b[i * 4 + 1], b[i * 4 + 3])};
        for (int j = 0; j < 4; ++j) {
          float* const dst = out + (i * 4 + j) * v_point + c;
          if (lanes == kW) {
            Store(dst, r[j]);
          } else {
            StorePartial(dst, r[j], lanes);
          }
        }
      }
    }
  }
}

// The output transform of tiles [begin, end) from m (laid out as WinogradInput's v, out_c
// values per tile), with the bias, the residual and the activation. Y = A^T M A,
// A^T = [[1, 1, 1, 0], [0, 1, -1, -1]].
template <Activation kAct>
void WinogradOutput(const WinogradArgs& g, int64_t begin, int64_t end, const float* m,
                    int64_t m_point) {
  const int64_t tiles_h = (g.out_h + 1) / 2;
  const int64_t tiles_w = (g.out_w + 1) / 2;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / (tiles_h * tiles_w);
    const int64_t oh0 = t / tiles_w % tiles_h * 2;
    const int64_t ow0 = t % tiles_w * 2;
    // The tile's pixels inside the output (a tile on an odd edge has fewer than 4).
    int64_t offsets[4];
    int which[4];
    int count = 0;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        if (oh0 + i < g.out_h && ow0 + j < g.out_w) {
          offsets[count] = ((n * g.out_h + oh0 + i) * g.out_w + ow0 + j) * g.y_pixel_stride;
          which[count++] = i * 2 + j;
        }
      }
    }
    const float* const in = m + (t - begin) * g.out_c;
    for (int64_t c = 0; c < g.out_c; c += kW) {
      const int lanes = static_cast<int>(MinI(kW, g.out_c - c));
      Vec q[16];
      for (int p = 0; p < 16; ++p) {
        q[p] = lanes == kW ? Load(in + p * m_point + c) : LoadPartial(in + p * m_point + c, lanes);
      }
      Vec a[8];  // A^T M
      for (int j = 0; j < 4; ++j) {
        a[j] = Add(Add(q[j], q[4 + j]), q[8 + j]);
        a[4 + j] = Sub(Sub(q[4 + j], q[8 + j]), q[12 + j]);
      }
      const Vec bias = Load(g.bias + c);  // Padded to whole panels.
      const Vec y[4] = {Add(Add(a[0], a[1]), a[2]), Sub(Sub(a[1], a[2]), a[3]),
                        Add(Add(a[4], a[5]), a[6]), Sub(Sub(a[5], a[6]), a[7])};
      for (int o = 0; o < count; ++o) {
        Vec r = Add(y[which[o]], bias);
        float* const dst = g.y + offsets[o] + c;
        if (g.residual != nullptr) {
          const float* res = g.residual + offsets[o] + c;
          r = Add(r, lanes == kW ? Load(res) : LoadPartial(res, lanes));
        }
        r = Activate<kAct>(r, g.activation);
        if (lanes == kW) {
          Store(dst, r);
        } else {
          StorePartial(dst, r, lanes);
        }
      }
    }
  }
}

template <Activation kAct>
void WinogradConvImpl(const WinogradArgs& g, ThreadPool* pool) {
  const int64_t cache_budget =
      g.cache_budget_bytes > 0 ? g.cache_budget_bytes : ConvCacheBudgetBytes();
  const int64_t threads = pool != nullptr ? pool->threads() : 1;
  const int64_t tiles = WinogradTiles(g.batch, g.out_h, g.out_w);
  const int64_t point_floats = PackedConvFloats(g.out_c, g.in_c, 1, 1);
  const int64_t weight_bytes = kWinogradPoints * point_floats * int64_t{sizeof(float)};
  // M = V U point by point: a 1x1 convolution of `rows` tiles' in_c values.
  ConvArgs point;
  point.in_c = g.in_c;
  point.out_c = g.out_c;
  point.x_pixel_stride = g.in_c;
  point.y_pixel_stride = g.out_c;
  point.packed_panels = g.packed_panels;
  point.bias = g.zero_bias;
  point.zero = g.zero;
  point.cache_budget_bytes = g.cache_budget_bytes;
  const auto multiply = [&](int64_t p, int64_t rows, const float* v, float* m) {
    ConvArgs a = point;
    a.in_h = a.out_h = rows;
    a.x = v;
    a.y = m;
    a.packed_w = g.packed_u + p * point_floats;
    ConvImpl<Activation::kNone>(a, nullptr);
  };
  // Tile floats of the transformed input and the products.
  const int64_t tile_floats = kWinogradPoints * (g.in_c + g.out_c);
  if (weight_bytes <= cache_budget / 2) {
    // The weights stay in the L2 cache: blocks of tiles run start to end, small enough that
    // a block's transformed input and products stay there too, each thread's blocks through
    // its own part of the scratch memory (the same part again and again, rather than a
    // block's own, which would pass the whole image's worth of scratch through the cache).
    // Between two blocks' products of a point, only the other points' weights.
    point.other_weight_bytes = weight_bytes - weight_bytes / kWinogradPoints;
    int64_t block =
        MaxI(kRows, (cache_budget - weight_bytes) / 2 / (tile_floats * int64_t{sizeof(float)}));
    if (threads > 1) block = MinI(block, MaxI(kRows, (tiles + 4 * threads - 1) / (4 * threads)));
    const int64_t blocks = (tiles + block - 1) / block;
    // The scratch memory holds every tile's (WinogradScratchFloats), so a part per thread fits
    // unless there are fewer tiles than that.
    const bool per_thread = threads * block <= tiles;
    ParallelFor(pool, blocks, 1, [&](int64_t begin, int64_t end) {
      float* const mine =
          per_thread ? g.scratch + ThreadPool::CurrentThread() * block * tile_floats : nullptr;
      for (int64_t b = begin; b < end; ++b) {
        const int64_t t0 = b * block;
        const int64_t rows = MinI(block, tiles - t0);
        float* const v = per_thread ? mine : g.scratch + t0 * tile_floats;
        float* const m = v + kWinogradPoints * rows * g.in_c;
        WinogradInput(g, t0, t0 + rows, v, rows * g.in_c);
        for (int64_t p = 0; p < kWinogradPoints; ++p) {
          multiply(p, rows, v + p * rows * g.in_c, m + p * rows * g.out_c);
        }
        WinogradOutput<kAct>(g, t0, t0 + rows, m, rows * g.out_c);
      }
    });
    return;
  }
  // Weights beyond the cache: each pass over all tiles, the threads sharing the points of the
  // products (each thread reads only its points' weights), which come from memory.
  point.other_weight_bytes = g.other_weight_bytes + weight_bytes - weight_bytes / kWinogradPoints;
  float* const v = g.scratch;
  float* const m = g.scratch + kWinogradPoints * tiles * g.in_c;
  ParallelFor(pool, tiles, 4, [&](int64_t begin, int64_t end) {
    WinogradInput(g, begin, end, v + begin * g.in_c, tiles * g.in_c);
  });
  ParallelFor(pool, kWinogradPoints, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      multiply(p, tiles, v + p * tiles * g.in_c, m + p * tiles * g.out_c);
    }
  });
  ParallelFor(pool, tiles, 4, [&](int64_t begin, int64_t end) {
    WinogradOutput<kAct>(g, begin, end, m + begin * g.out_c, tiles * g.out_c);
  });
}

void WinogradConv(const WinogradArgs& args, ThreadPool* pool) {
  WithActivation(args.activation.kind,
                 [&]<Activation kAct>() { WinogradConvImpl<kAct>(args, pool); });
}

// ---------------------------------------------------------------------------------------------
// Depthwise convolution.

// The first channel of the vector that starts at c0 (a multiple of kW) of `channels` >= kW: c0,
// or for a last vector that would run past the end, the kW channels before the end, overlapping
// the vector before it (its channels are computed twice, identically).
inline int64_t VectorChannel(int64_t c0, int64_t channels) {
  return c0 + kW <= channels ? c0 : channels - kW;
}

// Channel vectors [c0, c0 + kN * kW) (VectorChannel's) of one output pixel over the taps
// [kh_lo, kh_hi) x [kw_lo, kw_hi) of its window, which lie inside the input; ih0 and iw0 are
// where the window's first tap would read. kN vectors side by side run kN independent chains
// of multiply-adds.
template <Activation kAct, int kN>
inline void DepthwiseWindowVectors(const DepthwiseArgs& g, const float* x_image, int64_t ih0,
                                   int64_t iw0, int64_t kh_lo, int64_t kh_hi, int64_t kw_lo,
                                   int64_t kw_hi, int64_t c0, float* y_pixel,
                                   const float* res_pixel) {
  int64_t c[kN];
  Vec a[kN];
#pragma GCC unroll 32
  for (int i = 0; i < kN; ++i) {
    c[i] = VectorChannel(c0 + i * kW, g.channels);
    a[i] = Load(g.bias + c[i]);
  }
  for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
    const int64_t row = (ih0 + kh * g.dilation_h) * g.in_w + iw0;
    for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
      const float* xp = x_image + (row + kw * g.dilation_w) * g.channels;
      const float* wp = g.packed_w + (kh * g.kernel_w + kw) * g.channels;
#pragma GCC unroll 32
      for (int i = 0; i < kN; ++i) a[i] = Fma(Load(xp + c[i]), Load(wp + c[i]), a[i]);
    }
  }
#pragma GCC unroll 32
  for (int i = 0; i < kN; ++i) {
    if (res_pixel != nullptr) a[i] = Add(a[i], Load(res_pixel + c[i]));
    Store(y_pixel + c[i], Activate<kAct>(a[i], g.activation));
  }
}

// One output pixel's whole channel vectors, [0, vec_channels), for any window: the pixels at
// the image's borders (whose windows reach into the padding) and every pixel of a kernel
// without a compiled interior. The taps inside the input form a sub-rectangle of the window,
// found once per pixel; four channel vectors go together. One vector at a time, with bounds
// checks per tap, its chain of multiply-adds had waited on each FMA's latency. EfficientNet-B0's
// 5x5 layers on 7x7 images, whose border holds 40 of the 49 pixels, now take 0.57 of the time
// they did, on 14x14 images 0.60; its depthwise layers 0.57-0.96, the model 0.918 at 1 thread
// (sum of per-node minima, 6 alternating rounds); MobileNetV3-Small 0.908, MobileNetV2 0.951.
template <Activation kAct>
inline void DepthwiseWindowPixel(const DepthwiseArgs& g, const float* x_image, int64_t oh,
                                 int64_t ow, int64_t vec_channels, float* y_pixel,
                                 const float* res_pixel) {
  const int64_t ih0 = oh * g.stride_h - g.pad_top;
  const int64_t iw0 = ow * g.stride_w - g.pad_left;
  int64_t kh_lo = 0, kh_hi = g.kernel_h, kw_lo = 0, kw_hi = g.kernel_w;
  while (kh_lo < kh_hi && ih0 + kh_lo * g.dilation_h < 0) ++kh_lo;
  while (kh_hi > kh_lo && ih0 + (kh_hi - 1) * g.dilation_h >= g.in_h) --kh_hi;
  while (kw_lo < kw_hi && iw0 + kw_lo * g.dilation_w < 0) ++kw_lo;
  while (kw_hi > kw_lo && iw0 + (kw_hi - 1) * g.dilation_w >= g.in_w) --kw_hi;
  int64_t c0 = 0;
  for (; c0 + 4 * kW <= vec_channels; c0 += 4 * kW) {
    DepthwiseWindowVectors<kAct, 4>(g, x_image, ih0, iw0, kh_lo, kh_hi, kw_lo, kw_hi, c0, y_pixel,
                                    res_pixel);
  }
  for (; c0 < vec_channels; c0 += kW) {
    DepthwiseWindowVectors<kAct, 1>(g, x_image, ih0, iw0, kh_lo, kh_hi, kw_lo, kw_hi, c0, y_pixel,
                                    res_pixel);
  }
}

// Interior pixels with a kernel known at compile time: the weights of a channel block stay in
// registers, and four output pixels are computed at once (four independent FMA chains).
template <Activation kAct, int kKh, int kKw>
inline void DepthwiseInterior(const DepthwiseArgs& g, const float* x_image, int64_t oh,
                              int64_t ow_begin, int64_t ow_end, int64_t c, float* y_row,
                              const float* res_row) {
  Vec wv[kKh * kKw];
  for (int t = 0; t < kKh * kKw; ++t) wv[t] = Load(g.packed_w + t * g.channels + c);
  const Vec bias = Load(g.bias + c);
  const int64_t ih0 = oh * g.stride_h - g.pad_top;
  const int64_t step = g.stride_w * g.channels;
  const int64_t dil_w = g.dilation_w * g.channels;
  int64_t ow = ow_begin;
  for (; ow + 4 <= ow_end; ow += 4) {
    Vec a0 = bias, a1 = bias, a2 = bias, a3 = bias;
    for (int kh = 0; kh < kKh; ++kh) {
      const float* xr =
          x_image +
          ((ih0 + kh * g.dilation_h) * g.in_w + (ow * g.stride_w - g.pad_left)) * g.channels + c;
      for (int kw = 0; kw < kKw; ++kw) {
        const float* xp = xr + kw * dil_w;
        const Vec wt = wv[kh * kKw + kw];
        a0 = Fma(Load(xp), wt, a0);
        a1 = Fma(Load(xp + step), wt, a1);
        a2 = Fma(Load(xp + 2 * step), wt, a2);
        a3 = Fma(Load(xp + 3 * step), wt, a3);
      }
    }
    float* yp = y_row + ow * g.channels + c;
    if (res_row != nullptr) {
      const float* rp = res_row + ow * g.channels + c;
      a0 = Add(a0, Load(rp));
      a1 = Add(a1, Load(rp + g.channels));
      a2 = Add(a2, Load(rp + 2 * g.channels));
      a3 = Add(a3, Load(rp + 3 * g.channels));
    }
    Store(yp, Activate<kAct>(a0, g.activation));
    Store(yp + g.channels, Activate<kAct>(a1, g.activation));
    Store(yp + 2 * g.channels, Activate<kAct>(a2, g.activation));
    Store(yp + 3 * g.channels, Activate<kAct>(a3, g.activation));
  }
  for (; ow < ow_end; ++ow) {
    Vec a0 = bias;
    for (int kh = 0; kh < kKh; ++kh) {
      const float* xr =
          x_image +
          ((ih0 + kh * g.dilation_h) * g.in_w + (ow * g.stride_w - g.pad_left)) * g.channels + c;
      for (int kw = 0; kw < kKw; ++kw) a0 = Fma(Load(xr + kw * dil_w), wv[kh * kKw + kw], a0);
    }
    if (res_row != nullptr) a0 = Add(a0, Load(res_row + ow * g.channels + c));
    Store(y_row + ow * g.channels + c, Activate<kAct>(a0, g.activation));
  }
}

// kN interior output pixels from ow on, channels [c, c + kW), the weights loaded from the L1
// cache.
template <Activation kAct, int kKh, int kKw, int kN>
inline void DepthwisePixels(const DepthwiseArgs& g, const float* x_image, int64_t oh, int64_t ow,
                            int64_t c, float* y_row, const float* res_row) {
  const int64_t step = g.stride_w * g.channels;
  Vec a[kN];
  for (int i = 0; i < kN; ++i) a[i] = Load(g.bias + c);
  for (int kh = 0; kh < kKh; ++kh) {
    const float* xr = x_image +
                      ((oh * g.stride_h - g.pad_top + kh * g.dilation_h) * g.in_w +
                       (ow * g.stride_w - g.pad_left)) *
                          g.channels +
                      c;
    for (int kw = 0; kw < kKw; ++kw) {
      const Vec wt = Load(g.packed_w + (kh * kKw + kw) * g.channels + c);
      const float* xp = xr + kw * g.dilation_w * g.channels;
      for (int i = 0; i < kN; ++i) a[i] = Fma(Load(xp + i * step), wt, a[i]);
    }
  }
  for (int i = 0; i < kN; ++i) {
    if (res_row != nullptr) a[i] = Add(a[i], Load(res_row + (ow + i) * g.channels + c));
    Store(y_row + (ow + i) * g.channels + c, Activate<kAct>(a[i], g.activation));
  }
}

// Interior pixels [ow_begin, ow_end) of an output row, four at a time, every channel vector in
// turn for each four (the last vector overlaps the one before it when the channel count is
// not a multiple of the width): reads the input pixel by pixel, a pixel's channels being
// contiguous, rather than one vector's column of the rows per pass (DepthwiseInterior).
template <Activation kAct, int kKh, int kKw>
inline void DepthwiseInteriorByPixel(const DepthwiseArgs& g, const float* x_image, int64_t oh,
                                     int64_t ow_begin, int64_t ow_end, int64_t vec_channels,
                                     float* y_row, const float* res_row) {
  int64_t ow = ow_begin;
  for (; ow + 4 <= ow_end; ow += 4) {
    for (int64_t c0 = 0; c0 < vec_channels; c0 += kW) {
      const int64_t c = VectorChannel(c0, g.channels);
      DepthwisePixels<kAct, kKh, kKw, 4>(g, x_image, oh, ow, c, y_row, res_row);
    }
  }
  for (; ow < ow_end; ++ow) {
    for (int64_t c0 = 0; c0 < vec_channels; c0 += kW) {
      const int64_t c = VectorChannel(c0, g.channels);
      DepthwisePixels<kAct, kKh, kKw, 1>(g, x_image, oh, ow, c, y_row, res_row);
    }
  }
}

template <Activation kAct>
void DepthwiseImpl(const DepthwiseArgs& g, ThreadPool* pool) {
  // Output columns whose whole window lies inside the input.
  int64_t ow_lo = 0;
  while (ow_lo < g.out_w && ow_lo * g.stride_w - g.pad_left < 0) ++ow_lo;
  int64_t ow_hi = g.out_w;
  while (ow_hi > ow_lo &&
         (ow_hi - 1) * g.stride_w - g.pad_left + (g.kernel_w - 1) * g.dilation_w >= g.in_w) {
    --ow_hi;
  }
  // Channels covered by vectors (all of them once there is one whole vector), the rest (fewer
  // than a vector's width in all) one at a time.
  const int64_t vec_channels = g.channels >= kW ? (g.channels + kW - 1) / kW * kW : 0;
  // An image beyond the L2 cache (the cache budget) comes from memory, and one pass per channel
  // vector over a row's pixels reads it a 64-byte column at a time: its interior rows run pixel
  // by pixel instead (DepthwiseInteriorByPixel). MobileNetV2, 1 thread, sum of per-node minima
  // over 5 alternating rounds: 0.955 (its 3x3 layers on 112x112 images: 96 channels at stride
  // 2 0.69, 32 channels 0.73); EfficientNet-B0 0.993. With the image in the L2 cache, keeping
  // the weights in registers was as fast or faster (MobileNetV3-Small's layers: 0.97-1.11 by
  // pixel).
  const int64_t cache_budget =
      g.cache_budget_bytes > 0 ? g.cache_budget_bytes : ConvCacheBudgetBytes();
  const bool square_kernel =
      (g.kernel_h == 3 && g.kernel_w == 3) || (g.kernel_h == 5 && g.kernel_w == 5);
  const bool by_pixel =
      square_kernel && vec_channels > 0 && g.in_h * g.in_w * g.channels * 4 > cache_budget;
  ParallelFor(pool, g.batch * g.out_h, 1, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t n = row / g.out_h;
      const int64_t oh = row - n * g.out_h;
      const float* x_image = g.x + n * g.in_h * g.in_w * g.channels;
      float* y_row = g.y + row * g.out_w * g.channels;
      const float* res_row =
          g.residual != nullptr ? g.residual + row * g.out_w * g.channels : nullptr;
      const int64_t ih_first = oh * g.stride_h - g.pad_top;
      const bool rows_inside = ih_first >= 0 && ih_first + (g.kernel_h - 1) * g.dilation_h < g.in_h;
      // Whole vectors of channels; when the count is not a multiple of the width, the last
      // vector overlaps the one before it (those channels are computed twice, identically),
      // so no channel goes down a scalar path. The border pixels (and every pixel of a kernel
      // without a compiled interior) go one pixel at a time, every vector together.
      const auto window_pixel = [&](int64_t ow) {
        DepthwiseWindowPixel<kAct>(g, x_image, oh, ow, vec_channels, y_row + ow * g.channels,
                                   res_row != nullptr ? res_row + ow * g.channels : nullptr);
      };
      if (vec_channels > 0 && (!rows_inside || !square_kernel)) {
        for (int64_t ow = 0; ow < g.out_w; ++ow) window_pixel(ow);
      } else if (vec_channels > 0) {
        for (int64_t ow = 0; ow < ow_lo; ++ow) window_pixel(ow);
        if (by_pixel) {
          if (g.kernel_h == 3) {
            DepthwiseInteriorByPixel<kAct, 3, 3>(g, x_image, oh, ow_lo, ow_hi, vec_channels, y_row,
                                                 res_row);
          } else {
            DepthwiseInteriorByPixel<kAct, 5, 5>(g, x_image, oh, ow_lo, ow_hi, vec_channels, y_row,
                                                 res_row);
          }
        } else {
          for (int64_t c0 = 0; c0 < vec_channels; c0 += kW) {
            const int64_t c = VectorChannel(c0, g.channels);
            if (g.kernel_h == 3) {
              DepthwiseInterior<kAct, 3, 3>(g, x_image, oh, ow_lo, ow_hi, c, y_row, res_row);
            } else {
              DepthwiseInterior<kAct, 5, 5>(g, x_image, oh, ow_lo, ow_hi, c, y_row, res_row);
            }
          }
        }
        for (int64_t ow = ow_hi > ow_lo ? ow_hi : ow_lo; ow < g.out_w; ++ow) window_pixel(ow);
      }
      // Fewer channels than one vector: one at a time through a padded vector.
      for (int64_t c = vec_channels > 0 ? g.channels : 0; c < g.channels; ++c) {
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          float acc = g.bias[c];
          for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
            const int64_t ih = ih_first + kh * g.dilation_h;
            if (ih < 0 || ih >= g.in_h) continue;
            for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
              const int64_t iw = ow * g.stride_w - g.pad_left + kw * g.dilation_w;
              if (iw < 0 || iw >= g.in_w) continue;
              acc += x_image[(ih * g.in_w + iw) * g.channels + c] *
                     g.packed_w[(kh * g.kernel_w + kw) * g.channels + c];
            }
          }
          if (res_row != nullptr) acc += res_row[ow * g.channels + c];
          float lane[kW] = {};
          lane[0] = acc;
          y_row[ow * g.channels + c] = Lane0(Activate<kAct>(Load(lane), g.activation));
        }
      }
    }
  });
}

void Depthwise(const DepthwiseArgs& args, ThreadPool* pool) {
  WithActivation(args.activation.kind, [&]<Activation kAct>() { DepthwiseImpl<kAct>(args, pool); });
}

// ---------------------------------------------------------------------------------------------
// Pooling.

template <bool kMax>
void PoolImpl(const PoolArgs& g, ThreadPool* pool) {
  // Windows inside the input (all but the borders) read their taps at precomputed offsets,
  // without bounds checks, in the same order as the general path.
  const int64_t taps = g.kernel_h * g.kernel_w;
  int64_t tap_offset[kMaxTaps];
  const bool fast = taps <= kMaxTaps && g.channels >= kW;
  for (int64_t kh = 0, t = 0; fast && kh < g.kernel_h; ++kh) {
    for (int64_t kw = 0; kw < g.kernel_w; ++kw, ++t) {
      tap_offset[t] = (kh * g.dilation_h * g.in_w + kw * g.dilation_w) * g.channels;
    }
  }
  const int64_t span_h = (g.kernel_h - 1) * g.dilation_h;
  const int64_t span_w = (g.kernel_w - 1) * g.dilation_w;
  ParallelFor(pool, g.batch * g.out_h, 1, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t n = row / g.out_h;
      const int64_t oh = row - n * g.out_h;
      const float* x_image = g.x + n * g.in_h * g.in_w * g.channels;
      float* y_row = g.y + row * g.out_w * g.channels;
      const int64_t ih0 = oh * g.stride_h - g.pad_top;
      const bool rows_inside = ih0 >= 0 && ih0 + span_h < g.in_h;
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        const int64_t iw0 = ow * g.stride_w - g.pad_left;
        if (fast && rows_inside && iw0 >= 0 && iw0 + span_w < g.in_w) {
          const float* window = x_image + (ih0 * g.in_w + iw0) * g.channels;
          const Vec scale = Set1(1.0f / static_cast<float>(taps));
          float* yp = y_row + ow * g.channels;
          for (int64_t c0 = 0; c0 < g.channels; c0 += kW) {
            const int64_t c = VectorChannel(c0, g.channels);
            Vec acc = kMax ? Set1(-__builtin_inff()) : Zero();
            for (int64_t t = 0; t < taps; ++t) {
              const Vec v = Load(window + tap_offset[t] + c);
              acc = kMax ? Max(acc, v) : Add(acc, v);
            }
            Store(yp + c, kMax ? acc : Mul(acc, scale));
          }
          continue;
        }
        int64_t count = 0;
        for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
          const int64_t ih = ih0 + kh * g.dilation_h;
          if (ih < 0 || ih >= g.in_h) continue;
          for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
            const int64_t iw = iw0 + kw * g.dilation_w;
            if (iw >= 0 && iw < g.in_w) ++count;
          }
        }
        const Vec scale = Set1(count > 0 ? 1.0f / static_cast<float>(count) : 0.0f);
        float* yp = y_row + ow * g.channels;
        for (int64_t c0 = 0; c0 < g.channels; c0 += kW) {
          // The last vector overlaps the one before it when the count is not a multiple of
          // the width; only fewer channels than one vector take the padded path.
          const int64_t c = c0 + kW <= g.channels || g.channels < kW ? c0 : g.channels - kW;
          const bool tail = c + kW > g.channels;
          float lanes[kW];
          Vec acc = kMax ? Set1(-__builtin_inff()) : Zero();
          for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
            const int64_t ih = ih0 + kh * g.dilation_h;
            if (ih < 0 || ih >= g.in_h) continue;
            for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
              const int64_t iw = iw0 + kw * g.dilation_w;
              if (iw < 0 || iw >= g.in_w) continue;
              const float* xp = x_image + (ih * g.in_w + iw) * g.channels + c;
              Vec v;
              if (tail) {
                for (int i = 0; i < kW; ++i) lanes[i] = c + i < g.channels ? xp[i] : 0.0f;
                v = Load(lanes);
              } else {
                v = Load(xp);
              }
              // Max(acc, v) returns v when v is NaN, so NaN wins as in the reference.
              acc = kMax ? Max(acc, v) : Add(acc, v);
            }
          }
          if (!kMax) acc = Mul(acc, scale);
          if (tail) {
            Store(lanes, acc);
            for (int64_t i = 0; c + i < g.channels; ++i) yp[c + i] = lanes[i];
          } else {
            Store(yp + c, acc);
          }
        }
      }
    }
  });
}

void MaxPool(const PoolArgs& args, ThreadPool* pool) { PoolImpl<true>(args, pool); }

void GlobalAveragePool(const float* x, float* y, int64_t batch, int64_t pixels, int64_t channels,
                       ThreadPool* pool) {
  const float scale = 1.0f / static_cast<float>(pixels);
  const int64_t blocks = (channels + kW - 1) / kW;
  ParallelFor(pool, batch * blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / blocks;
      int64_t c = (task - n * blocks) * kW;
      if (c + kW > channels && channels >= kW) c = channels - kW;  // Overlaps the previous.
      const float* xn = x + n * pixels * channels;
      if (c + kW <= channels) {
        Vec acc = Zero();
        for (int64_t p = 0; p < pixels; ++p) acc = Add(acc, Load(xn + p * channels + c));
        Store(y + n * channels + c, Mul(acc, Set1(scale)));
      } else {
        for (int64_t cc = c; cc < channels; ++cc) {
          float acc = 0.0f;
          for (int64_t p = 0; p < pixels; ++p) acc += xn[p * channels + cc];
          y[n * channels + cc] = acc * scale;
        }
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Element-wise.

void ActivationFn(const float* x, float* y, int64_t count, ActivationParams activation,
                  ThreadPool* pool) {
  WithActivation(activation.kind, [&]<Activation kAct>() {
    constexpr int64_t kSpan = 4096;
    ParallelFor(pool, (count + kSpan - 1) / kSpan, 1, [&](int64_t begin, int64_t end) {
      const int64_t first = begin * kSpan;
      const int64_t last = MinI(count, end * kSpan);
      ActivateSpan<kAct>(x + first, y + first, last - first, activation);
    });
  });
}

template <BinaryOp kOp>
inline Vec Apply(Vec a, Vec b) {
  if constexpr (kOp == BinaryOp::kAdd) {
    return Add(a, b);
  } else if constexpr (kOp == BinaryOp::kSub) {
    return Sub(a, b);
  } else if constexpr (kOp == BinaryOp::kMul) {
    return Mul(a, b);
  } else {
    return Div(a, b);
  }
}

template <BinaryOp kOp, Activation kAct>
void BinaryImpl(const float* a, const float* b, float* y, int64_t rows, int64_t cols,
                int64_t b_row_stride, const ActivationParams& p, ThreadPool* pool) {
  const int64_t rows_per_task = MaxI(1, 4096 / MaxI(1, cols));
  const int64_t tasks = (rows + rows_per_task - 1) / rows_per_task;
  ParallelFor(pool, tasks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin * rows_per_task; r < MinI(rows, end * rows_per_task); ++r) {
      const float* ar = a + r * cols;
      const float* br = b + r * b_row_stride;
      float* yr = y + r * cols;
      int64_t c = 0;
      for (; c + kW <= cols; c += kW) {
        Store(yr + c, Activate<kAct>(Apply<kOp>(Load(ar + c), Load(br + c)), p));
      }
      if (c < cols && cols >= kW) {
        // The last vector overlaps the one before it.
        c = cols - kW;
        Store(yr + c, Activate<kAct>(Apply<kOp>(Load(ar + c), Load(br + c)), p));
      } else if (c < cols) {
        float la[kW] = {}, lb[kW] = {};
        for (int64_t i = 0; c + i < cols; ++i) {
          la[i] = ar[c + i];
          lb[i] = br[c + i];
        }
        Store(la, Activate<kAct>(Apply<kOp>(Load(la), Load(lb)), p));
        for (int64_t i = 0; c + i < cols; ++i) yr[c + i] = la[i];
      }
    }
  });
}

void Binary(BinaryOp op, const float* a, const float* b, float* y, int64_t rows, int64_t cols,
            int64_t b_row_stride, ActivationParams activation, ThreadPool* pool) {
  WithActivation(activation.kind, [&]<Activation kAct>() {
    switch (op) {
      case BinaryOp::kAdd:
        BinaryImpl<BinaryOp::kAdd, kAct>(a, b, y, rows, cols, b_row_stride, activation, pool);
        break;
      case BinaryOp::kSub:
        BinaryImpl<BinaryOp::kSub, kAct>(a, b, y, rows, cols, b_row_stride, activation, pool);
        break;
      case BinaryOp::kMul:
        BinaryImpl<BinaryOp::kMul, kAct>(a, b, y, rows, cols, b_row_stride, activation, pool);
        break;
      case BinaryOp::kDiv:
        BinaryImpl<BinaryOp::kDiv, kAct>(a, b, y, rows, cols, b_row_stride, activation, pool);
        break;
    }
  });
}

FastKernels MakeTable(Isa isa) {
  FastKernels table;
  table.isa = isa;
  table.tile_panels = kTilePanels;
  table.conv = &Conv;
  table.winograd_conv = &WinogradConv;
  table.depthwise = &Depthwise;
  table.max_pool = &MaxPool;
  table.global_average_pool = &GlobalAveragePool;
  table.activation = &ActivationFn;
  table.binary = &Binary;
  return table;
}

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_FAST_KERNELS_IMPL_H_
