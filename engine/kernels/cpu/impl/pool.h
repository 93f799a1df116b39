// Max and average pooling (PoolArgs) and global average pooling.
// A part of fast_kernels_impl.h, which includes it (see there): compiled once per ISA, over that
// ISA's Vec, with internal linkage.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_IMPL_POOL_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_IMPL_POOL_H_

namespace edgemond::engine::cpu {
namespace {

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

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_IMPL_POOL_H_
