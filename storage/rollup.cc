#include "storage/rollup.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace edgemond::storage {

namespace {

constexpr int kMaxDigits = 9;
constexpr std::array<double, kMaxDigits + 1> kPow10 = {1e0, 1e1, 1e2, 1e3, 1e4,
                                                       1e5, 1e6, 1e7, 1e8, 1e9};
constexpr std::array<double, kMaxDigits + 1> kNegPow10 = {1e0,  1e-1, 1e-2, 1e-3, 1e-4,
                                                          1e-5, 1e-6, 1e-7, 1e-8, 1e-9};
constexpr std::array<std::int64_t, kMaxDigits + 1> kIntPow10 = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

// n with value == n / 10^digits (or n * 10^-digits, as hwmon's scaling computes it).
bool DecimalAt(double value, int digits, std::int64_t& n) {
  const double scaled = value * kPow10[static_cast<std::size_t>(digits)];
  if (!(std::fabs(scaled) < kMaxExactInteger)) return false;
  n = std::llround(scaled);
  const auto d = static_cast<double>(n);
  return d / kPow10[static_cast<std::size_t>(digits)] == value ||
         d * kNegPow10[static_cast<std::size_t>(digits)] == value;
}

}  // namespace

void DecimalSum::Add(double value) {
  plain_ += value;
  if (!exact_) return;
  std::int64_t n = 0;
  int digits = last_digits_;
  if (!DecimalAt(value, digits, n)) {
    digits = -1;
    for (int d = 0; d <= kMaxDigits; ++d) {
      if (d != last_digits_ && DecimalAt(value, d, n)) {
        digits = d;
        break;
      }
    }
    if (digits < 0) {
      exact_ = false;
      return;
    }
  }
  last_digits_ = digits;
  if (digits > digits_) {
    if (__builtin_mul_overflow(total_, kIntPow10[static_cast<std::size_t>(digits - digits_)],
                               &total_)) {
      exact_ = false;
      return;
    }
    digits_ = digits;
  }
  std::int64_t term = 0;
  if (__builtin_mul_overflow(n, kIntPow10[static_cast<std::size_t>(digits_ - digits)], &term) ||
      __builtin_add_overflow(total_, term, &total_)) {
    exact_ = false;
  }
}

double DecimalSum::value() const {
  if (!exact_) return plain_;
  return static_cast<double>(total_) / kPow10[static_cast<std::size_t>(digits_)];
}

void RollupAccumulator::AddSample(double value) {
  ++count_;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  last_ = value;
  sum_.Add(value);
}

void RollupAccumulator::AddPoint(const RollupPoint& point) {
  count_ += point.count;
  min_ = std::min(min_, point.min);
  max_ = std::max(max_, point.max);
  last_ = point.last;
  sum_.Add(point.sum);
}

RollupPoint RollupAccumulator::Finish() const {
  return RollupPoint{min_, max_, sum_.value(), count_, last_};
}

}  // namespace edgemond::storage
