#include "engine/kernels/nhwc_pool.h"

#include <string>
#include <vector>

namespace edgemond::engine {
namespace {

Result<std::vector<std::int64_t>> ReadInts(AttributeReader& attributes, std::string_view name,
                                           std::size_t count, std::int64_t min) {
  EDGEMOND_ASSIGN_OR_RETURN(std::vector<std::int64_t> values, attributes.GetInts(name));
  if (values.size() != count) {
    return Status::InvalidArgument(std::string(name) + " must have " + std::to_string(count) +
                                   " values");
  }
  for (const std::int64_t v : values) {
    if (v < min) return Status::InvalidArgument(std::string(name) + " is out of range");
  }
  return values;
}

}  // namespace

Status NhwcMaxPoolKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 4, 4));
  AttributeReader& attributes = context.attributes();
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> kernel,
                            ReadInts(attributes, "kernel_shape", 2, 1));
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> strides,
                            ReadInts(attributes, "strides", 2, 1));
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> dilations,
                            ReadInts(attributes, "dilations", 2, 1));
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> pads,
                            ReadInts(attributes, "pads", 4, 0));
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> output,
                            ReadInts(attributes, "output_size", 2, 1));
  const Shape& x = context.input(0).shape;
  args_.batch = x.dim(0);
  args_.in_h = x.dim(1);
  args_.in_w = x.dim(2);
  args_.channels = x.dim(3);
  args_.out_h = output[0];
  args_.out_w = output[1];
  args_.kernel_h = kernel[0];
  args_.kernel_w = kernel[1];
  args_.stride_h = strides[0];
  args_.stride_w = strides[1];
  args_.dilation_h = dilations[0];
  args_.dilation_w = dilations[1];
  args_.pad_top = pads[0];
  args_.pad_left = pads[1];
  // Every output window must start inside the padded input (the reference rule).
  if ((args_.out_h - 1) * strides[0] - pads[0] >= args_.in_h + pads[2] ||
      (args_.out_w - 1) * strides[1] - pads[1] >= args_.in_w + pads[3]) {
    return Status::InvalidArgument("output_size is too large for the input");
  }
  kernels_ = &cpu::FastKernelsFor(BestIsa());
  const Shape y{args_.batch, args_.out_h, args_.out_w, args_.channels};
  context.SetFlops(static_cast<std::uint64_t>(y.num_elements() * kernel[0] * kernel[1]));
  return context.SetOutput(0, DataType::kFloat32, y);
}

Status NhwcMaxPoolKernel::Run(const RunContext& context) const {
  cpu::PoolArgs args = args_;
  args.x = context.input(0).data<float>();
  args.y = context.output(0).data<float>();
  kernels_->max_pool(args, context.pool());
  return Status::Ok();
}

Status NhwcGlobalAveragePoolKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(0, {DataType::kFloat32}));
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputRank(0, 4, 4));
  const Shape& x = context.input(0).shape;
  batch_ = x.dim(0);
  pixels_ = x.dim(1) * x.dim(2);
  channels_ = x.dim(3);
  if (pixels_ == 0) return Status::InvalidArgument("no pixels to average");
  kernels_ = &cpu::FastKernelsFor(BestIsa());
  context.SetFlops(static_cast<std::uint64_t>(x.num_elements()));
  return context.SetOutput(0, DataType::kFloat32, Shape{batch_, 1, 1, channels_});
}

Status NhwcGlobalAveragePoolKernel::Run(const RunContext& context) const {
  kernels_->global_average_pool(context.input(0).data<float>(), context.output(0).data<float>(),
                                batch_, pixels_, channels_, context.pool());
  return Status::Ok();
}

}  // namespace edgemond::engine
