#include "extract/traceback.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "extract/timestamp.h"
#include "extract/wrapped_exception.h"

namespace megatriage {
namespace {

constexpr std::string_view kHeader = "Traceback (most recent call last):";
constexpr std::string_view kGroupHeader = "Exception Group Traceback (most recent call last):";
constexpr std::string_view kDirectCause =
    "The above exception was the direct cause of the following exception:";
constexpr std::string_view kDuringHandling =
    "During handling of the above exception, another exception occurred:";
constexpr std::size_t kKeepHeadFrames = 16;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string capped(std::string_view s, std::size_t max_bytes) {
  return std::string(s.substr(0, max_bytes));
}

bool is_caret_line(std::string_view body) {
  std::string_view t = trim(body);
  if (t.empty()) return false;
  for (char c : t)
    if (c != '^' && c != '~') return false;
  return true;
}

// Python's basicConfig format `LEVEL:logger:message` (torchelastic ≤2.1, Megatron's logger).
bool is_level_logger_line(std::string_view body) {
  std::size_t i = 0;
  while (i < body.size() && std::isupper(static_cast<unsigned char>(body[i]))) ++i;
  return i >= 4 && i < body.size() && body[i] == ':' && i + 1 < body.size() && body[i + 1] != ' ';
}

// A header a message prints as text: `Traceback (most recent call last): (RANK 0)`, or one word
// before it (`Original Traceback (most recent call last):`). Not the header itself, and not a
// log line that quotes one after its own head.
bool is_embedded_header(std::string_view t) {
  if (t == kHeader) return false;
  if (starts_with(t, kHeader)) return true;
  if (t.size() <= kHeader.size() || t.substr(t.size() - kHeader.size()) != kHeader) return false;
  std::string_view word = t.substr(0, t.size() - kHeader.size());
  if (word.size() < 2 || word.back() != ' ') return false;
  word.remove_suffix(1);
  for (char c : word)
    if (std::isalpha(static_cast<unsigned char>(c)) == 0) return false;
  return true;
}

bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A lone exception line takes this many continuation lines at most: a message wrapped by the
// terminal or the paste, not the log that follows it.
constexpr std::size_t kLoneTailLines = 4;

// A line that begins something of its own: an exception line or a frame.
bool starts_something(std::string_view body);

}  // namespace

namespace {

// A frame line's parts, as views of the line.
struct FrameLine {
  std::string_view path;
  int line = 0;
  std::string_view function;  // empty when the line names none
};

bool parse_frame_parts(std::string_view body, FrameLine& frame) {
  constexpr std::string_view kFile = "File \"";
  std::size_t at = body.find(kFile);
  if (at == std::string_view::npos) return false;
  // What may stand before `File "`: indentation; loguru's `> ` for the frame where the error was
  // caught (its default `backtrace` format); and in interleaved or mangled output a caret run or
  // a `[Previous line repeated N more times]` that lost its line end.
  std::string_view head = trim(body.substr(0, at));
  if (starts_with(head, "[Previous line repeated") && ends_with(head, "]")) head = {};
  if (head == ">") head = {};
  for (char c : head)
    if (c != '^' && c != '~' && c != ' ' && c != '\t') return false;
  std::string_view s = body.substr(at + kFile.size());
  auto quote = s.find("\", line ");
  if (quote == std::string_view::npos) return false;
  frame.path = s.substr(0, quote);
  s.remove_prefix(quote + 8);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), frame.line);
  if (ec != std::errc()) return false;
  s.remove_prefix(static_cast<std::size_t>(ptr - s.data()));
  // `, in func`; faulthandler prints ` in func`; the SyntaxError form has neither.
  frame.function = {};
  if (starts_with(s, ", in ")) frame.function = trim(s.substr(5));
  else if (starts_with(s, " in ")) frame.function = trim(s.substr(4));
  return true;
}

// IPython's (Jupyter's) traceback, which names the exception first and shows each frame's lines
// around the failing one:
//   ---------------------------------------------------------------------------
//   OutOfMemoryError                          Traceback (most recent call last)
//   Cell In[7], line 3
//         2 batch = next(iter(loader))
//   ----> 3 out = model(batch)
//
//   File ~/work/gpt.py:88, in GPT.forward(self, idx)
//   ---> 88     x = block(x)
//
//   OutOfMemoryError: CUDA out of memory. ...
// (IPython 7 writes a frame as `/path/module.py in forward(self, idx)`, with no line number.)
constexpr std::string_view kNotebookHeader = "Traceback (most recent call last)";

