#include "storage/benchmark_runs.h"

#include <cmath>

#include "storage/label_text.h"
#include "storage/schema.h"
#include "storage/sqlite/transaction.h"

namespace edgemond::storage {
namespace {

using sqlite::Statement;

// One column of benchmark_runs and how a run's field goes in and out. The columns' declarations
// are the schema migrations' (storage/schema.cc): a new field here needs a new migration that
// adds its column.
struct Column {
  std::string_view name;
  void (*bind)(Statement& statement, int index, const BenchmarkRun& run);
  Status (*read)(const Statement& statement, int index, BenchmarkRun& run);
};

template <auto Member>
constexpr Column OptionalReal(std::string_view name) {
  return {name,
          [](Statement& s, int i, const BenchmarkRun& r) {
            const auto& value = r.*Member;
            if (value && std::isfinite(static_cast<double>(*value))) {
              s.BindDouble(i, static_cast<double>(*value));
            } else {
              s.BindNull(i);
            }
          },
          [](const Statement& s, int i, BenchmarkRun& r) {
            if (s.ColumnIsNull(i)) {
              (r.*Member).reset();
            } else {
              r.*Member = s.ColumnDouble(i);
            }
            return Status::Ok();
          }};
}

template <auto Member>
constexpr Column OptionalInteger(std::string_view name) {
  return {name,
          [](Statement& s, int i, const BenchmarkRun& r) {
            const auto& value = r.*Member;
            if (value) {
              s.BindInt64(i, static_cast<std::int64_t>(*value));
            } else {
              s.BindNull(i);
            }
          },
          [](const Statement& s, int i, BenchmarkRun& r) {
            using T = typename std::remove_reference_t<decltype(r.*Member)>::value_type;
            if (s.ColumnIsNull(i)) {
              (r.*Member).reset();
            } else {
              r.*Member = static_cast<T>(s.ColumnInt64(i));
            }
            return Status::Ok();
          }};
}

template <auto Member>
constexpr Column OptionalBool(std::string_view name) {
  return {name,
          [](Statement& s, int i, const BenchmarkRun& r) {
            const auto& value = r.*Member;
            if (value) {
              s.BindInt64(i, *value ? 1 : 0);
            } else {
              s.BindNull(i);
            }
          },
          [](const Statement& s, int i, BenchmarkRun& r) {
            if (s.ColumnIsNull(i)) {
              (r.*Member).reset();
            } else {
              r.*Member = s.ColumnInt64(i) != 0;
            }
            return Status::Ok();
          }};
}

template <auto Member>
constexpr Column Integer(std::string_view name) {
  return {name,
          [](Statement& s, int i, const BenchmarkRun& r) {
            s.BindInt64(i, static_cast<std::int64_t>(r.*Member));
          },
          [](const Statement& s, int i, BenchmarkRun& r) {
            r.*Member = static_cast<std::remove_reference_t<decltype(r.*Member)>>(s.ColumnInt64(i));
            return Status::Ok();
          }};
}

template <auto Member>
constexpr Column Text(std::string_view name) {
  return {name, [](Statement& s, int i, const BenchmarkRun& r) { s.BindText(i, r.*Member); },
          [](const Statement& s, int i, BenchmarkRun& r) {
            r.*Member = s.ColumnString(i);
            return Status::Ok();
          }};
}

// A list of short texts, one per line (none contains a newline: Join() replaces them).
std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += '\n';
    for (const char c : item) out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::vector<std::string> Split(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    out.emplace_back(text.substr(0, newline));
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  return out;
}

template <auto Member>
constexpr Column TextList(std::string_view name) {
  return {name, [](Statement& s, int i, const BenchmarkRun& r) { s.BindText(i, Join(r.*Member)); },
          [](const Statement& s, int i, BenchmarkRun& r) {
            r.*Member = Split(s.ColumnText(i));
            return Status::Ok();
          }};
}

template <auto Member>
constexpr Column OptionalTime(std::string_view name) {
  return {name,
          [](Statement& s, int i, const BenchmarkRun& r) {
            const auto& value = r.*Member;
            if (value) {
              s.BindInt64(i, ToUnixMillis(*value));
            } else {
              s.BindNull(i);
            }
          },
          [](const Statement& s, int i, BenchmarkRun& r) {
            if (s.ColumnIsNull(i)) {
              (r.*Member).reset();
            } else {
              r.*Member = FromUnixMillis(s.ColumnInt64(i));
            }
            return Status::Ok();
          }};
}

using R = BenchmarkRun;

// clang-format off
constexpr Column kRunColumns[] = {
    Text<&R::model>("model"),
    Text<&R::trigger>("trigger"),
    {"status",
     [](Statement& s, int i, const R& r) { s.BindText(i, BenchmarkStatusName(r.status)); },
     [](const Statement& s, int i, R& r) {
       EDGEMOND_ASSIGN_OR_RETURN(r.status, ParseBenchmarkStatus(s.ColumnText(i)));
       return Status::Ok();
     }},
    Text<&R::error>("error"),
    {"started_ms",
     [](Statement& s, int i, const R& r) { s.BindInt64(i, ToUnixMillis(r.started_at)); },
     [](const Statement& s, int i, R& r) {
       r.started_at = FromUnixMillis(s.ColumnInt64(i));
       return Status::Ok();
     }},
    OptionalTime<&R::finished_at>("finished_ms"),
    Text<&R::model_path>("model_path"),
    Text<&R::settings>("settings"),
    Integer<&R::threads>("threads"),
    Integer<&R::warmup_runs>("warmup_runs"),
    OptionalInteger<&R::model_bytes>("model_bytes"),
    OptionalInteger<&R::parameters>("parameters"),
    OptionalInteger<&R::flops>("flops"),
    Text<&R::precision>("precision"),
    OptionalReal<&R::load_ms>("load_ms"),
    OptionalReal<&R::warmup_ms>("warmup_ms"),
    OptionalInteger<&R::runs>("runs"),
    OptionalTime<&R::window_start>("window_start_ms"),
    OptionalTime<&R::window_end>("window_end_ms"),
    OptionalReal<&R::window_seconds>("window_seconds"),
    OptionalReal<&R::latency_min_ms>("latency_min_ms"),
    OptionalReal<&R::latency_mean_ms>("latency_mean_ms"),
    OptionalReal<&R::latency_p50_ms>("latency_p50_ms"),
    OptionalReal<&R::latency_p90_ms>("latency_p90_ms"),
    OptionalReal<&R::latency_p99_ms>("latency_p99_ms"),
    OptionalReal<&R::latency_max_ms>("latency_max_ms"),
    OptionalReal<&R::throughput_per_second>("throughput_per_second"),
    OptionalInteger<&R::peak_rss_bytes>("peak_rss_bytes"),
    OptionalInteger<&R::arena_bytes>("arena_bytes"),
    OptionalInteger<&R::exit_code>("exit_code"),
    OptionalInteger<&R::signal>("signal"),
    OptionalReal<&R::cpu_seconds>("cpu_seconds"),
    Text<&R::energy_method>("energy_method"),
    Text<&R::energy_missing_reason>("energy_missing_reason"),
    OptionalReal<&R::idle_watts>("idle_watts"),
    OptionalReal<&R::average_watts>("average_watts"),
    OptionalReal<&R::peak_watts>("peak_watts"),
    OptionalReal<&R::energy_joules>("energy_joules"),
    OptionalReal<&R::energy_per_inference_joules>("energy_per_inference_joules"),
    OptionalReal<&R::energy_above_idle_per_inference_joules>(
        "energy_above_idle_per_inference_joules"),
    OptionalReal<&R::inferences_per_joule>("inferences_per_joule"),
    OptionalReal<&R::gflops_per_second>("gflops_per_second"),
    OptionalReal<&R::gflops_per_watt>("gflops_per_watt"),
    Text<&R::power_mode>("power_mode"),
    Integer<&R::throttled>("throttled"),
    TextList<&R::throttle_reasons>("throttle_reasons"),
    OptionalReal<&R::max_temperature_start_celsius>("max_temperature_start_celsius"),
    OptionalReal<&R::max_temperature_end_celsius>("max_temperature_end_celsius"),
    OptionalReal<&R::cpu_frequency_start_hertz>("cpu_frequency_start_hertz"),
    OptionalReal<&R::cpu_frequency_end_hertz>("cpu_frequency_end_hertz"),
    OptionalReal<&R::gpu_frequency_start_hertz>("gpu_frequency_start_hertz"),
    OptionalReal<&R::gpu_frequency_end_hertz>("gpu_frequency_end_hertz"),
    OptionalInteger<&R::cpu_cores>("cpu_cores"),
    OptionalReal<&R::system_cpu_utilization>("system_cpu_utilization"),
    OptionalReal<&R::other_cpu_utilization>("other_cpu_utilization"),
    OptionalBool<&R::outputs_match>("outputs_match"),
    OptionalReal<&R::max_abs_error>("max_abs_error"),
    OptionalBool<&R::top1_match>("top1_match"),
    TextList<&R::regressions>("regressions"),
    TextList<&R::hints>("hints"),
    Integer<&R::baseline_runs>("baseline_runs"),
    OptionalReal<&R::baseline_latency_p50_ms>("baseline_latency_p50_ms"),
    OptionalReal<&R::baseline_energy_per_inference_joules>("baseline_energy_per_inference_joules"),
    OptionalReal<&R::baseline_peak_rss_bytes>("baseline_peak_rss_bytes"),
};
// clang-format on

std::string ColumnList() {
  std::string out;
  for (const Column& column : kRunColumns) {
    out += (out.empty() ? "" : ", ") + std::string(column.name);
  }
  return out;
}

void BindOptional(Statement& s, int i, std::optional<double> value) {
  if (value && std::isfinite(*value)) {
    s.BindDouble(i, *value);
  } else {
    s.BindNull(i);
  }
}

std::optional<double> ReadOptional(const Statement& s, int i) {
  if (s.ColumnIsNull(i)) return std::nullopt;
  return s.ColumnDouble(i);
}

Status BindRun(Statement& statement, const BenchmarkRun& run, int first) {
  for (std::size_t c = 0; c < std::size(kRunColumns); ++c) {
    kRunColumns[c].bind(statement, first + static_cast<int>(c), run);
  }
  return Status::Ok();
}

Result<BenchmarkRun> ReadRun(const Statement& row) {
  BenchmarkRun run;
  run.id = row.ColumnInt64(0);
  for (std::size_t c = 0; c < std::size(kRunColumns); ++c) {
    EDGEMOND_RETURN_IF_ERROR(kRunColumns[c].read(row, static_cast<int>(c) + 1, run));
  }
  return run;
}

}  // namespace

Result<std::unique_ptr<BenchmarkRuns>> BenchmarkRuns::Open(const std::string& path) {
  sqlite::DatabaseOptions options;
  options.mode = sqlite::DatabaseOptions::Mode::kReadWrite;
  options.small_memory = true;
  options.exclusive_to_process = true;  // As the store's connections (storage/sqlite_store.h).
  EDGEMOND_ASSIGN_OR_RETURN(auto db, sqlite::Database::Open(path, options));
  EDGEMOND_ASSIGN_OR_RETURN(const int version, CheckSchema(*db, BuiltinMigrations()));
  if (version < kBenchmarkRunsSchemaVersion) {
    return Status::FailedPrecondition(
        "benchmark runs: database " + path + " has schema version " + std::to_string(version) +
        "; the benchmark runs need version " + std::to_string(kBenchmarkRunsSchemaVersion) +
        " (the store migrates the database when it opens it: open the store first)");
  }
  return std::unique_ptr<BenchmarkRuns>(new BenchmarkRuns(std::move(db)));
}

Status BenchmarkRuns::WriteChildren(const BenchmarkRun& run) {
  EDGEMOND_ASSIGN_OR_RETURN(
      auto erase_power,
      db_->GetCachedStatement("DELETE FROM benchmark_run_power WHERE run_id = ?"));
  erase_power.BindInt64(0, run.id);
  EDGEMOND_RETURN_IF_ERROR(erase_power.Run());
  EDGEMOND_ASSIGN_OR_RETURN(
      auto erase_readings,
      db_->GetCachedStatement("DELETE FROM benchmark_run_readings WHERE run_id = ?"));
  erase_readings.BindInt64(0, run.id);
  EDGEMOND_RETURN_IF_ERROR(erase_readings.Run());
  for (std::size_t i = 0; i < run.power.size(); ++i) {
    const BenchmarkPowerSource& source = run.power[i];
    EDGEMOND_ASSIGN_OR_RETURN(
        auto insert,
        db_->GetCachedStatement("INSERT INTO benchmark_run_power (run_id, position, kind, name, "
                                "method, average_watts, peak_watts, energy_joules) VALUES "
                                "(?,?,?,?,?,?,?,?)"));
    insert.BindInt64(0, run.id);
    insert.BindInt64(1, static_cast<std::int64_t>(i));
    insert.BindText(2, source.kind);
    insert.BindText(3, source.name);
    insert.BindText(4, source.method);
    BindOptional(insert, 5, source.average_watts);
    BindOptional(insert, 6, source.peak_watts);
    BindOptional(insert, 7, source.energy_joules);
    EDGEMOND_RETURN_IF_ERROR(insert.Run());
  }
  for (std::size_t i = 0; i < run.readings.size(); ++i) {
    const BenchmarkReading& reading = run.readings[i];
    EDGEMOND_ASSIGN_OR_RETURN(
        auto insert, db_->GetCachedStatement(
                         "INSERT INTO benchmark_run_readings (run_id, position, metric, labels, "
                         "at_start, at_end) VALUES (?,?,?,?,?,?)"));
    auto labels = CanonicalLabels(reading.labels);
    insert.BindInt64(0, run.id);
    insert.BindInt64(1, static_cast<std::int64_t>(i));
    insert.BindText(2, reading.metric);
    insert.BindText(3, labels.ok() ? FormatLabelText(*labels) : FormatLabelText({}));
    BindOptional(insert, 4, reading.start);
    BindOptional(insert, 5, reading.end);
    EDGEMOND_RETURN_IF_ERROR(insert.Run());
  }
  return Status::Ok();
}

Status BenchmarkRuns::ReadChildren(BenchmarkRun& run) {
  EDGEMOND_ASSIGN_OR_RETURN(
      auto power, db_->GetCachedStatement(
                      "SELECT kind, name, method, average_watts, peak_watts, energy_joules FROM "
                      "benchmark_run_power WHERE run_id = ? ORDER BY position"));
  power.BindInt64(0, run.id);
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool row, power.Step());
    if (!row) break;
    run.power.push_back(BenchmarkPowerSource{power.ColumnString(0), power.ColumnString(1),
                                             power.ColumnString(2), ReadOptional(power, 3),
                                             ReadOptional(power, 4), ReadOptional(power, 5)});
  }
  EDGEMOND_ASSIGN_OR_RETURN(
      auto readings, db_->GetCachedStatement("SELECT metric, labels, at_start, at_end FROM "
                                             "benchmark_run_readings WHERE run_id = ? ORDER BY "
                                             "position"));
  readings.BindInt64(0, run.id);
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool row, readings.Step());
    if (!row) break;
    EDGEMOND_ASSIGN_OR_RETURN(Labels labels, ParseLabelText(readings.ColumnText(1)));
    run.readings.push_back(BenchmarkReading{readings.ColumnString(0), std::move(labels),
                                            ReadOptional(readings, 2), ReadOptional(readings, 3)});
  }
  return Status::Ok();
}

