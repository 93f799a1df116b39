#include "collectors/internal/cpuinfo_parse.h"

#include <algorithm>
#include <charconv>

#include "core/text.h"

namespace edgemond::collectors::internal {
namespace {

struct ArmPart {
  std::uint32_t implementer;
  std::uint32_t part;
  std::string_view name;
};

// Main ID register values (facts, as published in the vendors' reference manuals and decoded by
// util-linux lscpu).
constexpr ArmPart kArmParts[] = {
    {0x41, 0xc07, "Cortex-A7"},     {0x41, 0xc08, "Cortex-A8"},    {0x41, 0xc09, "Cortex-A9"},
    {0x41, 0xc0f, "Cortex-A15"},    {0x41, 0xd03, "Cortex-A53"},   {0x41, 0xd04, "Cortex-A35"},
    {0x41, 0xd05, "Cortex-A55"},    {0x41, 0xd07, "Cortex-A57"},   {0x41, 0xd08, "Cortex-A72"},
    {0x41, 0xd09, "Cortex-A73"},    {0x41, 0xd0a, "Cortex-A75"},   {0x41, 0xd0b, "Cortex-A76"},
    {0x41, 0xd0c, "Neoverse-N1"},   {0x41, 0xd0d, "Cortex-A77"},   {0x41, 0xd40, "Neoverse-V1"},
    {0x41, 0xd41, "Cortex-A78"},    {0x41, 0xd42, "Cortex-A78AE"}, {0x41, 0xd44, "Cortex-X1"},
    {0x41, 0xd46, "Cortex-A510"},   {0x41, 0xd47, "Cortex-A710"},  {0x41, 0xd48, "Cortex-X2"},
    {0x41, 0xd49, "Neoverse-N2"},   {0x41, 0xd4b, "Cortex-A78C"},  {0x41, 0xd4f, "Neoverse-V2"},
    {0x41, 0xd80, "Cortex-A520"},   {0x41, 0xd81, "Cortex-A720"},  {0x41, 0xd82, "Cortex-X4"},
    {0x41, 0xd83, "Neoverse-V3AE"}, {0x4e, 0x000, "Denver"},       {0x4e, 0x003, "Denver 2"},
    {0x4e, 0x004, "Carmel"},
};

struct ArmImplementer {
  std::uint32_t id;
  std::string_view name;
};

constexpr ArmImplementer kArmImplementers[] = {
    {0x41, "ARM"},      {0x42, "Broadcom"}, {0x43, "Cavium"}, {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},
    {0x51, "Qualcomm"}, {0x53, "Samsung"},  {0x61, "Apple"},  {0xc0, "Ampere"},
};

std::optional<std::uint32_t> ParseHex(std::optional<std::string_view> text) {
  if (!text) return std::nullopt;
  std::string_view digits = Trim(*text);
  if (StartsWith(digits, "0x") || StartsWith(digits, "0X")) digits.remove_prefix(2);
  std::uint32_t value = 0;
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

bool HasWord(std::string_view list, std::string_view word) {
  for (const std::string_view field : SplitFields(list)) {
    if (field == word) return true;
  }
  return false;
}

std::string Hex3(std::uint32_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 8; shift >= 0; shift -= 4) out.push_back(kDigits[(value >> shift) & 0xf]);
  return out;
}

}  // namespace

std::optional<std::string_view> CpuinfoBlock::Get(std::string_view key) const {
  for (const auto& [name, value] : fields) {
    if (name == key) return std::string_view(value);
  }
  return std::nullopt;
}

std::vector<CpuinfoBlock> ParseCpuinfo(std::string_view text) {
  std::vector<CpuinfoBlock> blocks;
  CpuinfoBlock current;
  for (const std::string_view line : SplitLines(text)) {
    if (Trim(line).empty()) {
      if (!current.fields.empty()) blocks.push_back(std::move(current));
      current = CpuinfoBlock();
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    current.fields.emplace_back(std::string(Trim(line.substr(0, colon))),
                                std::string(Trim(line.substr(colon + 1))));
  }
  if (!current.fields.empty()) blocks.push_back(std::move(current));
  return blocks;
}

std::optional<std::string> ArmCoreName(std::uint32_t implementer, std::uint32_t part) {
  const auto vendor = std::find_if(std::begin(kArmImplementers), std::end(kArmImplementers),
                                   [&](const ArmImplementer& i) { return i.id == implementer; });
  if (vendor == std::end(kArmImplementers)) return std::nullopt;
  std::string name(vendor->name);
  const auto known = std::find_if(
      std::begin(kArmParts), std::end(kArmParts),
      [&](const ArmPart& p) { return p.implementer == implementer && p.part == part; });
  if (known != std::end(kArmParts)) {
    name += " ";
    name += known->name;
  } else {
    name += " part " + Hex3(part);
  }
  return name;
}

std::optional<std::string> CpuModel(const std::vector<CpuinfoBlock>& blocks) {
  std::vector<std::string> arm_names;
  std::optional<std::string_view> model_name;
  for (const CpuinfoBlock& block : blocks) {
    if (!model_name) model_name = block.Get("model name");
    const auto implementer = ParseHex(block.Get("CPU implementer"));
    const auto part = ParseHex(block.Get("CPU part"));
    if (!implementer || !part) continue;
    std::optional<std::string> name = ArmCoreName(*implementer, *part);
    if (name && std::find(arm_names.begin(), arm_names.end(), *name) == arm_names.end()) {
      arm_names.push_back(std::move(*name));
    }
  }
  if (!arm_names.empty()) {
    std::string joined = arm_names.front();
    for (std::size_t i = 1; i < arm_names.size(); ++i) joined += " + " + arm_names[i];
    return joined;
  }
  if (model_name && !model_name->empty()) return std::string(*model_name);
  return std::nullopt;
}

std::optional<std::string> Architecture(const std::vector<CpuinfoBlock>& blocks) {
  for (const CpuinfoBlock& block : blocks) {
    if (const auto flags = block.Get("flags"); flags && block.Get("vendor_id")) {
      return HasWord(*flags, "lm") ? "x86_64" : "i686";
    }
    if (const auto arch = block.Get("CPU architecture")) {
      const std::string_view version = Trim(*arch);
      const auto features = block.Get("Features");
      // An arm64 kernel lists AArch64 features (fp, asimd); a 32-bit kernel on the same core
      // lists vfp/neon and still says 7 or 8.
      if (version == "8" && features && (HasWord(*features, "asimd") || HasWord(*features, "fp"))) {
        return "aarch64";
      }
      if (version == "AArch64") return "aarch64";
      return "armv" + std::string(version) + "l";
    }
    if (const auto isa = block.Get("isa")) {
      if (StartsWith(*isa, "rv64")) return "riscv64";
      if (StartsWith(*isa, "rv32")) return "riscv32";
    }
  }
  return std::nullopt;
}

}  // namespace edgemond::collectors::internal
