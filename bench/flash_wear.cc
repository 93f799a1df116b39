// Flash wear at the block layer: the store (storage/sqlite_store.h) fed by the simulated
// Jetson-class device (bench/storage_device_sim.h), its database alone on a block device, and the
// bytes that reach that device counted from /sys/block/DEV/stat. Driven by bench/flash_wear.sh,
// which makes the device (a loop device holding a fresh file system) and mounts it on --dir.
//
// What reaches a device is decided by the kernel's writeback, not by the writes themselves: a
// page written twice before it is written back costs one page. Two ways to run:
//   simulated time (default)  ticks as fast as the store takes them; every --writeback-seconds
//                             of simulated time (30: the kernel's dirty_expire_centisecs) the
//                             bench calls syncfs(), as the kernel's flusher would have by then.
//                             A day takes seconds.
//   --real-time               one tick per second of wall time and no syncfs: the kernel's own
//                             writeback. It checks the simulated-time model on the same samples.
//   --then-real-time MINUTES  the simulated days, then MINUTES at 1 Hz of wall time: the model
//                             checked in the state the simulated days left (steady state after
//                             a week).
//
// Per simulated day, bytes per sample stored:
//   device    sectors written to the block device (field 7 of /sys/block/DEV/stat) x 512;
//   data      pages of the files written back: /proc/self/io write_bytes (counted when a clean
//             page is dirtied, i.e. once per page per writeback) minus cancelled_write_bytes;
//   -shm      of that, the WAL-index, which SQLite writes through mmap and never syncs: its
//             dirty pages (cachestat(2)) just before each syncfs();
//   metadata  device - data: the file system's journal and its metadata (inodes, bitmaps);
//   SQLite    /proc/self/io wchar: every byte SQLite handed to write()/pwrite().
// At 1 Hz of wall time the kernel writes back on its own schedule: there the -shm column is not
// measured.

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/process_io.h"
#include "bench/storage_device_sim.h"
#include "core/clock.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite_store.h"

namespace edgemond::bench {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::string dir;           // On the device under test, and nothing else on it.
  std::string block_device;  // loop0: its /sys/block/loop0/stat is read.
  int series = 200;
  double days = 14;  // Days 1-7 fill the raw tier; from day 8 retention deletes what arrives.
  int flush_seconds = 60;
  int writeback_seconds = 30;
  int checkpoint_wal_frames = 1000;
  int cap_mib = 256;
  bool real_time = false;
  double then_real_time_minutes = 0;  // After the simulated days, this long at 1 Hz of wall time.
  // Variants of the layout, for measuring them against the default in the same way:
  bool shared_wal_index = false;  // StorageOptions::exclusive_to_process = false (a -shm file).
  int page_size = 0;              // A database made with this page size before the store opens
  std::string auto_vacuum;        // it, and this auto_vacuum mode (none, incremental).
};

struct Counters {
  std::int64_t device_bytes = 0;
  ProcessIo io;
  std::int64_t shm_bytes = 0;  // Accumulated by the bench at each syncfs.

  Counters operator-(const Counters& o) const {
    return {device_bytes - o.device_bytes, io - o.io, shm_bytes - o.shm_bytes};
  }
};

[[noreturn]] void Die(std::string_view what) {
  std::fprintf(stderr, "flash_wear: %.*s\n", static_cast<int>(what.size()), what.data());
  std::exit(1);
}

std::int64_t DeviceBytesWritten(const std::string& device) {
  std::ifstream in("/sys/block/" + device + "/stat");
  std::int64_t field[7] = {};
  for (std::int64_t& f : field) {
    if (!(in >> f)) Die("cannot read /sys/block/" + device + "/stat");
  }
  return field[6] * 512;  // Sectors written; the kernel counts them in 512-byte units.
}

