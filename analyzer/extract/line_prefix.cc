#include "extract/line_prefix.h"

#include <cstddef>

namespace megatriage {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Reads 1..max_digits decimal digits at `s[i]`, advancing `i`. Caps keep the value inside int.
bool read_number(std::string_view s, std::size_t& i, std::size_t max_digits, int& out) {
  std::size_t start = i;
  int value = 0;
  while (i < s.size() && is_digit(s[i])) {
    if (i - start == max_digits) return false;
    value = value * 10 + (s[i] - '0');
    ++i;
  }
  if (i == start) return false;
  out = value;
  return true;
}

// srun --label: `3: `, ` 3: ` (right-aligned to the widest task id), `P0  3: ` (heterogeneous
// job component 0). Only spaces and digits may come before the `: `, the id has at most 6
// digits and the colon must be followed by a space, so `12:00:00` and `2024-05-01` stay intact.
bool peel_srun_label(std::string_view& s, int& task) {
  std::size_t i = 0;
  if (s.size() > 1 && s[0] == 'P' && is_digit(s[1])) {
    int component = 0;
    i = 1;
    if (!read_number(s, i, 3, component)) return false;
    if (i >= s.size() || s[i] != ' ') return false;  // `P0` needs the padded task id after it
  }
  std::size_t spaces = 0;
  while (i < s.size() && s[i] == ' ') {
    if (++spaces > 6) return false;
    ++i;
  }
  int id = 0;
  if (!read_number(s, i, 6, id)) return false;
  if (i + 1 >= s.size() || s[i] != ':' || s[i + 1] != ' ') return false;
  task = id;
  s.remove_prefix(i + 2);
  return true;
}

// PyTorch `[rank12]:` (C++ lines, glued to the c10 header) or `[rank12]: ` (excepthook; exactly
// one space goes so a traceback's `  File` indentation is preserved).
bool peel_rank(std::string_view& s, int& rank) {
  constexpr std::string_view kOpen = "[rank";
  if (s.size() < kOpen.size() + 3 || s.substr(0, kOpen.size()) != kOpen) return false;
  std::size_t i = kOpen.size();
  int n = 0;
  if (!read_number(s, i, 7, n)) return false;
  if (i + 1 >= s.size() || s[i] != ']' || s[i + 1] != ':') return false;
  i += 2;
  if (i < s.size() && s[i] == ' ') ++i;
  rank = n;
  s.remove_prefix(i);
  return true;
}

// torchrun tee `[<role><local_rank>]:`. The role must start with a letter and hold no spaces:
// that rules out timestamps `[2024-05-01 ...]`, c10 headers `[W501 12:...]`, the
// ChildFailedError index `[0]:` and the 2.2+ `[${rank}]:` template (a global rank we cannot
// tell from an index). `[rankN]:` is PyTorch's own prefix, not a role named `rank`.
bool peel_tee(std::string_view& s, std::string_view& role, int& local_rank) {
  constexpr std::size_t kMaxInside = 64;
  if (s.size() < 4 || s[0] != '[' || !is_alpha(s[1])) return false;
  std::size_t close = 1;
  while (close < s.size() && s[close] != ']') {
    char c = s[close];
    if (!(is_alpha(c) || is_digit(c) || c == '_' || c == '-' || c == '.' || c == ':')) return false;
    if (close > kMaxInside) return false;
    ++close;
  }
  if (close + 1 >= s.size() || s[close + 1] != ':') return false;
  std::size_t digits_start = close;
  while (digits_start > 1 && is_digit(s[digits_start - 1])) --digits_start;
  if (digits_start == close || close - digits_start > 6) return false;
  std::string_view r = s.substr(1, digits_start - 1);
  if (r == "rank") return false;
  std::size_t i = digits_start;
  int n = 0;
  if (!read_number(s, i, 6, n)) return false;
  role = r;
  local_rank = n;
  s.remove_prefix(close + 2);
  return true;
}

// NCCL `[<stamp>] <host>:<pid>:<tid> [<cudaDev>] ` followed somewhere by `NCCL ` (INFO, WARN,
// TRACE, `file.cc:484 (func) NCCL WARN`). Requiring the literal after the header keeps
// `host:1:2 [3]`-looking text elsewhere from being attributed.
void read_nccl_header(std::string_view s, LinePrefix& p) {
  constexpr std::size_t kMaxStamp = 48;  // `[%F %T] ` plus up to 9 fraction digits, some slack
  constexpr std::size_t kMaxHost = 255;
  std::size_t i = 0;
  if (!s.empty() && s[0] == '[') {
    std::size_t close = s.find(']');
    if (close == std::string_view::npos || close > kMaxStamp) return;
    if (close + 1 >= s.size() || s[close + 1] != ' ') return;
    i = close + 2;
  }
  std::size_t host_start = i;
  while (i < s.size() && s[i] != ':') {
    char c = s[i];
    if (c == ' ' || c == '[' || c == ']' || c == '"' || c == '\t') return;
    if (i - host_start >= kMaxHost) return;
    ++i;
  }
  if (i == host_start || i >= s.size()) return;
  std::string_view host = s.substr(host_start, i - host_start);
  ++i;
  int pid = 0, tid = 0, dev = 0;
  if (!read_number(s, i, 9, pid)) return;
  if (i >= s.size() || s[i] != ':') return;
  ++i;
  // Thread ids are kernel tids (small); 9 digits is plenty and keeps the int from overflowing.
  if (!read_number(s, i, 9, tid)) return;
  if (i + 1 >= s.size() || s[i] != ' ' || s[i + 1] != '[') return;
  i += 2;
  if (!read_number(s, i, 4, dev)) return;
  if (i + 1 >= s.size() || s[i] != ']' || s[i + 1] != ' ') return;
  i += 2;
  if (s.substr(i).find("NCCL ") == std::string_view::npos) return;
  p.nccl_host = host;
  p.nccl_pid = pid;
  p.nccl_device = dev;
}

// The launcher's prefixes, outermost first: what parse_prefix() and prefix_body() share.
void peel_launcher_prefixes(std::string_view& s, LinePrefix& p) {
  if (!s.empty() && (s[0] == ' ' || s[0] == 'P' || is_digit(s[0]))) peel_srun_label(s, p.srun_task);
  if (!s.empty() && s[0] == '[') {
    if (!peel_rank(s, p.rank)) {
      if (peel_tee(s, p.tee_role, p.tee_local_rank)) peel_rank(s, p.rank);
    }
  }
}

}  // namespace

