#include "selfbench/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace edgemond::selfbench {
namespace {

std::optional<double> Median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

template <typename Field>
std::optional<double> MedianOf(const std::vector<BenchmarkRun>& runs, Field field) {
  std::vector<double> values;
  for (const BenchmarkRun& run : runs) {
    if (const auto value = field(run)) values.push_back(static_cast<double>(*value));
  }
  return Median(std::move(values));
}

std::string Hertz(double hertz) { return FormatQuantity(hertz / 1e9, "GHz"); }

std::string Percent(double ratio) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.0f %%", ratio * 100);
  return buffer;
}

std::string Ratio(double ratio) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2fx", ratio);
  return buffer;
}

std::string ModeText(const std::string& mode) {
  return mode.empty() ? "the default power mode" : "power mode " + mode;
}

Check RatioCheck(std::string kind, std::string_view what, double value, double baseline,
                 double margin, std::string_view unit, const BenchmarkBaseline& base) {
  Check check;
  check.kind = std::move(kind);
  check.value = value / baseline;
  check.op = ">";
  check.threshold = 1.0 + margin;
  check.failed = *check.value > check.threshold;
  check.summary = std::string(what) + " " + FormatQuantity(value, unit) + " is " +
                  Ratio(*check.value) + " the baseline of " + FormatQuantity(baseline, unit) +
                  " (" + ModeText(base.power_mode) + ", " + std::to_string(base.runs) +
                  (base.runs == 1 ? " run" : " runs") + "; margin " + Percent(margin) + ")";
  return check;
}

}  // namespace

std::string FormatQuantity(double value, std::string_view unit, int significant) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g", significant, value);
  std::string out = buffer;
  if (!unit.empty()) out += " " + std::string(unit);
  return out;
}

bool IsGoodRun(const BenchmarkRun& run) {
  return run.status == BenchmarkStatus::kSucceeded && run.outputs_match.value_or(true);
}

BenchmarkBaseline ComputeBaseline(const std::string& power_mode,
                                  const std::vector<BenchmarkRun>& runs) {
  BenchmarkBaseline baseline;
  baseline.power_mode = power_mode;
  baseline.runs = static_cast<int>(runs.size());
  baseline.latency_p50_ms = MedianOf(runs, [](const BenchmarkRun& r) { return r.latency_p50_ms; });
  baseline.energy_per_inference_joules =
      MedianOf(runs, [](const BenchmarkRun& r) { return r.energy_per_inference_joules; });
  baseline.peak_rss_bytes = MedianOf(runs, [](const BenchmarkRun& r) { return r.peak_rss_bytes; });
  baseline.max_temperature_start_celsius =
      MedianOf(runs, [](const BenchmarkRun& r) { return r.max_temperature_start_celsius; });
  baseline.cpu_frequency_end_hertz =
      MedianOf(runs, [](const BenchmarkRun& r) { return r.cpu_frequency_end_hertz; });
  baseline.gpu_frequency_end_hertz =
      MedianOf(runs, [](const BenchmarkRun& r) { return r.gpu_frequency_end_hertz; });
  return baseline;
}

bool Verdict::any_failed() const {
  return std::any_of(checks.begin(), checks.end(), [](const Check& c) { return c.failed; });
}

