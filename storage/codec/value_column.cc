#include "storage/codec/value_column.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>

#include "storage/codec/int_column.h"

namespace edgemond::storage::codec {

namespace {

// Below 2^53 every integer is a double, so n <-> double conversions are exact.
constexpr double kMaxExactInteger = 9007199254740992.0;
// Largest denominator the ratio codec looks for: jiffies over minutes on many cores.
constexpr std::int64_t kMaxDenominator = std::int64_t{1} << 20;
// How far from the previous denominator the ratio codec looks first (total jiffies per
// interval wander by a few per core).
constexpr std::int64_t kDenominatorSearch = 16;

std::uint64_t Bits(double value) { return std::bit_cast<std::uint64_t>(value); }
bool SameBits(double a, double b) { return Bits(a) == Bits(b); }

std::size_t MaxExceptions(std::size_t count) { return count / 8; }

// The first byte of a column: the codec in bits 0-1, whether exceptions follow in bit 2, and for
// kScaled the scale's index in kScales in bits 3-7.
constexpr std::uint8_t kHasExceptions = 1 << 2;
char Header(ValueCodec codec, bool exceptions, std::size_t scale = 0) {
  return static_cast<char>(static_cast<std::uint8_t>(codec) | (exceptions ? kHasExceptions : 0) |
                           (scale << 3));
}

// --- XOR ---------------------------------------------------------------------------------------

void EncodeXor(std::span<const double> values, std::string& out) {
  out.push_back(Header(ValueCodec::kXor, false));
  BitWriter bits(out);
  std::uint64_t previous = Bits(values[0]);
  bits.Write(previous, 64);
  int window_lead = -1;  // No window yet.
  int window_trail = 0;
  for (std::size_t i = 1; i < values.size(); ++i) {
    const std::uint64_t current = Bits(values[i]);
    const std::uint64_t x = current ^ previous;
    previous = current;
    if (x == 0) {
      bits.Write(0, 1);
      continue;
    }
    const int lead = std::countl_zero(x);
    const int trail = std::countr_zero(x);
    if (window_lead >= 0 && lead >= window_lead && trail >= window_trail) {
      bits.Write(0b10, 2);
      bits.Write(x >> window_trail, 64 - window_lead - window_trail);
    } else {
      const int length = 64 - lead - trail;
      bits.Write(0b11, 2);
      bits.Write(static_cast<std::uint64_t>(lead), 6);
      bits.Write(static_cast<std::uint64_t>(length - 1), 6);
      bits.Write(x >> trail, length);
      window_lead = lead;
      window_trail = trail;
    }
  }
  bits.Finish();
}

Status DecodeXor(ByteReader& in, std::size_t count, std::vector<double>& out) {
  BitReader bits(in.Rest());
  std::uint64_t previous = bits.Read(64);
  out.push_back(std::bit_cast<double>(previous));
  int window_lead = -1;
  int window_trail = 0;
  for (std::size_t i = 1; i < count; ++i) {
    if (bits.Read(1) == 0) {
      out.push_back(std::bit_cast<double>(previous));
      continue;
    }
    std::uint64_t x = 0;
    if (bits.Read(1) == 0) {
      if (window_lead < 0) return Status::Corruption("xor column: window used before it is set");
      x = bits.Read(64 - window_lead - window_trail) << window_trail;
    } else {
      const int lead = static_cast<int>(bits.Read(6));
      const int length = static_cast<int>(bits.Read(6)) + 1;
      if (lead + length > 64) return Status::Corruption("xor column: window out of range");
      const int trail = 64 - lead - length;
      x = bits.Read(length) << trail;
      window_lead = lead;
      window_trail = trail;
    }
    previous ^= x;
    out.push_back(std::bit_cast<double>(previous));
    if (!bits.ok()) break;
  }
  if (!bits.ok()) return Status::Corruption("xor column: truncated bit stream");
  in.Skip(bits.bytes_consumed());
  return Status::Ok();
}

// --- Exceptions (values stored raw) -----------------------------------------------------------

void PutExceptions(std::span<const double> values, const std::vector<std::size_t>& indexes,
                   std::string& out) {
  PutVarint(out, indexes.size());
  std::size_t previous = 0;
  for (const std::size_t index : indexes) {
    PutVarint(out, index - previous);
    previous = index;
    std::uint64_t bits = Bits(values[index]);
    for (int b = 0; b < 8; ++b) {
      out.push_back(static_cast<char>(bits & 0xff));
      bits >>= 8;
    }
  }
}

struct Exception {
  std::size_t index;
  double value;
};

Status GetExceptions(ByteReader& in, std::size_t count, std::vector<Exception>& exceptions) {
  exceptions.clear();
  const std::uint64_t n = in.Varint();
  if (!in.ok() || n > count) return Status::Corruption("value column: bad exception count");
  std::size_t index = 0;
  for (std::uint64_t e = 0; e < n; ++e) {
    const std::uint64_t delta = in.Varint();
    if (delta > count) return Status::Corruption("value column: exception index out of range");
    index += static_cast<std::size_t>(delta);
    const std::string_view raw = in.Bytes(8);
    if (!in.ok() || index >= count) {
      return Status::Corruption("value column: exception index out of range");
    }
    std::uint64_t bits = 0;
    for (int b = 7; b >= 0; --b) bits = (bits << 8) | static_cast<std::uint8_t>(raw[b]);
    exceptions.push_back({index, std::bit_cast<double>(bits)});
  }
  return Status::Ok();
}

// --- Scaled integers ---------------------------------------------------------------------------

struct Scale {
  std::uint8_t op;  // 0: n / q; 1: n * (1.0 / q).
  std::int64_t q;
};

double Unscale(std::int64_t n, Scale scale) {
  const auto q = static_cast<double>(scale.q);
  return scale.op == 0 ? static_cast<double>(n) / q : static_cast<double>(n) * (1.0 / q);
}

std::optional<std::int64_t> ToScaled(double value, Scale scale) {
  const double scaled = value * static_cast<double>(scale.q);
  if (!(std::fabs(scaled) < kMaxExactInteger)) return std::nullopt;  // Also rejects NaN.
  const std::int64_t n = std::llround(scaled);
  if (!SameBits(Unscale(n, scale), value)) return std::nullopt;
  return n;
}

// The scales collectors produce, smallest first: the first that fits every value wins.
constexpr std::array<Scale, 21> kScales = {{
    {0, 1},          {0, 10},       {1, 10},       {0, 100},       {1, 100},       {0, 1000},
    {1, 1000},       {0, 10000},    {1, 10000},    {0, 100000},    {1, 100000},    {0, 1000000},
    {1, 1000000},    {0, 10000000}, {1, 10000000}, {0, 100000000}, {1, 100000000}, {0, 1000000000},
    {1, 1000000000}, {0, 255},      {1, 255},
}};

// The index in kScales of the scale with the fewest exceptions (at most MaxExceptions), if any.
std::optional<std::size_t> ChooseScale(std::span<const double> values,
                                       std::size_t* exceptions_out) {
  std::optional<std::size_t> best;
  std::size_t best_exceptions = MaxExceptions(values.size()) + 1;
  for (std::size_t i = 0; i < kScales.size(); ++i) {
    std::size_t exceptions = 0;
    for (const double value : values) {
      if (!ToScaled(value, kScales[i])) {
        if (++exceptions >= best_exceptions) break;
      }
    }
    if (exceptions < best_exceptions) {
      best = i;
      best_exceptions = exceptions;
      if (exceptions == 0) break;
    }
  }
  if (exceptions_out != nullptr) *exceptions_out = best_exceptions;
  return best;
}

void EncodeScaled(std::span<const double> values, std::size_t scale_index, std::string& out) {
  const Scale scale = kScales[scale_index];
  std::vector<std::int64_t> integers;
  std::vector<std::size_t> exceptions;
  integers.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto n = ToScaled(values[i], scale);
    if (!n) exceptions.push_back(i);
    // An exception repeats the previous integer, so that it costs nothing in the column.
    integers.push_back(n ? *n : (integers.empty() ? 0 : integers.back()));
  }
  out.push_back(Header(ValueCodec::kScaled, !exceptions.empty(), scale_index));
  if (!exceptions.empty()) PutExceptions(values, exceptions, out);
  EncodeIntColumn(integers, out);
}

// --- Ratios ------------------------------------------------------------------------------------

struct Fraction {
  std::int64_t p;
  std::int64_t q;
};

std::optional<Fraction> TryDenominator(double value, std::int64_t q) {
  if (q <= 0 || q > kMaxDenominator) return std::nullopt;
  const double scaled = value * static_cast<double>(q);
  if (!(std::fabs(scaled) < kMaxExactInteger)) return std::nullopt;
  const std::int64_t p = std::llround(scaled);
  if (!SameBits(static_cast<double>(p) / static_cast<double>(q), value)) return std::nullopt;
  return Fraction{p, q};
}

// p / q == value with q near `hint` if possible, else the smallest q (continued fractions).
std::optional<Fraction> FindFraction(double value, std::int64_t hint) {
  if (!std::isfinite(value)) return std::nullopt;
  if (hint > 0) {
    for (std::int64_t k = 0; k <= kDenominatorSearch; ++k) {
      if (auto f = TryDenominator(value, hint + k)) return f;
      if (k > 0) {
        if (auto f = TryDenominator(value, hint - k)) return f;
      }
    }
  }
  const double x = std::fabs(value);
  if (x >= 2147483648.0) return std::nullopt;
  // The denominators k_n = a_n k_{n-1} + k_{n-2} of the convergents of x's continued fraction;
  // the first one that reproduces the value exactly is the smallest denominator that does.
  std::int64_t k_before = 1;  // k_{-2}
  std::int64_t k_last = 0;    // k_{-1}
  double rest = x;
  for (int iteration = 0; iteration < 64; ++iteration) {
    const double a = std::floor(rest);
    if (k_last > 0 && a > static_cast<double>(kMaxDenominator)) break;
    const std::int64_t k = static_cast<std::int64_t>(a) * k_last + k_before;
    if (k > kMaxDenominator) break;
    if (auto f = TryDenominator(value, k)) return f;
    k_before = k_last;
    k_last = k;
    const double fraction = rest - a;
    if (fraction <= 0) break;
    rest = 1.0 / fraction;
  }
  return std::nullopt;
}

// Returns false when more than MaxExceptions values are not small fractions.
bool EncodeRatio(std::span<const double> values, std::string& out) {
  std::vector<std::int64_t> numerators;
  std::vector<std::int64_t> denominators;
  std::vector<std::size_t> exceptions;
  std::int64_t hint = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto f = FindFraction(values[i], hint);
    if (!f) {
      exceptions.push_back(i);
      if (exceptions.size() > MaxExceptions(values.size())) return false;
      numerators.push_back(numerators.empty() ? 0 : numerators.back());
      denominators.push_back(denominators.empty() ? 1 : denominators.back());
      continue;
    }
    numerators.push_back(f->p);
    denominators.push_back(f->q);
    hint = f->q;
  }
  out.push_back(Header(ValueCodec::kRatio, !exceptions.empty()));
  if (!exceptions.empty()) PutExceptions(values, exceptions, out);
  EncodeIntColumn(denominators, out);
  EncodeIntColumn(numerators, out);
  return true;
}

