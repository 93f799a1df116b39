// Small helpers shared by the reference kernels: axis normalization, reading int64 constant
// inputs, row-major strides. Pure functions.

#ifndef EDGEMOND_ENGINE_KERNELS_KERNEL_UTIL_H_
#define EDGEMOND_ENGINE_KERNELS_KERNEL_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
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

// Division rounding toward negative infinity, as Python's // (b > 0).
inline std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Type lists for PrepareContext::RequireInputType.
inline constexpr std::initializer_list<DataType> kFloatTypes = {DataType::kFloat32,
                                                                DataType::kFloat64};
inline constexpr std::initializer_list<DataType> kSignedNumericTypes = {
    DataType::kFloat32, DataType::kFloat64, DataType::kInt8,
    DataType::kInt16,   DataType::kInt32,   DataType::kInt64};
inline constexpr std::initializer_list<DataType> kNumericTypes = {
    DataType::kFloat32, DataType::kFloat64, DataType::kInt8,   DataType::kUint8, DataType::kInt16,
    DataType::kUint16,  DataType::kInt32,   DataType::kUint32, DataType::kInt64, DataType::kUint64};

// Calls f.template operator()<T>() with the C++ type T of `type`, one of kSignedNumericTypes;
// kInternal for any other type (a kernel that was not prepared for it).
template <typename F>
Status DispatchSignedNumeric(DataType type, F&& f) {
  switch (type) {
    case DataType::kFloat32:
      f.template operator()<float>();
      return Status::Ok();
    case DataType::kFloat64:
      f.template operator()<double>();
      return Status::Ok();
    case DataType::kInt8:
      f.template operator()<std::int8_t>();
      return Status::Ok();
    case DataType::kInt16:
      f.template operator()<std::int16_t>();
      return Status::Ok();
    case DataType::kInt32:
      f.template operator()<std::int32_t>();
      return Status::Ok();
    case DataType::kInt64:
      f.template operator()<std::int64_t>();
      return Status::Ok();
    default:
      return Status::Internal("unprepared type " + std::string(DataTypeName(type)));
  }
}

// As DispatchSignedNumeric, for kNumericTypes.
template <typename F>
Status DispatchNumeric(DataType type, F&& f) {
  switch (type) {
    case DataType::kUint8:
      f.template operator()<std::uint8_t>();
      return Status::Ok();
    case DataType::kUint16:
      f.template operator()<std::uint16_t>();
      return Status::Ok();
    case DataType::kUint32:
      f.template operator()<std::uint32_t>();
      return Status::Ok();
    case DataType::kUint64:
      f.template operator()<std::uint64_t>();
      return Status::Ok();
    default:
      return DispatchSignedNumeric(type, std::forward<F>(f));
  }
}

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
