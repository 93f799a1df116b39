#include "engine/tensor.h"

#include <cstring>
#include <limits>

namespace edgemond::engine {

std::size_t DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kFloat32:
      return 4;
    case DataType::kFloat64:
      return 8;
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return 2;
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kBool:
      return 1;
    case DataType::kInt16:
    case DataType::kUint16:
      return 2;
    case DataType::kInt32:
    case DataType::kUint32:
      return 4;
    case DataType::kInt64:
    case DataType::kUint64:
      return 8;
  }
  return 1;
}

std::string_view DataTypeName(DataType type) {
  switch (type) {
    case DataType::kFloat32:
      return "float32";
    case DataType::kFloat64:
      return "float64";
    case DataType::kFloat16:
      return "float16";
    case DataType::kBFloat16:
      return "bfloat16";
    case DataType::kInt8:
      return "int8";
    case DataType::kUint8:
      return "uint8";
    case DataType::kInt16:
      return "int16";
    case DataType::kUint16:
      return "uint16";
    case DataType::kInt32:
      return "int32";
    case DataType::kUint32:
      return "uint32";
    case DataType::kInt64:
      return "int64";
    case DataType::kUint64:
      return "uint64";
    case DataType::kBool:
      return "bool";
  }
  return "unknown";
}

Result<DataType> DataTypeFromOnnx(std::int32_t onnx_type) {
  // The codes of onnx.proto's TensorProto.DataType, a stable part of the ONNX format.
  switch (onnx_type) {
    case 1:
      return DataType::kFloat32;
    case 2:
      return DataType::kUint8;
    case 3:
      return DataType::kInt8;
    case 4:
      return DataType::kUint16;
    case 5:
      return DataType::kInt16;
    case 6:
      return DataType::kInt32;
    case 7:
      return DataType::kInt64;
    case 9:
      return DataType::kBool;
    case 10:
      return DataType::kFloat16;
    case 11:
      return DataType::kFloat64;
    case 12:
      return DataType::kUint32;
    case 13:
      return DataType::kUint64;
    case 16:
      return DataType::kBFloat16;
    default:
      return Status::Unsupported("tensor type " + OnnxDataTypeName(onnx_type) +
                                 " is not supported");
  }
}

std::string OnnxDataTypeName(std::int32_t onnx_type) {
  static constexpr const char* kNames[] = {
      "UNDEFINED",      "FLOAT",    "UINT8",        "INT8",           "UINT16",
      "INT16",          "INT32",    "INT64",        "STRING",         "BOOL",
      "FLOAT16",        "DOUBLE",   "UINT32",       "UINT64",         "COMPLEX64",
      "COMPLEX128",     "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
      "FLOAT8E5M2FNUZ", "UINT4",    "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0",
      "UINT2",          "INT2"};
  if (onnx_type >= 0 && onnx_type < static_cast<std::int32_t>(std::size(kNames))) {
    return kNames[onnx_type];
  }
  return "type " + std::to_string(onnx_type);
}

std::int64_t NumElements(std::span<const std::int64_t> dims) {
  // An empty tensor may have huge other dimensions (CheckedByteSize accepts [2^40, 2^40, 0]);
  // their product must not be formed.
  for (const std::int64_t d : dims) {
    if (d == 0) return 0;
  }
  std::int64_t count = 1;
  for (const std::int64_t d : dims) count *= d;
  return count;
}

std::int64_t Shape::num_elements() const { return NumElements(dims_); }

std::string Shape::ToString() const {
  if (dims_.empty()) return "scalar";
  std::string out;
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (i > 0) out.push_back('x');
    out += std::to_string(dims_[i]);
  }
  return out;
}

Result<std::int64_t> CheckedByteSize(const Shape& shape, DataType type) {
  if (shape.rank() > kMaxRank) {
    return Status::InvalidArgument("rank " + std::to_string(shape.rank()) + " is above " +
                                   std::to_string(kMaxRank));
  }
  std::int64_t bytes = static_cast<std::int64_t>(DataTypeSize(type));
  bool zero = false;
  for (const std::int64_t d : shape.dims()) {
    if (d < 0) {
      return Status::InvalidArgument("negative dimension in shape " + shape.ToString());
    }
    if (d == 0) zero = true;
  }
  // The non-zero dimensions must be bounded even when a zero makes the tensor empty: kernels
  // multiply sub-ranges of the dimensions (Flatten of [2^40, 2^40, 0] at axis 2).
  for (const std::int64_t d : shape.dims()) {
    if (d == 0) continue;
    if (bytes > kMaxTensorBytes / d) {
      return Status::ResourceExhausted("tensor of shape " + shape.ToString() + " (" +
                                       std::string(DataTypeName(type)) + ") is larger than " +
                                       std::to_string(kMaxTensorBytes >> 30) + " GiB");
    }
    bytes *= d;
  }
  return zero ? std::int64_t{0} : bytes;
}

std::string TensorInfo::ToString() const {
  return std::string(DataTypeName(dtype)) + "[" + shape.ToString() + "]";
}

Result<Tensor> Tensor::Allocate(DataType dtype, Shape shape, bool zero) {
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t bytes, CheckedByteSize(shape, dtype));
  AlignedBuffer buffer = AllocateBuffer(DefaultAllocator(), static_cast<std::size_t>(bytes), zero);
  if (buffer == nullptr) {
    return Status::ResourceExhausted("cannot allocate " + std::to_string(bytes) +
                                     " bytes for a tensor of shape " + shape.ToString());
  }
  TensorInfo info{dtype, std::move(shape), Layout::kPlain};
  return Tensor(std::move(info), static_cast<std::size_t>(bytes), std::move(buffer));
}

Result<Tensor> Tensor::Create(DataType dtype, Shape shape) {
  return Allocate(dtype, std::move(shape), /*zero=*/true);
}

Result<Tensor> Tensor::CreateUninitialized(DataType dtype, Shape shape) {
  return Allocate(dtype, std::move(shape), /*zero=*/false);
}

Result<Tensor> Tensor::CopyOf(const ConstTensorView& view) {
  std::vector<std::int64_t> dims(view.dims().begin(), view.dims().end());
  EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor,
                            CreateUninitialized(view.dtype(), Shape(std::move(dims))));
  if (tensor.byte_size() > 0) std::memcpy(tensor.raw_data(), view.raw_data(), tensor.byte_size());
  return tensor;
}

}  // namespace edgemond::engine