// The header line: an exception's name, padded, then kNotebookHeader (no colon).
bool is_notebook_header(std::string_view t) {
  if (!ends_with(t, kNotebookHeader) || t.size() < kNotebookHeader.size() + 3) return false;
  std::string_view name = t.substr(0, t.size() - kNotebookHeader.size());
  if (name.substr(name.size() - 2) != "  ") return false;
  name = trim(name);
  if (name.empty() || !is_ident_start(name.front())) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
  return true;
}

// A frame line of a notebook traceback: `Cell In[7], line 3` (`Cell In [7]` before IPython
// 8.6), `File <path>:<line>[, in <function>(<arguments>)]`, or IPython 7's
// `<path> in <function>(<arguments>)`.
bool parse_notebook_frame(std::string_view body, FrameLine& frame) {
  frame = FrameLine{};
  if (body.empty()) return false;
  if (starts_with(body, "Cell In[") || starts_with(body, "Cell In [")) {  // IPython 8.5 has the blank
    const std::size_t comma = body.find("], line ");
    if (comma == std::string_view::npos) return false;
    frame.path = body.substr(0, comma + 1);
    std::string_view n = body.substr(comma + 8);
    return std::from_chars(n.data(), n.data() + n.size(), frame.line).ec == std::errc();
  }
  std::string_view where = body;
  if (starts_with(body, "File ")) {
    where = body.substr(5);
    const std::size_t in = where.find(", in ");
    if (in != std::string_view::npos) {
      frame.function = where.substr(in + 5, where.find('(', in) - (in + 5));
      where = where.substr(0, in);
    }
    const std::size_t colon = where.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    std::string_view n = where.substr(colon + 1);
    auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), frame.line);
    if (ec != std::errc() || end != n.data() + n.size()) return false;
    frame.path = where.substr(0, colon);
    return frame.path.find(' ') == std::string_view::npos;
  }
  if (body.front() != '/' && body.front() != '<' && body.front() != '~') return false;
  const std::size_t in = body.find(" in ");
  if (in == std::string_view::npos || body.substr(0, in).find(' ') != std::string_view::npos) return false;
  frame.path = body.substr(0, in);
  frame.function = body.substr(in + 4, body.find('(', in) - (in + 4));
  return true;
}

// A notebook frame's line marked as the one running (`----> 3 out = model(batch)`, `-> 1736
// return ...`): its source text, else empty.
std::string_view notebook_current_line(std::string_view body) {
  std::size_t i = 0;
  while (i < body.size() && body[i] == '-') ++i;
  if (i == 0 || i >= body.size() || body[i] != '>') return {};
  ++i;
  while (i < body.size() && body[i] == ' ') ++i;
  while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) ++i;
  return trim(body.substr(i));
}

// rich's traceback (`rich.traceback.install()`, `Console.print_exception()`): a box whose top
// border holds the header, each frame `path:line in function` (a long path wrapped alone onto
// its own line, ending in ':'), its numbered source lines with the failing one marked, and the
// exception line after the box:
//   ╭──────── Traceback (most recent call last) ────────╮
//   │ /ws/train.py:18 in train                           │
//   │                                                    │
//   │   17 │   │   if step == 3:                         │
//   │ ❱ 18 │   │   │   load_backend(backend_name)        │
//   ╰────────────────────────────────────────────────────╯
//   ModuleNotFoundError: No module named 'transformer_engine'
constexpr std::string_view kBoxTopLeft = "\u256d", kBoxTopRight = "\u256e", kBoxSide = "\u2502",
                           kBoxBottomLeft = "\u2570", kRichMarker = "\u2771";

bool is_rich_header(std::string_view t) {
  return starts_with(t, kBoxTopLeft) && ends_with(t, kBoxTopRight) &&
         t.find(kNotebookHeader) != std::string_view::npos;
}

// The text between a box line's side borders, trimmed; false when `t` is no box line.
bool rich_inner(std::string_view t, std::string_view& inner) {
  if (!starts_with(t, kBoxSide)) return false;
  t.remove_prefix(kBoxSide.size());
  if (ends_with(t, kBoxSide)) t.remove_suffix(kBoxSide.size());
  inner = trim(t);
  return true;
}

