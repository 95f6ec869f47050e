#include "discover.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

namespace megatriage {

namespace fs = std::filesystem;

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::None: return "none";
    case Compression::Gzip: return "gzip";
    case Compression::Bzip2: return "bzip2";
    case Compression::Xz: return "xz";
    case Compression::Zstd: return "zstd";
  }
  return "none";
}

Compression detect_compression(const unsigned char* magic, std::size_t size) {
  auto starts = [&](std::initializer_list<unsigned char> m) {
    if (size < m.size()) return false;
    return std::equal(m.begin(), m.end(), magic);
  };
  if (starts({0x1f, 0x8b})) return Compression::Gzip;
  // "BZh" plus a block-size digit: the digit check keeps a log line starting "BZh" plain.
  if (starts({'B', 'Z', 'h'}) && size >= 4 && magic[3] >= '1' && magic[3] <= '9')
    return Compression::Bzip2;
  if (starts({0xfd, '7', 'z', 'X', 'Z', 0x00})) return Compression::Xz;
  if (starts({0x28, 0xb5, 0x2f, 0xfd})) return Compression::Zstd;
  return Compression::None;
}

namespace {

constexpr std::string_view kCompressionSuffixes[] = {".gz", ".bz2", ".xz", ".zst"};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Name without one compression suffix: `x-5-3.err.gz` matches like `x-5-3.err`.
std::string_view strip_compression_suffix(std::string_view name) {
  for (std::string_view suffix : kCompressionSuffixes) {
    if (ends_with(name, suffix) && name.size() > suffix.size())
      return name.substr(0, name.size() - suffix.size());
  }
  return name;
}

// Parses a whole string of digits; -1 if empty, not all digits, or too large for a rank.
int parse_small_int(std::string_view s) {
  if (s.empty() || s.size() > 7) return -1;
  int v = 0;
  for (char c : s) {
    if (!is_digit(c)) return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::vector<std::string_view> split_components(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// `rank3`, `rank_3`, `rank-3` as a token (not `frank3`, not `rank3x`). A `local_` / `local-` /
// `local` in front makes it a local rank. Returns true when found; the last match wins.
bool find_rank_token(std::string_view name, int& rank, int& local_rank) {
  bool found = false;
  for (std::size_t pos = name.find("rank"); pos != std::string_view::npos;
       pos = name.find("rank", pos + 1)) {
    if (pos > 0 && is_alnum(name[pos - 1])) {
      // `localrank3` is still a local-rank token; anything else glued on in front is not.
      if (!(pos >= 5 && name.substr(pos - 5, 5) == "local" &&
            (pos == 5 || !is_alnum(name[pos - 6]))))
        continue;
    }
    std::size_t d = pos + 4;
    if (d < name.size() && (name[d] == '_' || name[d] == '-')) ++d;
    std::size_t end = d;
    while (end < name.size() && is_digit(name[end])) ++end;
    if (end == d) continue;
    if (end < name.size() && is_alnum(name[end])) continue;
    int value = parse_small_int(name.substr(d, end - d));
    if (value < 0) continue;
    std::string_view before = name.substr(0, pos);
    bool local = ends_with(before, "local") || ends_with(before, "local_") ||
                 ends_with(before, "local-");
    (local ? local_rank : rank) = value;
    found = true;
  }
  return found;
}

bool is_stdout_name(std::string_view file_name) {
  std::string_view name = strip_compression_suffix(file_name);
  return ends_with(name, ".out") || ends_with(name, "stdout.log") ||
         name.find(".out.") != std::string_view::npos;
}

// ---- file system walk ----

struct DevIno {
  dev_t dev;
  ino_t ino;
  bool operator<(const DevIno& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
};

std::string errno_text(int err) { return std::strerror(err); }

struct Found {
  SourceFile file;
  DevIno id;
};

class Walker {
 public:
  Walker(const DiscoverOptions& options, DiagnosticSink& diags) : options_(options), diags_(diags) {}

  void walk_argument(const std::string& arg) {
    // Display paths keep the argument as typed, minus trailing slashes (`logs/` -> `logs/a.err`).
    std::string display = arg;
    while (display.size() > 1 && display.back() == '/') display.pop_back();

    struct stat st;
    if (::stat(arg.c_str(), &st) != 0) {
      int err = errno;
      if (err == ELOOP) {
        diags_.add(Severity::Warning, "discover.symlink-loop",
                   "'" + display + "' is a symlink loop: " + errno_text(err), display, 0,
                   "fix or remove the symlink");
      } else if (err == ENOENT || err == ENOTDIR) {
        diags_.add(Severity::Error, "discover.not-found",
                   "path '" + display + "' does not exist", display, 0,
                   "check the path (a dangling symlink also counts as missing)");
      } else {
        report_unreadable(display, err);
      }
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      std::error_code ec;
      root_ = fs::canonical(arg, ec);
      if (ec) {
        report_unreadable(display, ec.value());
        return;
      }
      std::vector<DevIno> ancestors;
      enter_directory(display, display, st, ancestors);
    } else {
      add_file(display, display, st);
    }
  }

  std::vector<Found> take() { return std::move(found_); }

 private:
  void report_unreadable(const std::string& display, int err) {
    diags_.add(Severity::Warning, "discover.unreadable",
               "cannot read '" + display + "': " + errno_text(err), display, 0,
               "check its permissions (run as the job's user, or chmod/chgrp the log directory)");
  }

  void report_special(const std::string& display, const struct stat& st) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                                              : "not a regular file";
    diags_.add(Severity::Warning, "discover.special-file",
               "'" + display + "' is " + std::string(kind) + "; skipped (never opened)", display,
               0, "pass regular log files or directories of them");
  }

  bool inside_root(const fs::path& target) const {
    // Component-wise prefix test on canonical paths, so `/logs2` is not inside `/logs`.
    auto r = root_.begin();
    auto t = target.begin();
    for (; r != root_.end(); ++r, ++t) {
      if (t == target.end() || *r != *t) return false;
    }
    return true;
  }

  void walk_directory(const std::string& path, const std::string& display,
                      std::vector<DevIno>& ancestors) {
    std::error_code ec;
    fs::directory_iterator it(path, fs::directory_options::none, ec);
    if (ec) {
      report_unreadable(display, ec.value());
      return;
    }
    // Collect the names before recursing, so a deep tree never holds one open directory per
    // level; the global sort comes later anyway.
    std::vector<std::string> names;
    while (it != fs::directory_iterator()) {
      names.push_back(it->path().filename().string());
      it.increment(ec);
      if (ec) break;
    }
    if (ec) report_unreadable(display, ec.value());
    // Argument "/" must not give "//etc".
    const std::string sep = display.back() == '/' ? "" : "/";
    for (const std::string& name : names) {
      visit_entry(path + sep + name, display + sep + name, ancestors);
    }
  }

  void visit_entry(const std::string& path, const std::string& display,
                   std::vector<DevIno>& ancestors) {
    struct stat lst;
    if (::lstat(path.c_str(), &lst) != 0) {
      report_unreadable(display, errno);
      return;
    }
    if (S_ISDIR(lst.st_mode)) {
      enter_directory(path, display, lst, ancestors);
      return;
    }
    if (S_ISREG(lst.st_mode)) {
      add_file(path, display, lst);
      return;
    }
    if (!S_ISLNK(lst.st_mode)) {
      report_special(display, lst);
      return;
    }

    // A symlink: decide before following it.
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      int err = errno;
      if (err == ELOOP) {
        diags_.add(Severity::Warning, "discover.symlink-loop",
                   "'" + display + "' is a symlink loop: " + errno_text(err), display, 0,
                   "fix or remove the symlink");
      } else {
        diags_.add(Severity::Warning, "discover.broken-symlink",
                   "'" + display + "' points to nothing: " + errno_text(err), display, 0,
                   "the target was probably moved or deleted");
      }
      return;
    }
    std::error_code ec;
    fs::path target = fs::canonical(path, ec);
    if (ec) {
      report_unreadable(display, ec.value());
      return;
    }
    bool inside = inside_root(target);
    if (S_ISDIR(st.st_mode)) {
      for (const DevIno& a : ancestors) {
        if (a.dev == st.st_dev && a.ino == st.st_ino) {
          diags_.add(Severity::Warning, "discover.symlink-loop",
                     "'" + display + "' points back to its own ancestor '" + target.string() +
                         "'; not followed",
                     display, 0, "directory symlink loops are skipped; nothing is lost");
          return;
        }
      }
      if (inside) {
        // Its target is a real directory under the argument, walked on its own: following the
        // link would only list the same files twice.
        diags_.add(Severity::Info, "discover.duplicate",
                   "'" + display + "' links to a directory already in the tree; not followed",
                   display);
        return;
      }
    }
    if (!inside && !options_.follow_symlinks_outside) {
      diags_.add(Severity::Warning, "discover.symlink-outside",
                 "'" + display + "' points outside '" + root_.string() + "' (to '" +
                     target.string() + "'); not followed",
                 display, 0, "pass the target explicitly or use --follow-symlinks");
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      enter_directory(path, display, st, ancestors);
    } else if (S_ISREG(st.st_mode)) {
      add_file(path, display, st);
    } else {
      report_special(display, st);
    }
  }

  void enter_directory(const std::string& path, const std::string& display,
                       const struct stat& st, std::vector<DevIno>& ancestors) {
    DevIno id{st.st_dev, st.st_ino};
    // A directory reached twice (two outside links to one place) is walked once.
    if (!walked_dirs_.insert(id).second) {
      diags_.add(Severity::Info, "discover.duplicate",
                 "'" + display + "' is a directory already walked; skipped", display);
      return;
    }
    ancestors.push_back(id);
    walk_directory(path, display, ancestors);
    ancestors.pop_back();
  }

  void add_file(const std::string& path, const std::string& display, const struct stat& st) {
    if (!S_ISREG(st.st_mode)) {
      report_special(display, st);
      return;
    }
    // O_NONBLOCK: if the entry was swapped for a FIFO since stat, open must not hang; fstat
    // below then rejects it.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
      report_unreadable(display, errno);
      return;
    }
    struct stat fst;
    if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
      ::close(fd);
      report_special(display, st);
      return;
    }
    unsigned char magic[6];
    std::size_t have = 0;
    while (have < sizeof magic) {
      ssize_t n = ::read(fd, magic + have, sizeof magic - have);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int err = errno;
        ::close(fd);
        report_unreadable(display, err);
        return;
      }
      if (n == 0) break;
      have += static_cast<std::size_t>(n);
    }
    ::close(fd);

    Found f;
    f.id = {fst.st_dev, fst.st_ino};
    f.file.path = path;
    f.file.display_path = display;
    f.file.size_bytes = static_cast<std::uint64_t>(fst.st_size);
    f.file.mtime_us = static_cast<std::int64_t>(fst.st_mtim.tv_sec) * 1000000 +
                      static_cast<std::int64_t>(fst.st_mtim.tv_nsec) / 1000;
    f.file.compression = detect_compression(magic, have);
    f.file.hint = hint_from_path(display);
    std::string_view name = display;
    if (std::size_t slash = name.rfind('/'); slash != std::string_view::npos)
      name = name.substr(slash + 1);
    f.file.is_stdout = is_stdout_name(name);
    found_.push_back(std::move(f));
  }

