#include "engine/kernels/split.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

Status SplitKernel::Prepare(PrepareContext& context) {
  AttributeReader& attributes = context.attributes();
  std::vector<std::int64_t> split;
  bool split_given = false;
  if (context.opset() < 13) {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
    split_given = attributes.Has("split");
    EDGEMOND_ASSIGN_OR_RETURN(split, attributes.GetInts("split"));
  } else {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 2));
    if (context.has_input(1)) {
      const Tensor* split_tensor = context.constant(1);
      if (split_tensor == nullptr) {
        return Status::Unsupported("split sizes computed at run time are not supported");
      }
      EDGEMOND_ASSIGN_OR_RETURN(split, ReadInt64s(*split_tensor, "split"));
      split_given = true;
    }
  }
  std::int64_t num_outputs = 0;
  if (context.opset() >= 18) {
    EDGEMOND_ASSIGN_OR_RETURN(num_outputs, attributes.GetInt("num_outputs", 0));
    if (split_given == attributes.Has("num_outputs")) {
      return Status::InvalidArgument("exactly one of the split input and num_outputs is needed");
    }
  }
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t axis_attribute, attributes.GetInt("axis", 0));
  const TensorInfo& x = context.input(0);
  EDGEMOND_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(axis_attribute, x.shape.rank()));
  const std::int64_t dim = x.shape.dim(axis);
  const int outputs = context.num_outputs();
  if (split_given) {
    if (static_cast<int>(split.size()) != outputs) {
      return Status::InvalidArgument("split has " + std::to_string(split.size()) + " sizes for " +
                                     std::to_string(outputs) + " outputs");
    }
    std::int64_t total = 0;
    for (const std::int64_t size : split) {
      if (size < 0 || size > dim) {
        return Status::InvalidArgument("split size " + std::to_string(size) + " is out of range");
      }
      total += size;
    }
    if (total != dim) {
      return Status::InvalidArgument("split sizes add up to " + std::to_string(total) +
                                     ", not the dimension " + std::to_string(dim));
    }
    sizes_ = std::move(split);
  } else if (context.opset() >= 18) {
    if (num_outputs < 1 || num_outputs != outputs) {
      return Status::InvalidArgument("num_outputs is " + std::to_string(num_outputs) +
                                     " for a node with " + std::to_string(outputs) + " outputs");
    }
    // Parts of ceil(dim / n); the last one takes what is left.
    const std::int64_t part = (dim + num_outputs - 1) / num_outputs;
    sizes_.clear();
    std::int64_t left = dim;
    for (std::int64_t i = 0; i < num_outputs; ++i) {
      sizes_.push_back(std::min(part, left));
      left -= sizes_.back();
    }
    if (left != 0 || (num_outputs > 1 && sizes_.back() == 0 && dim > 0)) {
      return Status::InvalidArgument("dimension " + std::to_string(dim) + " cannot be split into " +
                                     std::to_string(num_outputs) + " parts");
    }
  } else {
    if (outputs < 1 || dim % outputs != 0) {
      return Status::InvalidArgument("dimension " + std::to_string(dim) +
                                     " does not split evenly into " + std::to_string(outputs) +
                                     " outputs");
    }
    sizes_.assign(static_cast<std::size_t>(outputs), dim / outputs);
  }
  outer_ = DimProduct(x.shape.dims(), 0, axis);
  inner_ = DimProduct(x.shape.dims(), axis + 1, x.shape.rank());
  for (int i = 0; i < outputs; ++i) {
    std::vector<std::int64_t> dims = x.shape.vector();
    dims[static_cast<std::size_t>(axis)] = sizes_[static_cast<std::size_t>(i)];
    EDGEMOND_RETURN_IF_ERROR(context.SetOutput(i, x.dtype, Shape(std::move(dims))));
  }
  return Status::Ok();
}

Status SplitKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  const std::size_t element = DataTypeSize(x.dtype());
  const auto* in = static_cast<const std::byte*>(x.raw_data());
  std::int64_t axis_total = 0;
  for (const std::int64_t size : sizes_) axis_total += size;
  const std::size_t in_row = static_cast<std::size_t>(axis_total * inner_) * element;
  std::size_t offset = 0;
  for (std::size_t i = 0; i < sizes_.size(); ++i) {
    const std::size_t out_row = static_cast<std::size_t>(sizes_[i] * inner_) * element;
    if (context.has_output(static_cast<int>(i)) && out_row > 0) {
      auto* out = static_cast<std::byte*>(context.output(static_cast<int>(i)).raw_data());
      for (std::int64_t o = 0; o < outer_; ++o) {
        std::memcpy(out + static_cast<std::size_t>(o) * out_row,
                    in + static_cast<std::size_t>(o) * in_row + offset, out_row);
      }
    }
    offset += out_row;
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