Result<std::int64_t> BenchmarkRuns::Insert(const BenchmarkRun& run) {
  std::lock_guard lock(mu_);
  sqlite::Transaction transaction(*db_, sqlite::Transaction::Mode::kImmediate);
  EDGEMOND_RETURN_IF_ERROR(transaction.Begin());
  std::string placeholders;
  for (std::size_t c = 0; c < std::size(kRunColumns); ++c) placeholders += c == 0 ? "?" : ",?";
  EDGEMOND_ASSIGN_OR_RETURN(auto insert,
                            db_->GetCachedStatement("INSERT INTO benchmark_runs (" + ColumnList() +
                                                    ") VALUES (" + placeholders + ")"));
  EDGEMOND_RETURN_IF_ERROR(BindRun(insert, run, 0));
  EDGEMOND_RETURN_IF_ERROR(insert.Run());
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t id, db_->QueryInt64("SELECT last_insert_rowid()"));
  BenchmarkRun stored = run;
  stored.id = id;
  EDGEMOND_RETURN_IF_ERROR(WriteChildren(stored));
  EDGEMOND_RETURN_IF_ERROR(transaction.Commit());
  return id;
}

Status BenchmarkRuns::Update(const BenchmarkRun& run) {
  std::lock_guard lock(mu_);
  sqlite::Transaction transaction(*db_, sqlite::Transaction::Mode::kImmediate);
  EDGEMOND_RETURN_IF_ERROR(transaction.Begin());
  std::string assignments;
  for (const Column& column : kRunColumns) {
    assignments += (assignments.empty() ? "" : ", ") + std::string(column.name) + " = ?";
  }
  EDGEMOND_ASSIGN_OR_RETURN(auto update, db_->GetCachedStatement("UPDATE benchmark_runs SET " +
                                                                 assignments + " WHERE id = ?"));
  EDGEMOND_RETURN_IF_ERROR(BindRun(update, run, 0));
  update.BindInt64(static_cast<int>(std::size(kRunColumns)), run.id);
  EDGEMOND_RETURN_IF_ERROR(update.Run());
  if (db_->Changes() == 0) {
    return Status::NotFound("no benchmark run " + std::to_string(run.id));
  }
  EDGEMOND_RETURN_IF_ERROR(WriteChildren(run));
  return transaction.Commit();
}