// `<path>:<line> in <function>` (rich's frame line); `<line> in <function>` when `path` is given
// (the rest of a frame whose path was wrapped alone onto the line before).
bool parse_rich_frame(std::string_view inner, std::string_view path, FrameLine& frame) {
  const std::size_t in = inner.find(" in ");
  if (in == std::string_view::npos) return false;
  std::string_view where = inner.substr(0, in);
  if (path.empty()) {
    const std::size_t colon = where.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    path = where.substr(0, colon);
    where.remove_prefix(colon + 1);
  }
  auto [end, ec] = std::from_chars(where.data(), where.data() + where.size(), frame.line);
  if (ec != std::errc() || end != where.data() + where.size()) return false;
  frame.path = path;
  frame.function = trim(inner.substr(in + 4));
  return true;
}

// The code of rich's marked source line (`❱ 18 │   │   load(x)`), its indent guides dropped.
std::string_view rich_marked_code(std::string_view inner) {
  inner.remove_prefix(kRichMarker.size());
  inner = trim(inner);
  std::size_t i = 0;
  while (i < inner.size() && std::isdigit(static_cast<unsigned char>(inner[i]))) ++i;
  inner.remove_prefix(i);
  for (;;) {
    inner = trim(inner);
    if (!starts_with(inner, kBoxSide)) return inner;
    inner.remove_prefix(kBoxSide.size());
  }
}

// Adds a frame line's parts to the block, each cut to the per-part cap.
void keep_frame(ExceptionBlock& block, const FrameLine& frame, std::size_t max_bytes) {
  block.frames.push_back(frame.path.substr(0, max_bytes), frame.line, frame.function.substr(0, max_bytes));
}

// Adds a frame to the block, under the frame cap: the outermost few and the innermost many are
// kept (the innermost frames say where); a cap below 4 * kKeepHeadFrames keeps a quarter as
// head, and 0 keeps no frame.
void add_frame(ExceptionBlock& block, const FrameLine& frame, const TracebackLimits& limits) {
  ++block.frames_seen;
  if (block.frames.size() >= limits.max_frames) {
    block.frames_truncated = true;
    std::size_t head = std::min(kKeepHeadFrames, limits.max_frames / 4);
    if (block.frames.size() > head) block.frames.erase(head);
  }
  if (limits.max_frames > 0) keep_frame(block, frame, limits.max_text_bytes);
}

}  // namespace

bool parse_frame_line(std::string_view body, Frame& frame, std::size_t max_bytes) {
  FrameLine parts;
  if (!parse_frame_parts(body, parts)) return false;
  frame.path = capped(parts.path, max_bytes);
  frame.line = parts.line;
  frame.function = capped(parts.function, max_bytes);
  return true;
}

ExceptionLineShape exception_line_shape(std::string_view s) {
  ExceptionLineShape r;
  std::size_t i = 0, last_start = 0;
  for (;;) {  // dotted identifiers
    if (i >= s.size() || !is_ident_start(s[i])) return r;
    last_start = i;
    while (i < s.size() && is_ident_char(s[i])) ++i;
    if (i + 1 < s.size() && s[i] == '.' && is_ident_start(s[i + 1])) {
      ++i;
      continue;
    }
    break;
  }
  std::string_view last = s.substr(last_start, i - last_start);
  if (i < s.size() && s[i] == '(') {  // `RayTaskError(ModuleNotFoundError)`: a name inside
    std::size_t close = s.find(')', i);
    if (close == std::string_view::npos || close == i + 1) return r;
    for (std::size_t k = i + 1; k < close; ++k)
      if (!is_ident_char(s[k]) && s[k] != '.') return r;
    i = close + 1;
  }
  r.name_end = i;
  if (i < s.size()) {
    if (s[i] != ':') return r;
    ++i;
    if (i < s.size() && s[i] != ' ' && s[i] != '\t') return r;  // `http://`, `WARNING:root:`
    r.colon = true;
    r.message = !trim(s.substr(i)).empty();
  }
  std::string_view bare = last;
  while (!bare.empty() && bare.front() == '_') bare.remove_prefix(1);
  if (bare.empty()) return r;
  const bool dotted = last_start > 0;
  r.warning = ends_with(bare, "Warning");
  r.error = (ends_with(bare, "Error") && (bare.size() > 5 || dotted)) || ends_with(bare, "Exception") ||
            ends_with(bare, "Failure");
  r.known = r.error || ends_with(bare, "Exit") || ends_with(bare, "Interrupt") ||
            ends_with(bare, "Iteration");
  // Other names only as `Name: message` with a class-like name (`socket.timeout: timed out`).
  bool class_like = std::isupper(static_cast<unsigned char>(bare.front())) || ends_with(bare, "error") ||
                    ends_with(bare, "timeout");
  r.exception = r.known || r.warning || (r.colon && class_like);
  return r;
}

