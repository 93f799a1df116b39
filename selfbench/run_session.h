// RunSession: one benchmark run from start to result.
//
//   idle power   the owner feeds high-rate power readings (AddPower) for idle_power_duration;
//                their average is the idle power, measured just before the run
//   ended        the child has ended; one more power reading, and the result is built
//   running      edgemond-bench runs in a child process (selfbench/bench_process.h) with the
//                model's limits; power readings and regular collections keep coming; past the
//                deadline the child is killed
//   finished     the result: edgemond-bench's report, the child's exit and resource usage,
//                energy over the exact timed window the report names (selfbench/power_recorder.h)
//                and the device around the run (selfbench/run_context.h)
//
// Every way the child can end is a finished run: a report, a load error (the engine's message),
// a crash (the signal, and what it printed), a limit, the deadline. Nothing here blocks: the owner
// calls Poll() from its loop, at the power sampling rate.
//
// Thread safety: not thread-safe; one owner thread.

#ifndef EDGEMOND_SELFBENCH_RUN_SESSION_H_
#define EDGEMOND_SELFBENCH_RUN_SESSION_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/benchmark.h"
#include "core/clock.h"
#include "core/sample.h"
#include "selfbench/bench_process.h"
#include "selfbench/model_spec.h"
#include "selfbench/power_recorder.h"
#include "selfbench/run_context.h"

namespace edgemond::selfbench {

struct SessionOptions {
  ModelSpec spec;
  std::string bench_path;  // Absolute path of edgemond-bench.
  std::chrono::milliseconds idle_power_duration{2000};
};

class RunSession {
 public:
  // kEnded: the child has ended; the next Poll() (after one more power reading, so that readings
  // bracket the end of its timed window) builds the result.
  enum class Phase { kIdlePower, kRunning, kEnded, kFinished };

  // `run` carries what is known at acceptance: id, model, trigger, started_at.
  RunSession(SessionOptions options, BenchmarkRun run, SteadyTime now);

  Phase phase() const { return phase_; }

  // One pass of the high-rate power sampler.
  void AddPower(SteadyTime at, const std::vector<Sample>& samples);

  // One regular collection. The last one before the child starts is the run's "start".
  void AddCollection(SteadyTime at, const std::vector<Sample>& samples);

  // Moves the run on: starts the child once the idle window is over, collects its output, kills
  // it past the deadline, and builds the result when it has ended. Returns true once finished.
  bool Poll(SteadyTime now, WallTime wall_now);

  // Ends the run now (the daemon stops): kills the child; the run fails with `reason`.
  void Abort(const std::string& reason, SteadyTime now, WallTime wall_now);

  // The run: in progress until finished, then the result.
  const BenchmarkRun& run() const { return run_; }
  const SessionOptions& options() const { return options_; }

  // The child's pid while it runs (for logs), else 0.
  pid_t child_pid() const { return child_ ? child_->pid() : 0; }

 private:
  void StartChild(SteadyTime now, WallTime wall_now);
  void Finish(SteadyTime now, WallTime wall_now);
  void Fail(std::string error, SteadyTime now, WallTime wall_now);

  const SessionOptions options_;
  BenchmarkRun run_;
  Phase phase_ = Phase::kIdlePower;
  SteadyTime idle_start_;
  std::optional<double> idle_watts_;
  std::optional<std::vector<Sample>> last_collection_;
  std::unique_ptr<BenchProcess> child_;
  SteadyTime child_start_{};
  SteadyTime child_end_{};
  std::optional<ChildExit> exit_;
  SteadyTime deadline_{};
  bool deadline_hit_ = false;
  PowerRecorder power_;
  RunContext context_;
};

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_RUN_SESSION_H_
