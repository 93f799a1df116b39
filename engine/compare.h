// Comparing an engine output with a reference, as the model tests and edgemond-bench --check
// do: element-wise |actual - expected| <= tolerance * max(1, |expected|), and the same
// top-1 index per row for floating-point outputs. The relative form matters: random-weight
// ResNets have logits near 80, where fp32 summation order alone moves values by ~5e-5.

#ifndef EDGEMOND_ENGINE_COMPARE_H_
#define EDGEMOND_ENGINE_COMPARE_H_

#include <cstdint>
#include <string>

#include "engine/tensor.h"

namespace edgemond::engine {

struct Comparison {
  bool same_type_and_shape = false;
  std::int64_t elements = 0;
  std::int64_t mismatches = 0;  // Elements outside the tolerance (NaN vs non-NaN included).
  double max_abs_error = 0.0;
  double max_scaled_error = 0.0;  // max |a - e| / max(1, |e|), for reports.
  bool top1_match = true;         // Per row of the last dimension; floats only.
  std::string detail;             // The first mismatch, or the type/shape difference.

  bool ok() const { return same_type_and_shape && mismatches == 0 && top1_match; }
};

// When floating-point elements match. Integers and booleans must always match exactly.
struct Tolerance {
  double relative = 1e-4;
  double absolute = 0.0;
  // True: |a - e| <= absolute + relative * max(1, |e|) (the model tests' form).
  // False: |a - e| <= absolute + relative * |e| (ONNX's backend-test form, rtol/atol).
  bool floor_one = true;
  bool check_top1 = true;
};

Comparison CompareTensors(const ConstTensorView& actual, const ConstTensorView& expected,
                          const Tolerance& tolerance);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_COMPARE_H_
