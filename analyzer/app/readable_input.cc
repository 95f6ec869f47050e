#include "app/readable_input.h"

namespace megatriage {

bool has_text(const FileResult& result) { return !result.unopened && !result.binary && result.bytes > 0; }

std::string nothing_readable_message(const std::vector<FileResult>& results) {
  std::string msg = "no readable log files under the given path(s)";
  std::size_t unopened = 0, binary = 0, own = 0, empty = 0;
  std::string first_unopened, first_binary, first_own, first_empty;
  auto count = [](std::size_t& n, std::string& first, const FileResult& r) {
    if (n++ == 0) first = r.file.display_path;
  };
  for (const FileResult& r : results) {
    if (r.unopened) count(unopened, first_unopened, r);
    else if (r.binary) count(binary, first_binary, r);
    else if (r.own_report) count(own, first_own, r);
    else count(empty, first_empty, r);
  }
  std::string found;
  auto say = [&found](std::size_t n, const char* what, const std::string& first) {
    if (n == 0) return;
    found += (found.empty() ? "" : "; ") + std::to_string(n) + " " + what + (n == 1 ? "" : "s") +
             " (" + first + (n == 1 ? "" : ", ...") + ")";
  };
  say(binary, "binary file", first_binary);
  say(own, "megatriage report", first_own);
  say(empty, "empty file", first_empty);
  say(unopened, "unreadable file", first_unopened);
  return found.empty() ? msg : msg + ": " + found;
}

}  // namespace megatriage
