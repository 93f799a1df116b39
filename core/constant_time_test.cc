#include "core/constant_time.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace edgemond {
namespace {

TEST(ConstantTimeEqualsTest, IsEquality) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_TRUE(ConstantTimeEquals("s3cret", "s3cret"));
  EXPECT_FALSE(ConstantTimeEquals("s3cret", "s3cres"));
  EXPECT_FALSE(ConstantTimeEquals("s3cret", "s3cret-and-more"));
  EXPECT_FALSE(ConstantTimeEquals("s3cret", ""));
  EXPECT_FALSE(ConstantTimeEquals(std::string("a\0b", 3), std::string("a\0c", 3)));
}

// Median seconds of `compare` over 31 runs, interleaved with `other` so that a busy moment of the
// machine hits both alike.
template <typename A, typename B>
std::pair<double, double> Medians(A compare, B other) {
  std::vector<double> a, b;
  const auto time = [](auto f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (int i = 0; i < 31; ++i) {
    a.push_back(time(compare));
    b.push_back(time(other));
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return {a[15], b[15]};
}

// Stops at the first difference, as memcmp() does (not memcmp() itself, which the sanitizers'
// interceptor makes read both buffers whole).
bool EarlyExitEquals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// A guess that differs from a 1 MiB secret in its first byte takes as long as one that differs in
// its last. An early-exit comparison, run the same way, returns thousands of times sooner on the
// first: the bounds only have to tell that apart from "the same", which no noise on a shared
// machine blurs.
TEST(ConstantTimeEqualsTest, TakesAsLongWhereverTheGuessDiffers) {
  const std::string secret(1 << 20, 'k');
  std::string first = secret;
  first.front() = 'x';
  std::string last = secret;
  last.back() = 'x';
  volatile bool sink = false;
  const auto [late, early] = Medians([&] { sink = ConstantTimeEquals(secret, last); },
                                     [&] { sink = ConstantTimeEquals(secret, first); });
  EXPECT_GT(late / early, 0.25) << late << " s against " << early << " s";
  EXPECT_LT(late / early, 4.0) << late << " s against " << early << " s";

  // The same measurement tells an early exit apart: its ratio is far outside the bounds.
  const auto [exit_late, exit_early] = Medians([&] { sink = EarlyExitEquals(secret, last); },
                                               [&] { sink = EarlyExitEquals(secret, first); });
  EXPECT_GT(exit_late / exit_early, 4.0) << exit_late << " s against " << exit_early << " s";
  (void)sink;
}

}  // namespace
}  // namespace edgemond
