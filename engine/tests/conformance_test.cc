// Runs every ONNX backend node case under tests/onnx/node as one test: supported cases must
// pass, unsupported ones are skipped with the engine's reason (engine/tests/conformance.h).

#include "engine/tests/conformance.h"

#include <gtest/gtest.h>

#include <string>

namespace edgemond::engine {
namespace {

std::string CasesRoot() { return std::string(EDGEMOND_SOURCE_DIR) + "/tests/onnx/node"; }

class ConformanceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConformanceTest, MatchesExpectedOutputs) {
  const ConformanceResult result = RunConformanceCase(CasesRoot() + "/" + GetParam());
  switch (result.outcome) {
    case ConformanceResult::Outcome::kPass:
      break;
    case ConformanceResult::Outcome::kSkip:
      GTEST_SKIP() << result.op << ": " << result.reason;
    case ConformanceResult::Outcome::kFail:
      FAIL() << result.op << ": " << result.reason;
  }
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const std::string& dir : ListConformanceCases(CasesRoot())) {
    names.push_back(dir.substr(dir.rfind('/') + 1));
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(OnnxNode, ConformanceTest, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& case_info) {
                           return case_info.param;
                         });

TEST(ConformanceSuiteTest, CasesArePresent) {
  EXPECT_GT(CaseNames().size(), 100u) << "tests/onnx/node is missing or incomplete";
}

}  // namespace
}  // namespace edgemond::engine
