#include "core/json_locator.h"

#include <vector>

namespace edgemond {
namespace {

class Scanner {
 public:
  Scanner(std::string_view text, std::map<std::string, int, std::less<>>& lines)
      : text_(text), lines_(lines) {}

  void Run() {
    SkipSpace();
    Value("");
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  void Advance() {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }

  void SkipSpace() {
    while (!AtEnd()) {
      const char c = Peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        Advance();
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        // As nlohmann::json's scanner: a line comment ends at a carriage return too.
        while (!AtEnd() && Peek() != '\n' && Peek() != '\r') Advance();
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        Advance();
        Advance();
        while (!AtEnd() && !(Peek() == '*' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/')) {
          Advance();
        }
        if (!AtEnd()) {
          Advance();
          Advance();
        }
      } else {
        return;
      }
    }
  }

  std::string String() {
    std::string out;
    Advance();  // Opening quote.
    while (!AtEnd() && Peek() != '"') {
      if (Peek() == '\\') {
        Advance();
        if (AtEnd()) break;
      }
      out.push_back(Peek());
      Advance();
    }
    if (!AtEnd()) Advance();  // Closing quote.
    return out;
  }

  static std::string Join(std::string_view prefix, std::string_view key) {
    if (prefix.empty()) return std::string(key);
    std::string out(prefix);
    out.push_back('.');
    out.append(key);
    return out;
  }

  void Value(const std::string& path) {
    if (++depth_ > 256) return;  // nlohmann refuses such input anyway.
    const char c = Peek();
    if (c == '{') {
      Advance();
      SkipSpace();
      while (!AtEnd() && Peek() != '}') {
        if (Peek() != '"') break;  // Malformed; the parser reports it with its own offset.
        const int key_line = line_;
        const std::string key = String();
        const std::string child = Join(path, key);
        lines_.emplace(child, key_line);
        SkipSpace();
        if (Peek() != ':') break;
        Advance();
        SkipSpace();
        Value(child);
        SkipSpace();
        if (Peek() == ',') {
          Advance();
          SkipSpace();
        }
      }
      if (Peek() == '}') Advance();
    } else if (c == '[') {
      Advance();
      SkipSpace();
      int index = 0;
      while (!AtEnd() && Peek() != ']') {
        const std::string child = Join(path, std::to_string(index++));
        lines_.emplace(child, line_);
        const std::size_t before = pos_;
        Value(child);
        SkipSpace();
        if (Peek() == ',') {
          Advance();
          SkipSpace();
        } else if (pos_ == before) {
          break;
        }
      }
      if (Peek() == ']') Advance();
    } else if (c == '"') {
      (void)String();
    } else {
      while (!AtEnd() && Peek() != ',' && Peek() != '}' && Peek() != ']' && Peek() != '\n' &&
             Peek() != ' ' && Peek() != '/') {
        Advance();
      }
    }
    --depth_;
  }

  std::string_view text_;
  std::map<std::string, int, std::less<>>& lines_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int depth_ = 0;
};

}  // namespace

JsonLocator::JsonLocator(std::string_view text) { Scanner(text, lines_).Run(); }

int JsonLocator::LineOf(std::string_view path) const {
  const auto it = lines_.find(path);
  return it == lines_.end() ? 0 : it->second;
}

std::string JsonLocator::OverflowDetail(std::string_view what) {
  const std::size_t end_of_id = what.find("] ");
  return std::string(end_of_id == std::string_view::npos ? what : what.substr(end_of_id + 2));
}

int JsonLocator::LineOfOverflow(std::string_view text, std::string_view what) {
  const std::size_t open = what.find('\'');
  const std::size_t close = what.rfind('\'');
  if (open == std::string_view::npos || close <= open + 1) return 1;
  const std::size_t at = text.find(what.substr(open + 1, close - open - 1));
  return at == std::string_view::npos ? 1 : LineAtOffset(text, at);
}

int JsonLocator::LineAtOffset(std::string_view text, std::size_t offset) {
  int line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
  }
  return line;
}

}  // namespace edgemond
