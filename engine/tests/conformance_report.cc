// engine_conformance_report DIR [--update DOC | --check DOC]: runs every ONNX backend case in
// DIR and prints the pass/skip/fail table per operator in Markdown. With --update it replaces
// the table in DOC (docs/engine.md), between the lines
//   <!-- conformance-table:begin -->  and  <!-- conformance-table:end -->
// and with --check it exits 1 when DOC's table differs from this run's (a CTest runs that, so
// the documented figures are always the test run's). Exits 1 if any case fails.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "engine/tests/conformance.h"

namespace {

constexpr std::string_view kBegin = "<!-- conformance-table:begin -->\n";
constexpr std::string_view kEnd = "<!-- conformance-table:end -->\n";

struct OpCounts {
  int pass = 0;
  int skip = 0;
  int fail = 0;
  int float32 = 0;  // float32 cases (engine/tests/conformance.h).
  int float32_pass = 0;
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

// DOC's text with the table between the markers replaced by `table`; false when DOC has no
// markers.
bool ReplaceTable(const std::string& doc, const std::string& table, std::string& out) {
  const std::size_t begin = doc.find(kBegin);
  const std::size_t end = doc.find(kEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) return false;
  out = doc.substr(0, begin + kBegin.size()) + table + doc.substr(end);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 4 ? argv[2] : "";
  if (argc != 2 && !(argc == 4 && (mode == "--update" || mode == "--check"))) {
    std::cerr << "usage: engine_conformance_report ONNX_NODE_TESTS_DIR [--update DOC | --check "
                 "DOC]\n";
    return 2;
  }
  std::map<std::string, OpCounts> ops;
  int pass = 0;
  int skip = 0;
  int fail = 0;
  int float32 = 0;
  int float32_pass = 0;
  for (const std::string& dir : edgemond::engine::ListConformanceCases(argv[1])) {
    const auto result = edgemond::engine::RunConformanceCase(dir);
    const std::string name = dir.substr(dir.rfind('/') + 1);
    OpCounts& counts = ops[result.op];
    const bool passed = result.outcome == edgemond::engine::ConformanceResult::Outcome::kPass;
    if (result.float32) {
      ++counts.float32;
      ++float32;
      if (passed) {
        ++counts.float32_pass;
        ++float32_pass;
      }
    }
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
  std::ostringstream table;
  table << "| op | pass | skip | fail | float32 passed | skipped because |\n"
           "|---|---|---|---|---|---|\n";
  for (const auto& [op, counts] : ops) {
    std::string reasons;
    for (const auto& [reason, count] : counts.skip_reasons) {
      if (!reasons.empty()) reasons += "; ";
      reasons += reason + (count > 1 ? " (" + std::to_string(count) + ")" : "");
    }
    table << "| " << op << " | " << counts.pass << " | " << counts.skip << " | " << counts.fail
          << " | " << counts.float32_pass << "/" << counts.float32 << " | " << reasons << " |\n";
  }
  table << "| **total** | **" << pass << "** | **" << skip << "** | **" << fail << "** | **"
        << float32_pass << "/" << float32 << "** | |\n";
  for (const auto& [op, counts] : ops) {
    for (const std::string& failure : counts.failures) std::cerr << "FAIL " << failure << "\n";
  }
  if (mode.empty()) {
    std::cout << table.str();
    return fail == 0 ? 0 : 1;
  }

  const std::string doc_path = argv[3];
  std::ifstream in(doc_path, std::ios::binary);
  const std::string doc((std::istreambuf_iterator<char>(in)), {});
  std::string updated;
  if (!in || !ReplaceTable(doc, table.str(), updated)) {
    std::cerr << doc_path << ": cannot read it, or it has no "
              << kBegin.substr(0, kBegin.size() - 1) << " ... " << kEnd.substr(0, kEnd.size() - 1)
              << " block\n";
    return 1;
  }
  if (mode == "--check") {
    if (updated != doc) {
      std::cerr << doc_path << ": the conformance table differs from this run's; this run's is\n"
                << table.str() << "(rerun with --update " << doc_path << ")\n";
      return 1;
    }
    return fail == 0 ? 0 : 1;
  }
  std::ofstream out(doc_path, std::ios::binary | std::ios::trunc);
  out << updated;
  out.close();
  if (!out) {
    std::cerr << doc_path << ": cannot write it\n";
    return 1;
  }
  return fail == 0 ? 0 : 1;
}
