// How fuzz targets split their input into the parts they feed.
//
// NumberAndText: the targets that need a number beside their text (a raw sensor reading, the
// current time) take the input's first 8 bytes as an int64 in host byte order and the rest as
// the text; a shorter input is skipped. Their seed files are laid out that way.
//
// DecodeOrRoundTrip: the column codec targets test two ways, chosen by the first byte: even, the
// rest after two more bytes (a big-endian value count) is an encoded column to decode; odd, the
// rest is values to encode and decode again.

#ifndef EDGEMOND_TESTS_FUZZ_FUZZ_INPUT_H_
#define EDGEMOND_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace edgemond::fuzz {

struct NumberAndText {
  std::int64_t number;
  std::string_view text;
};

inline std::optional<NumberAndText> SplitNumberAndText(const std::uint8_t* data, std::size_t size) {
  NumberAndText out;
  if (size < sizeof(out.number)) return std::nullopt;
  std::memcpy(&out.number, data, sizeof(out.number));
  out.text = std::string_view(reinterpret_cast<const char*>(data) + sizeof(out.number),
                              size - sizeof(out.number));
  return out;
}

template <typename Decode, typename RoundTrip>
void DecodeOrRoundTrip(const std::uint8_t* data, std::size_t size, Decode decode,
                       RoundTrip round_trip) {
  if (size < 3) return;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 3, size - 3);
  if (data[0] % 2 == 0) {
    decode(std::size_t{data[1]} << 8 | data[2], rest);
  } else {
    round_trip(rest);
  }
}

}  // namespace edgemond::fuzz

#endif  // EDGEMOND_TESTS_FUZZ_FUZZ_INPUT_H_