void ApplyExceptions(const std::vector<Exception>& exceptions, std::vector<double>& out) {
  for (const Exception& e : exceptions) out[e.index] = e.value;
}

}  // namespace

std::optional<ScaledIntegers> ToScaledIntegers(std::span<const double> values) {
  std::size_t exceptions = 0;
  const auto index = ChooseScale(values, &exceptions);
  if (!index) return std::nullopt;
  const Scale scale = kScales[*index];
  ScaledIntegers result;
  result.q = scale.q;
  result.reciprocal = scale.op == 1;
  result.exceptions = exceptions;
  for (const double value : values) {
    const auto n = ToScaled(value, scale);
    result.integers.push_back(n ? *n : (result.integers.empty() ? 0 : result.integers.back()));
  }
  return result;
}

bool EncodeValueColumnWith(ValueCodec codec, std::span<const double> values, std::string& out) {
  if (values.empty()) return true;
  switch (codec) {
    case ValueCodec::kXor:
      EncodeXor(values, out);
      return true;
    case ValueCodec::kScaled: {
      const auto index = ChooseScale(values, nullptr);
      if (!index) return false;
      EncodeScaled(values, *index, out);
      return true;
    }
    case ValueCodec::kRatio: {
      std::string encoded;
      if (!EncodeRatio(values, encoded)) return false;
      out += encoded;
      return true;
    }
  }
  return false;
}

