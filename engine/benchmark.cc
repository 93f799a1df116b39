#include "engine/benchmark.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace edgemond::engine {
namespace {

// SplitMix64: a tiny integer generator with good statistics; integer-only, so its sequence
// does not depend on floating-point code generation.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// Maps the top 24 bits to [-1, 1) exactly: every value is k / 2^23 for an integer k.
float UnitFloat(std::uint64_t bits) {
  const auto k = static_cast<std::int32_t>(bits >> 40) - (1 << 23);
  return static_cast<float>(k) / static_cast<float>(1 << 23);
}

template <typename T>
void FillIntegers(Tensor& tensor, SplitMix64& random) {
  for (T& v : tensor.mutable_values<T>()) v = static_cast<T>(random.Next() >> 60);
}

}  // namespace

Result<Tensor> MakeDeterministicTensor(const TensorInfo& info, std::uint64_t seed) {
  EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Create(info.dtype, info.shape));
  SplitMix64 random(seed);
  switch (info.dtype) {
    case DataType::kFloat32:
      for (float& v : tensor.mutable_values<float>()) v = UnitFloat(random.Next());
      break;
    case DataType::kFloat64:
      for (double& v : tensor.mutable_values<double>()) v = UnitFloat(random.Next());
      break;
    case DataType::kInt8:
      FillIntegers<std::int8_t>(tensor, random);
      break;
    case DataType::kUint8:
      FillIntegers<std::uint8_t>(tensor, random);
      break;
    case DataType::kInt16:
      FillIntegers<std::int16_t>(tensor, random);
      break;
    case DataType::kUint16:
      FillIntegers<std::uint16_t>(tensor, random);
      break;
    case DataType::kInt32:
      FillIntegers<std::int32_t>(tensor, random);
      break;
    case DataType::kUint32:
      FillIntegers<std::uint32_t>(tensor, random);
      break;
    case DataType::kInt64:
      FillIntegers<std::int64_t>(tensor, random);
      break;
    case DataType::kUint64:
      FillIntegers<std::uint64_t>(tensor, random);
      break;
    case DataType::kBool:
      for (bool& v : tensor.mutable_values<bool>()) v = (random.Next() >> 63) != 0;
      break;
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return Status::Unsupported("cannot generate " + std::string(DataTypeName(info.dtype)) +
                                 " inputs");
  }
  return tensor;
}

Status SetDeterministicInputs(Session& session, std::uint64_t seed) {
  const std::vector<IoInfo>& inputs = session.model().inputs();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    EDGEMOND_ASSIGN_OR_RETURN(const Tensor tensor,
                              MakeDeterministicTensor(inputs[i].info, seed + i));
    EDGEMOND_RETURN_IF_ERROR(session.SetInput(inputs[i].name, tensor.view()));
  }
  return Status::Ok();
}

LatencyStats ComputeLatencyStats(std::vector<std::chrono::nanoseconds> samples) {
  LatencyStats stats;
  if (samples.empty()) return stats;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  stats.runs = static_cast<int>(n);
  for (const auto sample : samples) stats.total += sample;
  stats.min = samples.front();
  stats.max = samples.back();
  stats.mean = stats.total / static_cast<std::int64_t>(n);
  // Nearest rank: the smallest sample with at least p% of samples at or below it.
  const auto percentile = [&](double p) {
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(n)));
    return samples[std::clamp<std::size_t>(rank, 1, n) - 1];
  };
  stats.p50 = percentile(50);
  stats.p90 = percentile(90);
  stats.p99 = percentile(99);
  const double seconds = std::chrono::duration<double>(stats.total).count();
  stats.throughput_per_second = seconds > 0 ? static_cast<double>(n) / seconds : 0.0;
  return stats;
}

namespace {

// BenchmarkSpec's two observers as one.
class NestedObservers final : public StepObserver {
 public:
  NestedObservers(StepObserver& outer, StepObserver& inner) : outer_(outer), inner_(inner) {}
  void BeforeStep(int step) override {
    outer_.BeforeStep(step);
    inner_.BeforeStep(step);
  }
  void AfterStep(int step) override {
    inner_.AfterStep(step);
    outer_.AfterStep(step);
  }

 private:
  StepObserver& outer_;
  StepObserver& inner_;
};

}  // namespace

Result<LatencyStats> RunBenchmark(Session& session, const BenchmarkSpec& spec, const Clock& clock) {
  if (spec.warmup_runs < 0 || spec.runs < 1) {
    return Status::InvalidArgument("benchmark needs warmup >= 0 and runs >= 1");
  }
  for (int i = 0; i < spec.warmup_runs; ++i) EDGEMOND_RETURN_IF_ERROR(session.Run());
  std::optional<NestedObservers> both;
  StepObserver* observer = spec.observer != nullptr ? spec.observer : spec.tracer;
  if (spec.observer != nullptr && spec.tracer != nullptr) {
    observer = &both.emplace(*spec.observer, *spec.tracer);
  }
  std::vector<std::chrono::nanoseconds> samples;
  const SteadyTime begin = clock.Now();
  for (;;) {
    const SteadyTime start = clock.Now();
    EDGEMOND_RETURN_IF_ERROR(session.Run(observer));
    const SteadyTime end = clock.Now();
    samples.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start));
    if (spec.duration > std::chrono::nanoseconds(0)) {
      if (end - begin >= spec.duration) break;
    } else if (static_cast<int>(samples.size()) >= spec.runs) {
      break;
    }
  }
  return ComputeLatencyStats(std::move(samples));
}

}  // namespace edgemond::engine
