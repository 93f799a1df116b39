// Parsing of /proc/cpuinfo: blocks of "key<TAB>: value" lines separated by blank lines. x86 blocks
// carry "model name" and "flags"; arm64 blocks carry "CPU implementer" and "CPU part" but no model
// name on mainline kernels, and list only online CPUs; a Raspberry Pi kernel appends a block with
// "Hardware", "Revision", "Serial" and "Model". Pure functions.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_CPUINFO_PARSE_H_
#define EDGEMOND_COLLECTORS_INTERNAL_CPUINFO_PARSE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace edgemond::collectors::internal {

struct CpuinfoBlock {
  std::vector<std::pair<std::string, std::string>>
      fields;  // In file order, keys and values trimmed.

  // The value of the first field named `key`, or nullopt.
  std::optional<std::string_view> Get(std::string_view key) const;
};

std::vector<CpuinfoBlock> ParseCpuinfo(std::string_view text);

// The core's marketing name from the ARM main ID register fields, as lscpu decodes them:
// (0x41, 0xd42) -> "ARM Cortex-A78AE", (0x4e, 0x004) -> "NVIDIA Carmel". Unknown parts of a known
// implementer give "<implementer> part 0x<part>"; an unknown implementer gives nullopt.
std::optional<std::string> ArmCoreName(std::uint32_t implementer, std::uint32_t part);

// The CPU model of the whole machine: x86 "model name"; on ARM the decoded core names of the
// listed CPUs, distinct ones joined by " + " in order of appearance ("ARM Cortex-A76 + ARM
// Cortex-A55"), falling back to "model name" when no core decodes. nullopt when nothing says.
std::optional<std::string> CpuModel(const std::vector<CpuinfoBlock>& blocks);

// The machine architecture as uname -m would say it, derived from what /proc/cpuinfo shows (the
// host's uname() would be wrong under a --root): "x86_64" / "i686" from the `lm` flag,
// "aarch64" for "CPU architecture: 8" with AArch64 features, "armv7l" style names for 32-bit
// ARM, "riscv64" / "riscv32" from "isa". nullopt when it cannot be told.
std::optional<std::string> Architecture(const std::vector<CpuinfoBlock>& blocks);

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_CPUINFO_PARSE_H_
