// Optimized data movement, each a subclass of its reference kernel:
//  - Transpose: a cache-blocked batched matrix transpose for the two permutations the layout
//    pass inserts between NCHW and NHWC on 4-byte data, (0, 2, 3, 1) and (0, 3, 1, 2), split
//    over the session's threads; the reference for every other permutation.
//  - Slice: whole contiguous rows with memcpy when the innermost sliced dimension has step 1
//    (the channel split of ShuffleNet on NHWC data); the reference otherwise.

#ifndef EDGEMOND_ENGINE_KERNELS_FAST_TRANSPOSE_H_
#define EDGEMOND_ENGINE_KERNELS_FAST_TRANSPOSE_H_

#include "engine/kernels/slice.h"
#include "engine/kernels/transpose.h"

namespace edgemond::engine {

class FastTransposeKernel : public TransposeKernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 private:
  // out[n][i][j] = in[n][j][i] for n < batch_, i < rows_, j < cols_; batch_ == 0 when the
  // permutation is not one of the two.
  std::int64_t batch_ = 0;
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
};

class FastSliceKernel : public SliceKernel {
 public:
  Status Run(const RunContext& context) const override;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_FAST_TRANSPOSE_H_
