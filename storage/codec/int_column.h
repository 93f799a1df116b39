// Integer columns: a sequence of int64 values (timestamps in ms, readings scaled to integers)
// encoded for size, losslessly, whatever the values.
//
// Encoding (the count is not stored; the block that holds the column knows it):
//   u8      mode: bits 0-1 = order - 1 (1: deltas, 2: deltas of deltas, 3: deltas minus a
//           bias); bits 2-3 = frame size code (8 << code values per frame)
//   svarint first value (zig-zag varint)
//   svarint first delta                        (order 2 only, when count >= 2)
//   svarint bias, the median delta              (order 3 only)
//   varint  g, the greatest common divisor of the residuals (0 when they are all 0)
//   bits    when g > 0: residual / g, zig-zag, packed in frames of 8, 16, 32 or 64: each frame
//           is a 7-bit width w (0..64) followed by its values in w bits each (frame of reference
//           bit packing), padded to a whole byte at the end.
// where the residuals are the deltas (order 1), the deltas of the deltas (order 2) or the deltas
// minus the bias (order 3). Arithmetic
// wraps modulo 2^64, so any jump, INT64_MIN to INT64_MAX included, round-trips.
//
// The encoder tries every order and frame size and keeps the smallest: a timestamp column at a
// steady interval with a few ms of jitter is 3-4 bits per tick (order 3), a counter that rises at
// a steady rate likewise; a sensor that dithers between neighbouring steps packs into
// 1-3 bits per value (order 1, divided by the step); a reading that rarely changes costs 7 bits
// per frame.

#ifndef EDGEMOND_STORAGE_CODEC_INT_COLUMN_H_
#define EDGEMOND_STORAGE_CODEC_INT_COLUMN_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "storage/codec/coding.h"

namespace edgemond::storage::codec {

// Appends the encoding of `values` (nothing when empty).
void EncodeIntColumn(std::span<const std::int64_t> values, std::string& out);

// One fixed encoding instead of the smallest, for tests and measurements: every order and frame
// size must decode exactly whatever the values, not only the ones the encoder happens to pick.
enum class IntOrder { kDeltas = 1, kDeltasOfDeltas = 2, kBiasedDeltas = 3 };
inline constexpr int kIntFrameSizeCodes = 4;  // Frames of 8 << code values, code 0..3.
void EncodeIntColumnWith(IntOrder order, int frame_size_code, std::span<const std::int64_t> values,
                         std::string& out);

// Bytes EncodeIntColumn would append, without building them.
std::size_t EncodedIntColumnSize(std::span<const std::int64_t> values);

// Reads `count` values written by EncodeIntColumn into `out` (replacing its contents) and
// advances `in` past them. kCorruption when the input is malformed or too short.
Status DecodeIntColumn(ByteReader& in, std::size_t count, std::vector<std::int64_t>& out);

}  // namespace edgemond::storage::codec

#endif  // EDGEMOND_STORAGE_CODEC_INT_COLUMN_H_
