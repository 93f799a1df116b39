// engine_conformance_report DIR: runs every ONNX backend case in DIR and prints the
// pass/skip/fail table per operator, in Markdown, for docs/engine.md. Exits 1 if any case
// fails.

#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include "engine/tests/conformance.h"

namespace {

struct OpCounts {
  int pass = 0;
  int skip = 0;
  int fail = 0;
  std::map<std::string, int> skip_reasons;
  std::vector<std::string> failures;
};

// Skip reasons name the model file and the node; keep only what is unsupported.
std::string Reason(const std::string& reason) {
  const std::size_t node = reason.rfind("): ");
  if (node != std::string::npos) return reason.substr(node + 3);
  if (reason.rfind("value '", 0) == 0 && reason.find("': ") != std::string::npos) {
    return reason.substr(reason.find("': ") + 3);
  }
  for (const char* file : {".onnx: ", ".pb: "}) {
    const std::size_t at = reason.find(file);
    if (at != std::string::npos) return Reason(reason.substr(at + std::string(file).size()));
  }
  return reason;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: engine_conformance_report ONNX_NODE_TESTS_DIR\n";
    return 2;
  }
  std::map<std::string, OpCounts> ops;
  int pass = 0;
  int skip = 0;
  int fail = 0;
  for (const std::string& dir : edgemond::engine::ListConformanceCases(argv[1])) {
    const auto result = edgemond::engine::RunConformanceCase(dir);
    const std::string name = dir.substr(dir.rfind('/') + 1);
    OpCounts& counts = ops[result.op];
    switch (result.outcome) {
      case edgemond::engine::ConformanceResult::Outcome::kPass:
        ++counts.pass;
        ++pass;
        break;
      case edgemond::engine::ConformanceResult::Outcome::kSkip:
        ++counts.skip;
        ++skip;
        ++counts.skip_reasons[Reason(result.reason)];
        break;
      case edgemond::engine::ConformanceResult::Outcome::kFail:
        ++counts.fail;
        ++fail;
        counts.failures.push_back(name + ": " + result.reason);
        break;
    }
  }
  std::cout << "| op | pass | skip | fail | skipped because |\n|---|---|---|---|---|\n";
  for (const auto& [op, counts] : ops) {
    std::string reasons;
    for (const auto& [reason, count] : counts.skip_reasons) {
      if (!reasons.empty()) reasons += "; ";
      reasons += reason + (count > 1 ? " (" + std::to_string(count) + ")" : "");
    }
    std::cout << "| " << op << " | " << counts.pass << " | " << counts.skip << " | " << counts.fail
              << " | " << reasons << " |\n";
  }
  std::cout << "| **total** | **" << pass << "** | **" << skip << "** | **" << fail << "** | |\n";
  for (const auto& [op, counts] : ops) {
    for (const std::string& failure : counts.failures) std::cerr << "FAIL " << failure << "\n";
  }
  return fail == 0 ? 0 : 1;
}
