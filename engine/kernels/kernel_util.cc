#include "engine/kernels/kernel_util.h"

#include <string>

namespace edgemond::engine {

Result<int> NormalizeAxis(std::int64_t axis, int rank, std::string_view what) {
  if (axis < -rank || axis >= rank) {
    return Status::InvalidArgument(std::string(what) + " " + std::to_string(axis) +
                                   " is out of range for rank " + std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Result<std::vector<std::int64_t>> ReadInt64s(const Tensor& tensor, std::string_view what) {
  if (tensor.dtype() == DataType::kInt64) {
    const std::span<const std::int64_t> values = tensor.values<std::int64_t>();
    return std::vector<std::int64_t>(values.begin(), values.end());
  }
  if (tensor.dtype() == DataType::kInt32) {
    const std::span<const std::int32_t> values = tensor.values<std::int32_t>();
    return std::vector<std::int64_t>(values.begin(), values.end());
  }
  return Status::InvalidArgument(std::string(what) + " must be int64 or int32, not " +
                                 std::string(DataTypeName(tensor.dtype())));
}

Result<float> ReadFloatScalar(const ConstTensorView& view, std::string_view what) {
  if (view.dtype() != DataType::kFloat32 || view.num_elements() != 1) {
    return Status::InvalidArgument(std::string(what) + " must be a float32 scalar");
  }
  return view.data<float>()[0];
}

std::vector<std::int64_t> Strides(std::span<const std::int64_t> dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[static_cast<std::size_t>(i)] =
        strides[static_cast<std::size_t>(i) + 1] * dims[static_cast<std::size_t>(i) + 1];
  }
  return strides;
}

std::int64_t DimProduct(std::span<const std::int64_t> dims, int begin, int end) {
  std::int64_t product = 1;
  for (int i = begin; i < end; ++i) product *= dims[static_cast<std::size_t>(i)];
  return product;
}

}  // namespace edgemond::engine
