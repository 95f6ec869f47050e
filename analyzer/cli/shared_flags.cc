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

namespace {

// Writes `bytes` over the file's old ones and then cuts it to their size, where opening it
// with O_TRUNC would empty it first: the result is the same, but ext4 (auto_da_alloc) forces a
// file that was truncated to zero and written again to disk when it is closed, which made
// writing a 2.6 MB report over the last one take 2-15 ms instead of ~0.5 (a CI loop, `watch`,
// the same -o file run after run). Not a regular file (a FIFO, /dev/stdout): written as it is.
// False with `error` (an errno) when a byte could not be written; the file then holds what was.
bool replace_file_bytes(std::string_view bytes, const std::string& path, int& error) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666));
  if (fd.get() < 0) {
    error = errno;
    return false;
  }
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd.get(), bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    written += static_cast<std::size_t>(n);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) &&
      ::ftruncate(fd.get(), static_cast<off_t>(written)) != 0 && error == 0)
    error = errno;
  if (::close(fd.release()) != 0 && error == 0) error = errno;
  return error == 0;
}

}  // namespace

bool write_report(std::string_view rendered, const std::string& path, std::string_view program) {
  if (path.empty()) {
    std::fwrite(rendered.data(), 1, rendered.size(), stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::cerr << program << ": cannot write the report to standard output: " << std::strerror(errno)
                << " (redirect it with -o FILE)\n";
      return false;
    }
    return true;
  }
  int error = 0;
  if (!replace_file_bytes(rendered, path, error)) {
    std::cerr << program << ": cannot write " << path << ": " << std::strerror(error) << "\n";
    return false;
  }
  return true;
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
