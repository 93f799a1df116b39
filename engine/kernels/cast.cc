#include "engine/kernels/cast.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace edgemond::engine {
namespace {

// IEEE binary16 and bfloat16 are stored as their 16 bits.
float HalfToFloat(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // Inf or NaN.
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;  // Zero.
  } else {
    // Subnormal: normalize.
    exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

std::uint16_t FloatToHalf(float f) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // Inf or NaN (keeps NaN quiet).
    return static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // Overflow.
  if (abs < 0x38800000u) {
    // Subnormal or zero: shift the implicit-one mantissa, round to nearest even.
    if (abs < 0x33000000u) return sign;
    const std::uint32_t exponent = abs >> 23;
    const std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - exponent;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1);
    const std::uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  // Normal: rebias the exponent, round the mantissa to nearest even.
  std::uint32_t half = ((abs >> 13) - (112u << 10));
  const std::uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<std::uint16_t>(sign | half);
}

float BFloat16ToFloat(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

std::uint16_t FloatToBFloat16(float f) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  // Round to nearest even.
  const std::uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

// Every supported type converts through one of these intermediate representations.
template <typename To, typename From>
To Convert(From value) {
  if constexpr (std::is_same_v<To, bool>) {
    return value != From{0};
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (std::isnan(value)) return To{0};
    // Saturate: the conversion of an out-of-range value is undefined in C++.
    const auto lo = static_cast<From>(std::numeric_limits<To>::lowest());
    const auto hi = static_cast<From>(std::numeric_limits<To>::max());
    if (value <= lo) return std::numeric_limits<To>::lowest();
    if (value >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(value);
  } else {
    return static_cast<To>(value);
  }
}

// Reads element i of `view` as type T (via float for the 16-bit float types).
template <typename T>
T Load(const ConstTensorView& view, std::int64_t i) {
  switch (view.dtype()) {
    case DataType::kFloat32:
      return Convert<T>(view.data<float>()[i]);
    case DataType::kFloat64:
      return Convert<T>(view.data<double>()[i]);
    case DataType::kFloat16:
      return Convert<T>(HalfToFloat(static_cast<const std::uint16_t*>(view.raw_data())[i]));
    case DataType::kBFloat16:
      return Convert<T>(BFloat16ToFloat(static_cast<const std::uint16_t*>(view.raw_data())[i]));
    case DataType::kInt8:
      return Convert<T>(view.data<std::int8_t>()[i]);
    case DataType::kUint8:
      return Convert<T>(view.data<std::uint8_t>()[i]);
    case DataType::kInt16:
      return Convert<T>(view.data<std::int16_t>()[i]);
    case DataType::kUint16:
      return Convert<T>(view.data<std::uint16_t>()[i]);
    case DataType::kInt32:
      return Convert<T>(view.data<std::int32_t>()[i]);
    case DataType::kUint32:
      return Convert<T>(view.data<std::uint32_t>()[i]);
    case DataType::kInt64:
      return Convert<T>(view.data<std::int64_t>()[i]);
    case DataType::kUint64:
      return Convert<T>(view.data<std::uint64_t>()[i]);
    case DataType::kBool:
      return Convert<T>(static_cast<std::uint8_t>(view.data<bool>()[i]));
  }
  return T{};
}

template <typename T>
void CastTo(const ConstTensorView& x, void* out) {
  T* y = static_cast<T*>(out);
  const std::int64_t count = x.num_elements();
  for (std::int64_t i = 0; i < count; ++i) y[i] = Load<T>(x, i);
}

}  // namespace

Status CastKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t to, context.attributes().GetRequiredInt("to"));
  EDGEMOND_ASSIGN_OR_RETURN(to_, DataTypeFromOnnx(static_cast<std::int32_t>(to)));
  // saturate (opset 19+) only concerns float8 targets, which are refused above.
  if (context.opset() >= 19) context.attributes().Ignore("saturate");
  const TensorInfo& x = context.input(0);
  context.SetFlops(static_cast<std::uint64_t>(x.shape.num_elements()));
  return context.SetOutput(0, to_, x.shape);
}

Status CastKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  void* out = context.output(0).raw_data();
  switch (to_) {
    case DataType::kFloat32:
      CastTo<float>(x, out);
      break;
    case DataType::kFloat64:
      CastTo<double>(x, out);
      break;
    case DataType::kFloat16: {
      auto* y = static_cast<std::uint16_t*>(out);
      for (std::int64_t i = 0; i < x.num_elements(); ++i) y[i] = FloatToHalf(Load<float>(x, i));
      break;
    }
    case DataType::kBFloat16: {
      auto* y = static_cast<std::uint16_t*>(out);
      for (std::int64_t i = 0; i < x.num_elements(); ++i) {
        y[i] = FloatToBFloat16(Load<float>(x, i));
      }
      break;
    }
    case DataType::kInt8:
      CastTo<std::int8_t>(x, out);
      break;
    case DataType::kUint8:
      CastTo<std::uint8_t>(x, out);
      break;
    case DataType::kInt16:
      CastTo<std::int16_t>(x, out);
      break;
    case DataType::kUint16:
      CastTo<std::uint16_t>(x, out);
      break;
    case DataType::kInt32:
      CastTo<std::int32_t>(x, out);
      break;
    case DataType::kUint32:
      CastTo<std::uint32_t>(x, out);
      break;
    case DataType::kInt64:
      CastTo<std::int64_t>(x, out);
      break;
    case DataType::kUint64:
      CastTo<std::uint64_t>(x, out);
      break;
    case DataType::kBool:
      CastTo<bool>(x, out);
      break;
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
