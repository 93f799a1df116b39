// Soak: the daemon (real collectors on a fixture board, real SQLite file, real HTTP server) run
// for many simulated hours as fast as the machine allows, with the API queried continuously from
// other threads, to show that memory, file descriptors and the database stay bounded.
//
// Time is simulated: the daemon's clock moves one interval per collection, so a day of 10 Hz
// collections (864,000 ticks, with their flushes, rollups, retention and size cap) takes minutes.
// Between collections the soak plays the drivers: every temperature, voltage, current and power
// file under ROOT/sys/devices takes a new value (a bounded random walk, fixed seed), so the
// database stores moving values, as on a device. ROOT must be a copy the soak may write.
// The queries are real HTTP requests over loopback. Every simulated hour prints one line:
//   hour, ticks, real seconds, RSS KiB, open fds, database+WAL MiB, queries (failed), tick p50/p99
// and the end prints the least-squares slope of RSS and fds over the second half of the run.
//
// Usage: edgemond_soak --root FIXTURE --db FILE [--hours 24] [--interval 0.1] [--cap-mib 64]
//                      [--clients 2]

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "daemon/config.h"
#include "daemon/daemon.h"
#include "daemon/logging.h"
#include "tests/testing/http_client.h"

namespace {

using namespace std::chrono_literals;

// A clock that moves only when told, readable from the HTTP threads while the loop moves it.
class SimulatedClock final : public edgemond::Clock {
 public:
  edgemond::SteadyTime Now() const override {
    return edgemond::SteadyTime(std::chrono::nanoseconds(steady_ns_.load()));
  }
  edgemond::WallTime WallNow() const override {
    return edgemond::WallTime(std::chrono::duration_cast<edgemond::WallTime::duration>(
        std::chrono::nanoseconds(wall_ns_.load())));
  }
  void Advance(std::chrono::nanoseconds delta) {
    steady_ns_ += delta.count();
    wall_ns_ += delta.count();
  }

 private:
  std::atomic<std::int64_t> steady_ns_{1'000'000'000'000};
  std::atomic<std::int64_t> wall_ns_{1'767'225'600'000'000'000};  // 2026-01-01T00:00:00Z.
};

// Rewrites the fixture's sensor files between collections, as the drivers would.
class Drivers {
 public:
  explicit Drivers(const std::string& root) {
    const std::regex sensor(
        "temp|temp[0-9]+_input|in[0-9]+_input|curr[0-9]+_input|"
        "power[0-9]+_input");
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root + "/sys/devices")) {
      if (!entry.is_regular_file() || !std::regex_match(entry.path().filename().string(), sensor)) {
        continue;
      }
      std::ifstream in(entry.path());
      long long value = 0;
      if (!(in >> value) || value <= 0) continue;
      // Written in place at a fixed width, zero-padded: truncating and rewriting a file makes
      // ext4 start writeback at every close (auto_da_alloc), which is not what a sysfs file costs.
      const int fd = ::open(entry.path().c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) continue;
      const int width = static_cast<int>(std::to_string(value + value / 5 + 1).size());
      files_.push_back({fd, width, value, value});
      Write(files_.back());
      if (::ftruncate(fd, width + 1) != 0) std::perror("ftruncate");
    }
  }
  ~Drivers() {
    for (const File& file : files_) ::close(file.fd);
  }
  Drivers(const Drivers&) = delete;
  Drivers& operator=(const Drivers&) = delete;

  std::size_t size() const { return files_.size(); }

  // Every file takes one step of its walk: within 20 % of where it began.
  void Step() {
    for (File& file : files_) {
      const long long span = std::max<long long>(file.start / 5, 1);
      const long long step =
          std::uniform_int_distribution<long long>(-span / 50 - 1, span / 50 + 1)(random_);
      file.value = std::clamp(file.value + step, file.start - span, file.start + span);
      Write(file);
    }
  }

 private:
  struct File {
    int fd;
    int width;  // Digits, without the newline.
    long long start;
    long long value;
  };

  static void Write(const File& file) {
    char text[32];
    const int length = std::snprintf(text, sizeof text, "%0*lld\n", file.width, file.value);
    if (::pwrite(file.fd, text, static_cast<std::size_t>(length), 0) != length) {
      std::perror("pwrite");
    }
  }

  std::vector<File> files_;
  std::mt19937_64 random_{20261203};
};

long RssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

int OpenFds() {
  int count = 0;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  while (const dirent* entry = ::readdir(dir)) count += entry->d_name[0] != '.';
  ::closedir(dir);
  return count - 1;  // The directory's own fd.
}

double FileMib(const std::string& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  return error ? 0.0 : static_cast<double>(size) / (1 << 20);
}

// Least-squares slope of y over x.
double Slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double denominator = n * sxx - sx * sx;
  return denominator == 0 ? 0 : (n * sxy - sx * sy) / denominator;
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(p * static_cast<double>(values.size() - 1))];
}

struct Args {
  std::string root;
  std::string db;
  double hours = 24;
  double interval = 0.1;
  unsigned cap_mib = 64;
  int clients = 2;
};

