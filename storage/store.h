// Store: where samples are kept, and the only storage header the daemon needs.
//
// The daemon's loop thread appends every collected batch, flushes at the flush interval (and
// on SIGTERM) and enforces retention; HTTP threads list series, read the latest snapshot and run
// range queries. The HTTP layer never links storage: the daemon adapts these types to its own.
//
// Data model:
//  - A series is a metric name plus its labels (sorted by name); its identity is
//    SeriesKey(name, labels) from core/sample.h, e.g. `edgemond_cpu_frequency_hertz{cpu="0"}`.
//  - A sample without a value (a sensor that could not be read) is a gap: it is not stored, but
//    its reason shows in the latest snapshot. NaN is treated the same way (reason "value is
//    NaN"); ±Inf is stored as is.
//  - Timestamps are stored as integer milliseconds since the Unix epoch (ToUnixMillis), so
//    anything finer than a millisecond is dropped. Two samples of one series with the same
//    millisecond are one point: the later Append wins, before and after Flush alike.
//  - Queries return what was appended, whether or not it has been flushed yet: the in-memory head
//    is merged with stored rows, so a query answers the same before and after a Flush.
//
// Thread-safety contract (for every implementation):
//  - Append(), Flush() and EnforceRetention() are writer operations. They may be called from any
//    thread but are serialized against each other; the daemon calls them from its loop thread.
//  - ListSeries(), Latest(), Query() and Stats() may be called from any number of threads
//    concurrently with each other and with the writer operations. They never wait for disk I/O
//    done by a writer operation (at most for a commit to be acknowledged).

#ifndef EDGEMOND_STORAGE_STORE_H_
#define EDGEMOND_STORAGE_STORE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "core/sample.h"
#include "core/status.h"

namespace edgemond::storage {

// How the samples inside one step bucket become one point.
enum class Aggregation {
  kAvg,  // Arithmetic mean.
  kMin,
  kMax,
  kLast,  // The sample with the greatest timestamp.
  kSum,
  kCount,  // Number of samples with a value (gaps do not count).
};

std::string_view AggregationName(Aggregation aggregation);  // "avg", "min", ...
// Parses "avg", "min", "max", "last", "sum" or "count"; anything else is kInvalidArgument.
Result<Aggregation> ParseAggregation(std::string_view name);

// One label condition, with Prometheus semantics: a label a series does not have has the value
// "", so {gpu=""} selects series without a `gpu` label and {gpu!=""} those that have one.
struct LabelMatcher {
  enum class Op { kEqual, kNotEqual };
  std::string name;
  Op op = Op::kEqual;
  std::string value;
};

// Selects series by metric name and labels. The default selects every series.
struct SeriesMatcher {
  std::string name;                  // Exact metric name; empty matches every name.
  std::vector<LabelMatcher> labels;  // All must hold.

  bool Matches(std::string_view series_name, const Labels& series_labels) const;
};

struct SeriesInfo {
  std::int64_t id = 0;  // Stable for the life of the database file.
  std::string key;      // SeriesKey(name, labels).
  std::string name;
  Labels labels;     // Sorted by label name.
  std::string unit;  // From the MetricDesc: "celsius", "bytes", ... ("" when unitless).
  MetricType type = MetricType::kGauge;
  // Timestamps of the oldest and newest samples with a value, stored or still in the head; empty
  // when the series has none (a sensor that never read). After retention `first` is a lower
  // bound: no sample of the series is older, the oldest kept one may be slightly younger.
  std::optional<WallTime> first;
  std::optional<WallTime> last;
};

struct Point {
  WallTime at;
  double value = 0;
  friend bool operator==(const Point& a, const Point& b) {
    return a.at == b.at && a.value == b.value;
  }
};

struct RangeQuery {
  // Exactly one series by its SeriesKey (kNotFound when unknown)...
  std::string key;
  // ...or, when `key` is empty, every series this selects (possibly none).
  SeriesMatcher matcher;

  // The range, both ends inclusive. Anything finer than a millisecond is ignored.
  WallTime from;
  WallTime to;

  // Zero: every raw sample in the range. Otherwise the range is cut into buckets
  // [from + i*step, from + (i+1)*step) for i = 0 .. (to - from) / step, each becoming one point
  // stamped with its bucket's start. Buckets without samples are missing points, never zeros.
  std::chrono::milliseconds step{0};
  Aggregation aggregation = Aggregation::kAvg;

  // Bounds on the result, checked before anything is built: more buckets than max_points is
  // kInvalidArgument, a raw range holding more samples than max_points is kResourceExhausted,
  // more matching series than max_series is kInvalidArgument.
  std::size_t max_points = 11000;  // Per series.
  std::size_t max_series = 500;
};

struct SeriesPoints {
  SeriesInfo series;
  std::vector<Point> points;  // Ascending by time; only buckets that hold samples.
};

struct QueryResult {
  std::vector<SeriesPoints> series;  // Sorted by series key.
};

// The most recent sample appended for a series since the store was opened.
struct LatestSample {
  SeriesInfo series;
  WallTime at;
  std::optional<double> value;  // Empty when the last reading failed.
  std::string missing_reason;   // Why `value` is empty; "" otherwise.
};

struct RetentionResult {
  std::int64_t deleted_samples = 0;
  std::int64_t deleted_series = 0;  // Catalog entries with no samples left.
  // False when expired samples remain after this call's batch: call again (the next tick or
  // flush will do; every call makes progress).
  bool complete = true;
};

struct StoreStats {
  std::size_t series = 0;           // Catalog size, including series not yet flushed.
  std::size_t head_samples = 0;     // Appended but not yet flushed.
  std::int64_t database_bytes = 0;  // Size of the database file.
  std::int64_t wal_bytes = 0;       // Size of its write-ahead log.
};

class Store {
 public:
  virtual ~Store() = default;

  // Buffers `samples` in memory (the head); nothing is written to disk. The batch is validated
  // as a whole and applied entirely or not at all: a sample without a MetricDesc, with an
  // invalid metric or label name or with a duplicated label name is kInvalidArgument, and a full
  // head (flushes failing for a long time) is kResourceExhausted.
  virtual Status Append(const std::vector<Sample>& samples) = 0;

  // Writes everything buffered in one transaction, so that a crash loses at most what was
  // appended since the last successful Flush(). On failure (disk full, I/O error) nothing is
  // written, the head keeps its samples and the next Flush() retries them.
  virtual Status Flush() = 0;

  // Deletes samples older than `now - retention`, at most one small batch per call (each batch
  // its own transaction), and catalog entries left without samples. Cheap when nothing expired:
  // suitable for every tick or every flush.
  virtual Result<RetentionResult> EnforceRetention(WallTime now) = 0;

  // The catalog, sorted by series key.
  virtual Result<std::vector<SeriesInfo>> ListSeries(const SeriesMatcher& matcher) = 0;

  // The latest snapshot, sorted by series key: one entry per series appended since the store was
  // opened, including series whose last reading failed.
  virtual Result<std::vector<LatestSample>> Latest(const SeriesMatcher& matcher) = 0;

  virtual Result<QueryResult> Query(const RangeQuery& query) = 0;

  virtual StoreStats Stats() const = 0;
};

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_STORE_H_
