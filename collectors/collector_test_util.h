// Test helpers for collectors (test-only; not part of edgemond_collectors): compare everything a
// collector produced in one tick with an expected set of series, values and missing reasons.

#ifndef EDGEMOND_COLLECTORS_COLLECTOR_TEST_UTIL_H_
#define EDGEMOND_COLLECTORS_COLLECTOR_TEST_UTIL_H_

#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "core/sample.h"

namespace edgemond::collectors::testing {

// What one series should hold: a value, or no value and this reason.
struct Want {
  Want(double v) : value(v) {}  // NOLINT(runtime/explicit): {"key", 1.5} reads best.
  static Want Missing(std::string why) {
    Want want(0);
    want.value.reset();
    want.reason = std::move(why);
    return want;
  }
  std::optional<double> value;
  std::string reason;
};

inline Want Missing(std::string reason) { return Want::Missing(std::move(reason)); }

// SeriesKey (name{labels sorted}) -> what it should hold.
using Wants = std::map<std::string, Want>;

inline std::string Describe(const Sample& sample) {
  std::ostringstream out;
  out.precision(17);
  if (sample.value) {
    out << *sample.value;
  } else {
    out << "missing (" << sample.missing_reason << ")";
  }
  return out.str();
}

// Checks that `samples` holds exactly the series of `want`, each once, with equal values (to 1e-9
// relative) or equal missing reasons, every sample stamped `at` and described by `collector`.
inline void ExpectSamples(const std::vector<Sample>& samples, const Wants& want, WallTime at,
                          const Collector* collector = nullptr) {
  std::map<std::string, const Sample*> got;
  for (const Sample& sample : samples) {
    ASSERT_NE(sample.desc, nullptr);
    const std::string key = SeriesKey(sample);
    EXPECT_TRUE(got.emplace(key, &sample).second) << "series emitted twice: " << key;
    EXPECT_EQ(sample.at, at) << key;
    EXPECT_EQ(sample.value.has_value(), sample.missing_reason.empty())
        << key << ": a sample has a value or a reason, never both or neither";
    if (collector != nullptr) {
      const auto descs = collector->Describe();
      EXPECT_NE(std::find(descs.begin(), descs.end(), sample.desc), descs.end())
          << key << " is not in " << collector->name() << "'s Describe()";
    }
  }
  for (const auto& [key, expected] : want) {
    const auto it = got.find(key);
    if (it == got.end()) {
      ADD_FAILURE() << "missing series " << key;
      continue;
    }
    const Sample& sample = *it->second;
    if (expected.value) {
      if (!sample.value) {
        ADD_FAILURE() << key << ": want " << *expected.value << ", got " << Describe(sample);
      } else {
        EXPECT_NEAR(*sample.value, *expected.value,
                    1e-9 * std::max(1.0, std::fabs(*expected.value)))
            << key;
      }
    } else {
      EXPECT_FALSE(sample.value.has_value())
          << key << ": want missing (" << expected.reason << "), got " << Describe(sample);
      EXPECT_EQ(sample.missing_reason, expected.reason) << key;
    }
  }
  for (const auto& [key, sample] : got) {
    if (want.count(key) == 0)
      ADD_FAILURE() << "unexpected series " << key << " = " << Describe(*sample);
  }
}

// For a test of what an unprivileged daemon sees (root-only debugfs, RAPL energy_uj): makes this
// process unable to read files it has no permission for. Tests run as root in CI containers, and
// root reads any file whatever its mode, so a root process becomes user "nobody"; other users
// already are unprivileged. Call it only in a child process (the statement of EXPECT_EXIT), since
// it cannot be undone. `tree` (a temporary directory, 0700 when created) is opened to others so
// that "nobody" can still walk it. Returns false when privileges could not be dropped.
inline bool DropFileReadPrivilege(const std::string& tree) {
  ::chmod(tree.c_str(), 0755);
  if (::geteuid() != 0) return true;
  constexpr uid_t kNobody = 65534;
  return ::setgroups(0, nullptr) == 0 && ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0;
}

}  // namespace edgemond::collectors::testing

#endif  // EDGEMOND_COLLECTORS_COLLECTOR_TEST_UTIL_H_