namespace {
bool starts_something(std::string_view body) {
  FrameLine frame;
  return exception_line_shape(body).exception || parse_frame_parts(body, frame);
}
}  // namespace

bool is_lone_exception_line(std::string_view body) {
  ExceptionLineShape shape = exception_line_shape(body);
  if (!shape.error || shape.warning || !shape.colon) return false;
  // `Name: ` or `Name(Inner): ` with Inner an Error/Exception/Failure too: the lines the trigger
  // search's anchors find (kTracebackAnchors in extract.cc), and no others, so that the fast
  // path and reading every line agree.
  std::string_view upto = body.substr(0, shape.name_end + 2);
  if (upto.size() < shape.name_end + 2 || upto.back() != ' ') return false;
  for (std::string_view end : {"Error: ", "Exception: ", "Failure: ", "Error): ", "Exception): ", "Failure): "})
    if (ends_with(upto, end)) return true;
  return false;
}

std::string_view strip_group_margin(std::string_view body) {
  // Margins are runs of spaces and `|` / `+` characters, with `-` rules on separator lines.
  std::size_t i = 0;
  bool saw_margin = false;
  while (i < body.size()) {
    char c = body[i];
    if (c == ' ') {
      ++i;
    } else if ((c == '|' || c == '+') && (i + 1 >= body.size() || body[i + 1] == ' ' ||
                                          body[i + 1] == '-' || body[i + 1] == '+')) {
      saw_margin = true;
      ++i;
      if (i < body.size() && body[i] == ' ') ++i;
      // After the margin, Python keeps the block's own indentation: stop at the first text.
      if (i < body.size() && body[i] != '|' && body[i] != '+' && body[i] != '-') break;
    } else {
      break;
    }
  }
  if (!saw_margin) return body;
  return body.substr(i);
}

bool TracebackBuilder::is_header(std::string_view body) {
  std::string_view t = trim(body);
  if (t == kHeader) return true;
  if (is_notebook_header(t) || is_rich_header(t)) return true;
  if (!t.empty() && (t.front() == '+' || t.front() == '|')) t = trim(t.substr(1));
  return t == kGroupHeader || t == kHeader;
}

bool TracebackBuilder::looks_like_log_line(std::string_view body) const {
  if (body.empty()) return false;
  if (parse_timestamp(body)) return true;
  char c = body.front();
  // c10 headers without time (`[W ProcessGroupNCCL.cpp:1316]`), glog-like `E0925 17:40:00`.
  if (c == '[' && body.size() > 2 &&
      (body[1] == 'W' || body[1] == 'E' || body[1] == 'I' || body[1] == 'F') &&
      (body[2] == ' ' || std::isdigit(static_cast<unsigned char>(body[2]))))
    return true;
  if (is_level_logger_line(body)) return true;
  return starts_with(body, "srun: ") || starts_with(body, "slurmstepd") ||
         starts_with(body, "terminate called") || starts_with(body, "Exception raised from ") ||
         starts_with(body, "Fatal Python error") || body.find(" NCCL ") != std::string_view::npos;
}

void TracebackBuilder::start_block(std::uint64_t line_number, std::uint64_t offset) {
  ExceptionBlock block;
  block.header_line = line_number;
  current_.blocks.push_back(std::move(block));
  if (current_.first_line == 0) {
    current_.first_line = line_number;
    current_.first_offset = offset;
  }
  current_.last_line = line_number;
  state_ = State::Frames;
  message_lines_ = 0;
  after_frame_ = false;
  block_headerless_ = false;
  tail_left_ = static_cast<std::size_t>(-1);
}

