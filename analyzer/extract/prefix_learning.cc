#include "extract/prefix_learning.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/text_util.h"
#include "extract/timestamp.h"

namespace megatriage {
namespace {

constexpr std::string_view kHeader = "Traceback (most recent call last):";
constexpr std::string_view kGroup = "Exception Group ";
// Header shapes kept per file: each is tried on every line shown, so few. Real files carry one
// or two (a logging head, a progress bar); the cap only bounds adversarial input.
constexpr std::size_t kMaxHeaderShapes = 16;

// Longest text before a header taken as its prefix: a tqdm bar at 200 columns plus a logging head.
constexpr std::size_t kMaxResidual = 512;
// The head's lines looked at (4 KiB of log is 30 to 100 lines).
constexpr std::size_t kMaxHeadLines = 200;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_alpha(char c) { return is_lower(c) || is_upper(c); }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::size_t digits_at(std::string_view s, std::size_t i) {
  std::size_t j = i;
  while (j < s.size() && is_digit(s[j])) ++j;
  return j - i;
}

// A date (`2022-04-03`, `2024/01/01`) or a time of day (`18:44:26,615`, `00:00`) starting at
// `i`: the parts of a prefix that change from line to line of one writer. Returns its length.
std::size_t stamp_length(std::string_view s, std::size_t i) {
  std::size_t n = digits_at(s, i);
  if (n == 4 && i + 4 < s.size() && (s[i + 4] == '-' || s[i + 4] == '/')) {
    char sep = s[i + 4];
    std::size_t j = i + 5, m = digits_at(s, j);
    if (m >= 1 && m <= 2 && j + m < s.size() && s[j + m] == sep) {
      j += m + 1;
      std::size_t d = digits_at(s, j);
      if (d >= 1 && d <= 2) return j + d - i;
    }
    return 0;
  }
  if (n >= 1 && n <= 2 && i + n < s.size() && s[i + n] == ':' && digits_at(s, i + n + 1) == 2) {
    std::size_t j = i + n + 3;
    if (j < s.size() && s[j] == ':' && digits_at(s, j + 1) == 2) j += 3;
    if (j < s.size() && (s[j] == '.' || s[j] == ',') && digits_at(s, j + 1) > 0) j += 1 + digits_at(s, j + 1);
    return j - i;
  }
  return 0;
}

// Whether the number at `i` names its writer: glued to a name (`node7`, `gpu-worker-1`,
// `pid=84989`, `10.0.0.1` after `ip=`), a rank (`rank:  3`), or bracketed right after a name
// (syslog's program and process id, `python3[2301234]: `: each process its own writer).
// Numbers standing alone after a blank or a bracket (`Step 1234 | `, `[80746]`, `file.py:12`)
// count lines, steps or bytes.
bool names_writer(std::string_view s, std::size_t i, bool previous_named) {
  if (i == 0) return false;
  char c = s[i - 1];
  if (is_alpha(c) || c == '=') return true;
  if (c == '[' && i >= 2 && (is_alpha(s[i - 2]) || is_digit(s[i - 2]))) return true;
  if ((c == '-' || c == '_' || c == '.') && i >= 2) {
    char b = s[i - 2];
    return is_alpha(b) || (is_digit(b) && previous_named);
  }
  // `rank:  3`, `Rank 3`, `RANK=3`: the word, one separator, blanks.
  std::size_t j = i;
  while (j > 0 && s[j - 1] == ' ') --j;
  if (j > 0 && (s[j - 1] == ':' || s[j - 1] == '#')) --j;
  if (j < 4) return false;
  std::string_view w = s.substr(j - 4, 4);
  bool rank = (w[0] | 0x20) == 'r' && (w[1] | 0x20) == 'a' && (w[2] | 0x20) == 'n' && (w[3] | 0x20) == 'k';
  return rank && (j == 4 || !is_alpha(s[j - 5]));
}

// Feeds `out` the prefix with its varying parts masked (`#`): dates, times and numbers that do
// not name the writer (names_writer). Space runs fold to one space (right-aligned numbers
// change their padding).
template <class Out>
void mask(std::string_view s, Out&& out) {
  std::size_t i = 0;
  bool previous_named = false;
  while (i < s.size()) {
    char c = s[i];
    if (is_digit(c)) {
      std::size_t k = stamp_length(s, i);
      std::size_t d = digits_at(s, i);
      if (k == 0 && names_writer(s, i, previous_named)) {
        previous_named = true;
        for (std::size_t e = i + d; i < e; ++i) out(s[i]);
        continue;
      }
      previous_named = false;
      out('#');
      i += k > 0 ? k : d;
      continue;
    }
    if (is_blank(c)) {
      while (i < s.size() && is_blank(s[i])) ++i;
      out(' ');
      continue;
    }
    out(c);
    ++i;
  }
}

std::uint64_t writer_of(std::string_view prefix_text, bool exact = false) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  auto fold = [&h](char c) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  };
  if (exact) {
    for (char c : prefix_text) fold(c);
  } else {
    mask(prefix_text, fold);
  }
  return h == 0 ? 1 : h;
}