// Dirty pages of a file in the page cache (cachestat(2), Linux 6.5), or nullopt when the file
// does not exist or the kernel has no cachestat.
std::optional<std::int64_t> DirtyBytes(const std::string& path) {
#ifndef SYS_cachestat
  // 451 on every architecture (syscalls from 424 on share one number); older C libraries lack
  // the name.
  constexpr long SYS_cachestat = 451;
#endif
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct {
    std::uint64_t off, len;
  } range{0, 0};  // len 0: to the end of the file.
  struct {
    std::uint64_t cache, dirty, writeback, evicted, recently_evicted;
  } stat{};
  const long rc = ::syscall(SYS_cachestat, fd, &range, &stat, 0);
  ::close(fd);
  if (rc != 0) return std::nullopt;
  return static_cast<std::int64_t>(stat.dirty) * ::sysconf(_SC_PAGESIZE);
}

class Probe {
 public:
  Probe(const Options& options, std::string db_path)
      : options_(options), db_path_(std::move(db_path)) {
    dir_fd_ = ::open(options.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd_ < 0) Die("cannot open --dir " + options.dir);
  }
  ~Probe() { ::close(dir_fd_); }
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  // What the kernel's flusher does once pages have been dirty for dirty_expire_centisecs;
  // `count_shm`: the -shm file's dirty pages are counted first (none are written meanwhile).
  void WriteBack(bool count_shm) {
    if (const auto shm = DirtyBytes(db_path_ + "-shm"); shm && count_shm) shm_bytes_ += *shm;
    if (::syncfs(dir_fd_) != 0) Die("syncfs failed");
  }

  Counters Read() const {
    Counters c;
    c.device_bytes = DeviceBytesWritten(options_.block_device);
    c.io = ProcessIo::Read();
    c.shm_bytes = shm_bytes_;
    return c;
  }

 private:
  const Options& options_;
  const std::string db_path_;
  int dir_fd_ = -1;
  std::int64_t shm_bytes_ = 0;
};

struct Period {
  std::string what;
  std::int64_t samples = 0;
  Counters bytes;
  std::int64_t file_bytes = 0;  // Database + WAL at the end.
  bool shm_measured = false;    // Simulated time: the bench did every writeback.
};

std::int64_t FileSize(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::int64_t>(size);
}

void PrintRow(const Period& p) {
  const auto per = [&](std::int64_t bytes) {
    return static_cast<double>(bytes) / static_cast<double>(p.samples);
  };
  const std::int64_t data = p.bytes.io.write_bytes - p.bytes.io.cancelled_write_bytes;
  char shm[32] = "-";
  if (p.shm_measured) std::snprintf(shm, sizeof shm, "%.2f", per(p.bytes.shm_bytes));
  std::printf("| %s | %" PRId64 " | **%.2f** | %.2f | %s | %.2f | %.2f | %.2f | %.1f |\n",
              p.what.c_str(), p.samples, per(p.bytes.device_bytes), per(data), shm,
              per(p.bytes.device_bytes - data), per(p.bytes.io.wchar), per(p.bytes.io.write_bytes),
              static_cast<double>(p.file_bytes) / (1 << 20));
}

// Makes an empty WAL database with the variant's page size and auto_vacuum mode; the store takes
// an empty database as new and keeps both (they can only be chosen before the first table).
void PrepareVariant(const Options& options, const std::string& path) {
  if (options.page_size == 0 && options.auto_vacuum.empty()) return;
  auto db = storage::sqlite::Database::Open(path, {});
  if (!db.ok()) Die("making the variant's database: " + db.status().ToString());
  std::string sql;
  if (options.page_size > 0) sql += "PRAGMA page_size=" + std::to_string(options.page_size) + ";";
  if (!options.auto_vacuum.empty()) sql += "PRAGMA auto_vacuum=" + options.auto_vacuum + ";";
  if (const Status s = (*db)->Execute(sql); !s.ok()) Die("variant: " + s.ToString());
  if (const auto mode = (*db)->QueryString("PRAGMA journal_mode=WAL"); !mode.ok()) {
    Die("variant: " + mode.status().ToString());
  }
}

