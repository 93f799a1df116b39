// Byte- and bit-level building blocks of the block format (storage/block.h): LEB128 varints,
// zig-zag signed integers, and a bit writer/reader, in the manner of leveldb's util/coding.h.
//
// Writers append to a std::string. Readers never read past their input: a read that would is
// recorded (ok() turns false) and returns zeros, so a decoder can run to the end of a column and
// check once; every decoder in storage/codec reports that as kCorruption.
//
// Thread safety: none; each object is used by one thread.

#ifndef EDGEMOND_STORAGE_CODEC_CODING_H_
#define EDGEMOND_STORAGE_CODEC_CODING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace edgemond::storage::codec {

// Maps signed to unsigned so that small magnitudes of either sign are small: 0, -1, 1, -2, ...
// become 0, 1, 2, 3, ...
constexpr std::uint64_t ZigZag(std::int64_t value) {
  return (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
}
constexpr std::int64_t UnZigZag(std::uint64_t value) {
  return static_cast<std::int64_t>((value >> 1) ^ (~(value & 1) + 1));
}

// Unsigned LEB128: 7 bits per byte, low bits first; at most 10 bytes.
void PutVarint(std::string& out, std::uint64_t value);
inline void PutSignedVarint(std::string& out, std::int64_t value) { PutVarint(out, ZigZag(value)); }
std::size_t VarintLength(std::uint64_t value);

// Reads bytes, varints and fixed-size fields from a byte range.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : data_(bytes) {}

  std::uint64_t Varint();
  std::int64_t SignedVarint() { return UnZigZag(Varint()); }
  std::uint8_t Byte();
  // The next `size` bytes (empty, and not ok(), if fewer remain).
  std::string_view Bytes(std::size_t size);
  // What has not been read yet.
  std::string_view Rest() const { return data_.substr(position_); }
  void Skip(std::size_t size) { Bytes(size); }

  bool ok() const { return ok_; }
  bool empty() const { return position_ >= data_.size(); }
  std::size_t position() const { return position_; }
  std::size_t remaining() const { return data_.size() - position_; }

 private:
  std::string_view data_;
  std::size_t position_ = 0;
  bool ok_ = true;
};

// Appends bit fields, most significant bit first, to a byte string; Finish() pads the last byte
// with zero bits.
class BitWriter {
 public:
  explicit BitWriter(std::string& out) : out_(out) {}
  BitWriter(const BitWriter&) = delete;
  BitWriter& operator=(const BitWriter&) = delete;

  // Writes the low `bits` bits of `value` (0 <= bits <= 64).
  void Write(std::uint64_t value, int bits);
  void Finish();

 private:
  std::string& out_;
  std::uint64_t pending_ = 0;  // The low `pending_bits_` bits are not yet written.
  int pending_bits_ = 0;
};

// Reads what BitWriter wrote.
class BitReader {
 public:
  explicit BitReader(std::string_view bytes) : data_(bytes) {}

  // Reads `bits` bits (0 <= bits <= 64).
  std::uint64_t Read(int bits) {
    if (bits == 0) return 0;
    if (bits <= buffered_) {  // The common case, inline.
      const std::uint64_t value = window_ >> (64 - bits);
      window_ <<= bits;
      buffered_ -= bits;
      return value;
    }
    return ReadSlow(bits);
  }
  bool ok() const { return ok_; }
  // Bytes consumed so far, counting a partly read byte as whole.
  std::size_t bytes_consumed() const { return position_ - static_cast<std::size_t>(buffered_ / 8); }

 private:
  std::uint64_t ReadSlow(int bits);
  void Refill();

  std::string_view data_;
  std::size_t position_ = 0;  // Next byte of data_ to load into the window.
  std::uint64_t window_ = 0;  // Loaded bits, left-aligned: the next bit is bit 63.
  int buffered_ = 0;          // Valid bits in window_.
  bool ok_ = true;
};

}  // namespace edgemond::storage::codec

#endif  // EDGEMOND_STORAGE_CODEC_CODING_H_
