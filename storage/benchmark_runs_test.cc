#include "storage/benchmark_runs.h"

#include <gtest/gtest.h>

#include "storage/sqlite_store.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

const WallTime kT0 = FromUnixMillis(1767225600000);

// A run with every field set to something distinct.
BenchmarkRun FullRun(std::string model, WallTime started) {
  BenchmarkRun run;
  run.model = std::move(model);
  run.trigger = "api";
  run.status = BenchmarkStatus::kSucceeded;
  run.started_at = started;
  run.finished_at = started + minutes(1);
  run.model_path = "/opt/models/m.onnx";
  run.settings = "threads=2 warmup=3 duration=10s";
  run.threads = 2;
  run.warmup_runs = 3;
  run.model_bytes = 14000000;
  run.parameters = 3500000;
  run.flops = 614000000;
  run.precision = "float32";
  run.load_ms = 31.5;
  run.warmup_ms = 500.25;
  run.runs = 57;
  run.window_start = started + std::chrono::seconds(2);
  run.window_end = started + std::chrono::seconds(12);
  run.window_seconds = 10.0;
  run.latency_min_ms = 170;
  run.latency_mean_ms = 175;
  run.latency_p50_ms = 173;
  run.latency_p90_ms = 180;
  run.latency_p99_ms = 190;
  run.latency_max_ms = 195;
  run.throughput_per_second = 5.7;
  run.peak_rss_bytes = 36700160;
  run.arena_bytes = 9646899;
  run.exit_code = 0;
  run.cpu_seconds = 10.2;
  run.energy_method = "integrated";
  run.idle_watts = 3.1;
  run.average_watts = 7.5;
  run.peak_watts = 8.25;
  run.energy_joules = 75;
  run.energy_per_inference_joules = 75.0 / 57;
  run.energy_above_idle_per_inference_joules = 44.0 / 57;
  run.inferences_per_joule = 57.0 / 75;
  run.gflops_per_second = 3.5;
  run.gflops_per_watt = 0.47;
  run.power = {{"input", "input", "integrated", 7.5, 8.25, 75.0},
               {"rail", "VDD_CPU_GPU_CV", "integrated", 2.5, std::nullopt, 25.0}};
  run.power_mode = "0 MAXN";
  run.throttled = true;
  run.throttle_reasons = {"cpu/frequency_cap", "gpu:gpu/thermal"};
  run.max_temperature_start_celsius = 48.5;
  run.max_temperature_end_celsius = 55;
  run.cpu_frequency_start_hertz = 1.5e9;
  run.cpu_frequency_end_hertz = 1.2e9;
  run.gpu_frequency_start_hertz = 6.24e8;
  run.gpu_frequency_end_hertz = 6.24e8;
  run.cpu_cores = 6;
  run.system_cpu_utilization = 0.2;
  run.other_cpu_utilization = 0.03;
  run.readings = {{"edgemond_thermal_zone_celsius",
                   {{"zone", "cpu-thermal"}, {"type", "cpu-thermal"}},
                   48.5,
                   55.0},
                  {"edgemond_cpu_frequency_hertz", {{"cpu", "0"}}, std::nullopt, 1.2e9}};
  run.outputs_match = true;
  run.max_abs_error = 2.5e-6;
  run.top1_match = true;
  run.regressions = {"latency", "energy_budget"};
  run.hints = {"throttled during the run (cpu/frequency_cap)", "a hint\nwith a newline"};
  run.baseline_runs = 4;
  run.baseline_latency_p50_ms = 120;
  run.baseline_energy_per_inference_joules = 1.1;
  run.baseline_peak_rss_bytes = 36000000;
  return run;
}

BenchmarkRun Simple(std::string model, WallTime started, BenchmarkStatus status,
                    std::string mode = "") {
  BenchmarkRun run;
  run.model = std::move(model);
  run.trigger = "schedule";
  run.status = status;
  run.started_at = started;
  if (status != BenchmarkStatus::kRunning) run.finished_at = started + minutes(1);
  run.power_mode = std::move(mode);
  if (status == BenchmarkStatus::kSucceeded) run.latency_p50_ms = 10;
  return run;
}

class BenchmarkRunsTest : public ::testing::Test {
 protected:
  // As in the daemon: the store first (it refuses a file with tables it did not create), then the
  // runs' tables in the same file.
  void SetUp() override {
    StorageOptions options;
    options.path = dir_.Join("edgemond.db");
    auto store = SqliteStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(store).value();
    auto runs = BenchmarkRuns::Open(dir_.Join("edgemond.db"));
    ASSERT_TRUE(runs.ok()) << runs.status();
    runs_ = std::move(runs).value();
  }
  std::int64_t Insert(const BenchmarkRun& run) {
    auto id = runs_->Insert(run);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.ok() ? *id : 0;
  }

  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<BenchmarkRuns> runs_;
};

