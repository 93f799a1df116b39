// Rollups: what the 1-minute and 1-hour tiers keep per series and interval (min, max, sum,
// count and last of the samples in it), and how they are accumulated.
//
// The sum is exact for decimal readings. Collectors produce values like 45.5 (45500 / 1000.0) or
// 19.104 (19104 * 1e-3); summing such doubles one after another accumulates binary rounding
// error, and a column of such sums compresses badly (every bit of the mantissa changes). So
// DecimalSum recovers each reading's decimal digits (v == n / 10^d, or n * 10^-d, d <= 9), adds
// the integers exactly and divides once at the end: the sum is the double nearest the true
// decimal sum, which the scaled-integer codec stores in a few bits. A reading that is not a short
// decimal (a ratio, an infinity) switches the sum to plain sequential addition.
//
// Thread safety: none; values.

#ifndef EDGEMOND_STORAGE_ROLLUP_H_
#define EDGEMOND_STORAGE_ROLLUP_H_

#include <cstdint>
#include <limits>

namespace edgemond::storage {

struct RollupPoint {
  double min = 0;
  double max = 0;
  double sum = 0;
  std::int64_t count = 0;  // Samples summarized.
  double last = 0;         // The latest sample.
};

class DecimalSum {
 public:
  void Add(double value);
  double value() const;

 private:
  int digits_ = 0;          // The exact total is total_ / 10^digits_.
  std::int64_t total_ = 0;  // Exact while exact_ (an overflow clears exact_).
  bool exact_ = true;
  int last_digits_ = 0;  // Digits of the previous value: tried first.
  double plain_ = 0;     // Sequential sum, used once exact_ is false.
};

// Accumulates the samples (AddSample) or finer rollup points (AddPoint) of one interval, in
// time order.
class RollupAccumulator {
 public:
  void AddSample(double value);
  void AddPoint(const RollupPoint& point);

  bool empty() const { return count_ == 0; }
  RollupPoint Finish() const;
  void Reset() { *this = RollupAccumulator(); }

 private:
  std::int64_t count_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
  double last_ = 0;
  DecimalSum sum_;
};

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_ROLLUP_H_
