// SelfbenchController: the self-benchmarks inside the running daemon (docs/selfbench.md). It wires
// the pure parts of selfbench/ to the loop, the collectors, the store, the alert sinks and the API:
//
//   every collection   OnCollection(): feeds the schedule (idleness) and the run under way; starts
//                      a run asked for through the API, or a scheduled one that is due (and, for
//                      only_when_idle models, once the device is idle)
//   while a run is     a timer at selfbench.power_sample_hz reads the power collectors (their own
//   under way          instances: power_rail, rapl, hwmon, amd_gpu, nvidia_gpu), feeds the run
//                      and polls its child process; the regular collection keeps its own schedule
//   when it ends       the verdict against the model's baseline (selfbench/verdict.h), the row in
//                      the store, the judgements of the model alerts (selfbench/model_alerts.h)
//                      to the daemon's alert evaluator, whose transitions go to its sinks, a log
//                      line
//
// One run at a time. A run asked for through the API is accepted at once (its row is stored with
// status "running", so it can be polled) and starts at the next collection.
//
// Thread safety: OnCollection(), Metrics(), Reconfigure(), EnforceRetention() and Shutdown() run on
// the loop thread. RequestRun(), Run(),
// States() and History() may be called from any thread (the HTTP server's).

#ifndef EDGEMOND_DAEMON_SELFBENCH_CONTROLLER_H_
#define EDGEMOND_DAEMON_SELFBENCH_CONTROLLER_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "alerts/evaluator.h"
#include "collectors/builtin_collectors.h"
#include "collectors/collector_runner.h"
#include "core/alert.h"
#include "core/benchmark.h"
#include "core/clock.h"
#include "core/result.h"
#include "core/rooted_fs.h"
#include "daemon/config.h"
#include "daemon/event_loop.h"
#include "selfbench/model_metrics.h"
#include "selfbench/run_session.h"
#include "selfbench/schedule.h"
#include "storage/benchmark_runs.h"

namespace edgemond::daemon {

class SelfbenchController final {
 public:
  // Receives the alert transitions of finished runs and of models that leave the configuration
  // (the daemon's journal/stderr sink and history).
  using TransitionSink = std::function<void(const std::vector<AlertTransition>&)>;

  // `fs`, `clock`, `loop`, `runs` and `evaluator` are borrowed and must outlive the controller;
  // `evaluator` has the model alert rules (selfbench::ModelAlertRules) among its rules. Marks runs
  // left unfinished by a previous daemon as failed, and resolves the alerts of models that are not
  // configured (or not enabled).
  // `collectors_config` is the daemon's: the power sampler runs its own instances of the power
  // collectors it enables.
  static Result<std::unique_ptr<SelfbenchController>> Create(
      const Config& config, const collectors::CollectorsConfig& collectors_config,
      const RootedFs& fs, const Clock& clock, EventLoop& loop, storage::BenchmarkRuns& runs,
      alerts::Evaluator& evaluator, TransitionSink sink);
  ~SelfbenchController();
  SelfbenchController(const SelfbenchController&) = delete;
  SelfbenchController& operator=(const SelfbenchController&) = delete;

  // Loop thread.
  void OnCollection(const std::vector<Sample>& samples);
  std::vector<Sample> Metrics(WallTime now) const;  // edgemond_model_*
  // Applies a reloaded configuration; a run under way finishes with the settings it started with.
  void Reconfigure(const Config& config, const collectors::CollectorsConfig& collectors_config);
  // Deletes runs older than the retention, counted back from `now` (the daemon's retention time).
  void EnforceRetention(WallTime now);
  // Ends a run under way (the daemon stops): the child is killed, the run recorded as failed.
  void Shutdown();
  // "benchmarking detector (run 12)", or "" when no run is under way.
  std::string Activity() const;

  // Any thread.
  Result<BenchmarkRun> RequestRun(const std::string& model);
  Result<BenchmarkRun> Run(std::int64_t id) const;
  Result<std::vector<ModelBenchmarkState>> States() const;
  Result<std::vector<BenchmarkRun>> History(const BenchmarkHistoryQuery& query) const;

 private:
  SelfbenchController(const RootedFs& fs, const Clock& clock, EventLoop& loop,
                      storage::BenchmarkRuns& runs, alerts::Evaluator& evaluator,
                      TransitionSink sink);

  void Apply(const Config& config, const collectors::CollectorsConfig& collectors_config);
  std::string ResolveBenchPath(const std::string& configured) const;
  void StartSession(const selfbench::ModelSpec& spec, BenchmarkRun run,
                    const std::vector<Sample>& samples);
  void OnSampleTimer();
  void Complete();
  void ArmSampler(SteadyTime when);
  void PublishSchedule();
  const selfbench::ModelSpec* FindSpec(const std::string& model) const;

  const RootedFs& fs_;
  const Clock& clock_;
  EventLoop& loop_;
  storage::BenchmarkRuns& runs_;
  alerts::Evaluator& evaluator_;
  TransitionSink sink_;

  // Loop-thread state.
  Config::Selfbench settings_;
  std::vector<selfbench::ModelSpec> specs_;
  std::string bench_path_;
  collectors::CollectorsConfig collectors_config_;    // The power collectors wanted.
  collectors::CollectorsConfig power_runner_config_;  // Those power_runner_ runs.
  std::unique_ptr<collectors::CollectorRunner> power_runner_;
  selfbench::Schedule schedule_;
  std::map<std::string, selfbench::ModelRuns> latest_;  // By model.
  std::unique_ptr<selfbench::RunSession> session_;
  int sample_timer_ = -1;
  SteadyTime next_sample_{};
  std::set<std::string> waiting_logged_;  // Models whose wait for idleness was logged.

  // Shared with the HTTP threads.
  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<selfbench::ModelSpec>> shared_specs_ =
      std::make_shared<const std::vector<selfbench::ModelSpec>>();  // Guarded by mu_.
  Config::Selfbench shared_settings_;                               // Guarded by mu_.
  std::optional<BenchmarkRun> pending_;  // Accepted through the API, not started. Guarded by mu_.
  std::optional<BenchmarkRun> active_;   // The run under way, as last known. Guarded by mu_.
  struct ScheduleInfo {
    std::optional<WallTime> next_run;
    bool waiting_for_idle = false;
  };
  std::map<std::string, ScheduleInfo> schedule_info_;  // Guarded by mu_.
};

}  // namespace edgemond::daemon

#endif  // EDGEMOND_DAEMON_SELFBENCH_CONTROLLER_H_
