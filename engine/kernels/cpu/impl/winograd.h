// Winograd F(2x2, 3x3) convolution (WinogradArgs).
// A part of fast_kernels_impl.h, which includes it (see there): compiled once per ISA, over that
// ISA's Vec, with internal linkage.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_IMPL_WINOGRAD_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_IMPL_WINOGRAD_H_

namespace edgemond::engine::cpu {
namespace {

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

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_IMPL_WINOGRAD_H_
