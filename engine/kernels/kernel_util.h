// Small helpers shared by the reference kernels: axis normalization, reading int64 constant
// inputs, row-major strides. Pure functions.

#ifndef EDGEMOND_ENGINE_KERNELS_KERNEL_UTIL_H_
#define EDGEMOND_ENGINE_KERNELS_KERNEL_UTIL_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engine/tensor.h"

namespace edgemond::engine {

// Maps `axis` in [-rank, rank) to [0, rank); kInvalidArgument otherwise. `what` names the
// attribute or input in the message ("axis", "perm").
Result<int> NormalizeAxis(std::int64_t axis, int rank, std::string_view what = "axis");

// The values of an int64 (or int32) tensor as int64s; kInvalidArgument for other types.
Result<std::vector<std::int64_t>> ReadInt64s(const Tensor& tensor, std::string_view what);

// The single value of a float32 scalar (or one-element) tensor.
Result<float> ReadFloatScalar(const ConstTensorView& view, std::string_view what);

// Row-major strides, in elements, of `dims`.
std::vector<std::int64_t> Strides(std::span<const std::int64_t> dims);

// Product of dims[begin, end).
std::int64_t DimProduct(std::span<const std::int64_t> dims, int begin, int end);

// Calls f.template operator()<U>() with an unsigned integer type U of `element_size` bytes, so
// that data-movement kernels copy any element type with one template.
template <typename F>
void DispatchByElementSize(std::size_t element_size, F&& f) {
  switch (element_size) {
    case 1:
      f.template operator()<std::uint8_t>();
      break;
    case 2:
      f.template operator()<std::uint16_t>();
      break;
    case 4:
      f.template operator()<std::uint32_t>();
      break;
    default:
      f.template operator()<std::uint64_t>();
      break;
  }
}

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_KERNEL_UTIL_H_