TEST_F(BenchmarkRunsTest, EveryFieldRoundTripsThroughAReopenNextToTheStore) {
  BenchmarkRun run = FullRun("mobilenet_v2", kT0);
  const std::int64_t id = Insert(run);
  EXPECT_GT(id, 0);
  runs_.reset();
  auto reopened = BenchmarkRuns::Open(dir_.Join("edgemond.db"));
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  auto got = (*reopened)->Get(id);
  ASSERT_TRUE(got.ok()) << got.status();
  run.id = id;
  run.hints[1] = "a hint with a newline";  // One line per hint.
  EXPECT_EQ(got->model, run.model);
  EXPECT_EQ(got->trigger, run.trigger);
  EXPECT_EQ(got->status, run.status);
  EXPECT_EQ(got->started_at, run.started_at);
  EXPECT_EQ(got->finished_at, run.finished_at);
  EXPECT_EQ(got->settings, run.settings);
  EXPECT_EQ(got->threads, 2);
  EXPECT_EQ(got->model_bytes, run.model_bytes);
  EXPECT_EQ(got->flops, run.flops);
  EXPECT_EQ(got->precision, "float32");
  EXPECT_EQ(got->warmup_ms, run.warmup_ms);
  EXPECT_EQ(got->runs, 57);
  EXPECT_EQ(got->window_start, run.window_start);
  EXPECT_EQ(got->window_end, run.window_end);
  EXPECT_EQ(got->latency_p50_ms, 173);
  EXPECT_EQ(got->latency_p99_ms, 190);
  EXPECT_EQ(got->peak_rss_bytes, run.peak_rss_bytes);
  EXPECT_EQ(got->exit_code, 0);
  EXPECT_FALSE(got->signal);
  EXPECT_EQ(got->energy_method, "integrated");
  EXPECT_EQ(got->energy_per_inference_joules, run.energy_per_inference_joules);
  EXPECT_EQ(got->gflops_per_watt, run.gflops_per_watt);
  ASSERT_EQ(got->power.size(), 2u);
  EXPECT_EQ(got->power[1].name, "VDD_CPU_GPU_CV");
  EXPECT_FALSE(got->power[1].peak_watts);
  EXPECT_EQ(got->power[1].energy_joules, 25.0);
  EXPECT_EQ(got->power_mode, "0 MAXN");
  EXPECT_TRUE(got->throttled);
  EXPECT_EQ(got->throttle_reasons, run.throttle_reasons);
  EXPECT_EQ(got->cpu_cores, 6);
  ASSERT_EQ(got->readings.size(), 2u);
  EXPECT_EQ(got->readings[0].labels, (Labels{{"type", "cpu-thermal"}, {"zone", "cpu-thermal"}}));
  EXPECT_EQ(got->readings[0].end, 55.0);
  EXPECT_FALSE(got->readings[1].start);
  EXPECT_EQ(got->outputs_match, true);
  EXPECT_EQ(got->top1_match, true);
  EXPECT_EQ(got->regressions, run.regressions);
  EXPECT_EQ(got->hints, run.hints);
  EXPECT_EQ(got->baseline_runs, 4);
  EXPECT_EQ(got->baseline_peak_rss_bytes, run.baseline_peak_rss_bytes);

  // The columns are plain SQL for anyone with sqlite3.
  sqlite::DatabaseOptions read_only;
  auto db = sqlite::Database::Open(dir_.Join("edgemond.db"), read_only);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ(*(*db)->QueryString("SELECT latency_p50_ms || ' ' || status || ' ' || outputs_match "
                                "FROM benchmark_runs"),
            "173.0 succeeded 1");
}

TEST(BenchmarkRunsOpenTest, NeedsTheStoreToHaveMigratedTheFile) {
  testing::TempDir dir;
  {
    auto db = sqlite::Database::Open(dir.Join("edgemond.db"), {});
    ASSERT_TRUE(db.ok());
  }
  const auto runs = BenchmarkRuns::Open(dir.Join("edgemond.db"));
  EXPECT_EQ(runs.status().code(), StatusCode::kFailedPrecondition) << runs.status();
}

