#include "collectors/internal/tick_files.h"

#include <utility>

namespace edgemond::collectors::internal {

struct TickFile::Entry {
  Entry(const RootedFs& fs, std::string path,
        std::shared_ptr<const std::atomic<std::uint64_t>> owner_tick)
      : file(fs, std::move(path)), tick(std::move(owner_tick)) {}

  std::mutex mu;  // Held for a read, the device's included; guards what follows.
  PolledFile file;
  std::shared_ptr<const std::atomic<std::uint64_t>> tick;  // The owner's current tick.
  std::uint64_t read_tick = 0;  // The tick `text` was read in; 0: not read.
  std::string text;
};

Status TickFile::ReadInto(std::string& out) {
  Entry& entry = *entry_;
  std::lock_guard lock(entry.mu);
  const std::uint64_t tick = entry.tick->load(std::memory_order_relaxed);
  // A file only this handle refers to cannot be read again by another reader this tick: read it
  // and keep nothing.
  if (entry_.use_count() == 1) return entry.file.ReadInto(out);
  if (entry.read_tick != 0 && entry.read_tick == tick) {
    out.assign(entry.text);
    return Status::Ok();
  }
  Status status = entry.file.ReadInto(out);
  if (status.ok()) {
    entry.text.assign(out);
    entry.read_tick = tick;
  } else {
    entry.read_tick = 0;  // Failures are not kept: the next reader tries the device again.
  }
  return status;
}

const std::string& TickFile::path() const { return entry_->file.path(); }

TickFiles::TickFiles(const RootedFs& fs)
    : fs_(&fs), tick_(std::make_shared<std::atomic<std::uint64_t>>(1)) {}

TickFile TickFiles::Open(const std::string& path) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = files_.try_emplace(path);
  if (!inserted) {
    if (std::shared_ptr<TickFile::Entry> entry = it->second.lock()) return TickFile(entry);
  }
  auto entry = std::make_shared<TickFile::Entry>(*fs_, path, tick_);
  it->second = entry;
  if (files_.size() > sweep_at_) {
    std::erase_if(files_, [](const auto& item) { return item.second.expired(); });
    sweep_at_ = 2 * files_.size() + 16;
  }
  return TickFile(std::move(entry));
}

std::size_t TickFiles::live_files() const {
  std::lock_guard lock(mu_);
  std::size_t live = 0;
  for (const auto& [path, entry] : files_) live += entry.expired() ? 0 : 1;
  return live;
}

CollectorFiles::CollectorFiles(const RootedFs& fs, TickFiles* shared)
    : own_(shared == nullptr ? std::make_unique<TickFiles>(fs) : nullptr),
      files_(shared == nullptr ? own_.get() : shared) {}

}  // namespace edgemond::collectors::internal
