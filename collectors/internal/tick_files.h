// TickFiles: device files that several collectors poll, read at most once per tick.
//
// Some files feed more than one collector: hwmon and power_rail both read the INA3221's inN_input
// and currN_input, jetson_gpu and power_mode the GPU's min_freq and max_freq, cpu, power_mode and
// throttle a cpufreq policy's limits, thermal and jetson_gpu the GPU's thermal zone. Each collector
// opens its files through one TickFiles (the CollectorRunner owns it, and starts a tick before
// running the collectors), and gets a TickFile: a handle to the one open file of that path. The
// first read of a tick goes to the device; the later reads of the same tick return the same text.
// So a file is read once per tick whoever reads it, and collectors that report the same sensor
// agree on its value.
//
// Only successful reads are kept: a failed read is tried again by the next reader, exactly as if
// nobody had read the file before (PolledFile reopens a file that went away).
//
// An entry lives while some TickFile refers to it: a collector that drops a file at a rescan
// closes it unless another collector still polls it.
//
// A collector built on its own (tests, tools) reads through a TickFiles of its own, whose tick is
// each of its collections (CollectorFiles).
//
// Thread safety: thread-safe. The collectors run on worker threads (collector_threads.h), and one
// left blocked in a read goes on using its files while the next tick runs the others. A read
// holds its file's lock: a second reader of a file whose read blocks waits for it.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_TICK_FILES_H_
#define EDGEMOND_COLLECTORS_INTERNAL_TICK_FILES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/rooted_fs.h"
#include "core/status.h"

namespace edgemond::collectors::internal {

class TickFiles;

// A handle to a file of a TickFiles. Cheap to move; copies share the file.
class TickFile {
 public:
  // The file's content: read from the device at the first read of a tick, else the text that
  // read returned. `out` keeps its capacity.
  Status ReadInto(std::string& out);

  const std::string& path() const;

 private:
  friend class TickFiles;
  struct Entry;
  explicit TickFile(std::shared_ptr<Entry> entry) : entry_(std::move(entry)) {}

  std::shared_ptr<Entry> entry_;
};

class TickFiles {
 public:
  // `fs` is borrowed and must outlive this object and its files.
  explicit TickFiles(const RootedFs& fs);

  TickFiles(const TickFiles&) = delete;
  TickFiles& operator=(const TickFiles&) = delete;

  // Starts a tick: the next read of every file goes to the device again.
  void StartTick() { tick_->fetch_add(1, std::memory_order_relaxed); }

  // The file at device path `path`, shared with every other caller that opened the same path and
  // still holds it. Opening does no I/O; the first read opens the file.
  TickFile Open(const std::string& path);

  // How many files are open through this object (for tests).
  std::size_t live_files() const;

 private:
  const RootedFs* fs_;  // Not owned.
  // The current tick, shared with every entry so that a file never outlives its clock.
  std::shared_ptr<std::atomic<std::uint64_t>> tick_;
  mutable std::mutex mu_;  // Guards files_ and sweep_at_.
  std::unordered_map<std::string, std::weak_ptr<TickFile::Entry>> files_;
  std::size_t sweep_at_ = 16;  // Drop expired entries when files_ grows past this.
};

// The files of one collector: the runner's TickFiles when it shares one, else a TickFiles of its
// own whose ticks are the collector's collections.
class CollectorFiles {
 public:
  // `shared`: the runner's files, which the runner starts the ticks of, borrowed and outliving
  // this object; null for files of its own (opened through `fs`), read again at every collection.
  CollectorFiles(const RootedFs& fs, TickFiles* shared);

  // Called at the start of every collection: starts a tick of files of its own.
  void StartCollection() {
    if (own_) own_->StartTick();
  }

  TickFile Open(const std::string& path) { return files_->Open(path); }

 private:
  std::unique_ptr<TickFiles> own_;  // Null when shared.
  TickFiles* files_;                // own_, or the shared one.
};

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_TICK_FILES_H_
