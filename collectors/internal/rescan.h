// When a collector lists its devices again. Devices come and go at run time (a GPU's devfreq node
// appears when its driver loads, a USB fan controller is unplugged, a driver is reloaded and its
// hwmonN renumbered), so every collector rescans at its first tick, every `every_ticks` ticks, and
// (the caller's part) right after a read failed with ENOENT/ENODEV. Between scans a tick costs only
// the preads of files kept open.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_RESCAN_H_
#define EDGEMOND_COLLECTORS_INTERNAL_RESCAN_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collectors/internal/tick_files.h"
#include "core/rooted_fs.h"
#include "core/sample.h"
#include "core/status.h"

namespace edgemond::collectors::internal {

class RescanSchedule {
 public:
  static constexpr int kDefaultEveryTicks = 60;

  explicit RescanSchedule(int every_ticks) : every_ticks_(std::max(1, every_ticks)) {}

  // Starts a tick; true when a scan is due (the first tick, or `every_ticks` since the last scan).
  bool StartTick() {
    ++tick_;
    return last_scan_tick_ == 0 || tick_ - last_scan_tick_ >= every_ticks_;
  }
  // Records that the collector scanned during this tick.
  void Scanned() { last_scan_tick_ = tick_; }
  // Whether the last scan happened during this tick (so a vanished file does not trigger another).
  bool ScannedThisTick() const { return last_scan_tick_ == tick_; }
  // The ticks started so far (1 during the first).
  std::uint64_t tick() const { return tick_; }

 private:
  const std::uint64_t every_ticks_;
  std::uint64_t tick_ = 0;
  std::uint64_t last_scan_tick_ = 0;
};

// One collection of a collector that lists its devices (`scan`: Status()) and reads them
// (`read`: bool(std::vector<Sample>&), appending their samples and returning whether a device
// went away): lists them on `schedule`, reads them, and when one went away lists them again at
// once and reads again in place of the first read, at most one listing per tick so a broken file
// cannot loop. `scan_status` is the last listing's result: while it is an error, every collection
// returns it (the collector's devices are unknown).
template <typename Scan, typename Read>
Status ScanAndRead(RescanSchedule& schedule, Status& scan_status, std::vector<Sample>& out,
                   Scan&& scan, Read&& read) {
  const std::size_t start = out.size();  // Other collectors' samples come first.
  if (schedule.StartTick()) {
    scan_status = scan();
    schedule.Scanned();
  }
  if (!scan_status.ok()) return scan_status;
  if (read(out) && !schedule.ScannedThisTick()) {
    scan_status = scan();
    schedule.Scanned();
    if (!scan_status.ok()) return scan_status;
    out.resize(start);
    read(out);
  }
  return Status::Ok();
}

// ScanAndRead over a list of devices that `scan` rebuilds: `read_one` (bool(Device&,
// std::vector<Sample>&)) reads one device and returns whether it went away.
template <typename Scan, typename Device, typename ReadOne>
Status ScanAndReadEach(RescanSchedule& schedule, Status& scan_status, std::vector<Sample>& out,
                       Scan&& scan, std::vector<Device>& devices, ReadOne&& read_one) {
  return ScanAndRead(schedule, scan_status, out, std::forward<Scan>(scan),
                     [&](std::vector<Sample>& samples) {
                       bool vanished = false;
                       for (Device& device : devices) vanished |= read_one(device, samples);
                       return vanished;
                     });
}

// Carries open files over a rescan: the files of the old device list are handed in, and the new
// list takes each path's open file back (or a fresh one), so a rescan reopens only what is new.
// `File` is PolledFile (a collector's own files, opened through the RootedFs) or TickFile (files
// opened through CollectorFiles, which other collectors may share).
template <typename File>
class ReusableFiles {
 public:
  using Source = std::conditional_t<std::is_same_v<File, TickFile>, CollectorFiles, const RootedFs>;

  explicit ReusableFiles(Source& source) : source_(&source) {}

  void Keep(File file) {
    std::string path = file.path();
    files_.insert_or_assign(std::move(path), std::move(file));
  }
  File Take(const std::string& path) {
    if (auto it = files_.find(path); it != files_.end()) {
      File file = std::move(it->second);
      files_.erase(it);
      return file;
    }
    if constexpr (std::is_same_v<File, TickFile>) {
      return source_->Open(path);
    } else {
      return PolledFile(*source_, path);
    }
  }

 private:
  Source* source_;  // Not owned.
  std::unordered_map<std::string, File> files_;
};

ReusableFiles(const RootedFs&)->ReusableFiles<PolledFile>;
ReusableFiles(CollectorFiles&)->ReusableFiles<TickFile>;

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_RESCAN_H_
