#include "collectors/internal/meminfo_parse.h"

#include <algorithm>
#include <string>

#include "core/text.h"

namespace edgemond::collectors::internal {
namespace {

// Where a meminfo key lands in the struct; nullptr for keys we do not keep.
std::optional<std::uint64_t>* FieldFor(std::string_view key, Meminfo& meminfo) {
  struct Entry {
    std::string_view key;
    std::optional<std::uint64_t> Meminfo::*field;
  };
  static constexpr Entry kFields[] = {
      {"MemTotal", &Meminfo::mem_total_kib},
      {"MemFree", &Meminfo::mem_free_kib},
      {"MemAvailable", &Meminfo::mem_available_kib},
      {"Buffers", &Meminfo::buffers_kib},
      {"Cached", &Meminfo::cached_kib},
      {"SwapTotal", &Meminfo::swap_total_kib},
      {"SwapFree", &Meminfo::swap_free_kib},
      {"Active(file)", &Meminfo::active_file_kib},
      {"Inactive(file)", &Meminfo::inactive_file_kib},
      {"SReclaimable", &Meminfo::s_reclaimable_kib},
  };
  for (const Entry& entry : kFields) {
    if (entry.key == key) return &(meminfo.*entry.field);
  }
  return nullptr;
}

}  // namespace

Result<Meminfo> ParseMeminfo(std::string_view text) {
  Meminfo meminfo;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::optional<std::uint64_t>* field = FieldFor(line.substr(0, colon), meminfo);
    if (field == nullptr) continue;
    // "  16319716 kB": the number, then an optional unit. Every field we keep is in kB.
    const std::string_view rest = line.substr(colon + 1);
    auto value = ParseUint64(FirstField(rest));
    if (!value.ok()) {
      return Status::Corruption("/proc/meminfo: bad value in \"" + std::string(line) + "\"");
    }
    *field = *value;
  }
  return meminfo;
}

std::optional<std::uint64_t> AvailableKib(const Meminfo& m) {
  if (m.mem_available_kib) {
    return m.mem_total_kib ? std::min(*m.mem_available_kib, *m.mem_total_kib)
                           : *m.mem_available_kib;
  }
  if (!m.mem_free_kib) return std::nullopt;
  std::uint64_t estimate = *m.mem_free_kib;
  if (m.active_file_kib && m.inactive_file_kib) {
    estimate += *m.active_file_kib + *m.inactive_file_kib + m.s_reclaimable_kib.value_or(0);
  } else {
    estimate += m.buffers_kib.value_or(0) + m.cached_kib.value_or(0);
  }
  if (m.mem_total_kib) estimate = std::min(estimate, *m.mem_total_kib);
  return estimate;
}

}  // namespace edgemond::collectors::internal
