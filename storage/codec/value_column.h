// Value columns: a sequence of doubles (readings in base units, rollup fields), encoded
// losslessly (bit for bit: NaN payloads, -0.0 and infinities included) with whichever of three
// codecs gives the fewest bytes for this column:
//
//   kXor     Gorilla's XOR encoding: each value XORed with the previous one, the non-zero bits
//            written with a leading-zero count and a length ("10" reuses the previous window,
//            "11" + 6 + 6 bits opens a new one, "0" repeats). Works for any double.
//   kScaled  The readings are integers n in a fixed scale: v == n / q or v == n * (1.0 / q) for
//            one q per column (1 for bytes and hertz; 1000 for millidegrees, millivolts,
//            milliamperes; 10^6 for microjoules; 255 for PWM duty). Collectors compute exactly
//            these expressions from the kernel's integer units, so the integers are recovered
//            exactly and stored as an integer column (int_column.h). Values that do not fit
//            (an infinity, a -0.0) are stored raw as exceptions, up to 1 in 8.
//   kRatio   Each value is p / q for small integers p and q, with q allowed to change from value
//            to value: utilization computed as busy / total jiffies, where total wanders around
//            100 per core and second. p and q are two integer columns.
//
// Encoding: a header byte (the codec in bits 0-1, bit 2 set when exceptions follow, and for
// kScaled the scale in bits 3-7: an index into a fixed table of 1, 10^k and 255 as divisors or
// reciprocals), then
//   kXor:    the bit stream (first value in 64 bits), padded to a whole byte;
//   kScaled: [exceptions], integer column of n;
//   kRatio:  [exceptions], integer column of q, integer column of p;
// with exceptions = varint count, then per exception varint index delta and 8 raw bytes (little
// endian). The count of values is not stored; the block that holds the column knows it.

#ifndef EDGEMOND_STORAGE_CODEC_VALUE_COLUMN_H_
#define EDGEMOND_STORAGE_CODEC_VALUE_COLUMN_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "storage/codec/coding.h"

namespace edgemond::storage::codec {

enum class ValueCodec : std::uint8_t { kXor = 0, kScaled = 1, kRatio = 2 };

// Appends the smallest encoding of `values` (nothing when empty); returns the codec used.
ValueCodec EncodeValueColumn(std::span<const double> values, std::string& out);

// Appends `values` encoded with `codec` if that codec can represent them, and returns false
// (appending nothing) if it cannot. For tests and measurements.
bool EncodeValueColumnWith(ValueCodec codec, std::span<const double> values, std::string& out);

// The integers the kScaled codec would store (v == n / q, or n * (1.0 / q)), exceptions
// replaced by the previous integer; nullopt when no scale fits. For measurements.
struct ScaledIntegers {
  std::int64_t q = 1;
  bool reciprocal = false;  // n * (1.0 / q) rather than n / q.
  std::vector<std::int64_t> integers;
  std::size_t exceptions = 0;
};
std::optional<ScaledIntegers> ToScaledIntegers(std::span<const double> values);

// Reads `count` values into `out` (replacing its contents) and advances `in` past them.
// kCorruption when the input is malformed or too short. `scratch` is working memory a caller
// decoding many columns passes in so that decoding allocates nothing once it has grown.
struct DecodeScratch {
  std::vector<std::int64_t> first;
  std::vector<std::int64_t> second;
};
Status DecodeValueColumn(ByteReader& in, std::size_t count, std::vector<double>& out,
                         DecodeScratch& scratch);
inline Status DecodeValueColumn(ByteReader& in, std::size_t count, std::vector<double>& out) {
  DecodeScratch scratch;
  return DecodeValueColumn(in, count, out, scratch);
}

}  // namespace edgemond::storage::codec

#endif  // EDGEMOND_STORAGE_CODEC_VALUE_COLUMN_H_
