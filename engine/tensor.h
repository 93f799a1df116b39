// Tensors: element types, shapes, owning tensors and non-owning views.
//
// Every tensor is row-major over its shape (ONNX's order). An NHWC value is such a tensor with
// an NHWC shape, the layout pass's twin of an NCHW one (docs/adr/0107-engine-nhwc-layout-pass.md).
// A value's TensorInfo carries a Layout so that a blocked layout can be added without changing
// this vocabulary (docs/adr/0103-engine-kernel-interface.md).
//
// Sizes are checked once, where shapes enter the engine (model files, user input shapes, kernel
// output shapes): CheckedByteSize() refuses negative dimensions and element counts whose byte
// size overflows or exceeds kMaxTensorBytes. Code that runs after that check may multiply
// dimensions freely.
//
// Thread safety: Tensor and the views are values. A const Tensor may be read from any number of
// threads; views never own the memory they point to.

#ifndef EDGEMOND_ENGINE_TENSOR_H_
#define EDGEMOND_ENGINE_TENSOR_H_

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engine/allocator.h"

namespace edgemond::engine {

enum class DataType : std::uint8_t {
  kFloat32,
  kFloat64,
  kFloat16,   // Storage only: data-movement kernels copy it, no kernel computes in it yet.
  kBFloat16,  // Storage only.
  kInt8,
  kUint8,
  kInt16,
  kUint16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kBool,  // One byte per element, 0 or 1.
};

// Bytes per element.
std::size_t DataTypeSize(DataType type);
// "float32", "int64", ...
std::string_view DataTypeName(DataType type);

// The engine type of an ONNX TensorProto.DataType code (the `to` of Cast, the elem_type of a
// tensor); kUnsupported, naming the ONNX type, for strings, complex, float8 and 4-bit types.
Result<DataType> DataTypeFromOnnx(std::int32_t onnx_type);
// ONNX's name of a TensorProto.DataType code ("FLOAT8E4M3FN"), for messages.
std::string OnnxDataTypeName(std::int32_t onnx_type);

template <typename T>
struct DataTypeOf;
template <>
struct DataTypeOf<float> {
  static constexpr DataType kValue = DataType::kFloat32;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType kValue = DataType::kFloat64;
};
template <>
struct DataTypeOf<std::int8_t> {
  static constexpr DataType kValue = DataType::kInt8;
};
template <>
struct DataTypeOf<std::uint8_t> {
  static constexpr DataType kValue = DataType::kUint8;
};
template <>
struct DataTypeOf<std::int16_t> {
  static constexpr DataType kValue = DataType::kInt16;
};
template <>
struct DataTypeOf<std::uint16_t> {
  static constexpr DataType kValue = DataType::kUint16;
};
template <>
struct DataTypeOf<std::int32_t> {
  static constexpr DataType kValue = DataType::kInt32;
};
template <>
struct DataTypeOf<std::uint32_t> {
  static constexpr DataType kValue = DataType::kUint32;
};
template <>
struct DataTypeOf<std::int64_t> {
  static constexpr DataType kValue = DataType::kInt64;
};
template <>
struct DataTypeOf<std::uint64_t> {
  static constexpr DataType kValue = DataType::kUint64;
};
template <>
struct DataTypeOf<bool> {
  static constexpr DataType kValue = DataType::kBool;
};

// The largest tensor the engine will allocate. Anything larger comes from a corrupt or hostile
// model (a dimension of 2^40), and refusing it early turns an OOM kill into a clear error.
inline constexpr std::int64_t kMaxTensorBytes = std::int64_t{1} << 36;  // 64 GiB.
// ONNX puts no bound on rank; real models stay below 8. A bound keeps hostile files cheap.
inline constexpr int kMaxRank = 32;

// The dimensions of a tensor; rank 0 is a scalar (one element).
class Shape {
 public:
  Shape() = default;
  explicit Shape(std::vector<std::int64_t> dims) : dims_(std::move(dims)) {}
  Shape(std::initializer_list<std::int64_t> dims) : dims_(dims) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  std::int64_t dim(int axis) const { return dims_[static_cast<std::size_t>(axis)]; }
  std::int64_t operator[](int axis) const { return dim(axis); }
  std::span<const std::int64_t> dims() const { return dims_; }
  const std::vector<std::int64_t>& vector() const { return dims_; }

  // Product of the dimensions. REQUIRES: the shape passed CheckedByteSize().
  std::int64_t num_elements() const;

  // "1x3x224x224"; "scalar" for rank 0.
  std::string ToString() const;

  friend bool operator==(const Shape& a, const Shape& b) { return a.dims_ == b.dims_; }

 private:
  std::vector<std::int64_t> dims_;
};

// Product of `dims`, for spans taken from views. REQUIRES: checked as above.
std::int64_t NumElements(std::span<const std::int64_t> dims);

// Validates a shape for `type` and returns its size in bytes: kInvalidArgument for a negative
// dimension or a rank above kMaxRank, kResourceExhausted when the size overflows or is above
// kMaxTensorBytes.
Result<std::int64_t> CheckedByteSize(const Shape& shape, DataType type);

// How a value's elements are ordered in memory: kPlain, row-major over its shape.
enum class Layout : std::uint8_t {
  kPlain,
};

// Static type of a value once shapes are resolved.
struct TensorInfo {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  Layout layout = Layout::kPlain;

