#include "engine/kernels/nhwc_concat.h"

#include <cstring>
#include <string>

namespace edgemond::engine {

Status NhwcConcatKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(ConcatKernel::Prepare(context));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 4, 4));
  if (axis_ != 3) {
    return Status::InvalidArgument("NhwcConcat joins channels (axis 3), not axis " +
                                   std::to_string(axis_));
  }
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> in_place,
                            context.attributes().GetInts("in_place"));
  if (static_cast<int>(in_place.size()) != context.num_inputs()) {
    return Status::InvalidArgument("in_place has " + std::to_string(in_place.size()) +
                                   " values for " + std::to_string(context.num_inputs()) +
                                   " inputs");
  }
  in_place_.clear();
  channel_offset_.clear();
  channels_ = 0;
  for (int i = 0; i < context.num_inputs(); ++i) {
    const std::int64_t flag = in_place[static_cast<std::size_t>(i)];
    if (flag != 0 && flag != 1) {
      return Status::InvalidArgument("in_place values are 0 or 1, not " + std::to_string(flag));
    }
    in_place_.push_back(flag == 1);
    channel_offset_.push_back(channels_);
    channels_ += context.input(i).shape.dim(3);
  }
  return Status::Ok();
}

std::optional<std::int64_t> NhwcConcatKernel::InPlaceInputOffset(int index) const {
  const auto i = static_cast<std::size_t>(index);
  if (i >= in_place_.size() || !in_place_[i]) return std::nullopt;
  return channel_offset_[i] * static_cast<std::int64_t>(sizeof(float));
}

Status NhwcConcatKernel::Run(const RunContext& context) const {
  float* y = context.output(0).data<float>();
  for (int i = 0; i < context.num_inputs(); ++i) {
    const auto in = static_cast<std::size_t>(i);
    if (in_place_[in]) continue;  // Its producer wrote it there.
    const ConstTensorView& x = context.input(i);
    const std::int64_t c = x.dims()[3];
    const float* from = x.data<float>();
    float* to = y + channel_offset_[in];
    for (std::int64_t p = 0; p < outer_; ++p) {
      std::memcpy(to + p * channels_, from + p * c, sizeof(float) * static_cast<std::size_t>(c));
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
