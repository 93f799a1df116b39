#include "core/query.h"

#include <cctype>

namespace edgemond {

std::string_view AggregationName(Aggregation aggregation) {
  switch (aggregation) {
    case Aggregation::kAvg:
      return "avg";
    case Aggregation::kMin:
      return "min";
    case Aggregation::kMax:
      return "max";
    case Aggregation::kLast:
      return "last";
    case Aggregation::kSum:
      return "sum";
    case Aggregation::kCount:
      return "count";
  }
  return "avg";
}

Result<Aggregation> ParseAggregation(std::string_view name) {
  for (Aggregation a : {Aggregation::kAvg, Aggregation::kMin, Aggregation::kMax, Aggregation::kLast,
                        Aggregation::kSum, Aggregation::kCount}) {
    if (AggregationName(a) == name) return a;
  }
  return Status::InvalidArgument("unknown aggregation \"" + std::string(name) +
                                 "\" (expected avg, min, max, last, sum or count)");
}

bool SeriesSelector::Matches(std::string_view series_name, const Labels& labels) const {
  if (series_name != name) return false;
  for (const LabelMatcher& matcher : matchers) {
    std::string_view actual;
    for (const Label& label : labels) {
      if (label.name == matcher.name) {
        actual = label.value;
        break;
      }
    }
    const bool equal = actual == matcher.value;
    if (equal != (matcher.op == LabelMatcher::Op::kEqual)) return false;
  }
  return true;
}

namespace {

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

class SelectorParser {
 public:
  explicit SelectorParser(std::string_view text) : text_(text) {}

  Result<SeriesSelector> Parse() {
    SeriesSelector selector;
    SkipSpace();
    EDGEMOND_ASSIGN_OR_RETURN(selector.name, Name(/*allow_colon=*/true));
    SkipSpace();
    if (AtEnd()) return selector;
    if (!Consume('{')) return Error("expected '{' or end of selector");
    SkipSpace();
    while (!Consume('}')) {
      LabelMatcher matcher;
      EDGEMOND_ASSIGN_OR_RETURN(matcher.name, Name(/*allow_colon=*/false));
      SkipSpace();
      if (Consume('=')) {
        matcher.op = LabelMatcher::Op::kEqual;
      } else if (Consume('!')) {
        if (!Consume('=')) return Error("expected '=' after '!'");
        matcher.op = LabelMatcher::Op::kNotEqual;
      } else {
        return Error("expected '=' or '!=' after label name");
      }
      SkipSpace();
      EDGEMOND_ASSIGN_OR_RETURN(matcher.value, Quoted());
      selector.matchers.push_back(std::move(matcher));
      SkipSpace();
      if (Consume(',')) {
        SkipSpace();
        continue;
      }
      if (Peek() != '}') return Error("expected ',' or '}'");
    }
    SkipSpace();
    if (!AtEnd()) return Error("unexpected text after '}'");
    return selector;
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  bool Consume(char c) {
    if (Peek() != c || AtEnd()) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (!AtEnd() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  Status Error(std::string_view what) const {
    return Status::InvalidArgument("bad series selector at character " + std::to_string(pos_ + 1) +
                                   ": " + std::string(what));
  }
  Result<std::string> Name(bool allow_colon) {
    const std::size_t start = pos_;
    if (AtEnd() || (!IsNameStart(text_[pos_]) && !(allow_colon && text_[pos_] == ':'))) {
      return Error("expected a name");
    }
    while (!AtEnd() && (IsNameChar(text_[pos_]) || (allow_colon && text_[pos_] == ':'))) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  Result<std::string> Quoted() {
    if (!Consume('"')) return Error("expected '\"'");
    std::string value;
    while (!AtEnd() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\') {
        if (AtEnd()) break;
        const char escaped = text_[pos_++];
        c = escaped == 'n' ? '\n' : escaped;
      }
      value.push_back(c);
    }
    if (!Consume('"')) return Error("unterminated label value");
    return value;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

Result<SeriesSelector> ParseSeriesSelector(std::string_view text) {
  return SelectorParser(text).Parse();
}

}  // namespace edgemond
