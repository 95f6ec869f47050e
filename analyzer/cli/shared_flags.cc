// Flags shared by several subcommands: one definition each, so a check or a range cannot
// differ between `megatriage`, `watch` and `postmortem`.
#include "cli/shared_flags.h"

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string_view>

#include "base/exit_codes.h"
#include "base/terminal.h"
#include "base/unique_fd.h"
#include "extract/extract.h"
#include "render/render.h"

namespace megatriage {

std::optional<int> parse_flags(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports --help and --version as "errors" whose exit status is 0.
    return app.exit(e) == 0 ? kExitNoFailure : kExitUsage;
  }
  // Test-only: MEGATRIAGE_TEST_THROW=1 throws where every subcommand has started, so that a test
  // can prove main's last-resort handler (an internal error, exit 3) without a real bug.
  if (const char* t = std::getenv("MEGATRIAGE_TEST_THROW"); t != nullptr && std::string_view(t) == "1")
    throw std::logic_error("MEGATRIAGE_TEST_THROW=1 (test-only trigger)");
  return std::nullopt;
}

void add_rules_flag(CLI::App& app, std::vector<std::string>& dirs, const char* help, bool allow_extra_args) {
  app.add_option("--rules", dirs, help)->allow_extra_args(allow_extra_args);
}

void add_format_flag(CLI::App& app, std::string& format, const char* help, const std::vector<std::string>& formats) {
  app.add_option("--format", format, help)->check(CLI::IsMember(formats));
}

void add_color_flag(CLI::App& app, std::string& mode) {
  app.add_option("--color", mode, "Colour in the text report")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

bool wants_color(const std::string& mode, bool to_terminal) {
  const char* no_color = std::getenv("NO_COLOR");
  return mode == "always" || (mode == "auto" && to_terminal && (no_color == nullptr || *no_color == '\0'));
}

void add_report_flags(CLI::App& app, ReportFlags& flags) {
  app.add_option("--context", flags.context_lines,
                 "Raw log lines shown before and after the root cause's line (0: none; --format html: 10)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000}));
  app.add_flag("-v,--verbose", flags.verbose,
               "Text report: also info diagnostics, and every file of a folded diagnostic");
  app.add_option("--width", flags.width,
                 "Text report width in columns (default: the terminal's, else $COLUMNS, else 100)")
      ->check(CLI::Range(std::size_t{20}, std::size_t{10000}));
}

std::size_t context_lines(const CLI::App& app, const ReportFlags& flags, const std::string& format) {
  if (format == "html" && app.count("--context") == 0) return kHtmlContextLines;
  return flags.context_lines;
}

TextStyle text_style(const ReportFlags& flags, bool color, int fd) {
  TextStyle style;
  style.color = color;
  style.width = flags.width > 0 ? flags.width : report_columns(fd, 100);
  style.verbose = flags.verbose;
  style.ascii = !locale_is_utf8();
  return style;
}

void add_output_flag(CLI::App& app, std::string& path) {
  app.add_option("-o,--output", path, "Write the report to FILE instead of stdout");
}

// A file is written over its old bytes and then cut to the new ones' size, where opening it
// with O_TRUNC would empty it first: the result is the same, but ext4 (auto_da_alloc) forces a
// file that was truncated to zero and written again to disk when it is closed, which made
// writing a 2.6 MB report over the last one take 2-15 ms instead of ~0.5 (a CI loop, `watch`,
// the same -o file run after run). Not a regular file (a FIFO, /dev/stdout): written as it is.
ReportOutput::ReportOutput(const std::string& path, std::string_view program)
    : path_(path), program_(program) {
  if (path_.empty()) return;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) error_ = errno;
}

// Left without finish() (an exception while rendering): the file is cut to what was written,
// so that no tail of the last report follows a part of this one.
ReportOutput::~ReportOutput() {
  if (fd_ < 0) return;
  struct stat st;
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) (void)::ftruncate(fd_, static_cast<off_t>(written_));
  ::close(fd_);
}

bool ReportOutput::write(std::string_view piece) {
  if (error_ != 0) return false;
  if (path_.empty()) {
    if (std::fwrite(piece.data(), 1, piece.size(), stdout) != piece.size()) error_ = errno != 0 ? errno : EIO;
    return error_ == 0;
  }
  while (!piece.empty()) {
    const ssize_t n = ::write(fd_, piece.data(), piece.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      return false;
    }
    written_ += static_cast<std::uint64_t>(n);
    piece.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool ReportOutput::finish() {
  if (path_.empty()) {
    if ((std::fflush(stdout) != 0 || std::ferror(stdout)) && error_ == 0) error_ = errno != 0 ? errno : EIO;
    if (error_ != 0)
      std::cerr << program_ << ": cannot write the report to standard output: " << std::strerror(error_)
                << " (redirect it with -o FILE)\n";
    return error_ == 0;
  }
  if (fd_ >= 0) {
    // The file then holds what was written, also after an error.
    struct stat st;
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) &&
        ::ftruncate(fd_, static_cast<off_t>(written_)) != 0 && error_ == 0)
      error_ = errno;
    if (::close(fd_) != 0 && error_ == 0) error_ = errno;
    fd_ = -1;
  }
  if (error_ != 0)
    std::cerr << program_ << ": cannot write " << path_ << ": " << std::strerror(error_) << "\n";
  return error_ == 0;
}

bool write_report(std::string_view rendered, const std::string& path, std::string_view program) {
  ReportOutput out(path, program);
  out.write(rendered);
  return out.finish();
}

void add_jobs_flag(CLI::App& app, unsigned& jobs) {
  app.add_option("-j,--jobs", jobs, "Files analysed in parallel (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
}

void add_limit_flags(CLI::App& app, AnalyzeOptions& limits) {
  app.add_option("--max-decompressed-bytes", limits.read.max_decompressed_bytes,
                 "Stop reading a compressed file after this many decompressed bytes")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 50))->group("Limits");
  app.add_option("--max-line-bytes", limits.split.max_line_bytes, "Keep at most this many bytes of a line")
      ->check(CLI::Range(std::size_t{16}, std::size_t{64} << 20))->group("Limits");
  app.add_option("--max-frames", limits.traceback.max_frames,
                 "Frames kept per traceback block (the outermost few, the innermost rest)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20))->group("Limits");
  app.add_option("--max-message-bytes", limits.traceback.max_text_bytes,
                 "Bytes kept of an exception line, its message and each frame field")
      ->check(CLI::Range(std::size_t{16}, std::size_t{16} << 20))->group("Limits");
}

}  // namespace megatriage
