#include "collectors/internal/names.h"

#include <charconv>
#include <set>

namespace edgemond::collectors::internal {

std::vector<std::string> MakeUnique(const std::vector<std::string>& names) {
  // Reserve every original name first, so that a generated "a.1" never steals a real "a.1".
  std::set<std::string, std::less<>> used(names.begin(), names.end());
  std::set<std::string, std::less<>> assigned;
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const std::string& name : names) {
    if (assigned.insert(name).second) {
      out.push_back(name);
      continue;
    }
    for (int suffix = 1;; ++suffix) {
      std::string candidate = name + "." + std::to_string(suffix);
      if (used.count(candidate) == 0 && assigned.count(candidate) == 0) {
        assigned.insert(candidate);
        out.push_back(std::move(candidate));
        break;
      }
    }
  }
  return out;
}

int IndexedName(std::string_view name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return -1;
  const std::string_view digits = name.substr(prefix.size());
  int index = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (error != std::errc() || end != digits.data() + digits.size() || index < 0) return -1;
  return index;
}

}  // namespace edgemond::collectors::internal