// Open MPI's (and Horovod's) `--tag-output`: `[<job>,<rank>]<stdout>:` or `<stderr>:`, the
// line's own text right after the colon (its indentation included).
std::size_t mpi_length(std::string_view s) {
  if (s.size() < 14 || s[0] != '[') return 0;
  std::size_t i = 1, d = digits_at(s, i);
  if (d == 0 || d > 10 || i + d >= s.size() || s[i + d] != ',') return 0;
  i += d + 1;
  d = digits_at(s, i);
  if (d == 0 || d > 7 || i + d >= s.size() || s[i + d] != ']') return 0;
  i += d + 1;
  std::string_view rest = s.substr(i);
  if (rest.substr(0, 9) == "<stdout>:" || rest.substr(0, 9) == "<stderr>:") return i + 9;
  return 0;
}

// Ray: `(` name and fields `)` then a space (or the end of an empty line).
std::size_t ray_length(std::string_view s) {
  constexpr std::size_t kMaxInside = 160;
  if (s.size() < 3 || s[0] != '(' || !is_alpha(s[1])) return 0;
  std::size_t i = 1;
  for (; i < s.size() && s[i] != ')'; ++i) {
    char c = s[i];
    if (i > kMaxInside) return 0;
    if (!(is_alnum(c) || c == ' ' || c == '=' || c == ',' || c == '.' || c == ':' || c == '_' ||
          c == '-' || c == '+' || c == '/'))
      return 0;
  }
  if (i >= s.size()) return 0;
  if (i + 1 == s.size()) return i + 1;
  return s[i + 1] == ' ' ? i + 2 : 0;
}

// The host name of `name: ` at the start of `s` (its length; 0 when `s` has none). A name
// looks like a host: letters, digits, `-` and `.`, at least one letter and one digit, `-` or
// `.` (`localhost` aside). Not exception names (`RuntimeError`, `torch.OutOfMemoryError`: a
// lowercase letter followed by an uppercase one), all-caps levels (`INFO`), words (`srun`,
// `error`), interpreters (`python3`) or script names (`train.py: error: ...` from argparse).
std::size_t host_name_length(std::string_view s) {
  constexpr std::size_t kMaxHost = 253;
  std::size_t i = 0, last_dot = std::string_view::npos;
  bool letter = false, mark = false, camel = false;
  while (i < s.size() && (is_alnum(s[i]) || s[i] == '-' || s[i] == '.')) {
    if (i > kMaxHost) return 0;
    char c = s[i];
    letter = letter || is_alpha(c);
    mark = mark || is_digit(c) || c == '-' || c == '.';
    if (c == '.') last_dot = i;
    if (i > 0 && is_upper(c) && is_lower(s[i - 1])) camel = true;
    ++i;
  }
  if (i == 0 || !is_alnum(s[0]) || !is_alnum(s[i - 1]) || !letter || camel) return 0;
  if (i >= s.size() || s[i] != ':') return 0;
  if (i + 1 < s.size() && s[i + 1] != ' ') return 0;
  std::string_view name = s.substr(0, i);
  if (!mark && name != "localhost") return 0;
  if (name[0] == 'p' && name.substr(0, 6) == "python") return 0;
  if (last_dot != std::string_view::npos) {
    std::string_view ext = name.substr(last_dot);
    for (std::string_view e : {".py", ".sh", ".so", ".cc", ".cpp", ".cu", ".c", ".h", ".log", ".txt",
                               ".json", ".yaml", ".yml", ".ipynb"})
      if (ext == e) return 0;
  }
  return i;
}