Result<std::vector<BenchmarkRun>> BenchmarkRuns::Select(
    std::string_view where_and_order, const std::function<void(sqlite::Statement&)>& bind) {
  EDGEMOND_ASSIGN_OR_RETURN(auto select,
                            db_->Prepare("SELECT id, " + ColumnList() + " FROM benchmark_runs " +
                                         std::string(where_and_order)));
  bind(select);
  std::vector<BenchmarkRun> out;
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) break;
    EDGEMOND_ASSIGN_OR_RETURN(BenchmarkRun run, ReadRun(select));
    out.push_back(std::move(run));
  }
  for (BenchmarkRun& run : out) EDGEMOND_RETURN_IF_ERROR(ReadChildren(run));
  return out;
}

Result<BenchmarkRun> BenchmarkRuns::Get(std::int64_t id) {
  std::lock_guard lock(mu_);
  EDGEMOND_ASSIGN_OR_RETURN(auto runs,
                            Select("WHERE id = ?", [id](Statement& s) { s.BindInt64(0, id); }));
  if (runs.empty()) return Status::NotFound("no benchmark run " + std::to_string(id));
  return std::move(runs.front());
}

Result<std::vector<BenchmarkRun>> BenchmarkRuns::History(const BenchmarkHistoryQuery& query) {
  std::lock_guard lock(mu_);
  return Select(
      "WHERE model = ? AND started_ms >= ? AND started_ms <= ? ORDER BY started_ms DESC, id DESC "
      "LIMIT ?",
      [&](Statement& s) {
        s.BindText(0, query.model);
        s.BindInt64(1, query.from_ms);
        s.BindInt64(2, query.to_ms);
        s.BindInt64(3, static_cast<std::int64_t>(query.limit));
      });
}

