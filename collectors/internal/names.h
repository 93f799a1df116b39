// Stable, unique names for things the kernel numbers in discovery order (thermal zones, hwmon
// chips), so that a series keeps its identity across reboots even when the numbers change.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_NAMES_H_
#define EDGEMOND_COLLECTORS_INTERNAL_NAMES_H_

#include <string>
#include <string_view>
#include <vector>

namespace edgemond::collectors::internal {

// Makes every name unique, in order: the first occurrence of a name keeps it, later ones get
// ".1", ".2", ... (skipping suffixes that are themselves taken). The input order must be stable
// (e.g. the kernel's index order), since it decides which duplicate gets which suffix.
//   {"acpitz", "x86_pkg_temp", "acpitz"} -> {"acpitz", "x86_pkg_temp", "acpitz.1"}
std::vector<std::string> MakeUnique(const std::vector<std::string>& names);

// The number in a kernel-numbered directory name: IndexedName("thermal_zone12", "thermal_zone")
// is 12; -1 when `name` is not `prefix` followed by decimal digits only.
int IndexedName(std::string_view name, std::string_view prefix);

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_NAMES_H_