std::size_t host_length(std::string_view s) {
  std::size_t n = host_name_length(s);
  if (n == 0) return 0;
  return n + 1 < s.size() ? n + 2 : n + 1;  // `: ` or a bare `:` ending the line
}

// `[80746] `
std::size_t counter_length(std::string_view s) {
  if (s.size() < 4 || s[0] != '[') return 0;
  std::size_t d = digits_at(s, 1);
  if (d == 0 || d > 10 || 1 + d + 1 >= s.size() || s[1 + d] != ']' || s[2 + d] != ' ') return 0;
  return d + 3;
}

// ` 13 `, `13 | `, `13| `, `13\t`: right- or left-aligned numbers and a gutter.
std::size_t editor_length(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ' && i < 6) ++i;
  std::size_t d = digits_at(s, i);
  if (d == 0 || d > 6) return 0;
  i += d;
  if (i >= s.size()) return 0;
  if (s[i] == '\t') return i + 1;
  if (s.substr(i, 3) == " | " || s.substr(i, 3) == " |") return std::min(s.size(), i + 3);
  if (s.substr(i, 2) == "| ") return i + 2;
  if (s[i] == '|' && i + 1 == s.size()) return i + 1;
  if (s[i] == ' ') return i + 1;
  return 0;
}

int editor_number(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  int n = 0;
  for (; i < s.size() && is_digit(s[i]); ++i) n = n * 10 + (s[i] - '0');
  return n;
}

constexpr PrefixKind kKinds[] = {PrefixKind::Ray, PrefixKind::Host, PrefixKind::Counter, PrefixKind::Editor,
                                 PrefixKind::Mpi};
constexpr std::size_t kKindCount = sizeof kKinds / sizeof kKinds[0];

// The kinds (bits: indexes into kKinds) whose shape may open with byte `c`: kind_length() is 0
// for the others, so a head's line is tried against one or two kinds, not all five.
unsigned kinds_opening_with(char c) {
  constexpr unsigned kRay = 1U << 0, kHost = 1U << 1, kCounter = 1U << 2, kEditor = 1U << 3, kMpi = 1U << 4;
  static_assert(kKindCount == 5, "kinds_opening_with() knows the five kinds of kKinds, in order");
  if (c == '(') return kRay;
  if (c == '[') return kCounter | kMpi;
  if (c == ' ') return kEditor;
  if (is_digit(c)) return kHost | kEditor;
  if (is_alpha(c)) return kHost;
  return 0;
}

const char* kind_name(PrefixKind k) {
  switch (k) {
    case PrefixKind::None: return "none";
    case PrefixKind::Ray: return "ray";
    case PrefixKind::Host: return "host";
    case PrefixKind::Counter: return "counter";
    case PrefixKind::Editor: return "editor";
    case PrefixKind::Header: return "header";
    case PrefixKind::Mpi: return "mpi";
  }
  return "?";
}

}  // namespace

std::size_t PrefixLearner::kind_length(PrefixKind kind, std::string_view body) {
  switch (kind) {
    case PrefixKind::Ray: return ray_length(body);
    case PrefixKind::Host: return host_length(body);
    case PrefixKind::Counter: return counter_length(body);
    case PrefixKind::Editor: return editor_length(body);
    case PrefixKind::Mpi: return mpi_length(body);
    case PrefixKind::None:
    case PrefixKind::Header: return 0;
  }
  return 0;
}

std::size_t PrefixLearner::shape_length(std::string_view prefix, std::string_view line) {
  std::size_t i = 0, j = 0;
  while (i < prefix.size()) {
    char c = prefix[i];
    if (is_digit(c)) {
      std::size_t d = digits_at(line, j);
      if (d == 0) return 0;
      i += digits_at(prefix, i);
      j += d;
      continue;
    }
    if (c == ' ') {
      std::size_t k = i;
      while (k < prefix.size() && prefix[k] == ' ') ++k;
      if (k < prefix.size() && is_digit(prefix[k])) {
        // Padding before a number (right-aligned ids, line numbers): any width, none included.
        while (j < line.size() && line[j] == ' ') ++j;
        i = k;
        continue;
      }
    }
    if (j >= line.size() || line[j] != c) return 0;
    ++i;
    ++j;
  }
  return j;
}

std::string PrefixLearner::identity(std::string_view prefix_text) {
  std::string out;
  mask(prefix_text, [&out](char c) { out += c; });
  return out;
}

