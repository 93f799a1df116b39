#include "selfbench/run_session.h"

#include <signal.h>

#include <algorithm>

#include "core/text.h"
#include "selfbench/bench_output.h"

namespace edgemond::selfbench {
namespace {

WallTime ToWall(SteadyTime t, SteadyTime now, WallTime wall_now) {
  return wall_now - std::chrono::duration_cast<WallTime::duration>(now - t);
}

// The last lines of what the child wrote to stderr, for an error message.
std::string Tail(std::string_view text, std::size_t max = 600) {
  text = Trim(text);
  if (text.size() > max) {
    text = text.substr(text.size() - max);
    const std::size_t newline = text.find('\n');
    if (newline != std::string_view::npos && newline + 1 < text.size()) {
      text = text.substr(newline + 1);
    }
  }
  std::string out(text);
  std::replace(out.begin(), out.end(), '\n', ' ');
  return SanitizeUtf8(out);
}

}  // namespace

RunSession::RunSession(SessionOptions options, BenchmarkRun run, SteadyTime now)
    : options_(std::move(options)), run_(std::move(run)), idle_start_(now) {
  const ModelSpec& spec = options_.spec;
  run_.status = BenchmarkStatus::kRunning;
  run_.model_path = spec.path;
  run_.settings = spec.SettingsText();
  run_.threads = static_cast<int>(spec.threads);
  run_.warmup_runs = static_cast<int>(spec.warmup_runs);
}

void RunSession::AddPower(SteadyTime at, const std::vector<Sample>& samples) {
  if (phase_ != Phase::kFinished) power_.Add(at, samples);
}

void RunSession::AddCollection(SteadyTime at, const std::vector<Sample>& samples) {
  switch (phase_) {
    case Phase::kIdlePower:
      last_collection_ = samples;
      break;
    case Phase::kRunning:
      context_.Observe(at, samples);
      break;
    case Phase::kEnded:
    case Phase::kFinished:
      break;
  }
}

bool RunSession::Poll(SteadyTime now, WallTime wall_now) {
  if (phase_ == Phase::kIdlePower) {
    if (now - idle_start_ < options_.idle_power_duration) return false;
    StartChild(now, wall_now);
  }
  if (phase_ == Phase::kEnded) {
    Finish(now, wall_now);
  } else if (phase_ == Phase::kRunning) {
    exit_ = child_->Poll();
    if (exit_) {
      child_end_ = now;
      phase_ = Phase::kEnded;
    } else if (now >= deadline_ && !deadline_hit_) {
      deadline_hit_ = true;
      child_->Kill();
    }
  }
  return phase_ == Phase::kFinished;
}

void RunSession::Abort(const std::string& reason, SteadyTime now, WallTime wall_now) {
  if (phase_ == Phase::kFinished) return;
  if (child_) {
    child_->Kill();
    child_.reset();  // Reaps it.
  }
  Fail(reason, now, wall_now);
}

void RunSession::StartChild(SteadyTime now, WallTime wall_now) {
  // The idle window is what the readings cover: from the first to the last so far.
  if (const auto span = power_.span(); span && span->second > span->first) {
    idle_watts_ = power_.Summarize(span->first, span->second).average_watts;
  }
  context_.SetStart(last_collection_ ? *last_collection_ : std::vector<Sample>{});
  const ModelSpec& spec = options_.spec;
  BenchLimits limits;
  limits.memory_bytes = static_cast<std::uint64_t>(spec.memory_limit_mb) << 20;
  limits.cpu_seconds = spec.cpu_limit_seconds;
  auto child = BenchProcess::Start(BenchCommandLine(options_.bench_path, spec), limits);
  if (!child.ok()) {
    Fail("cannot run edgemond-bench: " + std::string(child.status().message()), now, wall_now);
    return;
  }
  child_ = std::move(child).value();
  child_start_ = now;
  deadline_ = now + std::chrono::seconds(spec.deadline_seconds);
  phase_ = Phase::kRunning;
}

void RunSession::Fail(std::string error, SteadyTime now, WallTime wall_now) {
  run_.status = BenchmarkStatus::kFailed;
  run_.error = std::move(error);
  run_.finished_at = wall_now;
  (void)now;
  phase_ = Phase::kFinished;
}

void RunSession::Finish(SteadyTime now, WallTime wall_now) {
  const ModelSpec& spec = options_.spec;
  const ChildExit& exit = *exit_;
  run_.exit_code = exit.exit_code;
  run_.signal = exit.signal;
  run_.cpu_seconds = exit.user_cpu_seconds + exit.system_cpu_seconds;
  if (exit.max_rss_bytes > 0) run_.peak_rss_bytes = exit.max_rss_bytes;
  run_.idle_watts = idle_watts_;
  context_.Fill(run_, child_start_, child_end_, run_.cpu_seconds);

  const std::string stderr_tail = Tail(child_->stderr_text());
  const auto with_stderr = [&](std::string message) {
    if (!stderr_tail.empty()) message += ": " + stderr_tail;
    return message;
  };
  if (deadline_hit_) {
    Fail("did not finish within its deadline of " + std::to_string(spec.deadline_seconds) +
             " s and was killed",
         now, wall_now);
    return;
  }
  if (exit.signal) {
    std::string message = "edgemond-bench was " + exit.Describe();
    if (*exit.signal == SIGXCPU) {
      message +=
          ": it used up its CPU time limit of " + std::to_string(spec.cpu_limit_seconds) + " s";
    } else if (spec.memory_limit_mb > 0 &&
               (*exit.signal == SIGABRT || *exit.signal == SIGSEGV || *exit.signal == SIGKILL)) {
      message += " (its memory limit is " + std::to_string(spec.memory_limit_mb) + " MiB)";
    }
    Fail(with_stderr(std::move(message)), now, wall_now);
    return;
  }
  // The report's measurements go into a copy of the record, which becomes the record only if
  // the run succeeded: a failed run keeps none of them.
  BenchmarkRun measured = run_;
  const Result<BenchOutput> parsed = ParseBenchOutput(child_->stdout_text(), measured);
  if (!parsed.ok()) {
    Fail(with_stderr("edgemond-bench printed no report (" + exit.Describe() + ")"), now, wall_now);
    return;
  }
  const BenchOutput& out = *parsed;
  if (out.error_message) {
    Fail("the model could not be loaded or run (" + *out.error_code + "): " + *out.error_message,
         now, wall_now);
    return;
  }
  const bool mismatch_only = exit.exit_code == 1 && out.check_passed == false;
  if (exit.exit_code != 0 && !mismatch_only) {
    Fail(with_stderr("edgemond-bench failed (" + exit.Describe() + ")"), now, wall_now);
    return;
  }

  run_ = std::move(measured);

  if (out.window_start && out.window_end && *out.window_end > *out.window_start) {
    const SteadyTime from = *out.window_start;
    const SteadyTime to = *out.window_end;
    run_.window_start = ToWall(from, now, wall_now);
    run_.window_end = ToWall(to, now, wall_now);
    run_.window_seconds = Seconds(to - from);
    const PowerSummary power = power_.Summarize(from, to);
    run_.power = power.sources;
    run_.energy_method = power.method;
    run_.energy_missing_reason = power.missing_reason;
    run_.energy_joules = power.energy_joules;
    run_.average_watts = power.average_watts;
    run_.peak_watts = power.peak_watts;
    const double runs = static_cast<double>(run_.runs.value_or(0));
    if (power.energy_joules && runs > 0) {
      run_.energy_per_inference_joules = *power.energy_joules / runs;
      if (*power.energy_joules > 0) run_.inferences_per_joule = runs / *power.energy_joules;
      if (idle_watts_) {
        run_.energy_above_idle_per_inference_joules =
            (*power.energy_joules - *idle_watts_ * *run_.window_seconds) / runs;
      }
    }
    if (run_.flops && runs > 0 && *run_.window_seconds > 0) {
      run_.gflops_per_second = static_cast<double>(*run_.flops) * runs / *run_.window_seconds / 1e9;
      if (run_.average_watts && *run_.average_watts > 0) {
        run_.gflops_per_watt = *run_.gflops_per_second / *run_.average_watts;
      }
    }
  } else {
    run_.energy_missing_reason =
        "edgemond-bench did not report its timed window, so no energy could be attributed to it";
  }
  run_.status = BenchmarkStatus::kSucceeded;
  run_.finished_at = wall_now;
  phase_ = Phase::kFinished;
}

}  // namespace edgemond::selfbench
