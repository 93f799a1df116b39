// BinaryKernel<Op>: the shared shape of the broadcasting element-wise arithmetic operators
// (Add, Sub, Mul, Div). `Op` supplies the per-element function; each operator's file defines
// its Op and kernel class. Types: float32, float64 and the 8- to 64-bit integers (int64
// arithmetic is what exporters' shape computations use). A subclass that declares fused
// activations (Add does: a residual sum followed by Relu) gets them applied to float32 outputs.

#ifndef EDGEMOND_ENGINE_KERNELS_BINARY_H_
#define EDGEMOND_ENGINE_KERNELS_BINARY_H_

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "engine/kernel.h"
#include "engine/kernels/broadcast.h"

namespace edgemond::engine {

template <typename Op>
class BinaryKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override {
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(2, 2));
    EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(
        0, {DataType::kFloat32, DataType::kFloat64, DataType::kInt8, DataType::kUint8,
            DataType::kInt16, DataType::kUint16, DataType::kInt32, DataType::kUint32,
            DataType::kInt64, DataType::kUint64}));
    const TensorInfo& a = context.input(0);
    const TensorInfo& b = context.input(1);
    if (a.dtype != b.dtype) {
      return Status::InvalidArgument("inputs have different types (" +
                                     std::string(DataTypeName(a.dtype)) + ", " +
                                     std::string(DataTypeName(b.dtype)) + ")");
    }
    EDGEMOND_ASSIGN_OR_RETURN(plan_, PlanBroadcast(a.shape, b.shape));
    dtype_ = a.dtype;
    activation_ = context.activation();
    if (activation_.active() && dtype_ != DataType::kFloat32) {
      return Status::Unsupported("a fused activation needs float32 operands, not " +
                                 std::string(DataTypeName(dtype_)));
    }
    context.SetFlops(static_cast<std::uint64_t>(plan_.out.num_elements()) *
                     (1 + ActivationFlopsPerElement(activation_.kind)));
    return context.SetOutput(0, dtype_, plan_.out);
  }

  Status Run(const RunContext& context) const override {
    switch (dtype_) {
      case DataType::kFloat32:
        return Compute<float>(context);
      case DataType::kFloat64:
        return Compute<double>(context);
      case DataType::kInt8:
        return Compute<std::int8_t>(context);
      case DataType::kUint8:
        return Compute<std::uint8_t>(context);
      case DataType::kInt16:
        return Compute<std::int16_t>(context);
      case DataType::kUint16:
        return Compute<std::uint16_t>(context);
      case DataType::kInt32:
        return Compute<std::int32_t>(context);
      case DataType::kUint32:
        return Compute<std::uint32_t>(context);
      case DataType::kInt64:
        return Compute<std::int64_t>(context);
      case DataType::kUint64:
        return Compute<std::uint64_t>(context);
      default:
        return Status::Internal("unprepared type");
    }
  }

 protected:
  template <typename T>
  Status Compute(const RunContext& context) const {
    const T* a = context.input(0).data<T>();
    const T* b = context.input(1).data<T>();
    EDGEMOND_RETURN_IF_ERROR(Op::template Check<T>(context.input(1).values<T>()));
    T* y = context.output(0).data<T>();
    BroadcastBinary(plan_, a, b, y, [](T lhs, T rhs) { return Op::template Apply<T>(lhs, rhs); });
    if constexpr (std::is_same_v<T, float>) {
      ActivateInPlace(activation_, y, plan_.out.num_elements());
    }
    return Status::Ok();
  }

  BroadcastPlan plan_;
  DataType dtype_ = DataType::kFloat32;
  FusedActivation activation_;
};

// Base of the Op types: Check() rejects right-hand operands the operation is undefined for
// (none by default).
struct BinaryOpBase {
  template <typename T>
  static Status Check(std::span<const T> rhs) {
    (void)rhs;
    return Status::Ok();
  }
};

// Integer arithmetic wraps around, as NumPy's does, instead of overflowing (undefined in C++):
// it is done in uint64 and converted back, which is modular.
template <typename T, typename F>
T WrapInteger(T a, T b, F f) {
  return static_cast<T>(f(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b)));
}

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_BINARY_H_