std::size_t PrefixLearner::header_residual(std::string_view body) {
  std::size_t pos = body.find(kHeader);
  if (pos == std::string_view::npos || pos == 0) return 0;
  // Only a header line: nothing but blanks after it (prose that quotes it is not one).
  for (std::size_t k = pos + kHeader.size(); k < body.size(); ++k)
    if (!is_blank(body[k])) return 0;
  std::size_t start = pos;
  if (ends_with(body.substr(0, pos), kGroup)) start -= kGroup.size();
  for (std::size_t k = 0; k < start; ++k) {
    char c = body[k];
    if (!is_blank(c) && c != '+' && c != '|') return start;  // TracebackBuilder reads margins
  }
  return 0;
}

LearntPrefix PrefixLearner::match(std::string_view body) const {
  LearntPrefix m;
  if (body.empty()) return m;
  // A Ray tag or a host prefix ends in its closing `) ` / `: `, so a body that starts with the
  // exact text of one met lately has that prefix: its writer is known without parsing.
  for (const Recent& r : recent_)
    if (!r.text.empty() && body.size() >= r.text.size() && body.compare(0, r.text.size(), r.text) == 0) return r.match;
  for (PrefixKind k : kKinds) {
    if ((kinds_ & bit(k)) == 0) continue;
    std::size_t n = kind_length(k, body);
    if (n == 0) continue;
    m.length = n;
    m.kind = k;
    m.writer = writer_for(body.substr(0, n));
    // Only texts ending in their blank: a bare `node7:` ending an empty line is also the
    // start of NCCL's `node7:1234:5678 [0]` header.
    if ((k == PrefixKind::Ray || k == PrefixKind::Host || k == PrefixKind::Mpi) && (body[n - 1] == ' ' || k == PrefixKind::Mpi)) {
      Recent& r = recent_[next_recent_++ % recent_.size()];
      r.text.assign(body.substr(0, n));
      r.match = m;
    }
    return m;
  }
  for (const std::string& shape : header_shapes_) {
    std::size_t n = shape_length(shape, body);
    if (n == 0) continue;
    m.length = n;
    m.kind = PrefixKind::Header;
    m.writer = writer_for(body.substr(0, n));
    return m;
  }
  return m;
}

std::uint64_t PrefixLearner::peel(LinePrefix& p, std::vector<Layer>& layers) const {
  if (!any()) return 0;
  std::uint64_t writer = 0;
  std::uint8_t used = 0;
  // Two layers: `node7: (pid=5) ...` is a pdsh host in front of a Ray worker; deeper stacks
  // of unnamed prefixes were not seen in real logs.
  for (int layer = 0; layer < 2; ++layer) {
    LearntPrefix m = match(p.body);
    if (m.length == 0 || (used & bit(m.kind)) != 0) break;
    used |= bit(m.kind);
    writer = combine(writer, m.writer);
    layers.push_back({p.body.substr(0, m.length), writer});
    LinePrefix inner = parse_prefix(p.body.substr(m.length));
    if (p.srun_task < 0) p.srun_task = inner.srun_task;
    if (p.tee_local_rank < 0) {
      p.tee_local_rank = inner.tee_local_rank;
      p.tee_role = inner.tee_role;
    }
    if (p.rank < 0) p.rank = inner.rank;
    // The outer parse looked for an NCCL header with the learnt prefix still in front.
    p.nccl_host = inner.nccl_host;
    p.nccl_pid = inner.nccl_pid;
    p.nccl_device = inner.nccl_device;
    p.body = inner.body;
  }
  return writer;
}

