#include "engine/kernels/channel_shuffle.h"

#include <string>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status ChannelShuffleKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 1, kMaxRank));
  const TensorInfo& x = context.input(0);
  EDGEMOND_ASSIGN_OR_RETURN(group_, context.attributes().GetRequiredInt("group"));
  channels_ = x.shape.dim(x.shape.rank() - 1);
  if (group_ < 1 || channels_ % group_ != 0) {
    return Status::InvalidArgument("group " + std::to_string(group_) + " does not divide " +
                                   std::to_string(channels_) + " channels");
  }
  rows_ = channels_ == 0 ? 0 : x.shape.num_elements() / channels_;
  return context.SetOutput(0, x.dtype, x.shape);
}

Status ChannelShuffleKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  const std::int64_t per_group = channels_ / group_;
  DispatchByElementSize(DataTypeSize(x.dtype()), [&]<typename T>() {
    const T* in = static_cast<const T*>(x.raw_data());
    T* out = static_cast<T*>(context.output(0).raw_data());
    ParallelFor(context.pool(), rows_, 256, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        const T* src = in + r * channels_;
        T* dst = out + r * channels_;
        if (group_ == 2) {
          // ShuffleNet's: an interleave of two halves, in a loop the compiler vectorizes.
          const T* __restrict a = src;
          const T* __restrict b = src + per_group;
          T* __restrict d = dst;
          for (std::int64_t j = 0; j < per_group; ++j) {
            d[2 * j] = a[j];
            d[2 * j + 1] = b[j];
          }
          continue;
        }
        for (std::int64_t i = 0; i < group_; ++i) {
          for (std::int64_t j = 0; j < per_group; ++j) dst[j * group_ + i] = src[i * per_group + j];
        }
      }
    });
  });
  return Status::Ok();
}

}  // namespace edgemond::engine
