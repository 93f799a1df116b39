// Fuzz target for the integer column codec (storage/codec/int_column.h), two ways chosen by the
// first byte:
//  - even: the rest is an encoded column of `count` values (the next two bytes): decoding must
//    give `count` values or kCorruption, never a crash or a read past the end;
//  - odd: the rest, 8 bytes per value, is a column of any int64 values: the encoder's choice, and
//    every order and frame size forced, must decode to the same values, and EncodedIntColumnSize
//    must be the size the encoder writes.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "storage/codec/int_column.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"

namespace edgemond::storage::codec {
namespace {

void Decode(std::size_t count, std::string_view bytes) {
  ByteReader in(bytes);
  std::vector<std::int64_t> out;
  const Status status = DecodeIntColumn(in, count, out);
  if (status.ok()) {
    FUZZ_CHECK(out.size() == count, "decoded count");
  } else {
    FUZZ_CHECK(status.code() == StatusCode::kCorruption, "decode error code");
  }
}

void RoundTrip(std::string_view bytes) {
  std::vector<std::int64_t> values(bytes.size() / sizeof(std::int64_t));
  if (values.empty()) return;
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(std::int64_t));
  const auto check = [&](const std::string& encoded, const char* what) {
    ByteReader in(encoded);
    std::vector<std::int64_t> decoded;
    FUZZ_CHECK(DecodeIntColumn(in, values.size(), decoded).ok(), what);
    FUZZ_CHECK(decoded == values, what);
    FUZZ_CHECK(in.empty(), what);
  };
  std::string encoded;
  EncodeIntColumn(values, encoded);
  FUZZ_CHECK(encoded.size() == EncodedIntColumnSize(values), "EncodedIntColumnSize is exact");
  check(encoded, "the encoder's choice round-trips");
  for (const IntOrder order :
       {IntOrder::kDeltas, IntOrder::kDeltasOfDeltas, IntOrder::kBiasedDeltas}) {
    for (int frame_size_code = 0; frame_size_code < kIntFrameSizeCodes; ++frame_size_code) {
      encoded.clear();
      EncodeIntColumnWith(order, frame_size_code, values, encoded);
      check(encoded, "a forced order and frame size round-trips");
    }
  }
}

}  // namespace
}  // namespace edgemond::storage::codec

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  edgemond::fuzz::DecodeOrRoundTrip(data, size, edgemond::storage::codec::Decode,
                                    edgemond::storage::codec::RoundTrip);
  return 0;
}
