#include "engine/tools/report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace edgemond::engine {
namespace {

using JsonValue = nlohmann::json;

const JsonValue* At(const JsonValue& root, std::initializer_list<std::string_view> keys) {
  const JsonValue* node = &root;
  for (std::string_view key : keys) {
    if (!node->is_object()) return nullptr;
    const auto it = node->find(key);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

std::optional<double> Number(const JsonValue& root, std::initializer_list<std::string_view> keys) {
  const JsonValue* node = At(root, keys);
  if (node == nullptr || !node->is_number()) return std::nullopt;
  return node->get<double>();
}

std::string Text(const JsonValue& root, std::initializer_list<std::string_view> keys) {
  const JsonValue* node = At(root, keys);
  return node != nullptr && node->is_string() ? node->get<std::string>() : "";
}

std::optional<double> Scaled(std::optional<double> value, double factor) {
  if (!value) return std::nullopt;
  return *value * factor;
}

// An edgemond-bench --json report.
ReportRow FromBenchReport(const JsonValue& report, std::string_view name) {
  ReportRow row;
  const std::string path = Text(report, {"model", "path"});
  row.model = path.empty() ? std::string(name) : std::filesystem::path(path).stem().string();
  if (const JsonValue* error = At(report, {"error"})) {
    row.note = "failed: " + Text(*error, {"message"});
    return row;
  }
  if (const JsonValue* inputs = At(report, {"model", "inputs"});
      inputs != nullptr && inputs->is_array() && !inputs->empty()) {
    row.precision = Text((*inputs)[0], {"type"});
  }
  const auto file = Number(report, {"model", "file_bytes"});
  if (file)
    row.size_mb = (*file + Number(report, {"model", "external_data_bytes"}).value_or(0)) / 1e6;
  row.parameters = Number(report, {"model", "parameters"});
  row.gflops = Scaled(Number(report, {"model", "flops"}), 1e-9);
  row.latency_p50_ms = Number(report, {"latency_ms", "p50"});
  row.latency_p99_ms = Number(report, {"latency_ms", "p99"});
  row.throughput_per_second = Number(report, {"throughput_per_second"});
  row.peak_memory_mb = Scaled(Number(report, {"memory", "peak_rss_bytes"}), 1e-6);
  return row;
}

// A run as the daemon's API serves it.
ReportRow FromRun(const JsonValue& run) {
  ReportRow row;
  row.model = Text(run, {"model"});
  const std::string status = Text(run, {"status"});
  if (status != "succeeded") {
    row.note = status == "failed" ? "failed: " + Text(run, {"error"}) : status;
    return row;
  }
  row.precision = Text(run, {"model_info", "precision"});
  row.size_mb = Scaled(Number(run, {"model_info", "file_bytes"}), 1e-6);
  row.parameters = Number(run, {"model_info", "parameters"});
  row.gflops = Scaled(Number(run, {"model_info", "flops"}), 1e-9);
  row.latency_p50_ms = Number(run, {"timing", "latency_ms", "p50"});
  row.latency_p99_ms = Number(run, {"timing", "latency_ms", "p99"});
  row.throughput_per_second = Number(run, {"timing", "throughput_per_second"});
  row.peak_memory_mb = Scaled(Number(run, {"memory", "peak_rss_bytes"}), 1e-6);
  row.power_watts = Number(run, {"power", "average_watts"});
  row.energy_millijoules = Scaled(Number(run, {"power", "energy_per_inference_joules"}), 1e3);
  row.gflops_per_watt = Number(run, {"compute", "gflops_per_watt"});
  row.temperature_celsius = Number(run, {"device", "max_temperature_celsius", "end"});
  if (!row.power_watts) {
    const std::string why = Text(run, {"power", "missing_reason"});
    if (!why.empty()) row.note = "no power: " + why;
  }
  return row;
}

std::string Cell(const std::optional<double>& value, int decimals) {
  if (!value) return "-";
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, *value);
  return buffer;
}

std::string Count(const std::optional<double>& value) {
  if (!value) return "-";
  char buffer[48];
  if (*value >= 1e6) {
    std::snprintf(buffer, sizeof(buffer), "%.2fM", *value / 1e6);
  } else if (*value >= 1e3) {
    std::snprintf(buffer, sizeof(buffer), "%.1fk", *value / 1e3);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.0f", *value);
  }
  return buffer;
}

}  // namespace

Result<std::vector<ReportRow>> ReportRowsFromJson(const nlohmann::json& document,
                                                  std::string_view name) {
  if (!document.is_object()) return Status::InvalidArgument("not a JSON object");
  // The API's envelope: {"status": ..., "data": ...}.
  if (const JsonValue* data = At(document, {"data"})) {
    std::vector<ReportRow> rows;
    if (const JsonValue* models = At(*data, {"models"}); models != nullptr && models->is_array()) {
      for (const JsonValue& model : *models) {  // GET /api/v1/benchmarks
        const JsonValue* latest = At(model, {"latest"});
        if (latest != nullptr && latest->is_object()) {
          rows.push_back(FromRun(*latest));
        } else {
          ReportRow row;
          row.model = Text(model, {"model"});
          row.note = "no run yet";
          rows.push_back(std::move(row));
        }
      }
      return rows;
    }
    if (const JsonValue* runs = At(*data, {"runs"}); runs != nullptr && runs->is_array()) {
      for (const JsonValue& run : *runs)
        rows.push_back(FromRun(run));  // GET /api/v1/benchmarks/{m}
      return rows;
    }
    if (const JsonValue* run = At(*data, {"run"}); run != nullptr && run->is_object()) {
      return std::vector<ReportRow>{FromRun(*run)};  // GET /api/v1/benchmarks/runs/{id}
    }
    return Status::InvalidArgument("an edgemond API answer, but not about benchmarks");
  }
  if (At(document, {"latency_ms"}) != nullptr || At(document, {"error"}) != nullptr) {
    return std::vector<ReportRow>{FromBenchReport(document, name)};
  }
  return Status::InvalidArgument(
      "neither an edgemond-bench --json report nor an edgemond API answer about benchmarks");
}

std::string RenderReport(const std::vector<ReportRow>& rows) {
  const std::vector<std::string> header = {
      "model", "precision", "size MB", "params", "GFLOPs",        "p50 ms", "p99 ms",
      "inf/s", "peak MB",   "power W", "mJ/inf", "GFLOP/s per W", "temp °C"};
  std::vector<std::vector<std::string>> cells;
  for (const ReportRow& row : rows) {
    cells.push_back({row.model, row.precision.empty() ? "-" : row.precision, Cell(row.size_mb, 2),
                     Count(row.parameters), Cell(row.gflops, 3), Cell(row.latency_p50_ms, 3),
                     Cell(row.latency_p99_ms, 3), Cell(row.throughput_per_second, 1),
                     Cell(row.peak_memory_mb, 1), Cell(row.power_watts, 2),
                     Cell(row.energy_millijoules, 3), Cell(row.gflops_per_watt, 2),
                     Cell(row.temperature_celsius, 1)});
  }
  // Column widths in characters (°C counts once).
  const auto width = [](const std::string& text) {
    std::size_t n = 0;
    for (const unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
    return n;
  };
  std::vector<std::size_t> widths(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    widths[c] = width(header[c]);
    for (const auto& line : cells) widths[c] = std::max(widths[c], width(line[c]));
  }
  std::string out;
  const auto emit = [&](const std::vector<std::string>& line) {
    for (std::size_t c = 0; c < line.size(); ++c) {
      const std::string pad(widths[c] - width(line[c]), ' ');
      // The model's name to the left, numbers to the right.
      out += c == 0 ? line[c] + pad : pad + line[c];
      out += c + 1 < line.size() ? "  " : "\n";
    }
  };
  emit(header);
  for (std::size_t r = 0; r < rows.size(); ++r) emit(cells[r]);
  bool noted = false;
  for (const ReportRow& row : rows) {
    if (row.note.empty()) continue;
    if (!noted) out += "\n";
    noted = true;
    out += row.model + ": " + row.note + "\n";
  }
  return out;
}

}  // namespace edgemond::engine