void TracebackBuilder::complete() {
  if (state_ == State::Idle) return;
  if (!current_.blocks.empty() && current_.blocks.back().exception.empty()) {
    current_.incomplete = true;
  }
  // Frames without a header and without an exception line are no evidence of anything (a
  // faulthandler dump, print_stack(), an excerpt cut above its exception): not a traceback.
  bool drop = current_.headerless && current_.blocks.size() == 1 && current_.incomplete;
  if (!drop) {
    for (ExceptionBlock& b : current_.blocks) b.frames.shrink_to_fit();  // kept until the report
    ready_.push_back(std::move(current_));
  }
  current_ = Traceback{};
  state_ = State::Idle;
  block_headerless_ = false;
  drawing_ = Drawing::CPython;
  wrapped_path_.clear();
  tail_left_ = static_cast<std::size_t>(-1);
}

void TracebackBuilder::set_exception(ExceptionBlock& block, std::string_view body,
                                     std::uint64_t line_number, std::uint64_t offset) {
  block.exception = capped(trim(body), limits_.max_text_bytes);
  if (trim(body).size() > limits_.max_text_bytes) block.message_truncated = true;
  block.exception_line = line_number;
  block.exception_offset = offset;
  state_ = State::Message;
  after_frame_ = false;
}

void TracebackBuilder::start_headerless(std::string_view body, std::uint64_t line_number,
                                        std::uint64_t offset) {
  FrameLine frame;
  if (parse_frame_parts(body, frame)) {
    start_block(line_number, offset);
    current_.headerless = true;
    block_headerless_ = true;
    ExceptionBlock& block = current_.blocks.back();
    block.frames_seen = 1;
    if (limits_.max_frames > 0) keep_frame(block, frame, limits_.max_text_bytes);
    after_frame_ = true;
    return;
  }
  if (!is_lone_exception_line(body)) return;
  start_block(line_number, offset);
  current_.headerless = true;
  set_exception(current_.blocks.back(), body, line_number, offset);
  tail_left_ = kLoneTailLines;
}

