#include "engine/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace edgemond::engine {
namespace {

std::string DimsString(std::span<const std::int64_t> dims) {
  return Shape(std::vector<std::int64_t>(dims.begin(), dims.end())).ToString();
}

template <typename T>
void CompareFloating(const T* a, const T* e, std::int64_t count, std::int64_t row,
                     const Tolerance& tolerance, Comparison& result) {
  for (std::int64_t i = 0; i < count; ++i) {
    const double av = static_cast<double>(a[i]);
    const double ev = static_cast<double>(e[i]);
    const bool both_nan = std::isnan(av) && std::isnan(ev);
    const double diff = both_nan ? 0.0 : std::fabs(av - ev);
    const double scaled = diff / std::max(1.0, std::fabs(ev));
    const double allowed =
        tolerance.absolute +
        tolerance.relative * (tolerance.floor_one ? std::max(1.0, std::fabs(ev)) : std::fabs(ev));
    // !(diff <= allowed) also catches NaN on one side only; equal infinities match.
    if (!both_nan && !(diff <= allowed) && !(std::isinf(ev) && av == ev)) {
      if (result.mismatches == 0) {
        result.detail = "element " + std::to_string(i) + ": " + std::to_string(av) +
                        " vs expected " + std::to_string(ev);
      }
      ++result.mismatches;
    }
    if (std::isfinite(diff)) {
      result.max_abs_error = std::max(result.max_abs_error, diff);
      result.max_scaled_error = std::max(result.max_scaled_error, scaled);
    }
  }
  if (!tolerance.check_top1 || row <= 1) return;
  for (std::int64_t start = 0; start + row <= count; start += row) {
    const auto top_a = std::max_element(a + start, a + start + row) - (a + start);
    const auto top_e = std::max_element(e + start, e + start + row) - (e + start);
    if (top_a != top_e) {
      if (result.top1_match) {
        result.detail += (result.detail.empty() ? "" : "; ") + std::string("row ") +
                         std::to_string(start / row) + ": top-1 is " + std::to_string(top_a) +
                         ", expected " + std::to_string(top_e);
      }
      result.top1_match = false;
    }
  }
}

}  // namespace

Comparison CompareTensors(const ConstTensorView& actual, const ConstTensorView& expected,
                          const Tolerance& tolerance) {
  Comparison result;
  const bool same_dims =
      actual.rank() == expected.rank() &&
      std::equal(actual.dims().begin(), actual.dims().end(), expected.dims().begin());
  if (actual.dtype() != expected.dtype() || !same_dims) {
    result.detail = std::string(DataTypeName(actual.dtype())) + "[" + DimsString(actual.dims()) +
                    "] vs expected " + std::string(DataTypeName(expected.dtype())) + "[" +
                    DimsString(expected.dims()) + "]";
    return result;
  }
  result.same_type_and_shape = true;
  result.elements = actual.num_elements();
  const std::int64_t row = actual.rank() > 0 ? actual.dim(actual.rank() - 1) : 1;
  switch (actual.dtype()) {
    case DataType::kFloat32:
      CompareFloating(actual.data<float>(), expected.data<float>(), result.elements, row, tolerance,
                      result);
      break;
    case DataType::kFloat64:
      CompareFloating(actual.data<double>(), expected.data<double>(), result.elements, row,
                      tolerance, result);
      break;
    default: {
      // Exact comparison, element by element.
      const std::size_t size = DataTypeSize(actual.dtype());
      const auto* a = static_cast<const unsigned char*>(actual.raw_data());
      const auto* e = static_cast<const unsigned char*>(expected.raw_data());
      for (std::int64_t i = 0; i < result.elements; ++i) {
        if (std::memcmp(a + static_cast<std::size_t>(i) * size,
                        e + static_cast<std::size_t>(i) * size, size) != 0) {
          if (result.mismatches == 0) result.detail = "element " + std::to_string(i) + " differs";
          ++result.mismatches;
        }
      }
      break;
    }
  }
  return result;
}

}  // namespace edgemond::engine
