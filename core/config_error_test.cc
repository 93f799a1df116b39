#include "core/config_error.h"

#include <gtest/gtest.h>

namespace edgemond {
namespace {

TEST(ConfigErrorTest, NamesTheFileTheLineAndTheKeyBeforeTheMessage) {
  EXPECT_EQ(
      (ConfigError{"/etc/edgemond/edgemond.json", 12, "http.listen", "missing port"}).ToString(),
      "/etc/edgemond/edgemond.json:12: http.listen: missing port");
}

TEST(ConfigErrorTest, LeavesOutWhatIsNotKnown) {
  EXPECT_EQ((ConfigError{"rules.json", 0, "rules.2.op", "unknown op"}).ToString(),
            "rules.json: rules.2.op: unknown op");
  EXPECT_EQ((ConfigError{"edgemond.json", 4, "", "syntax error"}).ToString(),
            "edgemond.json:4: syntax error");
  EXPECT_EQ((ConfigError{"", 0, "--interval", "expected a number"}).ToString(),
            "--interval: expected a number");
  EXPECT_EQ((ConfigError{"", 7, "", "bare"}).ToString(), "bare");
}

}  // namespace
}  // namespace edgemond