Result<BenchmarkRuns::Latest> BenchmarkRuns::LatestOf(const std::string& model) {
  std::lock_guard lock(mu_);
  Latest latest;
  const auto bind = [&](Statement& s) { s.BindText(0, model); };
  EDGEMOND_ASSIGN_OR_RETURN(
      auto finished,
      Select("WHERE model = ? AND status != 'running' ORDER BY id DESC LIMIT 1", bind));
  if (!finished.empty()) latest.finished = std::move(finished.front());
  EDGEMOND_ASSIGN_OR_RETURN(
      auto succeeded,
      Select("WHERE model = ? AND status = 'succeeded' ORDER BY id DESC LIMIT 1", bind));
  if (!succeeded.empty()) latest.succeeded = std::move(succeeded.front());
  return latest;
}

Result<std::vector<BenchmarkRun>> BenchmarkRuns::GoodRuns(const std::string& model,
                                                          const std::string& power_mode,
                                                          std::size_t limit,
                                                          std::int64_t before_id) {
  std::lock_guard lock(mu_);
  return Select(
      "WHERE model = ? AND power_mode = ? AND status = 'succeeded' AND "
      "(outputs_match IS NULL OR outputs_match = 1) AND (? = 0 OR id < ?) ORDER BY id DESC "
      "LIMIT ?",
      [&](Statement& s) {
        s.BindText(0, model);
        s.BindText(1, power_mode);
        s.BindInt64(2, before_id);
        s.BindInt64(3, before_id);
        s.BindInt64(4, static_cast<std::int64_t>(limit));
      });
}

