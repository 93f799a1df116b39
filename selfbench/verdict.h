// Baselines and verdicts: is a finished run as good as its model's recent runs, within its
// budgets, and correct? And if not, what in the same window may explain it?
//
// Baseline. Per model and power mode, the medians of the most recent good runs (succeeded, and
// outputs matched when golden data is configured): p50 latency, energy per inference, peak memory,
// and the temperature and clocks they ran at. Medians, so that one odd run neither makes nor
// breaks it; rolling, so that a lasting change (a new power supply, a firmware update) becomes
// the new normal after enough runs, and its alert resolves.
//
// Checks, each judged per run (a check that cannot be judged keeps its alert's state):
//   failed          the run failed (cannot start, load error, crash, limit, deadline)
//   output          the outputs did not match the golden data
//   latency         p50 latency above the baseline's by more than latency_margin_ratio
//   energy          energy per inference above the baseline's by more than energy_margin_ratio
//   memory          peak RSS above the baseline's by more than memory_margin_ratio
//   latency_budget  p99 latency above budget.p99_latency_ms
//   energy_budget   energy per inference above budget.energy_per_inference_millijoules
// A failed run judges only `failed`. The regression checks need a baseline of at least
// `min_runs` good runs in the run's power mode; budget and output checks are cleared when the
// budget or the golden data is removed from the configuration.
//
// Hints, for a run that fails a check: throttling during the run, clocks below the baseline's,
// a hotter start, a different power mode than the previous run, other load on the device, changed
// settings or a changed model file.
//
// Pure functions.

#ifndef EDGEMOND_SELFBENCH_VERDICT_H_
#define EDGEMOND_SELFBENCH_VERDICT_H_

#include <optional>
#include <string>
#include <vector>

#include "core/benchmark.h"
#include "selfbench/model_spec.h"

namespace edgemond::selfbench {

// Succeeded, and outputs matched (or were not checked).
bool IsGoodRun(const BenchmarkRun& run);

// Medians of `runs` (good runs of one model in `power_mode`).
BenchmarkBaseline ComputeBaseline(const std::string& power_mode,
                                  const std::vector<BenchmarkRun>& runs);

struct Check {
  std::string kind;  // "failed", "output", "latency", ... (see above).
  bool failed = false;
  std::optional<double> value;  // What was compared: a ratio, milliseconds, millijoules, 1/0.
  std::string op;               // ">" or ">=".
  double threshold = 0;
  std::string summary;  // One sentence with the numbers.
};

struct Verdict {
  std::vector<Check> checks;  // The checks this run could judge.
  std::vector<std::string> hints;
  std::optional<BenchmarkBaseline> baseline;  // When one was available.

  bool any_failed() const;
};

// Judges a finished run. `baseline_runs`: the model's most recent good runs in the run's power
// mode, newest first (the run itself not among them); `previous`: the model's run before this one.
Verdict Judge(const BenchmarkRun& run, const ModelSpec& spec,
              const std::vector<BenchmarkRun>& baseline_runs,
              const std::optional<BenchmarkRun>& previous, int min_runs);

// Writes the verdict into the run (regressions, hints, baseline_*).
void ApplyVerdict(const Verdict& verdict, BenchmarkRun& run);

// "12.1 ms", "1.25 GHz", "3.42 W": numbers as hints and summaries print them.
std::string FormatQuantity(double value, std::string_view unit, int significant = 3);

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_VERDICT_H_
