// Interpreting NVIDIA Jetson (L4T) files: the L4T release, the L4T -> JetPack table, nvpmodel's
// status and configuration, the ina3221x driver's limit files, and nvgpu's device-tree names.
// Pure functions; no I/O.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_JETSON_PARSE_H_
#define EDGEMOND_COLLECTORS_INTERNAL_JETSON_PARSE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace edgemond::collectors::internal {

// The L4T release from /etc/nv_tegra_release, whose first line reads
//   "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, DATE: ..."
// -> "36.4.3". A revision without a patch level ("REVISION: 5") gets ".0". nullopt when the text
// does not have that shape.
std::optional<std::string> ParseL4tRelease(std::string_view nv_tegra_release);

// The JetPack version an L4T release belongs to ("36.4.3" -> "6.2"), from the table in
// jetson_parse.cc; nullopt for a release the table does not know (a newer one: the L4T release is
// still reported, nothing is guessed).
std::optional<std::string_view> JetPackForL4t(std::string_view l4t_release);

// The power-mode id in /var/lib/nvpmodel/status: "pmode:0002 fmode:quiet" -> 2. Trailing tokens
// are ignored. nullopt when there is no "pmode:<digits>".
std::optional<int> ParseNvpmodelStatus(std::string_view status);

struct NvpmodelMode {
  int id = 0;
  std::string name;
  friend bool operator==(const NvpmodelMode&, const NvpmodelMode&) = default;
};

struct NvpmodelConf {
  std::vector<NvpmodelMode> modes;  // In file order.
  std::optional<int> default_id;    // From "< PM_CONFIG DEFAULT=<id> >".

  // The name of mode `id`; nullopt when the file does not define it.
  std::optional<std::string> NameOf(int id) const;
};

// /etc/nvpmodel.conf: every "< POWER_MODEL ID=<n> NAME=<name> >" header and the
// "< PM_CONFIG DEFAULT=<n> >" line; everything else (the settings of each mode, comments starting
// with '#') is skipped. Malformed headers are skipped too: a broken file yields what it can,
// never an error (jtop crashed on one).
NvpmodelConf ParseNvpmodelConf(std::string_view text);

// The ina3221x (L4T 32) limit files print a unit after the number: "1000 ma\n" -> 1000. The unit,
// when present, must be "ma" or "mA" (milliamperes) or "mw"/"mW" for power files.
Result<std::int64_t> ParseValueWithUnit(std::string_view text, std::string_view unit);

// Whether a devfreq device is an NVIDIA integrated GPU (nvgpu), from its device-tree node's
// `name` ("gpu", "gv11b", "ga10b", ...) and `compatible` strings ("nvidia,ga10b",
// "nvidia,tegra210-gm20b").
bool IsJetsonGpuNode(std::string_view of_node_name, const std::vector<std::string>& compatible);

// A short chip name for the `name` label: the first compatible entry without its vendor and SoC
// prefix ("nvidia,tegra210-gm20b" -> "gm20b", "nvidia,ga10b" -> "ga10b"), else the node name.
std::string JetsonGpuName(std::string_view of_node_name,
                          const std::vector<std::string>& compatible);

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_JETSON_PARSE_H_