int Run(const Options& options) {
  const std::string path = options.dir + "/edgemond.db";
  PrepareVariant(options, path);
  storage::StorageOptions store_options;
  store_options.path = path;
  store_options.flush_interval = std::chrono::seconds(options.flush_seconds);
  store_options.checkpoint_wal_frames = options.checkpoint_wal_frames;
  store_options.max_bytes = std::int64_t{options.cap_mib} << 20;
  store_options.exclusive_to_process = !options.shared_wal_index;
  auto opened = storage::SqliteStore::Open(store_options);
  if (!opened.ok()) Die("opening the store: " + opened.status().ToString());
  std::unique_ptr<storage::SqliteStore> store = std::move(opened).value();

  Probe probe(options, path);
  DeviceSimulator sim(options.series, /*seed=*/20260301);
  std::vector<Reading> readings;
  std::vector<Sample> samples;
  // Simulated ticks first, then those at 1 Hz of wall time (--real-time: all of them).
  const auto simulated_ticks =
      options.real_time ? 0 : static_cast<std::int64_t>(options.days * 86400);
  const std::int64_t real_ticks =
      options.real_time ? static_cast<std::int64_t>(options.days * 86400)
                        : static_cast<std::int64_t>(options.then_real_time_minutes * 60);
  const std::int64_t ticks = simulated_ticks + real_ticks;
  // Simulated runs of less than a day report every 10 minutes, longer ones every day; wall time
  // every 10 minutes.
  const std::int64_t simulated_period = simulated_ticks < 86400 ? 600 : 86400;

  probe.WriteBack(false);  // The file system settles after the store's creation.
  Counters period_start = probe.Read();
  Counters steady_start;
  std::int64_t steady_samples = 0;
  std::int64_t total_samples = 0;
  std::int64_t period_samples = 0;
  std::int64_t period_first_tick = 0;
  std::vector<Period> periods;
  std::chrono::steady_clock::time_point wall_start;
  for (std::int64_t tick = 0; tick < ticks; ++tick) {
    const bool real = tick >= simulated_ticks;
    if (tick == simulated_ticks) wall_start = std::chrono::steady_clock::now();
    if (real) {
      std::this_thread::sleep_until(wall_start + std::chrono::seconds(tick - simulated_ticks));
    }
    const std::int64_t now_ms = kSimulationStartMs + tick * 1000 + (tick * 7919) % 3;
    readings.clear();
    sim.Tick(now_ms, readings);
    sim.FillSamples(readings, samples);
    for (const Reading& r : readings) period_samples += r.value ? 1 : 0;
    if (const Status s = store->Append(samples); !s.ok()) Die("append: " + s.ToString());
    if ((tick + 1) % options.flush_seconds == 0) {
      if (const Status s = store->Flush(); !s.ok()) Die("flush: " + s.ToString());
      if (const auto r = store->EnforceRetention(FromUnixMillis(now_ms)); !r.ok()) {
        Die("retention: " + r.status().ToString());
      }
    }
    if (!real && (tick + 1) % options.writeback_seconds == 0) probe.WriteBack(true);
    const bool period_ends =
        real ? (tick + 1 - simulated_ticks) % 600 == 0 || tick + 1 == ticks
             : (tick + 1) % simulated_period == 0 || tick + 1 == simulated_ticks;
    if (!period_ends) continue;
    if (real) probe.WriteBack(false);  // What the kernel still holds counts in this period.
    const Counters now = probe.Read();
    char what[96];
    if (real) {
      std::snprintf(what, sizeof what, "%sminutes %" PRId64 "-%" PRId64 " at 1 Hz of wall time",
                    simulated_ticks > 0 ? "then " : "", (period_first_tick - simulated_ticks) / 60,
                    (tick + 1 - simulated_ticks) / 60);
    } else if (simulated_period < 86400) {
      std::snprintf(what, sizeof what, "minutes %" PRId64 "-%" PRId64, period_first_tick / 60,
                    (tick + 1) / 60);
    } else {
      std::snprintf(what, sizeof what, "day %" PRId64, tick / 86400 + 1);
    }
    periods.push_back({what, period_samples, now - period_start,
                       FileSize(path) + FileSize(path + "-wal"), !real});
    std::fprintf(stderr, "  %s: %.2f B/sample at the device\n", what,
                 static_cast<double>(periods.back().bytes.device_bytes) /
                     static_cast<double>(period_samples));
    total_samples += period_samples;
    period_samples = 0;
    period_start = now;
    period_first_tick = tick + 1;
    if (tick + 1 == 7 * 86400 && !real) {
      steady_start = now;
      steady_samples = total_samples;
    }
    if (tick + 1 == simulated_ticks && steady_samples > 0 && total_samples > steady_samples) {
      periods.push_back({"days 8-" + std::to_string(simulated_ticks / 86400) + " (steady state)",
                         total_samples - steady_samples, now - steady_start, FileSize(path), true});
    }
  }
  store.reset();

  std::printf(
      "| period | samples | device B/sample | data pages | of which -shm | file system journal "
      "and metadata | SQLite writes (wchar) | write_bytes | database + WAL MiB |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  for (const Period& p : periods) PrintRow(p);
  std::printf("\n");
  return 0;
}

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--dir") {
      options.dir = value();
    } else if (arg == "--block-device") {
      options.block_device = value();
    } else if (arg == "--series") {
      options.series = std::atoi(value().c_str());
    } else if (arg == "--days") {
      options.days = std::atof(value().c_str());
    } else if (arg == "--minutes") {
      options.days = std::atof(value().c_str()) / 1440;
    } else if (arg == "--flush-seconds") {
      options.flush_seconds = std::atoi(value().c_str());
    } else if (arg == "--writeback-seconds") {
      options.writeback_seconds = std::atoi(value().c_str());
    } else if (arg == "--checkpoint-frames") {
      options.checkpoint_wal_frames = std::atoi(value().c_str());
    } else if (arg == "--cap-mib") {
      options.cap_mib = std::atoi(value().c_str());
    } else if (arg == "--real-time") {
      options.real_time = true;
    } else if (arg == "--then-real-time") {
      options.then_real_time_minutes = std::atof(value().c_str());
    } else if (arg == "--shared-wal-index") {
      options.shared_wal_index = true;
    } else if (arg == "--page-size") {
      options.page_size = std::atoi(value().c_str());
    } else if (arg == "--auto-vacuum") {
      options.auto_vacuum = value();
    } else {
      std::fprintf(stderr,
                   "usage: %s --dir DIR --block-device DEV [--series N] [--days D | --minutes M] "
                   "[--flush-seconds S] [--writeback-seconds S] [--checkpoint-frames N] "
                   "[--cap-mib M] [--real-time | --then-real-time MINUTES] [--shared-wal-index] "
                   "[--page-size B] "
                   "[--auto-vacuum none|incremental]\n",
                   argv[0]);
      return 2;
    }
  }
  if (options.dir.empty() || options.block_device.empty() || options.series <= 0 ||
      options.days <= 0 || options.flush_seconds <= 0 || options.writeback_seconds <= 0 ||
      options.checkpoint_wal_frames <= 0 || options.cap_mib < 0 ||
      options.then_real_time_minutes < 0) {
    std::fprintf(stderr, "--dir and --block-device are required; counts must be positive\n");
    return 2;
  }
  std::printf(
      "series=%d days=%g flush_seconds=%d %s checkpoint_wal_frames=%d cap_mib=%d wal_index=%s "
      "page_size=%d auto_vacuum=%s\n\n",
      options.series, options.days, options.flush_seconds,
      options.real_time
          ? "real time (the kernel's writeback)"
          : ("syncfs every " + std::to_string(options.writeback_seconds) + " s").c_str(),
      options.checkpoint_wal_frames, options.cap_mib,
      options.shared_wal_index ? "-shm file" : "in memory",
      options.page_size > 0 ? options.page_size : 4096,
      options.auto_vacuum.empty() ? "incremental" : options.auto_vacuum.c_str());
  return Run(options);
}

}  // namespace
}  // namespace edgemond::bench

int main(int argc, char** argv) { return edgemond::bench::Main(argc, argv); }
