// Finds where things are in JSON text, so that configuration errors can name a line.
// nlohmann::json keeps no source positions, so this scanner walks the same text (comments
// allowed) and records the line of every object key, by dotted path ("http.listen").

#ifndef EDGEMOND_CORE_JSON_LOCATOR_H_
#define EDGEMOND_CORE_JSON_LOCATOR_H_

#include <map>
#include <string>
#include <string_view>

namespace edgemond {

class JsonLocator {
 public:
  explicit JsonLocator(std::string_view text);

  // 1-based line of the key at `path` ("storage.path"; array elements as "alerts.2.name"),
  // or 0 when unknown.
  int LineOf(std::string_view path) const;

  // 1-based line of a byte offset.
  static int LineAtOffset(std::string_view text, std::size_t offset);

  // For a number nlohmann::json refuses as out of range ("1e999"), which it reports without a
  // position: what to say ("number overflow parsing '1e999'", from its message `what`) and the
  // 1-based line of the number's first occurrence in `text` (1 when not found).
  static std::string OverflowDetail(std::string_view what);
  static int LineOfOverflow(std::string_view text, std::string_view what);

 private:
  std::map<std::string, int, std::less<>> lines_;
};

}  // namespace edgemond

#endif  // EDGEMOND_CORE_JSON_LOCATOR_H_
