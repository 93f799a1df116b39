#include "storage/codec/int_column.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace edgemond::storage::codec {

namespace {

constexpr int kWidthBits = 7;   // A frame's width, 0..64.
constexpr int kFrameCodes = 4;  // Frames of 8, 16, 32 or 64 values.
constexpr std::size_t FrameSize(int code) { return std::size_t{8} << code; }
static_assert(kFrameCodes == kIntFrameSizeCodes);

std::int64_t Sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t Add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::uint64_t Magnitude(std::int64_t v) {
  return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

// What the encoder decided for one column.
struct Plan {
  int order = 1;          // 1: deltas; 2: deltas of deltas; 3: deltas minus a bias.
  std::int64_t bias = 0;  // Order 3: subtracted from every delta.
  int frame_code = 0;
  std::uint64_t divisor = 0;  // gcd of the residuals; 0 when all are 0.
  std::size_t packed_bits = 0;
  std::size_t bytes = 0;  // Whole encoding.
};

void ComputeResiduals(std::span<const std::int64_t> values, int order, std::int64_t bias,
                      std::vector<std::int64_t>& residuals) {
  residuals.clear();
  if (order != 2) {
    for (std::size_t i = 1; i < values.size(); ++i) {
      residuals.push_back(Sub(Sub(values[i], values[i - 1]), bias));
    }
  } else {
    for (std::size_t i = 2; i < values.size(); ++i) {
      residuals.push_back(Sub(Sub(values[i], values[i - 1]), Sub(values[i - 1], values[i - 2])));
    }
  }
}

std::uint64_t Divisor(std::span<const std::int64_t> residuals) {
  std::uint64_t divisor = 0;
  for (const std::int64_t r : residuals) {
    divisor = std::gcd(divisor, Magnitude(r));
    if (divisor == 1) break;
  }
  // Only INT64_MIN residuals give 2^63, which no int64 division can use.
  return divisor > static_cast<std::uint64_t>(INT64_MAX) ? 1 : divisor;
}

std::uint64_t Packed(std::int64_t residual, std::uint64_t divisor) {
  return ZigZag(residual / static_cast<std::int64_t>(divisor));
}

// Picks the frame size for residuals already divided: `widths` holds each value's bit width.
void ChooseFrame(const std::vector<std::uint8_t>& widths, Plan& plan) {
  plan.packed_bits = SIZE_MAX;
  for (int code = 0; code < kFrameCodes; ++code) {
    const std::size_t frame = FrameSize(code);
    std::size_t bits = 0;
    for (std::size_t start = 0; start < widths.size(); start += frame) {
      const std::size_t end = std::min(widths.size(), start + frame);
      const std::uint8_t width = *std::max_element(widths.begin() + static_cast<long>(start),
                                                   widths.begin() + static_cast<long>(end));
      bits += kWidthBits + static_cast<std::size_t>(width) * (end - start);
    }
    if (bits < plan.packed_bits) {
      plan.packed_bits = bits;
      plan.frame_code = code;
    }
  }
}

Plan MakePlan(std::span<const std::int64_t> values, int order, std::int64_t bias,
              std::vector<std::int64_t>& residuals, std::vector<std::uint8_t>& widths) {
  Plan plan;
  plan.order = order;
  plan.bias = bias;
  ComputeResiduals(values, order, bias, residuals);
  plan.divisor = Divisor(residuals);
  plan.bytes = 1 + VarintLength(ZigZag(values[0]));
  if (order == 2 && values.size() >= 2) {
    plan.bytes += VarintLength(ZigZag(Sub(values[1], values[0])));
  }
  if (order == 3) plan.bytes += VarintLength(ZigZag(bias));
  plan.bytes += VarintLength(plan.divisor);
  if (plan.divisor != 0) {
    widths.clear();
    for (const std::int64_t r : residuals) {
      widths.push_back(static_cast<std::uint8_t>(std::bit_width(Packed(r, plan.divisor))));
    }
    ChooseFrame(widths, plan);
    plan.bytes += (plan.packed_bits + 7) / 8;
  }
  return plan;
}

// The median delta: what a steady clock or a steadily rising counter adds per step.
std::int64_t MedianDelta(std::span<const std::int64_t> values) {
  std::vector<std::int64_t> deltas;
  deltas.reserve(values.size() - 1);
  for (std::size_t i = 1; i < values.size(); ++i) deltas.push_back(Sub(values[i], values[i - 1]));
  auto middle = deltas.begin() + static_cast<long>(deltas.size() / 2);
  std::nth_element(deltas.begin(), middle, deltas.end());
  return *middle;
}

Plan BestPlan(std::span<const std::int64_t> values, std::vector<std::int64_t>& residuals) {
  std::vector<std::uint8_t> widths;
  Plan best = MakePlan(values, 1, 0, residuals, widths);
  if (values.size() >= 3) {
    const std::int64_t bias = MedianDelta(values);
    if (bias != 0) {
      Plan biased = MakePlan(values, 3, bias, residuals, widths);
      if (biased.bytes < best.bytes) best = biased;
    }
    Plan second = MakePlan(values, 2, 0, residuals, widths);
    if (second.bytes < best.bytes) best = second;
  }
  return best;
}

}  // namespace

std::size_t EncodedIntColumnSize(std::span<const std::int64_t> values) {
  if (values.empty()) return 0;
  std::vector<std::int64_t> residuals;
  return BestPlan(values, residuals).bytes;
}

namespace {

void WritePlan(std::span<const std::int64_t> values, const Plan& plan,
               std::vector<std::int64_t>& residuals, std::string& out) {
  // The plan may have been chosen with another order's residuals left behind.
  ComputeResiduals(values, plan.order, plan.bias, residuals);
  out.push_back(static_cast<char>((plan.order - 1) | (plan.frame_code << 2)));
  PutSignedVarint(out, values[0]);
  if (plan.order == 2 && values.size() >= 2) PutSignedVarint(out, Sub(values[1], values[0]));
  if (plan.order == 3) PutSignedVarint(out, plan.bias);
  PutVarint(out, plan.divisor);
  if (plan.divisor != 0) {
    BitWriter bits(out);
    const std::size_t frame = FrameSize(plan.frame_code);
    for (std::size_t begin = 0; begin < residuals.size(); begin += frame) {
      const std::size_t end = std::min(residuals.size(), begin + frame);
      int width = 0;
      for (std::size_t i = begin; i < end; ++i) {
        width =
            std::max(width, static_cast<int>(std::bit_width(Packed(residuals[i], plan.divisor))));
      }
      bits.Write(static_cast<std::uint64_t>(width), kWidthBits);
      for (std::size_t i = begin; i < end; ++i)
        bits.Write(Packed(residuals[i], plan.divisor), width);
    }
    bits.Finish();
  }
}

}  // namespace

void EncodeIntColumn(std::span<const std::int64_t> values, std::string& out) {
  if (values.empty()) return;
  std::vector<std::int64_t> residuals;
  WritePlan(values, BestPlan(values, residuals), residuals, out);
}

void EncodeIntColumnWith(IntOrder order, int frame_size_code, std::span<const std::int64_t> values,
                         std::string& out) {
  if (values.empty()) return;
  std::vector<std::int64_t> residuals;
  std::vector<std::uint8_t> widths;
  const int n = static_cast<int>(order);
  const std::int64_t bias =
      order == IntOrder::kBiasedDeltas && values.size() >= 2 ? MedianDelta(values) : 0;
  Plan plan = MakePlan(values, n, bias, residuals, widths);
  plan.frame_code = std::clamp(frame_size_code, 0, kFrameCodes - 1);
  WritePlan(values, plan, residuals, out);
}

Status DecodeIntColumn(ByteReader& in, std::size_t count, std::vector<std::int64_t>& out) {
  out.clear();
  if (count == 0) return Status::Ok();
  const std::uint8_t mode = in.Byte();
  const int order = (mode & 3) + 1;
  const int frame_code = (mode >> 2) & 3;
  if ((mode >> 4) != 0 || order > 3) return Status::Corruption("integer column: unknown mode");
  out.resize(count);
  out[0] = in.SignedVarint();
  std::int64_t delta = 0;
  std::size_t next = 1;
  if (order == 2 && count >= 2) {
    delta = in.SignedVarint();
    out[1] = Add(out[0], delta);
    next = 2;
  }
  // Order 3 adds `bias` to every delta; orders 1 and 2 are the same loop with bias 0.
  const std::int64_t bias = order == 3 ? in.SignedVarint() : 0;
  const std::uint64_t divisor = in.Varint();
  if (!in.ok()) return Status::Corruption("integer column: truncated header");
  if (divisor > static_cast<std::uint64_t>(INT64_MAX)) {
    return Status::Corruption("integer column: divisor out of range");
  }
  if (divisor == 0) {
    for (std::size_t i = next; i < count; ++i) {
      if (order != 2) {
        out[i] = Add(out[i - 1], bias);
      } else {
        out[i] = Add(out[i - 1], delta);
      }
    }
    return Status::Ok();
  }
  BitReader bits(in.Rest());
  const std::size_t frame = FrameSize(frame_code);
  const auto multiplier = static_cast<std::uint64_t>(divisor);
  std::size_t i = next;
  while (i < count) {
    const int width = static_cast<int>(bits.Read(kWidthBits));
    if (width > 64) return Status::Corruption("integer column: frame width over 64 bits");
    const std::size_t end = std::min(count, i + frame);
    for (; i < end; ++i) {
      const auto residual = static_cast<std::int64_t>(
          static_cast<std::uint64_t>(UnZigZag(bits.Read(width))) * multiplier);
      if (order != 2) {
        out[i] = Add(Add(out[i - 1], bias), residual);
      } else {
        delta = Add(delta, residual);
        out[i] = Add(out[i - 1], delta);
      }
    }
  }
  if (!bits.ok()) return Status::Corruption("integer column: truncated bit stream");
  in.Skip(bits.bytes_consumed());
  return Status::Ok();
}

}  // namespace edgemond::storage::codec