LearntPrefix PrefixLearner::learn_header_prefix(std::string_view residual) {
  LearntPrefix m;
  if (residual.empty() || residual.size() > kMaxResidual) return m;
  std::string_view t = trim_spaces(residual);
  if (t.empty()) return m;
  // An indented label (torchelastic's error table: `  traceback : Traceback ...`) is a field
  // of something else; a prefix starts the line (line numbers aside, which hold no letter).
  if (is_blank(residual.front()) && std::any_of(t.begin(), t.end(), is_alpha)) return m;
  // Whatever stands before the header belongs to this line only unless later lines start the
  // same way. Kept as a shape for them only when it ends like a prefix — in a separator (`: `,
  // `] `, `) `, `| `, ` - `) or a number — or starts with a stamp, and is short: not a sentence
  // (Ray's `A worker died ... exit code None. Traceback ...`) or a word (`Original Traceback`).
  constexpr std::size_t kMaxShape = 200;
  constexpr std::string_view kEnds = ":])|->#*}";
  // A residual led by a stamp is a log head whatever it ends with (containerd's
  // `2024-01-01T10:00:00.123456789Z stderr F `).
  bool prefix_like = residual.size() <= kMaxShape && (is_digit(t.back()) || kEnds.find(t.back()) != std::string_view::npos ||
                                                      parse_timestamp(residual).has_value());
  if (prefix_like) {
    bool known = false;
    for (const std::string& shape : header_shapes_)
      if (shape_length(shape, residual) == residual.size()) known = true;
    if (!known && header_shapes_.size() < kMaxHeaderShapes) header_shapes_.emplace_back(residual);
  }
  m.length = residual.size();
  m.kind = PrefixKind::Header;
  m.writer = writer_for(residual);
  return m;
}

void PrefixLearner::learn_from_head(std::string_view head, bool whole) {
  if (!whole) {
    std::size_t last = head.rfind('\n');
    head = last == std::string_view::npos ? std::string_view() : head.substr(0, last);
  }
  struct Seen {
    std::size_t lines = 0;
    std::vector<std::string> writers;  // distinct identities
    std::size_t increasing = 0;
    int last_number = -1;
  };
  Seen seen[kKindCount];
  std::size_t lines = 0;
  std::string scratch;
  if (head.empty()) return;  // (its data() may be null, which memchr must not see)
  // Most heads hold neither: one look at the whole head spares one per line (every file of a
  // job of thousands of small rank files has its head read here).
  const bool has_cr = std::memchr(head.data(), '\r', head.size()) != nullptr;
  const bool has_escape = std::memchr(head.data(), '\x1b', head.size()) != nullptr;
  // Where each of the first kMaxHeadLines lines ends (the last one may lack its newline): the
  // early stop below needs their number before the first line is looked at.
  std::array<std::size_t, kMaxHeadLines> ends;
  std::size_t total = 0;
  for (std::size_t from = 0; from < head.size() && total < kMaxHeadLines; ++total) {
    const void* nl = std::memchr(head.data() + from, '\n', head.size() - from);
    ends[total] = nl == nullptr ? head.size() : static_cast<std::size_t>(static_cast<const char*>(nl) - head.data());
    from = ends[total] + 1;
  }
  // A kind is adopted only where it heads half the lines: once the lines left could not bring
  // any kind there, the rest of the head is not read (most files of a big job: NCCL lines).
  auto any_kind_possible = [&](std::size_t left) {
    for (const Seen& s : seen)
      if (2 * (s.lines + left) >= lines + left) return true;  // every line left of this kind
    return false;
  };
  for (std::size_t count = 0, at = 0; count < total; at = ends[count] + 1, ++count) {
    if (!any_kind_possible(total - count)) break;
    std::string_view line = head.substr(at, ends[count] - at);
    if (has_cr) {
      while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      std::size_t cr = line.rfind('\r');
      if (cr != std::string_view::npos) line.remove_prefix(cr + 1);
    }
    if (has_escape && line.find('\x1b') != std::string_view::npos) {
      strip_terminal_escapes(line, scratch);
      line = scratch;
    }
    const std::string_view body = prefix_body(line);
    if (trim_spaces(body).empty()) continue;
    ++lines;
    for (unsigned k = 0, possible = kinds_opening_with(body.front()); possible != 0; ++k, possible >>= 1) {
      if ((possible & 1U) == 0) continue;
      std::size_t n = kind_length(kKinds[k], body);
      if (n == 0) continue;
      Seen& s = seen[k];
      ++s.lines;
      if (kKinds[k] == PrefixKind::Editor) {
        int number = editor_number(body);
        if (number > s.last_number) ++s.increasing;
        s.last_number = number;
        continue;
      }
      const std::string_view id = body.substr(0, n);  // the exact text: how many values repeat
      if (std::find(s.writers.begin(), s.writers.end(), id) == s.writers.end()) s.writers.emplace_back(id);
    }
  }
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const Seen& s = seen[k];
    if (s.lines < 3 || 2 * s.lines < lines) continue;
    // Hosts, Ray workers and MPI ranks repeat (a few writers, many lines each); keys of a
    // config dump that happen to look like hosts do not. Line numbers count up. Bracketed
    // numbers that repeat are writers (MPICH's `-prepend-rank`), else counters.
    const bool few = 2 * s.writers.size() <= s.lines;
    if ((kKinds[k] == PrefixKind::Host || kKinds[k] == PrefixKind::Ray || kKinds[k] == PrefixKind::Mpi) && !few) continue;
    if (kKinds[k] == PrefixKind::Counter) counters_name_writers_ = few;
    if (kKinds[k] == PrefixKind::Editor && s.increasing + 1 < s.lines) continue;
    kinds_ |= bit(kKinds[k]);
  }
}

