#include "core/json_locator.h"

#include <gtest/gtest.h>

namespace edgemond {
namespace {

TEST(JsonLocatorTest, FindsKeysByPathThroughCommentsAndStrings) {
  const std::string text = R"({
  // "fake": 1, a comment that looks like a key
  "root": "/",
  /* "also": "fake",
     across lines */
  "http": {
    "listen": "127.0.0.1:8867",  // trailing comment
    "cors_allow_origins": ["a\"}", "b"]
  },
  "list": [{"name": "x"},
           {"name": "y"}]
})";
  const JsonLocator locator(text);
  EXPECT_EQ(locator.LineOf("root"), 3);
  EXPECT_EQ(locator.LineOf("http"), 6);
  EXPECT_EQ(locator.LineOf("http.listen"), 7);
  EXPECT_EQ(locator.LineOf("http.cors_allow_origins"), 8);
  EXPECT_EQ(locator.LineOf("list.1.name"), 11);
  EXPECT_EQ(locator.LineOf("fake"), 0);
  EXPECT_EQ(locator.LineOf("also"), 0);
}

// nlohmann::json ends a line comment at a carriage return as well; the locator must agree, or
// the keys after it are not found and an error about them has no line.
TEST(JsonLocatorTest, ALineCommentEndsAtACarriageReturnAsTheParserSays) {
  const JsonLocator locator("// a comment\r{\n  \"rules\": []\n}\n");
  EXPECT_EQ(locator.LineOf("rules"), 2);
}

TEST(JsonLocatorTest, SurvivesMalformedText) {
  for (const char* text : {"", "{", "{\"a\":", "[[[[", "{\"a\" 1}", "\"unterminated"}) {
    const JsonLocator locator(text);
    EXPECT_EQ(locator.LineOf("zzz"), 0);
  }
}

}  // namespace
}  // namespace edgemond
