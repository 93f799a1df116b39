#include "daemon/selfbench_controller.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "alerts/evaluator.h"
#include "collectors/builtin_collectors.h"
#include "selfbench/model_alerts.h"
#include "selfbench/verdict.h"

namespace edgemond::daemon {
namespace {

constexpr std::string_view kInterruptedError = "interrupted: edgemond stopped during the run";

collectors::CollectorsConfig PowerCollectorsConfig(const collectors::CollectorsConfig& all) {
  collectors::CollectorsConfig out;
  out.nvml_library = all.nvml_library;
  out.timeout_seconds = all.timeout_seconds;
  // The collectors the high-rate sampler runs: those that read power and energy.
  for (const collectors::CollectorInfo& info : collectors::BuiltinCollectors()) {
    out.collectors[std::string(info.name)].enabled =
        info.reads_power && all.OptionsFor(info.name).enabled;
  }
  return out;
}

bool SameCollectors(const collectors::CollectorsConfig& a, const collectors::CollectorsConfig& b) {
  if (a.nvml_library != b.nvml_library || a.timeout_seconds != b.timeout_seconds) return false;
  for (std::string_view name : collectors::BuiltinCollectorNames()) {
    if (a.OptionsFor(name).enabled != b.OptionsFor(name).enabled) return false;
  }
  return true;
}

selfbench::ScheduleSettings ToScheduleSettings(const Config::Selfbench& settings) {
  selfbench::ScheduleSettings out;
  out.startup_delay = std::chrono::seconds(settings.startup_delay_seconds);
  out.idle_window = std::chrono::seconds(settings.idle_window_seconds);
  out.idle_cpu_max_ratio = settings.idle_cpu_max_ratio;
  out.idle_gpu_max_ratio = settings.idle_gpu_max_ratio;
  return out;
}

std::string Number(std::optional<double> value, int significant = 3) {
  if (!value) return "n/a";
  return selfbench::FormatQuantity(*value, "", significant);
}

std::map<std::string, WallTime> LastStartedMap(storage::BenchmarkRuns& runs) {
  std::map<std::string, WallTime> out;
  auto last = runs.LastStarted();
  if (!last.ok()) {
    spdlog::warn("cannot read when the models were last benchmarked: {}", last.status().ToString());
    return out;
  }
  for (auto& [model, at] : *last) out[model] = at;
  return out;
}

}  // namespace

SelfbenchController::SelfbenchController(const RootedFs& fs, const Clock& clock, EventLoop& loop,
                                         storage::BenchmarkRuns& runs, alerts::Evaluator& evaluator,
                                         TransitionSink sink)
    : fs_(fs),
      clock_(clock),
      loop_(loop),
      runs_(runs),
      evaluator_(evaluator),
      sink_(std::move(sink)),
      schedule_(selfbench::ScheduleSettings{}, clock.Now()) {}

SelfbenchController::~SelfbenchController() = default;

Result<std::unique_ptr<SelfbenchController>> SelfbenchController::Create(
    const Config& config, const collectors::CollectorsConfig& collectors_config, const RootedFs& fs,
    const Clock& clock, EventLoop& loop, storage::BenchmarkRuns& runs, alerts::Evaluator& evaluator,
    TransitionSink sink) {
  std::unique_ptr<SelfbenchController> controller(
      new SelfbenchController(fs, clock, loop, runs, evaluator, std::move(sink)));
  EDGEMOND_ASSIGN_OR_RETURN(controller->sample_timer_,
                            loop.AddTimer([c = controller.get()] { c->OnSampleTimer(); }));
  auto failed = runs.FailUnfinished(std::string(kInterruptedError), clock.WallNow());
  if (!failed.ok()) return failed.status().WithContext("cannot read the benchmark runs");
  if (*failed > 0) {
    spdlog::warn("{} benchmark run(s) did not finish before edgemond stopped; recorded as failed",
                 *failed);
  }
  controller->Apply(config, collectors_config);
  return controller;
}

std::string SelfbenchController::ResolveBenchPath(const std::string& configured) const {
  if (!configured.empty()) return configured;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "/usr/bin/edgemond-bench";
  return (self.parent_path() / "edgemond-bench").string();
}

void SelfbenchController::Apply(const Config& config,
                                const collectors::CollectorsConfig& collectors_config) {
  const SteadyTime now = clock_.Now();
  const WallTime wall = clock_.WallNow();
  settings_ = config.selfbench;
  specs_ = config.models;
  bench_path_ = ResolveBenchPath(settings_.bench_path);
  // The power collectors are (re)built when a run starts: a run under way keeps the instances
  // whose counters it has been reading.
  collectors_config_ = PowerCollectorsConfig(collectors_config);
  schedule_.SetSettings(ToScheduleSettings(settings_));
  schedule_.SetModels(specs_, LastStartedMap(runs_), now, wall);

  std::set<std::string> enabled;
  for (const selfbench::ModelSpec& spec : specs_) {
    if (spec.enabled) enabled.insert(spec.name);
    if (latest_.count(spec.name)) continue;
    auto latest = runs_.LatestOf(spec.name);
    if (!latest.ok()) {
      spdlog::warn("cannot read the latest benchmark of model {}: {}", spec.name,
                   latest.status().ToString());
      continue;
    }
    latest_[spec.name] = selfbench::ModelRuns{spec.name, latest->finished, latest->succeeded};
  }
  std::erase_if(latest_, [this](const auto& entry) { return FindSpec(entry.first) == nullptr; });
  const std::vector<AlertTransition> removed = evaluator_.RetainEvents(
      [&enabled](const Labels& labels) {
        return enabled.count(std::string(LabelValue(labels, "model"))) > 0;
      },
      wall);
  if (!removed.empty()) sink_(removed);

  if (!enabled.empty() && ::access(bench_path_.c_str(), X_OK) != 0) {
    spdlog::warn(
        "{} cannot be executed: the benchmarks of the {} configured model(s) will fail "
        "(set selfbench.bench_path)",
        bench_path_, enabled.size());
  }
  {
    std::lock_guard lock(mu_);
    shared_specs_ = std::make_shared<const std::vector<selfbench::ModelSpec>>(specs_);
    shared_settings_ = settings_;
  }
  PublishSchedule();
}

void SelfbenchController::Reconfigure(const Config& config,
                                      const collectors::CollectorsConfig& collectors_config) {
  Apply(config, collectors_config);
}

const selfbench::ModelSpec* SelfbenchController::FindSpec(const std::string& model) const {
  for (const selfbench::ModelSpec& spec : specs_) {
    if (spec.name == model) return &spec;
  }
  return nullptr;
}

void SelfbenchController::OnCollection(const std::vector<Sample>& samples) {
  const SteadyTime now = clock_.Now();
  schedule_.Observe(now, samples);
  if (session_) {
    session_->AddCollection(now, samples);
    PublishSchedule();
    return;
  }

  // A run asked for through the API goes first.
  std::optional<BenchmarkRun> run;
  {
    std::lock_guard lock(mu_);
    if (pending_) {
      run = std::move(pending_);
      pending_.reset();
      active_ = run;
    }
  }
  const selfbench::ModelSpec* spec = nullptr;
  if (run) {
    spec = FindSpec(run->model);
    if (spec == nullptr || !spec->enabled) {
      run->status = BenchmarkStatus::kFailed;
      run->error = "the model was removed from the configuration (or disabled) before it ran";
      run->finished_at = clock_.WallNow();
      if (Status stored = runs_.Update(*run); !stored.ok()) {
        spdlog::error("storing benchmark run {} failed: {}", run->id, stored.ToString());
      }
      std::lock_guard lock(mu_);
      active_.reset();
      return;
    }
  } else if (const auto due = schedule_.NextDue(now)) {
    spec = FindSpec(due->model);
    if (spec == nullptr) return;
    if (due->waiting_for_idle) {
      if (waiting_logged_.insert(spec->name).second) {
        spdlog::info("model {} is due for its benchmark; waiting for the device to be idle",
                     spec->name);
      }
      PublishSchedule();
      return;
    }
    waiting_logged_.erase(spec->name);
    BenchmarkRun scheduled;
    scheduled.model = spec->name;
    scheduled.trigger = "schedule";
    scheduled.started_at = clock_.WallNow();
    scheduled.model_path = spec->path;
    scheduled.settings = spec->SettingsText();
    auto id = runs_.Insert(scheduled);
    schedule_.Started(spec->name, now);
    if (!id.ok()) {
      spdlog::error("cannot store a benchmark run of model {}, skipping it: {}", spec->name,
                    id.status().ToString());
      PublishSchedule();
      return;
    }
    scheduled.id = *id;
    run = scheduled;
    std::lock_guard lock(mu_);
    active_ = run;
  }
  if (run && spec != nullptr) {
    // A run asked for counts like a scheduled one: the next is one interval later.
    if (run->trigger == "api") schedule_.Started(spec->name, now);
    StartSession(*spec, std::move(*run), samples);
  }
  PublishSchedule();
}

void SelfbenchController::StartSession(const selfbench::ModelSpec& spec, BenchmarkRun run,
                                       const std::vector<Sample>& samples) {
  selfbench::SessionOptions options;
  options.spec = spec;
  options.bench_path = bench_path_;
  options.idle_power_duration =
      std::chrono::milliseconds(std::llround(settings_.idle_power_seconds * 1000));
  if (!power_runner_ || !SameCollectors(collectors_config_, power_runner_config_)) {
    power_runner_config_ = collectors_config_;
    power_runner_ = collectors::MakeBuiltinRunner(fs_, power_runner_config_, clock_);
  }
  const SteadyTime now = clock_.Now();
  spdlog::info("benchmarking model {} (run {}, {}): {}", spec.name, run.id, run.trigger,
               spec.SettingsText());
  session_ = std::make_unique<selfbench::RunSession>(std::move(options), std::move(run), now);
  session_->AddCollection(now, samples);
  next_sample_ = now;
  OnSampleTimer();
}

void SelfbenchController::ArmSampler(SteadyTime when) {
  const Status armed = loop_.ArmTimer(sample_timer_, when);
  if (!armed.ok()) spdlog::error("cannot schedule the power sampler: {}", armed.ToString());
}

void SelfbenchController::OnSampleTimer() {
  if (!session_) return;
  SteadyTime after;
  // Once the child has ended, one more pass at once, so that readings bracket its window's end.
  do {
    const SteadyTime before = clock_.Now();
    collectors::TickReport report = power_runner_->RunOnce(clock_.WallNow());
    after = clock_.Now();
    // Stamped at the middle of the pass: sensors are read one after another within it.
    session_->AddPower(before + (after - before) / 2, report.samples);
    if (session_->Poll(after, clock_.WallNow())) {
      Complete();
      return;
    }
  } while (session_->phase() == selfbench::RunSession::Phase::kEnded);
  const auto period = std::chrono::duration_cast<SteadyTime::duration>(
      std::chrono::duration<double>(1.0 / settings_.power_sample_hz));
  next_sample_ += period;
  if (next_sample_ <= after) next_sample_ = after + period;
  ArmSampler(next_sample_);
}

void SelfbenchController::Complete() {
  BenchmarkRun run = session_->run();
  const selfbench::ModelSpec spec = session_->options().spec;
  session_.reset();

  std::optional<BenchmarkRun> previous;
  if (auto latest = runs_.LatestOf(run.model); latest.ok()) {
    previous = latest->finished;
  } else {
    spdlog::warn("cannot read model {}'s previous run: {}", run.model, latest.status().ToString());
  }
  std::vector<BenchmarkRun> baseline;
  if (run.status == BenchmarkStatus::kSucceeded) {
    auto good = runs_.GoodRuns(run.model, run.power_mode, settings_.baseline_runs, run.id);
    if (good.ok()) {
      baseline = std::move(good).value();
    } else {
      spdlog::warn("cannot read model {}'s baseline runs: {}", run.model, good.status().ToString());
    }
  }
  const selfbench::Verdict verdict = selfbench::Judge(
      run, spec, baseline, previous, static_cast<int>(settings_.baseline_min_runs));
  selfbench::ApplyVerdict(verdict, run);
  if (Status stored = runs_.Update(run); !stored.ok()) {
    spdlog::error("storing benchmark run {} failed: {}", run.id, stored.ToString());
  }

  if (run.status == BenchmarkStatus::kSucceeded) {
    spdlog::info(
        "model {} (run {}): p50 {} ms, p99 {} ms, {} inferences/s, {} W, {} mJ per inference, "
        "peak memory {} MiB",
        run.model, run.id, Number(run.latency_p50_ms), Number(run.latency_p99_ms),
        Number(run.throughput_per_second), Number(run.average_watts),
        Number(run.energy_per_inference_joules
                   ? std::optional<double>(*run.energy_per_inference_joules * 1000)
                   : std::nullopt),
        Number(run.peak_rss_bytes
                   ? std::optional<double>(static_cast<double>(*run.peak_rss_bytes) / (1 << 20))
                   : std::nullopt));
  } else {
    spdlog::warn("model {} (run {}): the benchmark failed: {}", run.model, run.id, run.error);
  }
  for (const selfbench::Check& check : verdict.checks) {
    if (check.failed && check.kind != "failed") {
      spdlog::warn("model {} (run {}): {}", run.model, run.id, check.summary);
    }
  }
  if (!verdict.hints.empty() && verdict.any_failed()) {
    std::string hints;
    for (const std::string& hint : verdict.hints) hints += (hints.empty() ? "" : "; ") + hint;
    spdlog::warn("model {} (run {}): possible causes: {}", run.model, run.id, hints);
  }

  selfbench::ModelRuns& latest = latest_[run.model];
  latest.model = run.model;
  latest.latest = run;
  if (run.status == BenchmarkStatus::kSucceeded) latest.latest_succeeded = run;

  // The alerts first: whoever sees the run finished finds its alerts too.
  const std::vector<AlertTransition> transitions = evaluator_.Judge(
      selfbench::ModelAlertJudgements(run, verdict), clock_.Now(), clock_.WallNow());
  if (!transitions.empty()) sink_(transitions);
  {
    std::lock_guard lock(mu_);
    active_.reset();
  }
  PublishSchedule();
}

void SelfbenchController::Shutdown() {
  const WallTime wall = clock_.WallNow();
  if (session_) {
    session_->Abort(std::string(kInterruptedError), clock_.Now(), wall);
    const BenchmarkRun& run = session_->run();
    spdlog::info("stopping the benchmark of model {} (run {})", run.model, run.id);
    if (Status stored = runs_.Update(run); !stored.ok()) {
      spdlog::error("storing benchmark run {} failed: {}", run.id, stored.ToString());
    }
    session_.reset();
  }
  std::optional<BenchmarkRun> pending;
  {
    std::lock_guard lock(mu_);
    pending = std::move(pending_);
    pending_.reset();
    active_.reset();
  }
  if (pending) {
    pending->status = BenchmarkStatus::kFailed;
    pending->error = "interrupted: edgemond stopped before the run started";
    pending->finished_at = wall;
    if (Status stored = runs_.Update(*pending); !stored.ok()) {
      spdlog::error("storing benchmark run {} failed: {}", pending->id, stored.ToString());
    }
  }
}

void SelfbenchController::EnforceRetention(WallTime now) {
  auto deleted = runs_.EnforceRetention(now, std::chrono::hours(24) * settings_.retention_days);
  if (!deleted.ok()) {
    spdlog::warn("benchmark run retention failed: {}", deleted.status().ToString());
  } else if (*deleted > 0) {
    spdlog::debug("deleted {} benchmark run(s) older than {} days", *deleted,
                  settings_.retention_days);
  }
}

std::string SelfbenchController::Activity() const {
  if (!session_) return "";
  return "benchmarking " + session_->run().model + " (run " + std::to_string(session_->run().id) +
         ")";
}

std::vector<Sample> SelfbenchController::Metrics(WallTime now) const {
  std::vector<selfbench::ModelRuns> models;
  for (const selfbench::ModelSpec& spec : specs_) {
    const auto it = latest_.find(spec.name);
    if (it != latest_.end()) models.push_back(it->second);
  }
  return selfbench::ModelMetrics(models, now);
}

void SelfbenchController::PublishSchedule() {
  const SteadyTime now = clock_.Now();
  const WallTime wall = clock_.WallNow();
  std::map<std::string, ScheduleInfo> info;
  const auto due = schedule_.NextDue(now);
  for (const selfbench::ModelSpec& spec : specs_) {
    ScheduleInfo& entry = info[spec.name];
    if (const auto at = schedule_.DueAt(spec.name)) {
      entry.next_run = wall + std::chrono::duration_cast<WallTime::duration>(*at - now);
    }
    entry.waiting_for_idle = due && due->model == spec.name && due->waiting_for_idle;
  }
  std::lock_guard lock(mu_);
  schedule_info_ = std::move(info);
}

Result<BenchmarkRun> SelfbenchController::RequestRun(const std::string& model) {
  std::lock_guard lock(mu_);
  const selfbench::ModelSpec* spec = nullptr;
  for (const selfbench::ModelSpec& s : *shared_specs_) {
    if (s.name == model) spec = &s;
  }
  if (spec == nullptr) {
    return Status::NotFound("no model \"" + model +
                            "\" is configured (see \"models\" in the configuration)");
  }
  if (!spec->enabled) {
    return Status::FailedPrecondition("model " + model +
                                      " is disabled in the configuration (\"enabled\": false)");
  }
  for (const std::optional<BenchmarkRun>* other : {&active_, &pending_}) {
    if (*other) {
      return Status::FailedPrecondition(
          "run " + std::to_string((*other)->id) + " of model " + (*other)->model +
          " is under way; one benchmark runs at a time: poll /api/v1/benchmarks/runs/" +
          std::to_string((*other)->id) + " and ask again when it has finished");
    }
  }
  BenchmarkRun run;
  run.model = model;
  run.trigger = "api";
  run.started_at = clock_.WallNow();
  run.model_path = spec->path;
  run.settings = spec->SettingsText();
  run.threads = static_cast<int>(spec->threads);
  run.warmup_runs = static_cast<int>(spec->warmup_runs);
  EDGEMOND_ASSIGN_OR_RETURN(run.id, runs_.Insert(run));
  pending_ = run;
  return run;
}

Result<BenchmarkRun> SelfbenchController::Run(std::int64_t id) const {
  {
    std::lock_guard lock(mu_);
    for (const std::optional<BenchmarkRun>* run : {&active_, &pending_}) {
      if (*run && (*run)->id == id) return **run;
    }
  }
  return runs_.Get(id);
}

Result<std::vector<ModelBenchmarkState>> SelfbenchController::States() const {
  std::shared_ptr<const std::vector<selfbench::ModelSpec>> specs;
  std::map<std::string, ScheduleInfo> info;
  std::optional<BenchmarkRun> active, pending;
  Config::Selfbench settings;
  {
    std::lock_guard lock(mu_);
    specs = shared_specs_;
    info = schedule_info_;
    active = active_;
    pending = pending_;
    settings = shared_settings_;
  }
  std::vector<ModelBenchmarkState> out;
  for (const selfbench::ModelSpec& spec : *specs) {
    ModelBenchmarkState state;
    state.model = spec.name;
    state.path = spec.path;
    state.enabled = spec.enabled;
    state.interval_seconds = spec.interval_seconds;
    state.only_when_idle = spec.only_when_idle;
    state.settings = spec.SettingsText();
    if (const auto it = info.find(spec.name); it != info.end()) {
      state.next_run = it->second.next_run;
      state.waiting_for_idle = it->second.waiting_for_idle;
    }
    for (const std::optional<BenchmarkRun>* run : {&active, &pending}) {
      if (*run && (*run)->model == spec.name) state.running_run_id = (*run)->id;
    }
    EDGEMOND_ASSIGN_OR_RETURN(storage::BenchmarkRuns::Latest latest, runs_.LatestOf(spec.name));
    state.latest = std::move(latest.finished);
    EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::string> modes, runs_.PowerModes(spec.name));
    for (const std::string& mode : modes) {
      EDGEMOND_ASSIGN_OR_RETURN(const std::vector<BenchmarkRun> good,
                                runs_.GoodRuns(spec.name, mode, settings.baseline_runs));
      if (good.size() >= settings.baseline_min_runs) {
        state.baselines.push_back(selfbench::ComputeBaseline(mode, good));
      }
    }
    out.push_back(std::move(state));
  }
  return out;
}

Result<std::vector<BenchmarkRun>> SelfbenchController::History(
    const BenchmarkHistoryQuery& query) const {
  EDGEMOND_ASSIGN_OR_RETURN(std::vector<BenchmarkRun> runs, runs_.History(query));
  if (runs.empty()) {
    std::lock_guard lock(mu_);
    const bool configured =
        std::any_of(shared_specs_->begin(), shared_specs_->end(),
                    [&](const selfbench::ModelSpec& spec) { return spec.name == query.model; });
    if (!configured) {
      return Status::NotFound("no model \"" + query.model +
                              "\" is configured, and none of that name has runs");
    }
  }
  return runs;
}

}  // namespace edgemond::daemon
