#include "storage/codec/coding.h"

namespace edgemond::storage::codec {

void PutVarint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

std::size_t VarintLength(std::uint64_t value) {
  std::size_t length = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++length;
  }
  return length;
}

std::uint64_t ByteReader::Varint() {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (position_ >= data_.size()) break;
    const auto byte = static_cast<std::uint8_t>(data_[position_++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  ok_ = false;  // Truncated, or longer than 10 bytes.
  return 0;
}

std::uint8_t ByteReader::Byte() {
  if (position_ >= data_.size()) {
    ok_ = false;
    return 0;
  }
  return static_cast<std::uint8_t>(data_[position_++]);
}

std::string_view ByteReader::Bytes(std::size_t size) {
  if (size > remaining()) {
    ok_ = false;
    position_ = data_.size();
    return {};
  }
  const std::string_view bytes = data_.substr(position_, size);
  position_ += size;
  return bytes;
}

void BitWriter::Write(std::uint64_t value, int bits) {
  if (bits > 32) {
    Write(value >> 32, bits - 32);
    Write(value & 0xffffffffu, 32);
    return;
  }
  if (bits == 0) return;
  // pending_ holds fewer than 8 unwritten bits in its low end (what is above them was written
  // already), so 32 more always fit.
  pending_ = (pending_ << bits) | (value & ((std::uint64_t{1} << bits) - 1));
  pending_bits_ += bits;
  while (pending_bits_ >= 8) {
    pending_bits_ -= 8;
    out_.push_back(static_cast<char>(pending_ >> pending_bits_));
  }
}

void BitWriter::Finish() {
  if (pending_bits_ > 0) {
    out_.push_back(static_cast<char>(pending_ << (8 - pending_bits_)));
    pending_bits_ = 0;
  }
  pending_ = 0;
}

void BitReader::Refill() {
  if (buffered_ <= 56 && data_.size() - position_ >= 8) {
    // Eight bytes at once, big-endian: as many whole bytes as fit in the window.
    std::uint64_t word = 0;
    for (int i = 0; i < 8; ++i) {
      word =
          (word << 8) | static_cast<std::uint8_t>(data_[position_ + static_cast<std::size_t>(i)]);
    }
    const int take = (64 - buffered_) / 8;
    window_ |= (word >> (64 - 8 * take)) << (64 - 8 * take - buffered_);
    position_ += static_cast<std::size_t>(take);
    buffered_ += 8 * take;
    return;
  }
  while (buffered_ <= 56 && position_ < data_.size()) {
    window_ |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(data_[position_++]))
               << (56 - buffered_);
    buffered_ += 8;
  }
}

std::uint64_t BitReader::ReadSlow(int bits) {
  if (bits > 56) {
    const std::uint64_t high = Read(bits - 32);
    return (high << 32) | Read(32);
  }
  if (buffered_ < bits) {
    Refill();
    if (buffered_ < bits) {
      ok_ = false;
      buffered_ = 0;
      window_ = 0;
      return 0;
    }
  }
  const std::uint64_t value = window_ >> (64 - bits);
  window_ <<= bits;
  buffered_ -= bits;
  return value;
}

}  // namespace edgemond::storage::codec
