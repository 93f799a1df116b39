// Depthwise convolution (DepthwiseArgs).
// A part of fast_kernels_impl.h, which includes it (see there): compiled once per ISA, over that
// ISA's Vec, with internal linkage.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_IMPL_DEPTHWISE_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_IMPL_DEPTHWISE_H_

namespace edgemond::engine::cpu {
namespace {

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
// checks per tap, its chain of multiply-adds would wait on each FMA's latency; small images are
// mostly border (a 5x5 kernel on a 7x7 image: 40 of the 49 pixels). ADR 0108 has the figures.
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
  // by pixel instead (DepthwiseInteriorByPixel). With the image in the L2 cache, keeping the
  // weights in registers is as fast or faster, so smaller images keep the pass per vector.
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

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_IMPL_DEPTHWISE_H_