Result<std::vector<std::string>> BenchmarkRuns::PowerModes(const std::string& model) {
  std::lock_guard lock(mu_);
  EDGEMOND_ASSIGN_OR_RETURN(
      auto select,
      db_->Prepare("SELECT DISTINCT power_mode FROM benchmark_runs WHERE model = ? AND status = "
                   "'succeeded' ORDER BY power_mode"));
  select.BindText(0, model);
  std::vector<std::string> out;
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) break;
    out.push_back(select.ColumnString(0));
  }
  return out;
}

Result<std::vector<std::pair<std::string, WallTime>>> BenchmarkRuns::LastStarted() {
  std::lock_guard lock(mu_);
  EDGEMOND_ASSIGN_OR_RETURN(
      auto select,
      db_->Prepare("SELECT model, max(started_ms) FROM benchmark_runs GROUP BY model"));
  std::vector<std::pair<std::string, WallTime>> out;
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) break;
    out.emplace_back(select.ColumnString(0), FromUnixMillis(select.ColumnInt64(1)));
  }
  return out;
}

Result<std::int64_t> BenchmarkRuns::FailUnfinished(const std::string& error, WallTime now) {
  std::lock_guard lock(mu_);
  EDGEMOND_ASSIGN_OR_RETURN(auto update,
                            db_->Prepare("UPDATE benchmark_runs SET status = 'failed', error = ?, "
                                         "finished_ms = ? WHERE status = 'running'"));
  update.BindText(0, error);
  update.BindInt64(1, ToUnixMillis(now));
  EDGEMOND_RETURN_IF_ERROR(update.Run());
  return db_->Changes();
}

