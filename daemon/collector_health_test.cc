#include "daemon/collector_health.h"

#include <gtest/gtest.h>

#include "collectors/builtin_collectors.h"

namespace edgemond::daemon {
namespace {

using collectors::CollectorEvent;
using collectors::CollectorHealth;
using collectors::CollectorState;

// Every built-in collector but "emc" (disabled), in run order, with these healths.
std::vector<CollectorState> States() {
  std::vector<CollectorState> states;
  for (const std::string_view name : collectors::BuiltinCollectorNames()) {
    if (name == "emc") continue;
    CollectorState state;
    state.collector = std::string(name);
    if (name == "thermal" || name == "rapl") {
      state.health = CollectorHealth::kNoHardware;
      state.last_error = Status::NotFound("nothing of its kind");
    } else if (name == "hwmon") {
      state.health = CollectorHealth::kFailing;
      state.last_error = Status::IoError("EIO");
    } else {
      state.health = CollectorHealth::kOk;
    }
    states.push_back(std::move(state));
  }
  return states;
}

TEST(CollectorHealthTest, OneLineSaysWhichCollectorsFoundWhat) {
  EXPECT_EQ(CollectorSummary(States()),
            "collectors: cpu, memory, power_rail, fan, jetson_gpu, amd_gpu, nvidia_gpu, "
            "power_mode, throttle read their hardware; thermal, rapl found none of theirs here; "
            "hwmon failing (see the warnings); disabled: emc");
  std::vector<CollectorState> fresh(1);
  fresh[0].collector = "cpu";
  EXPECT_EQ(CollectorSummary(fresh).rfind("collectors: cpu not run yet; disabled: memory, ", 0),
            0u);
}

TEST(CollectorHealthTest, JsonListsEveryBuiltinWithItsStateAndReason) {
  const nlohmann::json json = CollectorsToJson(States());
  ASSERT_EQ(json.size(), collectors::BuiltinCollectorNames().size());
  EXPECT_EQ(json[0], (nlohmann::json{{"collector", "cpu"}, {"state", "ok"}, {"reason", nullptr}}));
  EXPECT_EQ(json[2]["collector"], "thermal");
  EXPECT_EQ(json[2]["state"], "no_hardware");
  EXPECT_EQ(json[2]["reason"], "not_found: nothing of its kind");
  EXPECT_EQ(json[3]["state"], "failing");
  EXPECT_EQ(json[10]["collector"], "emc");
  EXPECT_EQ(json[10]["state"], "disabled");
}

TEST(CollectorHealthTest, EventsReadAsWhatChanged) {
  const auto line = [](CollectorHealth from, CollectorHealth to, Status error) {
    return DescribeCollectorEvent(CollectorEvent{"thermal", from, to, std::move(error)});
  };
  EXPECT_EQ(line(CollectorHealth::kOk, CollectorHealth::kFailing, Status::IoError("EIO")),
            "collector thermal failed: " + Status::IoError("EIO").ToString());
  EXPECT_EQ(line(CollectorHealth::kFailing, CollectorHealth::kOk, Status::Ok()),
            "collector thermal recovered");
  EXPECT_EQ(line(CollectorHealth::kNoHardware, CollectorHealth::kOk, Status::Ok()),
            "collector thermal found hardware to read");
  EXPECT_EQ(line(CollectorHealth::kOk, CollectorHealth::kNoHardware, Status::NotFound("no zones")),
            "collector thermal lost its hardware: no zones");
  EXPECT_EQ(line(CollectorHealth::kFailing, CollectorHealth::kNoHardware, Status::NotFound("none")),
            "collector thermal recovered, but finds no hardware: none");
}

}  // namespace
}  // namespace edgemond::daemon
