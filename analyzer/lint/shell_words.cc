// The shell tokenizer; see shell_words.h. A character-at-a-time scanner: each step looks at
// one character (and the next) and either extends the current word, ends it, or ends the
// command. Nested text ($(...), quotes inside them) is copied raw, not parsed.
#include "lint/shell_words.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>

namespace megatriage {

namespace {

std::string_view basename_of(std::string_view w) {
  auto slash = w.rfind('/');
  return slash == std::string_view::npos ? w : w.substr(slash + 1);
}

class Scanner {
 public:
  Scanner(std::string_view text, std::uint64_t first_line, bool in_body, bool conditional,
          ShellScript& out)
      : text_(text),
        line_(first_line),
        in_body_(in_body),
        base_conditional_(conditional),
        out_(out) {}

  void run() {
    while (i_ < text_.size()) step();
    end_word();
    end_command(false);
  }

 private:
  char peek(std::size_t ahead) const {
    return i_ + ahead < text_.size() ? text_[i_ + ahead] : '\0';
  }

  void step() {
    char c = text_[i_];
    char next = peek(1);
    if (c == '\n' && array_depth_ > 0) {  // NAME=( ... ) may span lines
      end_word();
      ++line_;
      ++i_;
    } else if (c == '\n') {
      end_word();
      end_command(false);
      ++line_;
      ++i_;
      skip_heredocs();
    } else if (c == ' ' || c == '\t' || c == '\r') {
      end_word();
      ++i_;
    } else if (c == '#' && !have_word_) {
      comment();
    } else if (c == '\\') {
      if (next == '\n' || (next == '\r' && peek(2) == '\n')) {  // continuation: join lines
        i_ += next == '\n' ? 2 : 3;
        ++line_;
      } else {
        start_word();
        if (next != '\0') word_ += next;
        i_ += 2;
      }
    } else if (c == '\'') {
      start_word();
      copy_single();
    } else if (c == '"') {
      start_word();
      copy_double();
    } else if (c == '$' && (next == '(' || next == '{')) {
      start_word();
      copy_nested();
    } else if (c == '`') {
      start_word();
      copy_backtick();
    } else if (c == ';') {
      end_word();
      end_command(false);
      i_ += next == ';' ? 2 : 1;
    } else if (c == '&' && have_word_ && (word_.back() == '>' || word_.back() == '<')) {
      word_ += c;  // `2>&1`, `>&2`
      ++i_;
    } else if (c == '&' && next != '>') {
      end_word();
      end_command(next == '&');
      i_ += next == '&' ? 2 : 1;
    } else if (c == '|') {
      end_word();
      end_command(next == '|');
      i_ += (next == '|' || next == '&') ? 2 : 1;
    } else {
      if (c == '(' && have_word_ && word_.ends_with("=")) ++array_depth_;
      if (c == ')' && array_depth_ > 0) --array_depth_;
      start_word();
      word_ += c;
      ++i_;
    }
  }

  void start_word() {
    if (have_word_) return;
    have_word_ = true;
    word_line_ = line_;
  }

  void count_lines(std::size_t from, std::size_t to) {
    line_ += static_cast<std::uint64_t>(
        std::count(text_.begin() + static_cast<std::ptrdiff_t>(from),
                   text_.begin() + static_cast<std::ptrdiff_t>(to), '\n'));
  }

  void copy_single() {  // i_ at the opening quote; content is literal
    std::size_t close = text_.find('\'', i_ + 1);
    if (close == std::string_view::npos) close = text_.size();
    word_.append(text_.substr(i_ + 1, close - i_ - 1));
    count_lines(i_, close);
    i_ = std::min(close + 1, text_.size());
  }

  void copy_double() {  // i_ at the opening quote
    ++i_;
    while (i_ < text_.size() && text_[i_] != '"') {
      char c = text_[i_];
      if (c == '\\' && i_ + 1 < text_.size()) {
        char e = text_[i_ + 1];
        if (e == '\n') {
          ++line_;
        } else if (e == '$' || e == '`' || e == '"' || e == '\\') {
          word_ += e;
        } else {
          word_ += c;
          word_ += e;
        }
        i_ += 2;
      } else if (c == '$' && (peek(1) == '(' || peek(1) == '{')) {
        copy_nested();
      } else if (c == '`') {
        copy_backtick();
      } else {
        if (c == '\n') ++line_;
        word_ += c;
        ++i_;
      }
    }
    i_ = std::min(i_ + 1, text_.size());
  }

  // Copies `$(...)`, `$((...))` or `${...}` raw, quotes and all, up to the matching bracket.
  void copy_nested() {
    std::size_t start = i_;
    char open = text_[i_ + 1];
    char close = open == '(' ? ')' : '}';
    int depth = 0;
    std::size_t j = i_ + 1;
    for (; j < text_.size(); ++j) {
      char c = text_[j];
      if (c == '\\') {
        ++j;
      } else if (c == '\'' && open == '(') {
        std::size_t q = text_.find('\'', j + 1);
        j = q == std::string_view::npos ? text_.size() - 1 : q;
      } else if (c == open) {
        ++depth;
      } else if (c == close && --depth == 0) {
        break;
      }
    }
    std::size_t end = std::min(j + 1, text_.size());
    word_.append(text_.substr(start, end - start));
    count_lines(start, end);
    i_ = end;
  }

  void copy_backtick() {
    std::size_t close = text_.find('`', i_ + 1);
    std::size_t end = close == std::string_view::npos ? text_.size() : close + 1;
    word_.append(text_.substr(i_, end - i_));
    count_lines(i_, end);
    i_ = end;
  }