Result<std::int64_t> BenchmarkRuns::EnforceRetention(WallTime now,
                                                     std::chrono::milliseconds retention) {
  std::lock_guard lock(mu_);
  sqlite::Transaction transaction(*db_, sqlite::Transaction::Mode::kImmediate);
  EDGEMOND_RETURN_IF_ERROR(transaction.Begin());
  const std::int64_t cutoff = ToUnixMillis(now) - retention.count();
  constexpr std::string_view kDoomed =
      "SELECT id FROM benchmark_runs WHERE started_ms < ? AND id NOT IN (SELECT max(id) FROM "
      "benchmark_runs GROUP BY model)";
  for (std::string_view table : {"benchmark_run_power", "benchmark_run_readings"}) {
    EDGEMOND_ASSIGN_OR_RETURN(
        auto erase, db_->Prepare("DELETE FROM " + std::string(table) + " WHERE run_id IN (" +
                                 std::string(kDoomed) + ")"));
    erase.BindInt64(0, cutoff);
    EDGEMOND_RETURN_IF_ERROR(erase.Run());
  }
  EDGEMOND_ASSIGN_OR_RETURN(auto erase, db_->Prepare("DELETE FROM benchmark_runs WHERE id IN (" +
                                                     std::string(kDoomed) + ")"));
  erase.BindInt64(0, cutoff);
  EDGEMOND_RETURN_IF_ERROR(erase.Run());
  const std::int64_t deleted = db_->Changes();
  EDGEMOND_RETURN_IF_ERROR(transaction.Commit());
  return deleted;
}

}  // namespace edgemond::storage
