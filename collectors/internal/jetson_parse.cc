#include "collectors/internal/jetson_parse.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace edgemond::collectors::internal {
namespace {

struct L4tToJetPack {
  std::string_view l4t;
  std::string_view jetpack;
};

// NVIDIA's published pairs of L4T release and JetPack version. Data, not logic: a new JetPack is
// one new row. A release missing here is reported without a JetPack version.
constexpr L4tToJetPack kJetPackTable[] = {
    // JetPack 4 (L4T 32, Nano / TX1 / TX2 / Xavier).
    {"32.1.0", "4.2"},
    {"32.2.0", "4.2.1"},
    {"32.2.1", "4.2.2"},
    {"32.3.1", "4.3"},
    {"32.4.2", "4.4 DP"},
    {"32.4.3", "4.4"},
    {"32.4.4", "4.4.1"},
    {"32.5.0", "4.5"},
    {"32.5.1", "4.5.1"},
    {"32.6.1", "4.6"},
    {"32.7.1", "4.6.1"},
    {"32.7.2", "4.6.2"},
    {"32.7.3", "4.6.3"},
    {"32.7.4", "4.6.4"},
    {"32.7.5", "4.6.5"},
    {"32.7.6", "4.6.6"},
    // JetPack 5 (L4T 34/35, Xavier and Orin).
    {"34.1.0", "5.0 DP"},
    {"34.1.1", "5.0.1 DP"},
    {"35.1.0", "5.0.2"},
    {"35.2.1", "5.1"},
    {"35.3.1", "5.1.1"},
    {"35.4.1", "5.1.2"},
    {"35.5.0", "5.1.3"},
    {"35.6.0", "5.1.4"},
    {"35.6.1", "5.1.5"},
    // JetPack 6 (L4T 36, Orin).
    {"36.2.0", "6.0 DP"},
    {"36.3.0", "6.0"},
    {"36.4.0", "6.1"},
    {"36.4.3", "6.2"},
    {"36.4.4", "6.2.1"},
    // JetPack 7 (L4T 38, Thor).
    {"38.2.0", "7.0"},
};

bool AllDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "KEY=VALUE" tokens of an nvpmodel header line ("< POWER_MODEL ID=0 NAME=15W >").
std::optional<std::string_view> HeaderValue(const std::vector<std::string_view>& fields,
                                            std::string_view key) {
  for (std::string_view field : fields) {
    if (field.size() > key.size() && StartsWith(field, key) && field[key.size()] == '=') {
      return field.substr(key.size() + 1);
    }
  }
  return std::nullopt;
}

std::optional<int> ParseId(std::string_view text) {
  if (!AllDigits(text) || text.size() > 6) return std::nullopt;
  auto value = ParseInt64(text);
  if (!value.ok()) return std::nullopt;
  return static_cast<int>(*value);
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::optional<std::string> ParseL4tRelease(std::string_view nv_tegra_release) {
  const std::vector<std::string_view> lines = SplitLines(nv_tegra_release);
  if (lines.empty()) return std::nullopt;
  const std::string_view line = lines.front();
  const std::size_t r = line.find("# R");
  if (r == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(r + 3);
  const std::size_t major_end = rest.find_first_not_of("0123456789");
  const std::string_view major = rest.substr(0, major_end);
  if (!AllDigits(major)) return std::nullopt;
  const std::size_t revision = line.find("REVISION:");
  if (revision == std::string_view::npos) return std::nullopt;
  std::string_view value = line.substr(revision + 9);
  value = Trim(value.substr(0, value.find(',')));
  const std::size_t dot = value.find('.');
  const std::string_view minor = value.substr(0, dot);
  const std::string_view patch = dot == std::string_view::npos ? "0" : value.substr(dot + 1);
  if (!AllDigits(minor) || !AllDigits(patch)) return std::nullopt;
  return std::string(major) + "." + std::string(minor) + "." + std::string(patch);
}

std::optional<std::string_view> JetPackForL4t(std::string_view l4t_release) {
  for (const L4tToJetPack& row : kJetPackTable) {
    if (row.l4t == l4t_release) return row.jetpack;
  }
  return std::nullopt;
}

std::optional<int> ParseNvpmodelStatus(std::string_view status) {
  for (std::string_view field : SplitFields(Trim(status))) {
    if (StartsWith(field, "pmode:")) return ParseId(Trim(field.substr(6)));
  }
  return std::nullopt;
}

std::optional<std::string> NvpmodelConf::NameOf(int id) const {
  for (const NvpmodelMode& mode : modes) {
    if (mode.id == id) return mode.name;
  }
  return std::nullopt;
}

NvpmodelConf ParseNvpmodelConf(std::string_view text) {
  NvpmodelConf conf;
  for (std::string_view line : SplitLines(text)) {
    line = Trim(line);
    if (line.size() < 2 || line.front() != '<' || line.back() != '>') continue;
    const std::vector<std::string_view> fields = SplitFields(line.substr(1, line.size() - 2));
    if (fields.empty()) continue;
    if (fields[0] == "POWER_MODEL") {
      const auto id = HeaderValue(fields, "ID");
      const auto name = HeaderValue(fields, "NAME");
      const auto parsed = id ? ParseId(*id) : std::nullopt;
      if (parsed && name && !conf.NameOf(*parsed)) {
        conf.modes.push_back(NvpmodelMode{*parsed, std::string(*name)});
      }
    } else if (fields[0] == "PM_CONFIG") {
      if (const auto id = HeaderValue(fields, "DEFAULT")) conf.default_id = ParseId(*id);
    }
  }
  return conf;
}

Result<std::int64_t> ParseValueWithUnit(std::string_view text, std::string_view unit) {
  const std::vector<std::string_view> fields = SplitFields(Trim(text));
  if (fields.empty()) return Status::Unavailable("empty file");
  if (fields.size() > 2 || (fields.size() == 2 && Lower(fields[1]) != Lower(unit))) {
    return Status::Corruption("not a number in " + std::string(unit) + ": \"" +
                              std::string(Trim(text)) + "\"");
  }
  return ParseInt64(fields[0]);
}

bool IsJetsonGpuNode(std::string_view of_node_name, const std::vector<std::string>& compatible) {
  static constexpr std::string_view kChips[] = {"gm20b", "gp10b", "gv11b", "ga10b", "gb10b"};
  for (std::string_view chip : kChips) {
    if (of_node_name == chip) return true;
    for (const std::string& c : compatible) {
      if (StartsWith(c, "nvidia,") && EndsWith(c, chip)) return true;
    }
  }
  return of_node_name == "gpu" &&
         std::any_of(compatible.begin(), compatible.end(),
                     [](const std::string& c) { return StartsWith(c, "nvidia,"); });
}

std::string JetsonGpuName(std::string_view of_node_name,
                          const std::vector<std::string>& compatible) {
  if (compatible.empty()) return std::string(of_node_name);
  std::string_view name = compatible.front();
  if (const std::size_t comma = name.find(','); comma != std::string_view::npos) {
    name.remove_prefix(comma + 1);
  }
  if (const std::size_t dash = name.rfind('-'); dash != std::string_view::npos) {
    name.remove_prefix(dash + 1);
  }
  return name.empty() ? std::string(of_node_name) : std::string(name);
}

}  // namespace edgemond::collectors::internal