  const DiscoverOptions& options_;
  DiagnosticSink& diags_;
  fs::path root_;                 // canonical form of the directory argument being walked
  std::set<DevIno> walked_dirs_;
  std::vector<Found> found_;
};

}  // namespace

std::vector<SourceFile> discover_sources(const std::vector<std::string>& paths,
                                         const DiscoverOptions& options, DiagnosticSink& diags) {
  Walker walker(options, diags);
  for (const std::string& p : paths) walker.walk_argument(p);
  std::vector<Found> found = walker.take();
  // Byte-wise order of display paths defines the file ids: independent of readdir order,
  // thread count and locale.
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.file.display_path < b.file.display_path;
  });

  std::vector<SourceFile> files;
  files.reserve(found.size());
  std::set<DevIno> seen;
  std::string previous;
  for (Found& f : found) {
    // The same file named twice (overlapping arguments, a file symlink or hard link inside the
    // tree) would double every event; keep the first display path.
    if (!seen.insert(f.id).second) {
      diags.add(Severity::Info, "discover.duplicate",
                "'" + f.file.display_path + "' is the same file as one listed before; skipped",
                f.file.display_path);
      continue;
    }
    f.file.id = static_cast<FileId>(files.size());
    files.push_back(std::move(f.file));
  }
  return files;
}