TEST_F(BenchmarkRunsTest, ARunIsRewrittenWhenItFinishes) {
  BenchmarkRun run = Simple("m", kT0, BenchmarkStatus::kRunning);
  run.id = Insert(run);
  EXPECT_EQ(runs_->Get(run.id)->status, BenchmarkStatus::kRunning);
  run.status = BenchmarkStatus::kFailed;
  run.error = "edgemond-bench was killed by SIGSEGV (segmentation fault)";
  run.signal = 11;
  run.power = {{"rapl", "package-0", "counter", 12.0, 15.0, 120.0}};
  ASSERT_TRUE(runs_->Update(run).ok());
  ASSERT_TRUE(runs_->Update(run).ok());  // Twice: the children are replaced, not doubled.
  const auto got = runs_->Get(run.id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->status, BenchmarkStatus::kFailed);
  EXPECT_EQ(got->error, run.error);
  EXPECT_EQ(got->signal, 11);
  EXPECT_EQ(got->power.size(), 1u);
  run.id = 999;
  EXPECT_TRUE(runs_->Update(run).IsNotFound());
  EXPECT_TRUE(runs_->Get(999).status().IsNotFound());
}

TEST_F(BenchmarkRunsTest, HistoryLatestAndGoodRuns) {
  Insert(Simple("a", kT0, BenchmarkStatus::kSucceeded, "0 MAXN"));
  BenchmarkRun mismatch = Simple("a", kT0 + hours(1), BenchmarkStatus::kSucceeded, "0 MAXN");
  mismatch.outputs_match = false;
  Insert(mismatch);
  Insert(Simple("a", kT0 + hours(2), BenchmarkStatus::kSucceeded, "1 15W"));
  const std::int64_t good =
      Insert(Simple("a", kT0 + hours(3), BenchmarkStatus::kSucceeded, "0 MAXN"));
  const std::int64_t failed =
      Insert(Simple("a", kT0 + hours(4), BenchmarkStatus::kFailed, "0 MAXN"));
  Insert(Simple("a", kT0 + hours(5), BenchmarkStatus::kRunning, "0 MAXN"));
  Insert(Simple("b", kT0 + hours(1), BenchmarkStatus::kSucceeded));

  BenchmarkHistoryQuery query{"a", ToUnixMillis(kT0 + hours(1)), ToUnixMillis(kT0 + hours(4)), 2};
  const auto history = runs_->History(query);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].id, failed);
  EXPECT_EQ((*history)[1].id, good);

  const auto latest = runs_->LatestOf("a");
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(latest->finished->id, failed);  // The running one is not finished.
  EXPECT_EQ(latest->succeeded->id, good);
  EXPECT_FALSE(runs_->LatestOf("nope")->finished);

  const auto baseline = runs_->GoodRuns("a", "0 MAXN", 10);
  ASSERT_TRUE(baseline.ok());
  ASSERT_EQ(baseline->size(), 2u);  // Not the mismatch, not the other mode, not the failure.
  EXPECT_EQ((*baseline)[0].id, good);
  EXPECT_EQ(runs_->GoodRuns("a", "0 MAXN", 10, good)->size(), 1u);
  EXPECT_EQ(*runs_->PowerModes("a"), (std::vector<std::string>{"0 MAXN", "1 15W"}));

  const auto last = runs_->LastStarted();
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->size(), 2u);
  EXPECT_EQ((*last)[0], std::make_pair(std::string("a"), kT0 + hours(5)));
}

TEST_F(BenchmarkRunsTest, UnfinishedRunsFailAfterARestart) {
  const std::int64_t id = Insert(Simple("a", kT0, BenchmarkStatus::kRunning));
  Insert(Simple("a", kT0, BenchmarkStatus::kSucceeded));
  EXPECT_EQ(*runs_->FailUnfinished("interrupted: edgemond stopped during the run", kT0 + hours(1)),
            1);
  const auto got = runs_->Get(id);
  EXPECT_EQ(got->status, BenchmarkStatus::kFailed);
  EXPECT_EQ(got->error, "interrupted: edgemond stopped during the run");
  EXPECT_EQ(got->finished_at, kT0 + hours(1));
}

TEST_F(BenchmarkRunsTest, RetentionKeepsEachModelsLatestRun) {
  const std::int64_t old_a = Insert(FullRun("a", kT0));
  const std::int64_t newer_a = Insert(FullRun("a", kT0 + hours(30)));
  const std::int64_t only_b = Insert(FullRun("b", kT0));
  const auto deleted = runs_->EnforceRetention(kT0 + hours(48), hours(24));
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 1);
  EXPECT_TRUE(runs_->Get(old_a).status().IsNotFound());
  EXPECT_TRUE(runs_->Get(newer_a).ok());
  EXPECT_TRUE(runs_->Get(only_b).ok());
  auto db = sqlite::Database::Open(dir_.Join("edgemond.db"), {});
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(*(*db)->QueryInt64("SELECT count(*) FROM benchmark_run_power WHERE run_id = " +
                               std::to_string(old_a)),
            0);
  EXPECT_EQ(*(*db)->QueryInt64("SELECT count(*) FROM benchmark_run_readings"), 4);
}

}  // namespace
}  // namespace edgemond::storage
