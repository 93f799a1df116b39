#include "engine/benchmark.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/testing/op_tester.h"
#include "tests/testing/fake_clock.h"

namespace edgemond::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(LatencyStatsTest, NearestRankPercentiles) {
  std::vector<nanoseconds> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(milliseconds(i));
  const LatencyStats stats = ComputeLatencyStats(samples);
  EXPECT_EQ(stats.runs, 100);
  EXPECT_EQ(stats.min, milliseconds(1));
  EXPECT_EQ(stats.max, milliseconds(100));
  EXPECT_EQ(stats.p50, milliseconds(50));
  EXPECT_EQ(stats.p90, milliseconds(90));
  EXPECT_EQ(stats.p99, milliseconds(99));
  EXPECT_EQ(stats.mean, nanoseconds(50'500'000));
  EXPECT_NEAR(stats.throughput_per_second, 100 / 5.05, 1e-9);
}

TEST(LatencyStatsTest, SmallAndEmptySamples) {
  const LatencyStats one = ComputeLatencyStats({milliseconds(7)});
  EXPECT_EQ(one.p50, milliseconds(7));
  EXPECT_EQ(one.p99, milliseconds(7));
  EXPECT_EQ(ComputeLatencyStats({}).runs, 0);
}

TEST(DeterministicTensorTest, IsReproducibleAndExact) {
  const TensorInfo info{DataType::kFloat32, Shape({1000}), Layout::kPlain};
  Result<Tensor> a = MakeDeterministicTensor(info, 7);
  Result<Tensor> b = MakeDeterministicTensor(info, 7);
  Result<Tensor> c = MakeDeterministicTensor(info, 8);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  bool differs = false;
  double sum = 0;
  for (std::size_t i = 0; i < 1000; ++i) {
    const float v = a->values<float>()[i];
    EXPECT_EQ(v, b->values<float>()[i]);
    differs = differs || v != c->values<float>()[i];
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
    // Every value is k / 2^23 exactly.
    const double scaled = static_cast<double>(v) * (1 << 23);
    EXPECT_EQ(scaled, static_cast<double>(static_cast<std::int64_t>(scaled)));
    sum += v;
  }
  EXPECT_TRUE(differs);
  EXPECT_NEAR(sum / 1000, 0.0, 0.1);
  // Pinned: a change here would change every benchmark input.
  EXPECT_EQ(a->values<float>()[0] * (1 << 23), -1848351.0f);  // SplitMix64(7), by hand.
}

TEST(RunBenchmarkTest, RunsWarmupsAndTimedRuns) {
  testing::OpTester test("Relu", 14);
  test.Input("x", testing::IotaTensor(Shape({8}))).Output("y");
  Result<std::shared_ptr<const Model>> model = test.Build();
  ASSERT_TRUE(model.ok());
  Result<std::unique_ptr<Session>> session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  edgemond::testing::FakeClock clock;
  EXPECT_EQ(RunBenchmark(**session, {}, clock).status().code(),
            StatusCode::kFailedPrecondition);  // Inputs not set.
  ASSERT_TRUE(SetDeterministicInputs(**session, 1).ok());
  StepProfile profile(clock, (*model)->steps().size());
  Result<LatencyStats> stats =
      RunBenchmark(**session, {.warmup_runs = 2, .runs = 5, .observer = &profile}, clock);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->runs, 5);
  EXPECT_EQ(stats->max, nanoseconds(0));  // The fake clock never moved.
  EXPECT_FALSE(RunBenchmark(**session, {.runs = 0}, clock).ok());
}

// A clock that moves 1 ms every time it is read, so each measured interval is known.
class TickingClock final : public Clock {
 public:
  SteadyTime Now() const override {
    now_ += milliseconds(1);
    return now_;
  }
  WallTime WallNow() const override { return WallTime(); }

 private:
  mutable SteadyTime now_;
};

TEST(RunBenchmarkTest, TimesRunsAndStepsWithTheGivenClock) {
  testing::OpTester test("Relu", 14);
  test.Input("x", testing::IotaTensor(Shape({8}))).Output("y");
  Result<std::shared_ptr<const Model>> model = test.Build();
  ASSERT_TRUE(model.ok());
  Result<std::unique_ptr<Session>> session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE(SetDeterministicInputs(**session, 1).ok());
  const TickingClock clock;
  StepProfile profile(clock, (*model)->steps().size());
  Result<LatencyStats> stats =
      RunBenchmark(**session, {.warmup_runs = 0, .runs = 3, .observer = &profile}, clock);
  ASSERT_TRUE(stats.ok()) << stats.status();
  // Per run the benchmark reads the clock at start and end, the profile twice in between.
  EXPECT_EQ(stats->p50, milliseconds(3));
  EXPECT_EQ(profile.totals()[0], milliseconds(3));
  EXPECT_EQ(profile.minimums()[0], milliseconds(1));
}

// Writes "<name> before/after <step>" into a shared log.
class LoggingObserver final : public StepObserver {
 public:
  LoggingObserver(std::string name, std::vector<std::string>& log)
      : name_(std::move(name)), log_(log) {}
  void BeforeStep(int step) override { log_.push_back(name_ + " before " + std::to_string(step)); }
  void AfterStep(int step) override { log_.push_back(name_ + " after " + std::to_string(step)); }

 private:
  std::string name_;
  std::vector<std::string>& log_;
};

TEST(RunBenchmarkTest, TheTracerSeesEveryTimedStepInsideTheObserver) {
  testing::OpTester test("Relu", 14);
  test.Input("x", testing::IotaTensor(Shape({8}))).Output("y");
  Result<std::shared_ptr<const Model>> model = test.Build();
  ASSERT_TRUE(model.ok());
  Result<std::unique_ptr<Session>> session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE(SetDeterministicInputs(**session, 1).ok());
  edgemond::testing::FakeClock clock;
  std::vector<std::string> log;
  LoggingObserver observer("observer", log);
  LoggingObserver tracer("tracer", log);
  ASSERT_TRUE(RunBenchmark(**session,
                           {.warmup_runs = 1, .runs = 2, .observer = &observer, .tracer = &tracer},
                           clock)
                  .ok());
  const std::vector<std::string> run = {"observer before 0", "tracer before 0", "tracer after 0",
                                        "observer after 0"};
  std::vector<std::string> expected = run;
  expected.insert(expected.end(), run.begin(), run.end());
  EXPECT_EQ(log, expected);

  log.clear();
  ASSERT_TRUE(
      RunBenchmark(**session, {.warmup_runs = 0, .runs = 1, .tracer = &tracer}, clock).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"tracer before 0", "tracer after 0"}));
}

}  // namespace
}  // namespace edgemond::engine
