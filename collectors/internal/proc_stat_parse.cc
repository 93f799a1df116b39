#include "collectors/internal/proc_stat_parse.h"

#include <array>
#include <charconv>
#include <string>

#include "core/text.h"

namespace edgemond::collectors::internal {
namespace {

constexpr std::size_t kMaxColumns = 10;
constexpr std::size_t kMinColumns = 4;  // user nice system idle: present since Linux 2.4.

Status Malformed(std::string_view line) {
  return Status::Corruption("malformed /proc/stat line \"" + std::string(line.substr(0, 60)) +
                            "\"");
}

// Parses one "cpuN a b c ..." line (the "cpu" prefix already checked).
Status ParseLine(std::string_view line, CpuTimes& times) {
  std::size_t pos = 3;  // After "cpu".
  const std::size_t name_end = line.find_first_of(" \t", pos);
  if (name_end == std::string_view::npos) return Malformed(line);
  if (name_end == pos) {
    times.cpu = CpuTimes::kAggregate;
  } else {
    int cpu = 0;
    const auto [end, error] = std::from_chars(line.data() + pos, line.data() + name_end, cpu);
    if (error != std::errc() || end != line.data() + name_end || cpu < 0) return Malformed(line);
    times.cpu = cpu;
  }
  std::array<std::uint64_t, kMaxColumns> columns{};
  std::size_t count = 0;
  pos = name_end;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    if (pos >= line.size()) break;
    if (count == kMaxColumns) break;  // A future kernel may add columns; they are ignored.
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(line.data() + pos, line.data() + line.size(), value);
    if (error != std::errc()) return Malformed(line);
    columns[count++] = value;
    pos = static_cast<std::size_t>(end - line.data());
    if (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') return Malformed(line);
  }
  if (count < kMinColumns) return Malformed(line);
  times.user_ticks = columns[0];
  times.nice_ticks = columns[1];
  times.system_ticks = columns[2];
  times.idle_ticks = columns[3];
  times.iowait_ticks = columns[4];
  times.irq_ticks = columns[5];
  times.softirq_ticks = columns[6];
  times.steal_ticks = columns[7];
  times.guest_ticks = columns[8];
  times.guest_nice_ticks = columns[9];
  return Status::Ok();
}

}  // namespace

Status ParseProcStat(std::string_view text, std::vector<CpuTimes>& out) {
  out.clear();
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!StartsWith(line, "cpu")) break;
    CpuTimes times;
    EDGEMOND_RETURN_IF_ERROR(ParseLine(line, times));
    // The kernel prints the aggregate, then the online CPUs in ascending order: anything else
    // (a second aggregate, a CPU twice) is a garbled file, which would give one series two values.
    if (!out.empty() && times.cpu <= out.back().cpu) {
      return Status::Corruption("/proc/stat lists cpu lines out of order: \"" +
                                std::string(line.substr(0, line.find(' '))) + "\"");
    }
    out.push_back(times);
  }
  if (out.empty() || out.front().cpu != CpuTimes::kAggregate) {
    return Status::Corruption("/proc/stat does not start with the aggregate cpu line");
  }
  return Status::Ok();
}

}  // namespace edgemond::collectors::internal
