// Fuzz target for series selectors (`name{label="value",other!="x"}`, core/query.h), as the API
// takes them from a `match` parameter. Any text parses or fails with kInvalidArgument and a
// message; a selector that parses, written back in the same syntax, parses to the same selector;
// and it matches the series its own equality matchers describe unless it also excludes them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/query.h"
#include "tests/fuzz/fuzz_check.h"

namespace edgemond {
namespace {

std::string Format(const SeriesSelector& selector) {
  std::string text = selector.name + "{";
  for (const LabelMatcher& matcher : selector.matchers) {
    if (text.back() != '{') text += ", ";
    text += matcher.name;
    text += matcher.op == LabelMatcher::Op::kEqual ? "=\"" : "!=\"";
    for (const char c : matcher.value) {
      if (c == '"' || c == '\\') {
        text += '\\';
        text += c;
      } else if (c == '\n') {
        text += "\\n";
      } else {
        text += c;
      }
    }
    text += '"';
  }
  return text + "}";
}

bool Same(const SeriesSelector& a, const SeriesSelector& b) {
  if (a.name != b.name || a.matchers.size() != b.matchers.size()) return false;
  for (std::size_t i = 0; i < a.matchers.size(); ++i) {
    if (a.matchers[i].name != b.matchers[i].name || a.matchers[i].op != b.matchers[i].op ||
        a.matchers[i].value != b.matchers[i].value) {
      return false;
    }
  }
  return true;
}

void Check(std::string_view text) {
  Result<SeriesSelector> selector = ParseSeriesSelector(text);
  if (!selector.ok()) {
    FUZZ_CHECK(selector.status().code() == StatusCode::kInvalidArgument, "error code");
    FUZZ_CHECK(!selector.status().message().empty(), "an error says what is wrong");
    return;
  }
  FUZZ_CHECK(!selector->name.empty(), "a selector has a metric name");
  const std::string formatted = Format(*selector);
  Result<SeriesSelector> again = ParseSeriesSelector(formatted);
  FUZZ_CHECK(again.ok() && Same(*selector, *again), "a selector written back parses the same");

  // The series whose labels are the first value of each equality matcher.
  Labels labels;
  bool excluded = false;
  for (const LabelMatcher& matcher : selector->matchers) {
    if (matcher.op != LabelMatcher::Op::kEqual) continue;
    bool seen = false;
    for (const Label& label : labels) seen = seen || label.name == matcher.name;
    if (!seen) labels.push_back({matcher.name, matcher.value});
  }
  for (const LabelMatcher& matcher : selector->matchers) {
    std::string_view actual;
    for (const Label& label : labels) {
      if (label.name == matcher.name) actual = label.value;
    }
    const bool equal = actual == matcher.value;
    excluded = excluded || equal != (matcher.op == LabelMatcher::Op::kEqual);
  }
  FUZZ_CHECK(selector->Matches(selector->name, labels) == !excluded,
             "matches the series its equality matchers describe");
  FUZZ_CHECK(!selector->Matches(selector->name + "_other", labels), "another name never matches");
}

}  // namespace
}  // namespace edgemond

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  edgemond::Check(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