  std::int64_t byte_size() const {
    return shape.num_elements() * static_cast<std::int64_t>(DataTypeSize(dtype));
  }
  // "float32[1x3x224x224]".
  std::string ToString() const;
};

// A read-only, non-owning view of a tensor. The dimensions and the data outlive the view.
class ConstTensorView {
 public:
  ConstTensorView() = default;
  ConstTensorView(DataType dtype, std::span<const std::int64_t> dims, const void* data)
      : dtype_(dtype), dims_(dims), data_(data) {}

  DataType dtype() const { return dtype_; }
  std::span<const std::int64_t> dims() const { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  std::int64_t dim(int axis) const { return dims_[static_cast<std::size_t>(axis)]; }
  std::int64_t num_elements() const { return NumElements(dims_); }
  std::size_t byte_size() const {
    return static_cast<std::size_t>(num_elements()) * DataTypeSize(dtype_);
  }
  const void* raw_data() const { return data_; }

  // Typed access. REQUIRES: T matches dtype() (a programmer error otherwise).
  template <typename T>
  const T* data() const {
    assert(DataTypeOf<T>::kValue == dtype_);
    return static_cast<const T*>(data_);
  }
  template <typename T>
  std::span<const T> values() const {
    return {data<T>(), static_cast<std::size_t>(num_elements())};
  }

 private:
  DataType dtype_ = DataType::kFloat32;
  std::span<const std::int64_t> dims_;
  const void* data_ = nullptr;
};

// A writable, non-owning view of a tensor.
class TensorView {
 public:
  TensorView() = default;
  TensorView(DataType dtype, std::span<const std::int64_t> dims, void* data)
      : dtype_(dtype), dims_(dims), data_(data) {}

  DataType dtype() const { return dtype_; }
  std::span<const std::int64_t> dims() const { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  std::int64_t dim(int axis) const { return dims_[static_cast<std::size_t>(axis)]; }
  std::int64_t num_elements() const { return NumElements(dims_); }
  std::size_t byte_size() const {
    return static_cast<std::size_t>(num_elements()) * DataTypeSize(dtype_);
  }
  void* raw_data() const { return data_; }

  template <typename T>
  T* data() const {
    assert(DataTypeOf<T>::kValue == dtype_);
    return static_cast<T*>(data_);
  }
  template <typename T>
  std::span<T> values() const {
    return {data<T>(), static_cast<std::size_t>(num_elements())};
  }

  operator ConstTensorView() const {  // NOLINT(google-explicit-constructor)
    return ConstTensorView(dtype_, dims_, data_);
  }

 private:
  DataType dtype_ = DataType::kFloat32;
  std::span<const std::int64_t> dims_;
  void* data_ = nullptr;
};

// An owning tensor: constants (initializers, folded values), user inputs and copied outputs.
// Storage is zero-initialized and aligned to kTensorAlignment. Move-only; share constants
// through std::shared_ptr<const Tensor>.
class Tensor {
 public:
  // Allocates a zero-filled tensor. Fails for shapes refused by CheckedByteSize().
  static Result<Tensor> Create(DataType dtype, Shape shape);
  // Allocates a tensor whose bytes are left unwritten, for a caller that writes all of them
  // before anything reads the tensor (a copy in; weights read from a file).
  static Result<Tensor> CreateUninitialized(DataType dtype, Shape shape);
  // A tensor holding a copy of `view`.
  static Result<Tensor> CopyOf(const ConstTensorView& view);
  // A tensor of `shape` holding `values`. REQUIRES: values.size() == shape.num_elements().
  template <typename T>
  static Result<Tensor> FromValues(Shape shape, std::span<const T> values);
  template <typename T>
  static Result<Tensor> FromVector(Shape shape, const std::vector<T>& values) {
    return FromValues<T>(std::move(shape), std::span<const T>(values));
  }

  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;

  DataType dtype() const { return info_.dtype; }
  const Shape& shape() const { return info_.shape; }
  const TensorInfo& info() const { return info_; }
  std::size_t byte_size() const { return byte_size_; }
  std::int64_t num_elements() const { return info_.shape.num_elements(); }

  void* raw_data() { return buffer_.get(); }
  const void* raw_data() const { return buffer_.get(); }
  template <typename T>
  T* data() {
    assert(DataTypeOf<T>::kValue == info_.dtype);
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  const T* data() const {
    assert(DataTypeOf<T>::kValue == info_.dtype);
    return static_cast<const T*>(raw_data());
  }
  template <typename T>
  std::span<const T> values() const {
    return {data<T>(), static_cast<std::size_t>(num_elements())};
  }
  template <typename T>
  std::span<T> mutable_values() {
    return {data<T>(), static_cast<std::size_t>(num_elements())};
  }

  ConstTensorView view() const { return {info_.dtype, info_.shape.dims(), buffer_.get()}; }
  TensorView mutable_view() { return {info_.dtype, info_.shape.dims(), buffer_.get()}; }

 private:
  static Result<Tensor> Allocate(DataType dtype, Shape shape, bool zero);
  Tensor(TensorInfo info, std::size_t byte_size, AlignedBuffer buffer)
      : info_(std::move(info)), byte_size_(byte_size), buffer_(std::move(buffer)) {}

  TensorInfo info_;
  std::size_t byte_size_ = 0;
  AlignedBuffer buffer_;
};

template <typename T>
Result<Tensor> Tensor::FromValues(Shape shape, std::span<const T> values) {
  EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, Create(DataTypeOf<T>::kValue, std::move(shape)));
  if (static_cast<std::int64_t>(values.size()) != tensor.num_elements()) {
    return Status::InvalidArgument("tensor of shape " + tensor.shape().ToString() + " given " +
                                   std::to_string(values.size()) + " values");
  }
  T* out = tensor.data<T>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return tensor;
}

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_TENSOR_H_