ValueCodec EncodeValueColumn(std::span<const double> values, std::string& out) {
  if (values.empty()) return ValueCodec::kXor;
  std::string best;
  ValueCodec best_codec = ValueCodec::kXor;
  std::size_t exceptions = 0;
  const auto index = ChooseScale(values, &exceptions);
  if (index) {
    EncodeScaled(values, *index, best);
    best_codec = ValueCodec::kScaled;
  }
  if (!index || exceptions > 0) {
    std::string ratio;
    if (EncodeRatio(values, ratio) && (best.empty() || ratio.size() < best.size())) {
      best = std::move(ratio);
      best_codec = ValueCodec::kRatio;
    }
  }
  std::string xor_encoded;
  EncodeXor(values, xor_encoded);
  if (best.empty() || xor_encoded.size() < best.size()) {
    best = std::move(xor_encoded);
    best_codec = ValueCodec::kXor;
  }
  out += best;
  return best_codec;
}

Status DecodeValueColumn(ByteReader& in, std::size_t count, std::vector<double>& out,
                         DecodeScratch& scratch) {
  out.clear();
  if (count == 0) return Status::Ok();
  out.reserve(count);
  const std::uint8_t header = in.Byte();
  if (!in.ok()) return Status::Corruption("value column: truncated");
  const auto codec = static_cast<ValueCodec>(header & 3);
  const bool has_exceptions = (header & kHasExceptions) != 0;
  const std::size_t scale_index = header >> 3;
  std::vector<Exception> exceptions;
  switch (codec) {
    case ValueCodec::kXor:
      if (header != 0) return Status::Corruption("value column: bad xor header");
      return DecodeXor(in, count, out);
    case ValueCodec::kScaled: {
      if (scale_index >= kScales.size()) return Status::Corruption("value column: bad scale");
      const Scale scale = kScales[scale_index];
      if (has_exceptions) EDGEMOND_RETURN_IF_ERROR(GetExceptions(in, count, exceptions));
      std::vector<std::int64_t>& integers = scratch.first;
      EDGEMOND_RETURN_IF_ERROR(DecodeIntColumn(in, count, integers));
      out.resize(count);
      const auto q = static_cast<double>(scale.q);
      if (scale.op == 0) {
        for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<double>(integers[i]) / q;
      } else {
        const double reciprocal = 1.0 / q;
        for (std::size_t i = 0; i < count; ++i) {
          out[i] = static_cast<double>(integers[i]) * reciprocal;
        }
      }
      ApplyExceptions(exceptions, out);
      return Status::Ok();
    }
    case ValueCodec::kRatio: {
      if (scale_index != 0) return Status::Corruption("value column: bad ratio header");
      if (has_exceptions) EDGEMOND_RETURN_IF_ERROR(GetExceptions(in, count, exceptions));
      std::vector<std::int64_t>& denominators = scratch.first;
      std::vector<std::int64_t>& numerators = scratch.second;
      EDGEMOND_RETURN_IF_ERROR(DecodeIntColumn(in, count, denominators));
      EDGEMOND_RETURN_IF_ERROR(DecodeIntColumn(in, count, numerators));
      for (std::size_t i = 0; i < count; ++i) {
        if (denominators[i] == 0) return Status::Corruption("value column: zero denominator");
        out.push_back(static_cast<double>(numerators[i]) / static_cast<double>(denominators[i]));
      }
      ApplyExceptions(exceptions, out);
      return Status::Ok();
    }
  }
  return Status::Corruption("value column: unknown codec " + std::to_string(header & 3));
}

}  // namespace edgemond::storage::codec