Args Parse(int argc, char** argv) {
  Args args;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--root") {
      args.root = value;
    } else if (flag == "--db") {
      args.db = value;
    } else if (flag == "--hours") {
      args.hours = std::atof(value);
    } else if (flag == "--interval") {
      args.interval = std::atof(value);
    } else if (flag == "--cap-mib") {
      args.cap_mib = static_cast<unsigned>(std::atoi(value));
    } else if (flag == "--clients") {
      args.clients = std::atoi(value);
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  if (args.root.empty() || args.db.empty() || args.hours <= 0 || args.interval <= 0) {
    std::fprintf(stderr,
                 "usage: %s --root FIXTURE --db FILE [--hours 24] [--interval 0.1] "
                 "[--cap-mib 64] [--clients 2]\n",
                 argv[0]);
    std::exit(2);
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = Parse(argc, argv);
  edgemond::daemon::Config config;
  config.root = args.root;
  config.log_level = "error";  // Not the fixture's throttling warnings.
  config.collection.interval_seconds = args.interval;
  config.storage.path = args.db;
  config.storage.max_size_megabytes = args.cap_mib;
  config.http.listen = "127.0.0.1:0";
  edgemond::daemon::SetLogLevel(config.log_level);

  Drivers drivers(args.root);
  std::printf("%zu sensor files move between collections\n", drivers.size());
  SimulatedClock clock;
  auto daemon = edgemond::daemon::Daemon::Create(config, clock);
  if (!daemon.ok()) {
    std::fprintf(stderr, "%s\n", daemon.status().ToString().c_str());
    return 1;
  }
  const std::string url = (*daemon)->url();
  const auto port = static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));

  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> queries{0};
  std::atomic<std::uint64_t> failed{0};
  const std::vector<std::string> targets = {
      "/api/v1/latest",
      "/metrics",
      "/api/v1/query?series=edgemond_cpu_utilization_ratio%7Bcpu%3D%22all%22%7D&from=-86400"
      "&step=60s",
      "/api/v1/query?series=edgemond_thermal_zone_celsius&from=-600",
      "/api/v1/alerts",
      "/api/v1/collectors",
  };
  std::vector<std::thread> clients;
  for (int c = 0; c < args.clients; ++c) {
    clients.emplace_back([&, c] {
      for (std::size_t i = static_cast<std::size_t>(c); !stop.load(); ++i) {
        const auto reply = edgemond::testing::HttpGet(port, targets[i % targets.size()]);
        ++queries;
        if (reply.status != 200) ++failed;
      }
    });
  }

  const auto interval = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(args.interval));
  const auto ticks_per_hour = static_cast<std::int64_t>(3600.0 / args.interval);
  const auto total_ticks = static_cast<std::int64_t>(args.hours * 3600.0 / args.interval);
  std::vector<double> hours, rss, fds;
  std::vector<double> tick_ms;
  tick_ms.reserve(static_cast<std::size_t>(ticks_per_hour));
  double max_db_mib = 0;
  const auto started = std::chrono::steady_clock::now();
  std::printf("hour ticks real_s rss_kib fds db_wal_mib queries failed tick_p50_ms tick_p99_ms\n");
  (*daemon)->Tick();
  for (std::int64_t tick = 1; tick <= total_ticks; ++tick) {
    clock.Advance(interval);
    drivers.Step();
    const auto before = std::chrono::steady_clock::now();
    (*daemon)->Tick();
    tick_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - before)
            .count());
    if (tick % ticks_per_hour != 0 && tick != total_ticks) continue;
    const double hour = static_cast<double>(tick) / static_cast<double>(ticks_per_hour);
    const double db_mib = FileMib(args.db) + FileMib(args.db + "-wal");
    max_db_mib = std::max(max_db_mib, db_mib);
    hours.push_back(hour);
    rss.push_back(static_cast<double>(RssKib()));
    fds.push_back(OpenFds());
    std::printf("%.1f %lld %.0f %.0f %.0f %.1f %llu %llu %.3f %.3f\n", hour,
                static_cast<long long>(tick),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                rss.back(), fds.back(), db_mib, static_cast<unsigned long long>(queries.load()),
                static_cast<unsigned long long>(failed.load()), Percentile(tick_ms, 0.5),
                Percentile(tick_ms, 0.99));
    std::fflush(stdout);
    tick_ms.clear();
  }
  stop = true;
  for (std::thread& client : clients) client.join();
  // The moved sensors still parse: count the latest collection's missing values.
  const std::string latest = edgemond::testing::HttpGet(port, "/api/v1/latest").body;
  std::size_t missing = 0;
  for (std::size_t at = latest.find("\"value\":null"); at != std::string::npos;
       at = latest.find("\"value\":null", at + 1)) {
    ++missing;
  }
  std::printf("latest collection: %zu missing values\n", missing);

  // The slopes over the second half: the first hours fill caches, the head and the rollups.
  const std::size_t half = hours.size() / 2;
  const std::vector<double> late_hours(hours.begin() + static_cast<std::ptrdiff_t>(half),
                                       hours.end());
  const std::vector<double> late_rss(rss.begin() + static_cast<std::ptrdiff_t>(half), rss.end());
  const std::vector<double> late_fds(fds.begin() + static_cast<std::ptrdiff_t>(half), fds.end());
  std::printf(
      "summary: %lld ticks in %.0f s real; RSS %.0f..%.0f KiB, slope %.1f KiB per simulated hour "
      "over hours %.0f-%.0f; fds %.0f..%.0f, slope %.2f per hour; database+WAL at most %.1f MiB "
      "(cap %u MiB); %llu queries, %llu failed\n",
      static_cast<long long>(total_ticks),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
      *std::min_element(rss.begin(), rss.end()), *std::max_element(rss.begin(), rss.end()),
      Slope(late_hours, late_rss), late_hours.front(), late_hours.back(),
      *std::min_element(fds.begin(), fds.end()), *std::max_element(fds.begin(), fds.end()),
      Slope(late_hours, late_fds), max_db_mib, args.cap_mib,
      static_cast<unsigned long long>(queries.load()),
      static_cast<unsigned long long>(failed.load()));
  const bool bounded = max_db_mib <= args.cap_mib && failed.load() == 0;
  return bounded ? 0 : 1;
}