  void comment() {  // i_ at '#', which starts a word
    std::size_t eol = text_.find('\n', i_);
    if (eol == std::string_view::npos) eol = text_.size();
    std::string_view body = text_.substr(i_, eol - i_);
    // sbatch reads `#SBATCH` only as a line of its own in the batch script itself.
    if (!in_body_ && words_.empty() && body.starts_with("#SBATCH")) {
      SbatchDirective d;
      d.line = line_;
      std::size_t p = 7;
      while (p < body.size()) {
        while (p < body.size() && (body[p] == ' ' || body[p] == '\t' || body[p] == '\r')) ++p;
        std::size_t q = p;
        while (q < body.size() && body[q] != ' ' && body[q] != '\t' && body[q] != '\r') ++q;
        if (q == p || body[p] == '#') break;  // trailing comment
        std::string w;
        for (char c : body.substr(p, q - p))
          if (c != '"' && c != '\'') w += c;
        d.words.push_back(std::move(w));
        p = q;
      }
      out_.directives.push_back(std::move(d));
    }
    i_ = eol;
  }

  // Here-document bodies are data, not commands: skip them up to their delimiter line.
  void skip_heredocs() {
    while (!heredocs_.empty() && i_ < text_.size()) {
      std::size_t eol = text_.find('\n', i_);
      if (eol == std::string_view::npos) eol = text_.size();
      std::string_view l = text_.substr(i_, eol - i_);
      while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
      while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.remove_suffix(1);
      if (l == heredocs_.front()) heredocs_.erase(heredocs_.begin());
      i_ = std::min(eol + 1, text_.size());
      ++line_;
    }
  }

  void end_word() {
    if (!have_word_) return;
    if (heredoc_next_) {
      heredocs_.push_back(word_);
      heredoc_next_ = false;
    } else if (word_.starts_with("<<") && !word_.starts_with("<<<")) {
      std::string delim = word_.substr(word_.starts_with("<<-") ? 3 : 2);
      if (delim.empty())
        heredoc_next_ = true;
      else
        heredocs_.push_back(std::move(delim));
    }
    words_.push_back(std::move(word_));
    word_lines_.push_back(word_line_);
    word_.clear();
    have_word_ = false;
  }

  void end_command(bool and_or) {
    if (words_.empty()) {
      if (and_or) next_conditional_ = true;
      return;
    }
    ShellWords words = std::move(words_);
    std::vector<std::uint64_t> lines = std::move(word_lines_);
    words_.clear();
    word_lines_.clear();
    bool conditional = base_conditional_ || next_conditional_ || !blocks_.empty();
    next_conditional_ = and_or;

    std::size_t k = 0;
    while (k < words.size() && (words[k] == "then" || words[k] == "else" || words[k] == "do" ||
                                words[k] == "{" || words[k] == "!" || words[k] == "("))
      ++k;
    if (k == words.size()) return;
    const std::string& first = words[k];
    if (first == "fi" || first == "done" || first == "esac") {
      if (!blocks_.empty()) blocks_.pop_back();
      return;
    }
    if (first == "if" || first == "while" || first == "until" || first == "elif") {
      if (first != "elif") blocks_.push_back('i');
      conditional = true;
      ++k;
    } else if (first == "for" || first == "select" || first == "case") {
      blocks_.push_back(first == "case" ? 'c' : 'l');
      return;
    } else if (!blocks_.empty() && blocks_.back() == 'c' && first.ends_with(')')) {
      ++k;  // a case pattern such as `h100)`
    }
    if (k == words.size()) return;

    ShellCommand cmd;
    cmd.words.assign(std::make_move_iterator(words.begin() + static_cast<std::ptrdiff_t>(k)),
                     std::make_move_iterator(words.end()));
    cmd.word_lines.assign(lines.begin() + static_cast<std::ptrdiff_t>(k), lines.end());
    cmd.line = cmd.word_lines.front();
    cmd.conditional = conditional;
    cmd.in_body = in_body_;
    out_.commands.push_back(cmd);

    // `srun ... bash -c '<body>'`: the body is a script of its own, read in place.
    for (std::size_t j = 1; j + 1 < cmd.words.size(); ++j) {
      const std::string& opt = cmd.words[j];
      std::string_view shell = basename_of(cmd.words[j - 1]);
      bool is_shell = shell == "bash" || shell == "sh" || shell == "zsh" || shell == "dash";
      if (is_shell && opt.size() >= 2 && opt[0] == '-' && opt[1] != '-' && opt.back() == 'c') {
        Scanner(cmd.words[j + 1], cmd.word_lines[j + 1], true, conditional, out_).run();
        break;
      }
    }
  }

  std::string_view text_;
  std::size_t i_ = 0;
  std::uint64_t line_;
  bool in_body_;
  bool base_conditional_;
  ShellScript& out_;
  std::string word_;
  bool have_word_ = false;
  std::uint64_t word_line_ = 0;
  ShellWords words_;
  std::vector<std::uint64_t> word_lines_;
  bool next_conditional_ = false;
  std::vector<char> blocks_;  // 'i' if/while, 'l' for/select, 'c' case
  std::vector<std::string> heredocs_;
  bool heredoc_next_ = false;
  int array_depth_ = 0;
};

}  // namespace

ShellScript scan_shell_script(std::string_view script) {
  ShellScript out;
  Scanner(script, 1, false, false, out).run();
  return out;
}

}  // namespace megatriage
