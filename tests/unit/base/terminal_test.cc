#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "base/terminal.h"

using namespace megatriage;

namespace {
// Sets an environment variable for one scope, and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};
}  // namespace

TEST_SUITE("terminal") {
TEST_CASE("terminal: the width follows $COLUMNS when not a terminal, else the fallback") {
  const int not_a_terminal = -1;
  {
    ScopedEnv columns("COLUMNS", "60");
    CHECK(report_columns(not_a_terminal, 100) == 60);
  }
  for (const char* bad : {"", "0", "abc", "-5", "80x"}) {
    ScopedEnv columns("COLUMNS", bad);
    CHECK(report_columns(not_a_terminal, 100) == 100);
  }
  ScopedEnv columns("COLUMNS", nullptr);
  CHECK(report_columns(not_a_terminal, 100) == 100);
  CHECK_FALSE(terminal_columns(not_a_terminal));
}

TEST_CASE("terminal: UTF-8 only when the locale says so (LC_ALL over LC_CTYPE over LANG)") {
  ScopedEnv ctype("LC_CTYPE", nullptr);
  {
    ScopedEnv all("LC_ALL", nullptr);
    ScopedEnv lang("LANG", "C");
    CHECK_FALSE(locale_is_utf8());
  }
  {
    ScopedEnv all("LC_ALL", "C.UTF-8");
    ScopedEnv lang("LANG", "C");
    CHECK(locale_is_utf8());
  }
  {
    ScopedEnv all("LC_ALL", "C");
    ScopedEnv lang("LANG", "C.UTF-8");
    CHECK_FALSE(locale_is_utf8());
  }
  {
    ScopedEnv all("LC_ALL", nullptr);
    ScopedEnv lang(("LANG"), nullptr);
    CHECK_FALSE(locale_is_utf8());  // the C locale
  }
}
}