bool TracebackBuilder::feed(std::string_view raw_body, std::uint64_t line_number,
                            std::uint64_t offset) {
  std::size_t ready_before = ready_.size();
  std::string_view body = raw_body;
  if (current_.exception_group) body = strip_group_margin(raw_body);

  // Two ways a message goes on that the states below do not expect (checked first, apart from
  // them): a chain separator right after the message, its blank line having gone elsewhere (an
  // unprefixed empty line in a file of prefixed ranks belongs to no rank's stream); and a line
  // ending with ':' after a blank line, a message announcing what follows
  // (ProcessRaisedException: `\n\n-- Process 0 terminated with the following error:`): it is
  // kept in the message, and a `Traceback` header next is the announced one (below), anything
  // else ends the traceback.
  if ((state_ == State::Message || state_ == State::AfterBlank) && !current_.exception_group) {
    std::string_view t = trim(body);
    // A traceback the message prints as text (`Original Traceback (most recent call last):` of
    // torch's ExceptionWrapper, `Traceback (most recent call last): (RANK 0)` of a
    // CheckpointException): the inner error, a block of this traceback, uncapped by the
    // message's limits.
    if (state_ == State::Message && is_embedded_header(t) && !looks_like_log_line(body)) {
      start_block(line_number, offset);
      current_.blocks.back().embedded = true;
      return false;
    }
    if (state_ == State::Message && (t == kDirectCause || t == kDuringHandling)) {
      current_.chain_kind = (t == kDirectCause) ? ChainKind::Cause : ChainKind::Context;
      state_ = State::ChainSeparator;
      current_.last_line = line_number;
      return false;
    }
    if (state_ == State::AfterBlank && !t.empty() && t.back() == ':' && t != kDirectCause &&
        t != kDuringHandling && !is_header(raw_body) && !looks_like_log_line(body) &&
        message_lines_ < limits_.max_message_lines) {
      ExceptionBlock& block = current_.blocks.back();
      ++message_lines_;
      if (!block.message_tail.empty()) block.message_tail += '\n';
      block.message_tail += capped(t, limits_.max_text_bytes);
      current_.last_line = line_number;
      return false;
    }
  }

  if (is_header(raw_body)) {
    bool group = trim(raw_body).find("Exception Group") != std::string_view::npos;
    // A message that announces what follows (`... the following error:`) carries the next
    // traceback inside it (a wrapper printing the real error): one traceback, the inner
    // exception a block of it.
    bool embedded = (state_ == State::Message || state_ == State::AfterBlank) &&
                    !current_.exception_group && announces_traceback(current_.blocks.back());
    if (state_ == State::ChainSeparator || embedded ||
        (current_.exception_group && state_ != State::Idle)) {
      start_block(line_number, offset);  // next block of the same chain / group member
      current_.blocks.back().embedded = embedded;
    } else {
      complete();
      start_block(line_number, offset);
      current_.exception_group = group;
    }
    const std::string_view header = trim(raw_body);
    drawing_ = is_notebook_header(header) ? Drawing::Notebook
               : is_rich_header(header)   ? Drawing::Rich
                                          : Drawing::CPython;
    return ready_.size() > ready_before;
  }
  // Set when this line ended the traceback without being part of it: it may start another.
  bool ended_by_line = false;
  if (state_ != State::Idle && current_.exception_group) {
    std::string_view t = trim(raw_body);
    if (body.size() == raw_body.size() && !t.empty()) {
      complete();  // the first line without a margin ends the group
      ended_by_line = true;
    } else if (t.substr(0, 2) == "+-") {  // member separator `+-+---- 1 ----` / `+---- 2 ----`
      state_ = State::Frames;
      current_.last_line = line_number;
      return false;
    }
  }

  switch (state_) {
    case State::Frames: {
      ExceptionBlock& block = current_.blocks.back();
      FrameLine frame;
      std::string_view t = trim(body);
      if (drawing_ == Drawing::Rich) {
        // Inside the box everything is a frame, its source or drawing; the exception line
        // follows the box's bottom border.
        if (starts_with(t, kBoxBottomLeft)) break;
        std::string_view inner;
        if (rich_inner(t, inner)) {
          if (starts_with(inner, kRichMarker)) {
            if (!block.frames.empty())
              block.frames.set_last_source(rich_marked_code(inner).substr(0, limits_.max_text_bytes));
          } else if (parse_rich_frame(inner, wrapped_path_, frame)) {
            add_frame(block, frame, limits_);
            wrapped_path_.clear();
          } else if (!inner.empty() && inner.back() == ':' && inner.find(' ') == std::string_view::npos) {
            wrapped_path_.assign(inner.substr(0, inner.size() - 1));
          }
          break;
        }
      }
      if (drawing_ == Drawing::Notebook && !t.empty()) {
        // Its frames' lines around the failing one are numbered and indented; the failing one
        // is marked with an arrow and is the frame's source.
        if (std::string_view current = notebook_current_line(t); !current.empty()) {
          if (!block.frames.empty()) block.frames.set_last_source(current.substr(0, limits_.max_text_bytes));
          break;
        }
        if (body.front() == ' ' || body.front() == '\t') break;
      }
      if (parse_frame_parts(body, frame) ||
          (drawing_ == Drawing::Notebook && parse_notebook_frame(body, frame))) {
        add_frame(block, frame, limits_);
        after_frame_ = true;
        break;
      }
      if (t.empty() || starts_with(t, "[Previous line repeated")) {
        // blank or recursion marker: nothing to keep
        if (t.empty()) after_frame_ = false;
        break;
      }
      if (is_caret_line(body)) break;
      const bool indented = body.front() == ' ' || body.front() == '\t';
      ExceptionLineShape shape = exception_line_shape(body);
      // Exception lines are never indented. A source line may have lost its indentation
      // (interleaved or mangled output): right after a frame, a line without the exception
      // shape is its source, whatever its indentation.
      bool is_exception = !indented && shape.exception;
      if (is_exception && shape.warning && block_headerless_) {
        // A Warning class is never failure evidence, and without a header nothing says the
        // frames were a traceback at all.
        complete();
        break;
      }
      if (!is_exception && (indented || after_frame_)) {
        if (!block.frames.empty() && block.frames.source(block.frames.size() - 1).empty())
          block.frames.set_last_source(t.substr(0, limits_.max_text_bytes));
        after_frame_ = false;
        break;
      }
      if (!is_exception && block_headerless_) {
        // Not a traceback after all (or one cut before its exception): drop it and look at
        // the line afresh.
        complete();
        ended_by_line = true;
        break;
      }
      ExceptionBlock* target = &block;
      if (!block.exception.empty()) {
        // A group member printed without its own traceback header (no frames).
        start_block(line_number, offset);
        target = &current_.blocks.back();
      }
      set_exception(*target, body, line_number, offset);
      break;
    }
    case State::Message: {
      ExceptionBlock& block = current_.blocks.back();
      if (tail_left_ == 0) {
        complete();  // a lone exception line's message has ended
        ended_by_line = true;
      } else if (trim(body).empty()) {
        state_ = State::AfterBlank;
      } else if (trim(body) == kDirectCause || trim(body) == kDuringHandling) {
        // A chain whose blank lines were lost (captured output, pastes).
        current_.chain_kind = (trim(body) == kDirectCause) ? ChainKind::Cause : ChainKind::Context;
        state_ = State::ChainSeparator;
      } else if (current_.exception_group) {
        std::string_view t = trim(body);
        if (message_lines_ < limits_.max_message_lines) {
          ++message_lines_;
          if (!block.message_tail.empty()) block.message_tail += '\n';
          block.message_tail += capped(t, limits_.max_text_bytes);
          if (t.size() > limits_.max_text_bytes) block.message_truncated = true;
        } else {
          block.message_truncated = true;
        }
      } else if (looks_like_log_line(body) ||
                 (tail_left_ != static_cast<std::size_t>(-1) && starts_something(body))) {
        complete();
        ended_by_line = true;
      } else if (message_lines_ < limits_.max_message_lines &&
                 block.message_tail.size() < limits_.max_text_bytes) {
        ++message_lines_;
        if (tail_left_ != static_cast<std::size_t>(-1)) --tail_left_;
        if (!block.message_tail.empty()) block.message_tail += '\n';
        if (block.message_tail.size() + body.size() > limits_.max_text_bytes) block.message_truncated = true;
        block.message_tail += capped(body, limits_.max_text_bytes - std::min(limits_.max_text_bytes, block.message_tail.size()));
      } else {
        block.message_truncated = true;
        ++message_lines_;
        if (message_lines_ > limits_.max_message_lines * 4) complete();  // a message that never ends
      }
      break;
    }
    case State::AfterBlank: {
      std::string_view t = trim(body);
      if (t == kDirectCause || t == kDuringHandling) {
        current_.chain_kind = (t == kDirectCause) ? ChainKind::Cause : ChainKind::Context;
        state_ = State::ChainSeparator;
      } else if (!t.empty()) {
        complete();
        ended_by_line = true;
      }
      break;
    }
    case State::ChainSeparator:
      if (drawing_ == Drawing::Notebook && trim(body).find_first_not_of('-') == std::string_view::npos)
        break;  // its rule
      if (!trim(body).empty()) {
        complete();
        ended_by_line = true;
      }
      break;
    case State::Idle:
      if (!ended_by_line) start_headerless(raw_body, line_number, offset);
      break;
  }
  // A line that ended a traceback without belonging to it may begin a headerless one (a lone
  // exception line right after another rank's traceback, the frames of a cut one).
  if (ended_by_line) start_headerless(raw_body, line_number, offset);
  if (state_ != State::Idle) current_.last_line = line_number;
  return ready_.size() > ready_before;
}

bool TracebackBuilder::finish() {
  complete();
  return !ready_.empty();
}

Traceback TracebackBuilder::take() {
  Traceback tb = std::move(ready_.front());
  ready_.erase(ready_.begin());
  return tb;
}

std::string to_debug_string(const Traceback& tb) {
  std::string out;
  for (const auto& b : tb.blocks) {
    if (!out.empty()) out += " | ";
    out += '@';  // appended, not `"@" + ...`: GCC 12 -O3 gives a false -Wrestrict on the latter
    out += std::to_string(b.header_line) + " frames=" + std::to_string(b.frames.size());
    if (!b.frames.empty())
      out += " last=" + b.frames.back().path + ":" + std::to_string(b.frames.back().line) + ":" +
             b.frames.back().function;
    out += " exc@" + std::to_string(b.exception_line) + "=\"" + b.exception + "\"";
    if (!b.message_tail.empty()) out += " +tail";
    if (b.embedded) out += " embedded";
  }
  if (tb.chain_kind != ChainKind::None) out += std::string(" chain=") + chain_kind_name(tb.chain_kind);
  if (tb.exception_group) out += " group";
  if (tb.incomplete) out += " incomplete";
  if (tb.headerless) out += " headerless";
  return out;
}

}  // namespace megatriage
