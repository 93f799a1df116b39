// Fuzz target for the value codecs (storage/codec/value_column.h), two ways chosen by the first
// byte:
//  - even: the rest is an encoded column of `count` values (the next two bytes): decoding must
//    give `count` values or kCorruption, never a crash or a read past the end;
//  - odd: the rest, 8 bytes per value, is a column of doubles (any bit pattern: NaN payloads,
//    -0.0, infinities): the encoder's choice and each codec that accepts the values must decode
//    to the same bits.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "storage/codec/value_column.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"

namespace edgemond::storage::codec {
namespace {

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void Decode(std::size_t count, std::string_view bytes) {
  ByteReader in(bytes);
  std::vector<double> out;
  const Status status = DecodeValueColumn(in, count, out);
  if (status.ok()) {
    FUZZ_CHECK(out.size() == count, "decoded count");
  } else {
    FUZZ_CHECK(status.code() == StatusCode::kCorruption, "decode error code");
  }
}

void RoundTrip(std::string_view bytes) {
  std::vector<double> values(bytes.size() / sizeof(double));
  if (values.empty()) return;
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(double));
  const auto check = [&](const std::string& encoded, const char* what) {
    ByteReader in(encoded);
    std::vector<double> decoded;
    FUZZ_CHECK(DecodeValueColumn(in, values.size(), decoded).ok(), what);
    FUZZ_CHECK(SameBits(values, decoded), what);
    FUZZ_CHECK(in.empty(), what);
  };
  std::string encoded;
  EncodeValueColumn(values, encoded);
  check(encoded, "the encoder's choice round-trips");
  for (const ValueCodec codec : {ValueCodec::kXor, ValueCodec::kScaled, ValueCodec::kRatio}) {
    encoded.clear();
    if (EncodeValueColumnWith(codec, values, encoded)) check(encoded, "a forced codec round-trips");
  }
}

}  // namespace
}  // namespace edgemond::storage::codec

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  edgemond::fuzz::DecodeOrRoundTrip(data, size, edgemond::storage::codec::Decode,
                                    edgemond::storage::codec::RoundTrip);
  return 0;
}