Verdict Judge(const BenchmarkRun& run, const ModelSpec& spec,
              const std::vector<BenchmarkRun>& baseline_runs,
              const std::optional<BenchmarkRun>& previous, int min_runs) {
  Verdict verdict;
  Check failed{"failed", run.status == BenchmarkStatus::kFailed, 0.0, ">=", 1, ""};
  failed.value = failed.failed ? 1.0 : 0.0;
  failed.summary = failed.failed ? "the benchmark failed: " + run.error : "the benchmark succeeded";
  verdict.checks.push_back(failed);
  if (run.status != BenchmarkStatus::kSucceeded) return verdict;

  // Output check: judged when golden data is configured; cleared when it no longer is.
  if (spec.golden_data.empty()) {
    verdict.checks.push_back({"output", false, 0.0, ">=", 1, "no golden data configured"});
  } else if (run.outputs_match) {
    Check output{"output", !*run.outputs_match, *run.outputs_match ? 0.0 : 1.0, ">=", 1, ""};
    output.summary = *run.outputs_match
                         ? "outputs match the golden data"
                         : "outputs differ from the golden data in " + spec.golden_data;
    if (run.max_abs_error) {
      output.summary += " (max |error| " + FormatQuantity(*run.max_abs_error, "", 3) + ", top-1 " +
                        (run.top1_match.value_or(true) ? "same" : "different") + ")";
    }
    verdict.checks.push_back(output);
  }

  // Budgets.
  if (spec.budget_p99_latency_ms <= 0) {
    verdict.checks.push_back({"latency_budget", false, std::nullopt, ">", 0, "no budget"});
  } else if (run.latency_p99_ms) {
    Check budget{"latency_budget",           *run.latency_p99_ms > spec.budget_p99_latency_ms,
                 *run.latency_p99_ms,        ">",
                 spec.budget_p99_latency_ms, ""};
    budget.summary = "p99 latency " + FormatQuantity(*run.latency_p99_ms, "ms") +
                     (budget.failed ? " exceeds" : " is within") + " the budget of " +
                     FormatQuantity(spec.budget_p99_latency_ms, "ms");
    verdict.checks.push_back(budget);
  }
  if (spec.budget_energy_per_inference_millijoules <= 0) {
    verdict.checks.push_back({"energy_budget", false, std::nullopt, ">", 0, "no budget"});
  } else if (run.energy_per_inference_joules) {
    const double millijoules = *run.energy_per_inference_joules * 1000;
    Check budget{"energy_budget",
                 millijoules > spec.budget_energy_per_inference_millijoules,
                 millijoules,
                 ">",
                 spec.budget_energy_per_inference_millijoules,
                 ""};
    budget.summary = "energy per inference " + FormatQuantity(millijoules, "mJ") +
                     (budget.failed ? " exceeds" : " is within") + " the budget of " +
                     FormatQuantity(spec.budget_energy_per_inference_millijoules, "mJ");
    verdict.checks.push_back(budget);
  }

  // Regressions against the baseline.
  if (static_cast<int>(baseline_runs.size()) >= std::max(1, min_runs)) {
    verdict.baseline = ComputeBaseline(run.power_mode, baseline_runs);
    const BenchmarkBaseline& base = *verdict.baseline;
    if (run.latency_p50_ms && base.latency_p50_ms && *base.latency_p50_ms > 0) {
      verdict.checks.push_back(RatioCheck("latency", "p50 latency", *run.latency_p50_ms,
                                          *base.latency_p50_ms, spec.latency_margin_ratio, "ms",
                                          base));
    }
    if (run.energy_per_inference_joules && base.energy_per_inference_joules &&
        *base.energy_per_inference_joules > 0) {
      verdict.checks.push_back(RatioCheck(
          "energy", "energy per inference", *run.energy_per_inference_joules * 1000,
          *base.energy_per_inference_joules * 1000, spec.energy_margin_ratio, "mJ", base));
    }
    if (run.peak_rss_bytes && base.peak_rss_bytes && *base.peak_rss_bytes > 0) {
      verdict.checks.push_back(
          RatioCheck("memory", "peak memory", static_cast<double>(*run.peak_rss_bytes) / (1 << 20),
                     *base.peak_rss_bytes / (1 << 20), spec.memory_margin_ratio, "MiB", base));
    }
  }

  if (!verdict.any_failed()) return verdict;

  // What else happened in the same window.
  if (run.throttled) {
    std::string reasons;
    for (const std::string& reason : run.throttle_reasons) {
      reasons += (reasons.empty() ? "" : ", ") + reason;
    }
    verdict.hints.push_back("throttled during the run (" + reasons + ")");
  }
  if (verdict.baseline) {
    const BenchmarkBaseline& base = *verdict.baseline;
    if (run.cpu_frequency_end_hertz && base.cpu_frequency_end_hertz &&
        *run.cpu_frequency_end_hertz < 0.9 * *base.cpu_frequency_end_hertz) {
      verdict.hints.push_back("CPU clocks lower than in the baseline runs (" +
                              Hertz(*run.cpu_frequency_end_hertz) + " vs " +
                              Hertz(*base.cpu_frequency_end_hertz) + ")");
    }
    if (run.gpu_frequency_end_hertz && base.gpu_frequency_end_hertz &&
        *run.gpu_frequency_end_hertz < 0.9 * *base.gpu_frequency_end_hertz) {
      verdict.hints.push_back("GPU clocks lower than in the baseline runs (" +
                              Hertz(*run.gpu_frequency_end_hertz) + " vs " +
                              Hertz(*base.gpu_frequency_end_hertz) + ")");
    }
    if (run.max_temperature_start_celsius && base.max_temperature_start_celsius &&
        *run.max_temperature_start_celsius > *base.max_temperature_start_celsius + 5) {
      verdict.hints.push_back(
          "started " +
          FormatQuantity(*run.max_temperature_start_celsius - *base.max_temperature_start_celsius,
                         "°C", 2) +
          " hotter than the baseline runs (" +
          FormatQuantity(*run.max_temperature_start_celsius, "°C") + " vs " +
          FormatQuantity(*base.max_temperature_start_celsius, "°C") + ")");
    }
  }
  if (previous && previous->power_mode != run.power_mode) {
    verdict.hints.push_back(ModeText(run.power_mode) + ", the previous run was in " +
                            ModeText(previous->power_mode));
  }
  if (run.other_cpu_utilization && *run.other_cpu_utilization > 0.25) {
    verdict.hints.push_back("the device was busy: other work used " +
                            Percent(*run.other_cpu_utilization) +
                            " of the CPU during the run, so it measured contention too");
  }
  if (!baseline_runs.empty()) {
    const BenchmarkRun& newest = baseline_runs.front();
    if (!newest.settings.empty() && newest.settings != run.settings) {
      verdict.hints.push_back("the run settings changed since the baseline runs (" +
                              newest.settings + " -> " + run.settings + ")");
    }
    if (newest.model_bytes && run.model_bytes && *newest.model_bytes != *run.model_bytes) {
      verdict.hints.push_back("the model file changed since the baseline runs (" +
                              std::to_string(*newest.model_bytes) + " -> " +
                              std::to_string(*run.model_bytes) + " bytes)");
    }
  }
  return verdict;
}

void ApplyVerdict(const Verdict& verdict, BenchmarkRun& run) {
  run.regressions.clear();
  for (const Check& check : verdict.checks) {
    if (check.failed) run.regressions.push_back(check.kind);
  }
  run.hints = verdict.hints;
  if (verdict.baseline) {
    run.baseline_runs = verdict.baseline->runs;
    run.baseline_latency_p50_ms = verdict.baseline->latency_p50_ms;
    run.baseline_energy_per_inference_joules = verdict.baseline->energy_per_inference_joules;
    run.baseline_peak_rss_bytes = verdict.baseline->peak_rss_bytes;
  }
}

}  // namespace edgemond::selfbench
