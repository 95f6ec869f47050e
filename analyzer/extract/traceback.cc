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

// `  File "/ws/x.py", line 12, in forward` (the SyntaxError form has no `, in`).
bool parse_frame(std::string_view body, Frame& frame, std::size_t max_bytes) {
  std::string_view s = body;
  if (!starts_with(s, "  File \"")) return false;
  s.remove_prefix(8);
  auto quote = s.find("\", line ");
  if (quote == std::string_view::npos) return false;
  frame.path = capped(s.substr(0, quote), max_bytes);
  s.remove_prefix(quote + 8);
  int line = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), line);
  if (ec != std::errc()) return false;
  frame.line = line;
  s.remove_prefix(static_cast<std::size_t>(ptr - s.data()));
  if (starts_with(s, ", in ")) frame.function = capped(trim(s.substr(5)), max_bytes);
  return true;
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

}  // namespace

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
}

void TracebackBuilder::complete() {
  if (state_ == State::Idle) return;
  if (!current_.blocks.empty() && current_.blocks.back().exception.empty()) {
    current_.incomplete = true;
  }
  ready_.push_back(std::move(current_));
  current_ = Traceback{};
  state_ = State::Idle;
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
    return ready_.size() > ready_before;
  }
  if (state_ == State::Idle) return false;

  if (current_.exception_group) {
    std::string_view t = trim(raw_body);
    if (body.size() == raw_body.size() && !t.empty()) {
      complete();  // the first line without a margin ends the group
      return ready_.size() > ready_before;
    }
    if (t.substr(0, 2) == "+-") {  // member separator `+-+---- 1 ----` / `+---- 2 ----`
      state_ = State::Frames;
      current_.last_line = line_number;
      return false;
    }
  }

  ExceptionBlock& block = current_.blocks.back();
  switch (state_) {
    case State::Frames: {
      Frame frame;
      if (parse_frame(body, frame, limits_.max_text_bytes)) {
        ++block.frames_seen;
        if (block.frames.size() >= limits_.max_frames) {
          // Keep the outermost few and the innermost many: the innermost frames say where.
          // (A cap below 4 * kKeepHeadFrames keeps a quarter as head; 0 keeps no frame.)
          block.frames_truncated = true;
          std::size_t head = std::min(kKeepHeadFrames, limits_.max_frames / 4);
          if (block.frames.size() > head)
            block.frames.erase(block.frames.begin() + static_cast<long>(head));
        }
        if (limits_.max_frames > 0) block.frames.push_back(std::move(frame));
      } else if (starts_with(body, "    ")) {
        if (!block.frames.empty() && block.frames.back().source.empty() && !is_caret_line(body))
          block.frames.back().source = capped(trim(body), limits_.max_text_bytes);
      } else if (starts_with(body, "  [Previous line repeated") || trim(body).empty()) {
        // recursion marker or blank: nothing to keep
      } else {
        ExceptionBlock* target = &block;
        if (!block.exception.empty()) {
          // A group member printed without its own traceback header (no frames).
          start_block(line_number, offset);
          target = &current_.blocks.back();
        }
        target->exception = capped(trim(body), limits_.max_text_bytes);
        if (trim(body).size() > limits_.max_text_bytes) target->message_truncated = true;
        target->exception_line = line_number;
        state_ = State::Message;
      }
      break;
    }
    case State::Message: {
      if (trim(body).empty()) {
        state_ = State::AfterBlank;
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
      } else if (looks_like_log_line(body)) {
        complete();
      } else if (message_lines_ < limits_.max_message_lines &&
                 block.message_tail.size() < limits_.max_text_bytes) {
        ++message_lines_;
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
      }
      break;
    }
    case State::ChainSeparator:
      if (!trim(body).empty()) complete();
      break;
    case State::Idle:
      break;
  }
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
  return out;
}

}  // namespace megatriage
