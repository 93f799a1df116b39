#include "selfbench/verdict.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace edgemond::selfbench {
namespace {

BenchmarkRun Good(double p50_ms, double joules = 0.010, std::int64_t rss = 50 << 20) {
  BenchmarkRun run;
  run.model = "m";
  run.status = BenchmarkStatus::kSucceeded;
  run.settings = "threads=1 warmup=3 duration=10s";
  run.model_bytes = 1000;
  run.latency_p50_ms = p50_ms;
  run.latency_p99_ms = p50_ms * 1.5;
  run.energy_per_inference_joules = joules;
  run.peak_rss_bytes = rss;
  run.power_mode = "0 MAXN";
  run.max_temperature_start_celsius = 50;
  run.cpu_frequency_end_hertz = 2e9;
  return run;
}

ModelSpec Spec() {
  ModelSpec spec;
  spec.name = "m";
  spec.path = "/m.onnx";
  return spec;
}

const Check* Find(const Verdict& verdict, std::string_view kind) {
  const auto it = std::find_if(verdict.checks.begin(), verdict.checks.end(),
                               [&](const Check& c) { return c.kind == kind; });
  return it == verdict.checks.end() ? nullptr : &*it;
}

TEST(VerdictTest, TheBaselineIsTheMedianOfGoodRuns) {
  const BenchmarkBaseline baseline =
      ComputeBaseline("0 MAXN", {Good(10), Good(30), Good(12), Good(11)});
  EXPECT_EQ(baseline.runs, 4);
  EXPECT_EQ(baseline.latency_p50_ms, 11.5);
  EXPECT_EQ(baseline.energy_per_inference_joules, 0.010);
  EXPECT_EQ(baseline.cpu_frequency_end_hertz, 2e9);
  BenchmarkRun mismatch = Good(10);
  mismatch.outputs_match = false;
  EXPECT_FALSE(IsGoodRun(mismatch));
  BenchmarkRun failed;
  failed.status = BenchmarkStatus::kFailed;
  EXPECT_FALSE(IsGoodRun(failed));
  EXPECT_TRUE(IsGoodRun(Good(1)));
}

TEST(VerdictTest, ARunWithinItsMarginsPassesEveryCheck) {
  const Verdict verdict = Judge(Good(11), Spec(), {Good(10), Good(10), Good(10)}, Good(10), 3);
  EXPECT_FALSE(verdict.any_failed());
  ASSERT_TRUE(Find(verdict, "latency"));
  EXPECT_NEAR(*Find(verdict, "latency")->value, 1.1, 1e-9);
  EXPECT_EQ(Find(verdict, "latency")->threshold, 1.2);
  EXPECT_TRUE(Find(verdict, "energy"));
  EXPECT_TRUE(Find(verdict, "memory"));
  EXPECT_TRUE(verdict.hints.empty());
}

TEST(VerdictTest, ASlowRunRegressesWithItsLikelyCauses) {
  BenchmarkRun run = Good(15);
  run.settings = "threads=8 warmup=3 duration=10s";
  run.throttled = true;
  run.throttle_reasons = {"cpu/frequency_cap", "cpu/thermal"};
  run.cpu_frequency_end_hertz = 1.2e9;
  run.max_temperature_start_celsius = 71;
  run.other_cpu_utilization = 0.5;
  run.power_mode = "0 MAXN";
  BenchmarkRun previous = Good(10);
  previous.power_mode = "1 15W";
  const Verdict verdict = Judge(run, Spec(), {Good(10), Good(10), Good(10)}, previous, 3);
  ASSERT_TRUE(verdict.any_failed());
  const Check* latency = Find(verdict, "latency");
  ASSERT_TRUE(latency);
  EXPECT_TRUE(latency->failed);
  EXPECT_NEAR(*latency->value, 1.5, 1e-9);
  EXPECT_EQ(latency->summary,
            "p50 latency 15 ms is 1.50x the baseline of 10 ms (power mode 0 MAXN, 3 runs; margin "
            "20 %)");
  EXPECT_FALSE(Find(verdict, "energy")->failed);
  EXPECT_EQ(verdict.hints,
            (std::vector<std::string>{
                "throttled during the run (cpu/frequency_cap, cpu/thermal)",
                "CPU clocks lower than in the baseline runs (1.2 GHz vs 2 GHz)",
                "started 21 °C hotter than the baseline runs (71 °C vs 50 °C)",
                "power mode 0 MAXN, the previous run was in power mode 1 15W",
                "the device was busy: other work used 50 % of the CPU during the run, so it "
                "measured contention too",
                "the run settings changed since the baseline runs (threads=1 warmup=3 "
                "duration=10s -> threads=8 warmup=3 duration=10s)"}));
  BenchmarkRun applied = run;
  ApplyVerdict(verdict, applied);
  EXPECT_EQ(applied.regressions, std::vector<std::string>{"latency"});
  EXPECT_EQ(applied.baseline_runs, 3);
  EXPECT_EQ(applied.baseline_latency_p50_ms, 10);
}

TEST(VerdictTest, NoRegressionIsJudgedWithoutEnoughBaselineRuns) {
  const Verdict verdict = Judge(Good(50), Spec(), {Good(10), Good(10)}, Good(10), 3);
  EXPECT_FALSE(verdict.any_failed());
  EXPECT_FALSE(Find(verdict, "latency"));
  EXPECT_FALSE(verdict.baseline);
}

TEST(VerdictTest, BudgetsAndGoldenData) {
  ModelSpec spec = Spec();
  spec.budget_p99_latency_ms = 20;
  spec.budget_energy_per_inference_millijoules = 5;
  spec.golden_data = "/m/test_data_set_0";
  BenchmarkRun run = Good(14, 0.004);  // p99 21 ms, 4 mJ.
  run.outputs_match = false;
  run.max_abs_error = 0.25;
  run.top1_match = false;
  const Verdict verdict = Judge(run, spec, {}, std::nullopt, 3);
  EXPECT_TRUE(Find(verdict, "latency_budget")->failed);
  EXPECT_EQ(Find(verdict, "latency_budget")->value, 21);
  EXPECT_EQ(Find(verdict, "latency_budget")->summary,
            "p99 latency 21 ms exceeds the budget of 20 ms");
  EXPECT_FALSE(Find(verdict, "energy_budget")->failed);
  EXPECT_NEAR(*Find(verdict, "energy_budget")->value, 4, 1e-9);
  EXPECT_TRUE(Find(verdict, "output")->failed);
  EXPECT_EQ(Find(verdict, "output")->summary,
            "outputs differ from the golden data in /m/test_data_set_0 (max |error| 0.25, top-1 "
            "different)");
  // Without a budget or golden data the checks are judged as passed (their alerts resolve).
  const Verdict plain = Judge(run, Spec(), {}, std::nullopt, 3);
  EXPECT_FALSE(plain.any_failed());
  EXPECT_TRUE(Find(plain, "latency_budget"));
  EXPECT_TRUE(Find(plain, "output"));
}

TEST(VerdictTest, AFailedRunJudgesOnlyThatItFailed) {
  BenchmarkRun run;
  run.status = BenchmarkStatus::kFailed;
  run.error = "edgemond-bench was killed by SIGSEGV (segmentation fault)";
  const Verdict verdict = Judge(run, Spec(), {Good(10), Good(10), Good(10)}, Good(10), 3);
  ASSERT_EQ(verdict.checks.size(), 1u);
  EXPECT_EQ(verdict.checks[0].kind, "failed");
  EXPECT_TRUE(verdict.checks[0].failed);
  EXPECT_EQ(verdict.checks[0].summary,
            "the benchmark failed: edgemond-bench was killed by SIGSEGV (segmentation fault)");
}

TEST(VerdictTest, Quantities) {
  EXPECT_EQ(FormatQuantity(12.345, "ms"), "12.3 ms");
  EXPECT_EQ(FormatQuantity(0.5, ""), "0.5");
  EXPECT_EQ(FormatQuantity(1234567, "B"), "1.23e+06 B");
}

}  // namespace
}  // namespace edgemond::selfbench
