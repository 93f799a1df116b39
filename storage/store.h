// Store: where samples are kept, and the only storage header the daemon needs.
//
// The daemon's loop thread appends every collected batch, flushes at the flush interval (and on
// SIGTERM) and enforces retention; HTTP threads list series and run range queries through the
// daemon's ApiBackend. The query vocabulary (SeriesSelector, RangeQuery, QueryResult,
// SeriesInfo) is core/query.h, shared with http/, so the daemon passes queries through as they
// are.
//
// Data model:
//  - A series is a metric name plus its labels; its identity is SeriesKey(name, labels)
//    (core/sample.h), e.g. `edgemond_cpu_frequency_hertz{cpu="0"}`.
//  - A sample without a value (a sensor that could not be read) is a gap: it is not stored. The
//    daemon keeps the latest collection, reasons included, for /api/v1/latest. NaN is a gap too;
//    ±Inf is stored as is.
//  - Timestamps are stored as integer milliseconds since the Unix epoch (ToUnixMillis): anything
//    finer is dropped, and two samples of one series in the same millisecond are one point, the
//    later Append winning, before and after Flush alike.
//  - Queries return what was appended whether or not it has been flushed yet: the in-memory head
//    is merged with stored rows, so a query answers the same before and after a Flush.
//
// Query results (RangeQuery in core/query.h):
//  - step_ms == 0: every sample in [from_ms, to_ms], each with a value. More than
//    max_points_per_series in one series is kResourceExhausted (HTTP 422).
//  - step_ms > 0: exactly (to_ms - from_ms) / step_ms + 1 points per series, point i covering
//    [from_ms + i*step_ms, from_ms + (i+1)*step_ms) and stamped with its start; a bucket without
//    samples is a point without a value, never 0. More buckets than max_points_per_series is
//    kInvalidArgument (HTTP 400), checked before anything is read.
//    An implementation may answer from rollups (summaries of fixed intervals: 1 minute, 1 hour)
//    when the step is a multiple of their interval: each interval then counts in the bucket
//    where it starts, so bucket edges snap to the interval grid when from_ms is not on it, and
//    sums (and averages) may differ from those of the raw samples in the last bits. count and
//    sum always count samples, whatever the source.
//  - More matching series than max_series is kResourceExhausted. Series are sorted by key.
//
// Thread-safety contract (for every implementation):
//  - Append(), Flush() and EnforceRetention() are writer operations. They may be called from any
//    thread but are serialized against each other; the daemon calls them from its loop thread.
//  - ListSeries(), Query() and Stats() may be called from any number of threads concurrently
//    with each other and with the writer operations. They never wait for the writer's disk I/O
//    (at most for a commit to be acknowledged).

#ifndef EDGEMOND_STORAGE_STORE_H_
#define EDGEMOND_STORAGE_STORE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "core/query.h"
#include "core/result.h"
#include "core/sample.h"
#include "core/status.h"

namespace edgemond::storage {

struct RetentionResult {
  std::int64_t deleted_points = 0;    // Samples and rollup points deleted.
  std::int64_t deleted_blocks = 0;    // Storage units deleted (implementation-defined).
  std::int64_t dropped_for_size = 0;  // Of those blocks, the ones a size limit dropped.
  std::int64_t deleted_series = 0;    // Catalog entries with no data left.
  // False when more is due for deletion: call again (the next tick or flush will do; every
  // call makes progress).
  bool complete = true;
};

struct StoreStats {
  std::size_t series = 0;           // Catalog size, including series not yet flushed.
  std::size_t head_samples = 0;     // Appended but not yet flushed.
  std::int64_t database_bytes = 0;  // Size of the database file.
  std::int64_t wal_bytes = 0;       // Size of its write-ahead log.
  // The newest sample written to the database (committed), in ms since the epoch; none before
  // the first flush of an empty database. Other processes cannot open the file while the store
  // holds it, so this is how they learn what a crash would keep.
  std::optional<std::int64_t> newest_stored_ms;
  // The file system is too full to write: flushes keep the head in memory and fail with
  // kResourceExhausted until space returns.
  bool disk_full = false;
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
  // appended since the last successful Flush(). If the write fails (disk full, I/O error),
  // nothing is written, the head keeps its samples and the next Flush() retries them. A full
  // file system is kResourceExhausted (and Stats().disk_full) until space returns.
  virtual Status Flush() = 0;

  // Deletes data older than its retention, and more of the oldest if the store is over its size
  // limit, in bounded batches (each its own transaction), and catalog entries left without data.
  // An implementation may wait until a whole batch has expired, so data may outlive its
  // retention by about one batch. Cheap when nothing is due: suitable for every flush. Call it
  // even when Flush() fails: it is what frees space.
  virtual Result<RetentionResult> EnforceRetention(WallTime now) = 0;

  // The catalog (every series when `selector` is empty), sorted by series key. first_ms/last_ms
  // cover stored and buffered samples; after retention first_ms is a lower bound (no sample of
  // the series is older; the oldest kept one may be slightly younger).
  virtual Result<std::vector<SeriesInfo>> ListSeries(
      const std::optional<SeriesSelector>& selector) = 0;

  virtual Result<QueryResult> Query(const RangeQuery& query) = 0;

  virtual StoreStats Stats() const = 0;
};

}  // namespace edgemond::storage

#endif  // EDGEMOND_STORAGE_STORE_H_
