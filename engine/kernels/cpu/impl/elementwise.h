// Element-wise kernels: an activation over a span, and the binary operators with a fused
// activation.
// A part of fast_kernels_impl.h, which includes it (see there): compiled once per ISA, over that
// ISA's Vec, with internal linkage.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_IMPL_ELEMENTWISE_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_IMPL_ELEMENTWISE_H_

namespace edgemond::engine::cpu {
namespace {

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

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_IMPL_ELEMENTWISE_H_
