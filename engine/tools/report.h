// edgemond-bench --report: one table row per model, from benchmarks run on the spot or from
// reports already made:
//
//   edgemond-bench --report mobilenet_v2.onnx resnet18.onnx          # benchmarks both now
//   curl -s http://127.0.0.1:8867/api/v1/benchmarks | edgemond-bench --report -
//   edgemond-bench --json m.onnx > m.json; edgemond-bench --report m.json
//
// Columns: model, precision, size MB, parameters, GFLOPs, latency p50 and p99 ms, throughput
// inferences/s, peak memory MB, power W, energy mJ per inference, GFLOP/s per W, temperature °C.
// Power, energy and temperature come from the daemon's self-benchmarks (the JSON of
// /api/v1/benchmarks, /api/v1/benchmarks/{model} or /api/v1/benchmarks/runs/{id}), which measure
// the device's sensors over each run's timed window; edgemond-bench alone has no power meter, so
// its own rows show "-" there.

#ifndef EDGEMOND_ENGINE_TOOLS_REPORT_H_
#define EDGEMOND_ENGINE_TOOLS_REPORT_H_

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace edgemond::engine {

struct ReportRow {
  std::string model;
  std::string precision;
  std::optional<double> size_mb;  // 10^6 bytes.
  std::optional<double> parameters;
  std::optional<double> gflops;  // Per inference.
  std::optional<double> latency_p50_ms;
  std::optional<double> latency_p99_ms;
  std::optional<double> throughput_per_second;
  std::optional<double> peak_memory_mb;  // 10^6 bytes of peak RSS.
  std::optional<double> power_watts;
  std::optional<double> energy_millijoules;  // Per inference.
  std::optional<double> gflops_per_watt;
  std::optional<double> temperature_celsius;  // Hottest thermal zone at the end of the run.
  std::string note;                           // Why a row is empty ("failed: ...").
};

// The rows of one JSON document: an edgemond-bench --json report, or an edgemond API answer
// about benchmarks. kInvalidArgument for anything else. An edgemond-bench report's row is named
// after its model file, or `name` when the report does not say (an error report).
Result<std::vector<ReportRow>> ReportRowsFromJson(const nlohmann::json& document,
                                                  std::string_view name);

// The table, columns aligned, one line per row.
std::string RenderReport(const std::vector<ReportRow>& rows);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_TOOLS_REPORT_H_
