#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "render/html_escape.h"

using namespace megatriage;

TEST_SUITE("html_escape") {
TEST_CASE("html_escape: markup in log text becomes character references") {
  CHECK(html_text("<script>alert('x')</script>") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  CHECK(html_text("a & b \"c\"") == "a &amp; b &quot;c&quot;");
  CHECK(html_text("&lt;") == "&amp;lt;");  // an entity in a log is shown as written, not decoded
  CHECK(html_text("plain text, ünïcode") == "plain text, ünïcode");
}

TEST_CASE("html_escape: text is made printable first (escapes removed, bad bytes replaced)") {
  CHECK(html_text("\x1b[31mred\x1b[0m") == "red");
  CHECK(html_text("bad \xff byte") == "bad \xef\xbf\xbd byte");
  CHECK(html_text("nul\x01") == "nul\\x01");
}

TEST_CASE("html_escape: JSON in a script element has no '<' left, and the same value") {
  const std::string json = R"({"a":"</script><script>x()</script>","b":"<!-- c"})";
  const std::string safe = json_for_script(json);
  CHECK(safe.find('<') == std::string::npos);
  CHECK(nlohmann::json::parse(safe) == nlohmann::json::parse(json));
}

TEST_CASE("html_escape: a JSON string literal parses back to the printable text") {
  for (std::string s : {std::string("plain"), std::string("</script>\"quoted\" back\\slash\ttab"),
                        std::string("ctl \x02 and \xff"), std::string("")}) {
    const std::string lit = json_string(s);
    CHECK(lit.find('<') == std::string::npos);
    nlohmann::json back;
    REQUIRE_NOTHROW(back = nlohmann::json::parse(lit));
    CHECK(back.get<std::string>() == (s == "ctl \x02 and \xff" ? "ctl \\x02 and \xef\xbf\xbd" : s));
  }
}
}
