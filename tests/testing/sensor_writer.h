// SensorWriter: plays a driver for a fixture tree while a test runs. A thread rewrites sysfs-like
// attribute files (an INA3221 current, a RAPL energy counter) every few milliseconds with values
// from functions of time, so that a daemon reading the tree sees sensors that move as real ones
// do, and the test knows exactly what they said when.
//
// Files are rewritten in place (one pwrite of a fixed-width number), never replaced: collectors
// keep their sysfs files open and re-read them with pread, as on a device.

#ifndef EDGEMOND_TESTS_TESTING_SENSOR_WRITER_H_
#define EDGEMOND_TESTS_TESTING_SENSOR_WRITER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"

namespace edgemond::testing {

class SensorWriter {
 public:
  // The attribute's value (in its raw unit: mA, µJ) `seconds` after Start().
  using Value = std::function<std::int64_t(double seconds)>;

  explicit SensorWriter(std::chrono::microseconds period) : period_(period) {}
  ~SensorWriter() { Stop(); }
  SensorWriter(const SensorWriter&) = delete;
  SensorWriter& operator=(const SensorWriter&) = delete;

  // Adds an existing file and what to write into it. REQUIRES: before Start().
  void Add(const std::string& path, Value value);

  // Writes every file once (at 0 s), then keeps writing them every period on a thread.
  void Start();
  void Stop();

  // The wall time of 0 s.
  WallTime start() const { return start_; }

 private:
  struct File {
    int fd;
    Value value;
  };
  void WriteAll(double seconds);

  const std::chrono::microseconds period_;
  std::vector<File> files_;
  WallTime start_{};
  std::chrono::steady_clock::time_point steady_start_{};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The real path of `relative` below `root` with every symbolic link resolved inside the tree
// (a fixture's /sys/class/hwmon/hwmon1 points into /sys/devices).
std::string ResolveInTree(const std::string& root, const std::string& relative);

}  // namespace edgemond::testing

#endif  // EDGEMOND_TESTS_TESTING_SENSOR_WRITER_H_