Attribution hint_from_path(const std::string& display_path) {
  Attribution hint;
  std::vector<std::string_view> parts = split_components(display_path);
  if (parts.empty()) return hint;
  std::string_view name = strip_compression_suffix(parts.back());

  // torchrun --log-dir: <run>/attempt_<N>/<local_rank>/{stderr,stdout}.log
  if ((name == "stderr.log" || name == "stdout.log") && parts.size() >= 3 &&
      parts[parts.size() - 3].substr(0, 8) == "attempt_" &&
      parse_small_int(parts[parts.size() - 3].substr(8)) >= 0) {
    hint.local_rank = parse_small_int(parts[parts.size() - 2]);
  }

  // sbatch per-task output: <name>-<jobid>-<task>.{err,out} (%x-%j-%t). `gpt-tiny-25.err`
  // (%x-%j) has one numeric field only and gives no task.
  if (ends_with(name, ".err") || ends_with(name, ".out")) {
    std::string_view stem = name.substr(0, name.size() - 4);
    std::size_t last_dash = stem.rfind('-');
    if (last_dash != std::string_view::npos && last_dash > 0) {
      int task = parse_small_int(stem.substr(last_dash + 1));
      std::string_view rest = stem.substr(0, last_dash);
      std::size_t job_dash = rest.rfind('-');
      std::string_view job =
          job_dash == std::string_view::npos ? rest : rest.substr(job_dash + 1);
      bool job_numeric = !job.empty() && std::all_of(job.begin(), job.end(), is_digit);
      if (task >= 0 && job_numeric) hint.task = task;
    }
  }

  // rank<N> tokens: the file name first, then the nearest directory that has one.
  for (std::size_t i = parts.size(); i-- > 0;) {
    std::string_view part = i + 1 == parts.size() ? name : parts[i];
    int rank = -1, local_rank = -1;
    if (find_rank_token(part, rank, local_rank)) {
      if (rank >= 0 && hint.rank < 0) hint.rank = rank;
      if (local_rank >= 0 && hint.local_rank < 0) hint.local_rank = local_rank;
      break;
    }
  }
  return hint;
}

}  // namespace megatriage
