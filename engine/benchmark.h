// Benchmarking a Session: deterministic inputs, warm-up and timed runs, latency statistics and
// per-node profiles. Used by edgemond-bench and, through it, by the daemon's self-benchmark.
//
// Inputs are pseudo-random but bit-identical on every machine and compiler: an integer
// generator (SplitMix64) whose top 24 bits map exactly to floats in [-1, 1). Floating-point
// generators such as std::normal_distribution give different values under different
// compiler flags (-ffp-contract), which once looked like an accuracy bug.

#ifndef EDGEMOND_ENGINE_BENCHMARK_H_
#define EDGEMOND_ENGINE_BENCHMARK_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "engine/session.h"
#include "engine/tensor.h"

namespace edgemond::engine {

// A tensor of `info`'s type and shape filled from `seed`: floats in [-1, 1), integers in
// [0, 16), booleans. Equal arguments give equal tensors everywhere.
Result<Tensor> MakeDeterministicTensor(const TensorInfo& info, std::uint64_t seed);

// Sets every input of `session` to MakeDeterministicTensor(input, seed + index).
Status SetDeterministicInputs(Session& session, std::uint64_t seed);

struct BenchmarkSpec {
  int warmup_runs = 1;
  int runs = 10;  // Timed runs, when duration is zero.
  // When positive, runs until this much time has passed on the clock (at least one run)
  // instead; the clock must advance.
  std::chrono::nanoseconds duration{0};
  // When set, receives each timed run's per-step times.
  StepObserver* observer = nullptr;
  // When set, also receives them (--trace next to --profile): told after `observer` at the
  // start of a step and before it at the end, so that `observer`'s interval encloses its own.
  StepObserver* tracer = nullptr;
};

struct LatencyStats {
  int runs = 0;
  std::chrono::nanoseconds min{0};
  std::chrono::nanoseconds mean{0};
  std::chrono::nanoseconds p50{0};
  std::chrono::nanoseconds p90{0};
  std::chrono::nanoseconds p99{0};
  std::chrono::nanoseconds max{0};
  std::chrono::nanoseconds total{0};
  double throughput_per_second = 0.0;  // runs / total.
};

// Statistics of `samples` (nearest-rank percentiles); all zero when empty.
LatencyStats ComputeLatencyStats(std::vector<std::chrono::nanoseconds> samples);

// Runs warm-ups and timed runs on a session whose inputs are set, timing with `clock`.
Result<LatencyStats> RunBenchmark(Session& session, const BenchmarkSpec& spec, const Clock& clock);

// Sums per-step times over runs, and keeps each step's fastest run, read from `clock`; a
// StepObserver for --profile. On a shared machine the minimum is the robust figure: another
// process taking the core inflates the sums but rarely every run of a step.
class StepProfile final : public StepObserver {
 public:
  StepProfile(const Clock& clock, std::size_t steps)
      : clock_(clock),
        totals_(steps, std::chrono::nanoseconds(0)),
        minimums_(steps, std::chrono::nanoseconds::max()) {}
  void BeforeStep(int step) override {
    (void)step;
    start_ = clock_.Now();
  }
  void AfterStep(int step) override {
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::nanoseconds>(clock_.Now() - start_);
    const auto s = static_cast<std::size_t>(step);
    totals_[s] += elapsed;
    if (elapsed < minimums_[s]) minimums_[s] = elapsed;
  }
  const std::vector<std::chrono::nanoseconds>& totals() const { return totals_; }
  // nanoseconds::max() for a step that never ran.
  const std::vector<std::chrono::nanoseconds>& minimums() const { return minimums_; }

 private:
  const Clock& clock_;  // Not owned; outlives the profile.
  SteadyTime start_;
  std::vector<std::chrono::nanoseconds> totals_;
  std::vector<std::chrono::nanoseconds> minimums_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_BENCHMARK_H_