std::string_view prefix_body(std::string_view line) {
  LinePrefix p;
  peel_launcher_prefixes(line, p);
  return line;
}

LinePrefix parse_prefix(std::string_view line) {
  LinePrefix p;
  std::string_view s = line;
  peel_launcher_prefixes(s, p);
  p.body = s;
  // Host names start with a letter or digit; `[` covers the NCCL >= 2.26 timestamp. Anything
  // else (spaces, quotes, `>`) cannot be an NCCL header, so skip the scan.
  if (!s.empty() && (s[0] == '[' || is_alpha(s[0]) || is_digit(s[0]))) read_nccl_header(s, p);
  return p;
}

std::string to_debug_string(const LinePrefix& p) {
  std::string out;
  auto sep = [&out] {
    if (!out.empty()) out += ' ';
  };
  if (p.srun_task >= 0) {
    sep();
    out += "task=" + std::to_string(p.srun_task);
  }
  if (p.tee_local_rank >= 0) {
    sep();
    out += "tee=";
    out += p.tee_role;
    out += '/' + std::to_string(p.tee_local_rank);
  }
  if (p.rank >= 0) {
    sep();
    out += "rank=" + std::to_string(p.rank);
  }
  if (p.nccl_pid >= 0) {
    sep();
    out += "nccl=";
    out += p.nccl_host;
    out += ':' + std::to_string(p.nccl_pid) + "/[" + std::to_string(p.nccl_device) + ']';
  }
  sep();
  out += "body=\"";
  out += p.body;
  out += '"';
  return out;
}

}  // namespace megatriage
