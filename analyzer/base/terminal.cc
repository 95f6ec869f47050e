#include "base/terminal.h"

#include <langinfo.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <clocale>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace megatriage {
namespace {

// `utf-8`, `UTF8`, `utf8` all name it.
bool names_utf8(std::string_view s) {
  std::string lower;
  for (char c : s)
    if (c != '-' && c != '_') lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("utf8") != std::string::npos;
}

}  // namespace

std::optional<std::size_t> terminal_columns(int fd) {
  if (!isatty(fd)) return std::nullopt;
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return std::nullopt;
  return ws.ws_col;
}

std::size_t report_columns(int fd, std::size_t fallback) {
  if (std::optional<std::size_t> cols = terminal_columns(fd)) return *cols;
  if (const char* env = std::getenv("COLUMNS")) {
    std::size_t cols = 0;
    const char* end = env + std::strlen(env);
    auto [p, ec] = std::from_chars(env, end, cols);
    if (ec == std::errc() && p == end && cols > 0) return cols;
  }
  return fallback;
}

bool locale_is_utf8() {
  // The process runs in the "C" locale until asked otherwise; ask for the user's LC_CTYPE only,
  // read its code set, and put the C locale back so that nothing else (number formatting in
  // snprintf) changes under the rest of the program.
  const char* previous = std::setlocale(LC_CTYPE, nullptr);
  std::string saved = previous ? previous : "C";
  bool utf8 = false;
  if (std::setlocale(LC_CTYPE, "") != nullptr) {
    const char* codeset = nl_langinfo(CODESET);
    utf8 = codeset != nullptr && names_utf8(codeset);
  } else {
    // A locale the system does not have (not generated): judge by the variables' names, in
    // the order setlocale reads them.
    for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
      const char* v = std::getenv(name);
      if (v != nullptr && *v != '\0') {
        utf8 = names_utf8(v);
        break;
      }
    }
  }
  std::setlocale(LC_CTYPE, saved.c_str());
  return utf8;
}

}  // namespace megatriage
