// Runs every ONNX backend node case under tests/onnx/node as one test: supported cases must
// pass, unsupported ones are skipped with the engine's reason (engine/tests/conformance.h),
// and float32 cases must not be unsupported.

#include "engine/tests/conformance.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/testing/temp_dir.h"

namespace edgemond::engine {
namespace {

std::string CasesRoot() { return edgemond::testing::SourceDir() + "/tests/onnx/node"; }

class ConformanceTest : public ::testing::TestWithParam<std::string> {};

// The float32 cases the engine may refuse, and why: their expected outputs come from
// ONNX's reference drawing a random dropout mask.
const std::set<std::string>& AcceptedFloat32Skips() {
  static const std::set<std::string> cases = {
      "test_training_dropout", "test_training_dropout_default",
      "test_training_dropout_default_mask", "test_training_dropout_mask"};
  return cases;
}

TEST_P(ConformanceTest, MatchesExpectedOutputs) {
  const ConformanceResult result = RunConformanceCase(CasesRoot() + "/" + GetParam());
  switch (result.outcome) {
    case ConformanceResult::Outcome::kPass:
      break;
    case ConformanceResult::Outcome::kSkip:
      // Every float32 case of a supported operator must pass; only other types and the few
      // cases above may be refused.
      if (result.float32 && AcceptedFloat32Skips().count(GetParam()) == 0) {
        FAIL() << result.op << ": a float32 case was refused: " << result.reason;
      }
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