std::uint64_t PrefixLearner::writer_for(std::string_view text) const {
  bool exact = mpi_length(text) == text.size() ||
               (counters_name_writers_ && counter_length(text) == text.size());
  return writer_of(text, exact);
}

int PrefixLearner::rank_of(std::string_view s) {
  if (mpi_length(s) > 0) {  // `[<job>,<rank>]<stderr>:`
    std::size_t i = s.find(',') + 1;
    int n = 0;
    for (; is_digit(s[i]); ++i) n = n * 10 + (s[i] - '0');
    return n;
  }
  for (std::size_t i = 0; i + 4 < s.size(); ++i) {
    if ((s[i] | 0x20) != 'r' || (s[i + 1] | 0x20) != 'a' || (s[i + 2] | 0x20) != 'n' || (s[i + 3] | 0x20) != 'k')
      continue;
    if (i > 0 && (is_alpha(s[i - 1]) || s[i - 1] == '_')) continue;  // `local_rank`, `franks`
    std::size_t j = i + 4;
    if (j < s.size() && (s[j] == ':' || s[j] == '=' || s[j] == '#')) ++j;
    std::size_t spaces = 0;
    while (j < s.size() && s[j] == ' ' && spaces < 4) ++j, ++spaces;
    std::size_t d = digits_at(s, j);
    if (d == 0 || d > 7) continue;
    int n = 0;
    for (std::size_t e = j + d; j < e; ++j) n = n * 10 + (s[j] - '0');
    return n;
  }
  return -1;
}

// The host of a syslog head (`Nov 29 10:01:32 node012 python3[2301234]: `, RFC 3164 and
// journalctl): the word after the stamp, before the program. Empty when `s` is none.
std::string syslog_host(std::string_view s) {
  if (s.empty() || !is_upper(s[0]) || !parse_timestamp(s)) return {};
  // Month, day (maybe padded), time: three words, then the host.
  std::size_t i = 0;
  for (int word = 0; word < 3; ++word) {
    while (i < s.size() && s[i] != ' ') ++i;
    while (i < s.size() && s[i] == ' ') ++i;
  }
  std::size_t end = i;
  while (end < s.size() && (is_alnum(s[end]) || s[end] == '-' || s[end] == '.' || s[end] == '_')) ++end;
  if (end == i || end >= s.size() || s[end] != ' ') return {};
  return short_host(s.substr(i, end - i));
}

std::string PrefixLearner::host_of(std::string_view s) {
  if (std::size_t n = host_name_length(s); n > 0) return short_host(s.substr(0, n));
  if (std::string host = syslog_host(s); !host.empty()) return host;
  if (s.empty() || s[0] != '(') return {};
  std::size_t ip = s.find("ip=");
  if (ip == std::string_view::npos) return {};
  std::size_t j = ip + 3, e = j;
  while (e < s.size() && (is_digit(s[e]) || s[e] == '.')) ++e;
  return e > j ? std::string(s.substr(j, e - j)) : std::string();
}

std::optional<CivilTime> PrefixLearner::stamp_in(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!is_digit(s[i]) || (i > 0 && s[i - 1] != ' ' && s[i - 1] != '[' && s[i - 1] != '|')) continue;
    if (auto t = parse_timestamp(s.substr(i))) return t;
    i += digits_at(s, i);
  }
  return std::nullopt;
}

std::string to_debug_string(const LearntPrefix& m, std::string_view body) {
  if (m.length == 0) return "none";
  std::string out = "kind=";
  out += kind_name(m.kind);
  out += " len=" + std::to_string(m.length) + " text=\"";
  out += body.substr(0, m.length);
  out += '"';
  return out;
}

}  // namespace megatriage
