#include "input/discover.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string_view>
#include <system_error>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "base/fork_join.h"
#include "base/heap_setup.h"
#include "base/sampled_hash.h"
#include "base/unique_fd.h"

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

// The path's components from the last one back, without allocating (every walked file's
// name goes through hint_from_path).
class ComponentsFromEnd {
 public:
  explicit ComponentsFromEnd(std::string_view path) : rest_(path) {}
  /// The next component towards the root; false when there is none left.
  bool next(std::string_view& part) {
    while (!rest_.empty() && rest_.back() == '/') rest_.remove_suffix(1);
    if (rest_.empty()) return false;
    const std::size_t slash = rest_.rfind('/');
    const std::size_t start = slash == std::string_view::npos ? 0 : slash + 1;
    part = rest_.substr(start);
    rest_ = rest_.substr(0, start);
    return true;
  }
  /// What is left: the path of the directory above the last component returned.
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

// `rank3`, `rank_3`, `rank-3`, and Open MPI's `rank.3` (`mpirun --output-filename DIR` writes
// `DIR/<job>/rank.<N>/stdout|stderr`, N padded with zeros) as a token (not `frank3`, not
// `rank3x`). A `local_` / `local-` / `local` in front makes it a local rank. Returns true when
// found; the last match wins.
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
    if (d < name.size() && (name[d] == '_' || name[d] == '-' || name[d] == '.')) ++d;
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
  bool operator==(const DevIno& o) const { return dev == o.dev && ino == o.ino; }
};

// A hash set, not a tree: every directory of a walk is looked up once (WalkedDirectories), and
// a torchrun tree has thousands.
struct DevInoHash {
  std::size_t operator()(const DevIno& d) const {
    return static_cast<std::size_t>(
        mix_word(mix_word(0, static_cast<std::uint64_t>(d.dev)), static_cast<std::uint64_t>(d.ino)));
  }
};

// The directories a walk has listed, by identity, for the threads that list them at once: one
// set per slice of the hashes, each with its lock (and its own cache lines). Under one lock the
// walk's threads kept waiting on each other, a lookup per directory (docs/performance.md).
class WalkedDirectories {
 public:
  /// True the first time `id` is given, false after (whichever thread gave it first).
  bool first_visit(const DevIno& id) {
    const std::size_t h = DevInoHash{}(id);
    Shard& shard = shards_[h % kShards];
    std::lock_guard<std::mutex> lock(shard.mutex);
    return shard.ids.insert(id).second;
  }

 private:
  static constexpr std::size_t kShards = 64;
  struct alignas(64) Shard {
    std::mutex mutex;
    std::unordered_set<DevIno, DevInoHash> ids;
  };
  std::array<Shard, kShards> shards_;
};

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

void set_stat(SourceFile& file, const struct stat& st) {
  file.sized = true;
  file.size_bytes = static_cast<std::uint64_t>(st.st_size);
  file.mtime_us = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000 +
                  static_cast<std::int64_t>(st.st_mtim.tv_nsec) / 1000;
  file.device = static_cast<std::uint64_t>(st.st_dev);
  file.inode = static_cast<std::uint64_t>(st.st_ino);
}

namespace {

// Byte-wise order of display paths: it defines the file ids, independent of readdir order,
// thread count and locale. Positions are sorted, then each file moved once (a file is two
// strings and the rest: moving it at every step of the sort cost more than the compares).
void sort_by_display_path(std::vector<SourceFile>& files) {
  std::vector<std::size_t> order(files.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return files[a].display_path < files[b].display_path; });
  if (std::is_sorted(order.begin(), order.end())) return;
  std::vector<SourceFile> sorted;
  sorted.reserve(files.size());
  for (std::size_t i : order) sorted.push_back(std::move(files[i]));
  files = std::move(sorted);
}

// Where each file of the merged list comes from: part, then position in it.
struct PartPosition {
  std::size_t part, index;
};

// The sorted parts' files in display-path order (a heap of the parts' heads: an argument that
// is a file is a part of its own, so there may be many).
std::vector<PartPosition> merge_order(const std::vector<std::vector<SourceFile>>& parts) {
  std::size_t total = 0;
  for (const auto& part : parts) total += part.size();
  std::vector<PartPosition> order;
  order.reserve(total);
  auto later = [&](const PartPosition& a, const PartPosition& b) {
    return parts[b.part][b.index].display_path < parts[a.part][a.index].display_path;
  };
  std::vector<PartPosition> heads;
  for (std::size_t p = 0; p < parts.size(); ++p)
    if (!parts[p].empty()) heads.push_back({p, 0});
  std::make_heap(heads.begin(), heads.end(), later);
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    PartPosition& next = heads.back();
    order.push_back(next);
    if (++next.index < parts[next.part].size()) {
      std::push_heap(heads.begin(), heads.end(), later);
    } else {
      heads.pop_back();
    }
  }
  return order;
}

// A directory waiting to be listed, with the chain of directories above it (loop check).
struct DirTask {
  std::string path;
  std::string display;
  std::vector<DevIno> ancestors;  // the directories above it
  // Known, and already registered as walked, for an argument and a followed link; a directory
  // met as an entry learns it from its open fd when listed (no lookup by name).
  std::optional<DevIno> id;
};

// What a directory's path tells about the files in it: hint_from_path in two halves, so that
// the walk reads each directory's path once rather than once per file in it.
struct DirectoryHint {
  int torchrun_local_rank = -1;  // <attempt_N>/<local_rank>/: its {stderr,stdout}.log's
  bool rank_token = false;       // the nearest component with a rank<N> token gave these:
  int rank = -1, local_rank = -1;
};

DirectoryHint directory_hint(std::string_view dir) {
  DirectoryHint hint;
  ComponentsFromEnd components(dir);
  std::string_view parent, grandparent;
  ComponentsFromEnd up = components;
  // torchrun --log-dir: <run>/attempt_<N>/<local_rank>/{stderr,stdout}.log
  if (up.next(parent) && up.next(grandparent) && grandparent.substr(0, 8) == "attempt_" &&
      parse_small_int(grandparent.substr(8)) >= 0)
    hint.torchrun_local_rank = parse_small_int(parent);
  for (std::string_view part; components.next(part);) {
    if (find_rank_token(part, hint.rank, hint.local_rank)) {
      hint.rank_token = true;
      break;
    }
  }
  return hint;
}

Attribution file_hint(std::string_view file_name, const DirectoryHint& dir) {
  Attribution hint;
  std::string_view name = strip_compression_suffix(file_name);
  if (name == "stderr.log" || name == "stdout.log") hint.local_rank = dir.torchrun_local_rank;

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

  // submitit (Hydra's submitit launcher, fairseq, dinov2...): <jobid>_<task>_log.{err,out}
  // (`%j_%t_log.out`; an array job's %j is `<jobid>_<index>`), one task per rank.
  if (ends_with(name, "_log.err") || ends_with(name, "_log.out")) {
    std::string_view stem = name.substr(0, name.size() - 8);
    const std::size_t last = stem.rfind('_');
    if (last != std::string_view::npos && last > 0) {
      const std::string_view job = stem.substr(0, last);
      const bool job_numeric = std::all_of(job.begin(), job.end(),
                                           [](char c) { return is_digit(c) || c == '_'; }) &&
                               is_digit(job.front()) && is_digit(job.back());
      const int task = parse_small_int(stem.substr(last + 1));
      if (task >= 0 && job_numeric) hint.task = task;
    }
  }

  // rank<N> tokens: the file name first, then the nearest directory that has one.
  int rank = -1, local_rank = -1;
  const bool in_name = find_rank_token(name, rank, local_rank);
  if (!in_name && dir.rank_token) {
    rank = dir.rank;
    local_rank = dir.local_rank;
  }
  if (in_name || dir.rank_token) {
    if (rank >= 0 && hint.rank < 0) hint.rank = rank;
    if (local_rank >= 0 && hint.local_rank < 0) hint.local_rank = local_rank;
  }
  return hint;
}

// The tree walk. Directories are listed by a pool of threads (a job's tree has thousands of
// them, and per-entry system calls dominate); entries are looked up relative to their
// directory's fd, so the kernel does not resolve the full path once per file. Results are
// merged and sorted afterwards, so the thread count never changes the output.
//
// Directory symlinks that leave the tree are not followed during a pass: they are collected,
// claimed in display-path order between passes and walked in the next one, so which of two
// links to one directory gets walked does not depend on thread timing.
class Walker {
 public:
  Walker(const DiscoverOptions& options, DiagnosticSink& diags) : options_(options), diags_(diags) {}

  void walk_argument(const std::string& arg) {
    // Display paths keep the argument as typed, minus trailing slashes (`logs/` -> `logs/a.err`).
    std::string display = arg;
    while (display.size() > 1 && display.back() == '/') display.pop_back();

    Local local;
    struct stat st;
    if (::stat(arg.c_str(), &st) != 0) {
      int err = errno;
      if (err == ELOOP) {
        local.diags.add(Severity::Warning, "discover.symlink-loop",
                        "'" + display + "' is a symlink loop: " + errno_text(err), display, 0,
                        "fix or remove the symlink");
      } else if (err == ENOENT || err == ENOTDIR) {
        missing_.push_back(display);
        local.diags.add(Severity::Error, "discover.not-found", missing_path_message(display), display, 0,
                        "check the path (a dangling symlink also counts as missing)");
      } else {
        report_unreadable(local, display, err);
      }
      merge(local);
      return;
    }
    if (!S_ISDIR(st.st_mode)) {
      add_file(local, arg, display, st);
      merge(local);
      return;
    }
    std::error_code ec;
    root_ = fs::canonical(arg, ec);
    if (ec) {
      report_unreadable(local, display, ec.value());
      merge(local);
      return;
    }
    DevIno id{st.st_dev, st.st_ino};
    if (!walked_dirs_.first_visit(id)) {
      local.diags.add(Severity::Info, "discover.duplicate",
                      "'" + display + "' is a directory already walked; skipped", display);
      merge(local);
      return;
    }
    merge(local);
    std::vector<DirTask> pass{{display, display, {}, id}};
    while (!pass.empty()) {
      run_pass(std::move(pass));
      pass = claim_linked_dirs();
    }
  }

  /// What every thread found, each part sorted by display path (merge_order joins them).
  std::vector<std::vector<SourceFile>> take() { return std::move(found_parts_); }

  /// The arguments that do not exist, as typed (walk_argument runs on the caller's thread).
  std::vector<std::string> take_missing() { return std::move(missing_); }

 private:
  // What one thread gathers; merged under the lock when it finishes.
  struct Local {
    std::vector<SourceFile> found;
    DiagnosticSink diags;
    std::vector<DirTask> linked;  // outside directory symlinks for the next pass
  };

  void merge(Local& local) {
    // Sorted here, on the thread that found them and outside the lock: the caller then only
    // merges the parts, instead of sorting every file on one thread after the walk.
    sort_by_display_path(local.found);
    std::lock_guard<std::mutex> lock(mutex_);
    // Whole vectors are kept and joined once by the caller: growing one vector file by file
    // would touch (and page-fault) about twice its final size.
    if (!local.found.empty()) found_parts_.push_back(std::move(local.found));
    local.found.clear();
    for (Diagnostic& d : local.diags.take()) diags_.add(std::move(d));
    for (DirTask& t : local.linked) linked_.push_back(std::move(t));
  }

  // Lists every directory of one pass on up to options_.threads threads: breadth first until
  // there are several directories per thread (a torchrun tree: the node directories), then
  // each thread takes whole subtrees and walks them depth first on its own, with no hand-off
  // per directory.
  void run_pass(std::vector<DirTask> tasks) {
    const unsigned n = std::max(1u, options_.threads);
    Local top;
    while (!tasks.empty() && tasks.size() < 8 * static_cast<std::size_t>(n) && n > 1) {
      std::vector<DirTask> below;
      for (const DirTask& t : tasks) list_directory(top, t, below);
      tasks = std::move(below);
    }
    merge(top);
    std::atomic<std::size_t> next{0};
    const auto workers = static_cast<unsigned>(std::min<std::size_t>(n, std::max<std::size_t>(1, tasks.size())));
    run_workers(workers, [&] {
      Local local;
      try {
        for (std::size_t k = next++; k < tasks.size(); k = next++) {
          std::vector<DirTask> stack;  // subtrees left to open by path
          stack.push_back(std::move(tasks[k]));
          while (!stack.empty()) {
            DirTask task = std::move(stack.back());
            stack.pop_back();
            walk_subtree(local, task, -1, stack);
          }
        }
      } catch (...) {
        next = tasks.size();  // the others stop too; run_workers rethrows after the joins
        throw;
      }
      merge(local);
    });
  }

  // Lists `task` and, depth first, the directories below it, each opened relative to its
  // parent's still open fd: a lookup of the whole path per directory was a visible share of
  // the walk. Open directories are few (kOpenDirBudget over all threads, else deeper ones wait
  // in `later` and are opened by path).
  void walk_subtree(Local& local, const DirTask& task, int parent_fd, std::vector<DirTask>& later) {
    std::vector<DirTask> children;
    UniqueFd dfd = list_directory(local, task, children, parent_fd);
    if (dfd.get() < 0) return;
    if (children.empty()) return;
    if (open_dirs_.fetch_add(1) >= kOpenDirBudget) {
      open_dirs_.fetch_sub(1);
      for (DirTask& child : children) later.push_back(std::move(child));
      return;
    }
    for (DirTask& child : children) walk_subtree(local, child, dfd.get(), later);
    open_dirs_.fetch_sub(1);
  }

  // Outside directory symlinks found in the last pass, in display order; the first link to
  // each target directory is walked, the others are reported as duplicates.
  std::vector<DirTask> claim_linked_dirs() {
    std::vector<DirTask> linked = std::move(linked_);
    linked_.clear();
    std::sort(linked.begin(), linked.end(),
              [](const DirTask& a, const DirTask& b) { return a.display < b.display; });
    std::vector<DirTask> next;
    for (DirTask& t : linked) {
      if (!walked_dirs_.first_visit(*t.id)) {
        diags_.add(Severity::Info, "discover.duplicate",
                   "'" + t.display + "' is a directory already walked; skipped", t.display);
        continue;
      }
      next.push_back(std::move(t));
    }
    return next;
  }

  static void report_unreadable(Local& local, const std::string& display, int err) {
    local.diags.add(Severity::Warning, "discover.unreadable",
                    "cannot read '" + display + "': " + errno_text(err), display, 0,
                    "check its permissions (run as the job's user, or chmod/chgrp the log directory)");
  }

  static void report_special(Local& local, const std::string& display, const struct stat& st) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                                              : "not a regular file";
    local.diags.add(Severity::Warning, "discover.special-file",
                    "'" + display + "' is " + std::string(kind) + "; skipped (never opened)",
                    display, 0, "pass regular log files or directories of them");
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

  // Lists one directory with getdents64 into a fixed buffer: no DIR stream, whose setup
  // costs an fstat and an fcntl per directory (a torchrun tree has one per rank).
  // Lists one directory, opened by its path or, given `parent_fd`, by its name in the parent;
  // returns it open (closed when the walk could not list it).
  UniqueFd list_directory(Local& local, const DirTask& task, std::vector<DirTask>& children,
                          int parent_fd = -1) {
    const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    UniqueFd dfd(parent_fd >= 0 ? ::openat(parent_fd, task.path.c_str() + task.path.rfind('/') + 1, flags)
                                : ::open(task.path.c_str(), flags));
    if (dfd.get() < 0) {
      report_unreadable(local, task.display, errno);
      return dfd;
    }
    std::vector<DevIno> here = task.ancestors;  // the loop check's chain, this directory last
    if (task.id) {
      here.push_back(*task.id);
    } else {
      struct stat st;
      if (::fstat(dfd.get(), &st) != 0) {
        report_unreadable(local, task.display, errno);
        return UniqueFd(-1);
      }
      const DevIno id{st.st_dev, st.st_ino};
      // Reached twice only through a bind mount or overlapping arguments.
      if (!walked_dirs_.first_visit(id)) {
        local.diags.add(Severity::Info, "discover.duplicate",
                        "'" + task.display + "' is a directory already walked; skipped", task.display);
        return UniqueFd(-1);
      }
      here.push_back(id);
    }
    // Argument "/" must not give "//etc".
    const std::string_view sep = task.display.back() == '/' ? "" : "/";
    std::optional<DirectoryHint> dir_hint;  // read at the first file
    alignas(dirent64) char buffer[32 * 1024];
    for (;;) {
      ssize_t n = ::getdents64(dfd.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        report_unreadable(local, task.display, errno);
        break;
      }
      if (n == 0) break;
      for (ssize_t pos = 0; pos < n;) {
        const auto* entry = reinterpret_cast<const dirent64*>(buffer + pos);
        pos += entry->d_reclen;
        const char* name = entry->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
        // The entry's type spares a stat for directories (identified when listed) and, unless
        // asked to stat files, for regular files (stat'ed when opened).
        if (entry->d_type == DT_DIR) {
          children.push_back({join_path(task.path, sep, name), join_path(task.display, sep, name), here, std::nullopt});
        } else if (entry->d_type == DT_REG && !options_.stat_files &&
                   strip_compression_suffix(name) == std::string_view(name)) {
          if (!dir_hint) dir_hint = directory_hint(task.display);
          add_unstatted_file(local, join_path(task.path, sep, name), join_path(task.display, sep, name), &*dir_hint);
        } else {
          visit_entry(local, dfd.get(), name, join_path(task.path, sep, name), join_path(task.display, sep, name),
                      here, children);
        }
      }
    }
    return dfd;
  }

  void visit_entry(Local& local, int dfd, const char* name, const std::string& path,
                   const std::string& display, const std::vector<DevIno>& ancestors,
                   std::vector<DirTask>& children) {
    struct stat lst;
    if (::fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) != 0) {
      report_unreadable(local, display, errno);
      return;
    }
    if (S_ISDIR(lst.st_mode)) {
      children.push_back({path, display, ancestors, std::nullopt});
      return;
    }
    if (S_ISREG(lst.st_mode)) {
      add_file(local, path, display, lst);
      return;
    }
    if (!S_ISLNK(lst.st_mode)) {
      report_special(local, display, lst);
      return;
    }

    // A symlink: decide before following it.
    struct stat st;
    if (::fstatat(dfd, name, &st, 0) != 0) {
      int err = errno;
      if (err == ELOOP) {
        local.diags.add(Severity::Warning, "discover.symlink-loop",
                        "'" + display + "' is a symlink loop: " + errno_text(err), display, 0,
                        "fix or remove the symlink");
      } else {
        local.diags.add(Severity::Warning, "discover.broken-symlink",
                        "'" + display + "' points to nothing: " + errno_text(err), display, 0,
                        "the target was probably moved or deleted");
      }
      return;
    }
    std::error_code ec;
    fs::path target = fs::canonical(path, ec);
    if (ec) {
      report_unreadable(local, display, ec.value());
      return;
    }
    bool inside = inside_root(target);
    if (S_ISDIR(st.st_mode)) {
      if (is_ancestor(ancestors, {st.st_dev, st.st_ino})) {
        local.diags.add(Severity::Warning, "discover.symlink-loop",
                        "'" + display + "' points back to its own ancestor '" + target.string() +
                            "'; not followed",
                        display, 0, "directory symlink loops are skipped; nothing is lost");
        return;
      }
      if (inside) {
        // Its target is a real directory under the argument, walked on its own: following the
        // link would only list the same files twice.
        local.diags.add(Severity::Info, "discover.duplicate",
                        "'" + display + "' links to a directory already in the tree; not followed",
                        display);
        return;
      }
    }
    if (!inside && !options_.follow_symlinks_outside) {
      local.diags.add(Severity::Warning, "discover.symlink-outside",
                      "'" + display + "' points outside '" + root_.string() + "' (to '" +
                          target.string() + "'); not followed",
                      display, 0, "pass the target explicitly or use --follow-symlinks");
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      local.linked.push_back({path, display, ancestors, DevIno{st.st_dev, st.st_ino}});
    } else if (S_ISREG(st.st_mode)) {
      add_file(local, path, display, st);
    } else {
      report_special(local, display, st);
    }
  }

  // dir + sep + name in one allocation (two per entry of a 9,000-file tree).
  static std::string join_path(const std::string& dir, std::string_view sep, std::string_view name) {
    std::string path;
    path.reserve(dir.size() + sep.size() + name.size());
    path.append(dir).append(sep).append(name);
    return path;
  }

  static bool is_ancestor(const std::vector<DevIno>& ancestors, DevIno id) {
    for (const DevIno& a : ancestors)
      if (a.dev == id.dev && a.ino == id.ino) return true;
    return false;
  }

  // Lists a regular file from its stat; it is opened only when analysed (open_source), which
  // also reports a file we may not read and detects its compression.
  void add_file(Local& local, const std::string& path, const std::string& display,
                const struct stat& st) {
    if (!S_ISREG(st.st_mode)) {
      report_special(local, display, st);
      return;
    }
    set_stat(add_unstatted_file(local, path, display), st);
  }

  // A regular file known from its directory entry only (DiscoverOptions::stat_files). `dir`:
  // what its directory's path tells (else read from `display`).
  SourceFile& add_unstatted_file(Local& local, std::string path, std::string display,
                                 const DirectoryHint* dir = nullptr) {
    // A thread listing hundreds of files is walking a big job: its list is worth huge pages.
    if (local.found.size() == kFilesForHugePages) ask_huge_pages_for_thread_heap();
    SourceFile& f = local.found.emplace_back();
    std::string_view base = display;
    if (std::size_t slash = base.rfind('/'); slash != std::string_view::npos)
      base = base.substr(slash + 1);
    f.hint = dir != nullptr ? file_hint(base, *dir) : hint_from_path(display);
    f.is_stdout = is_stdout_name(base);
    f.path = std::move(path);
    f.display_path = std::move(display);
    return f;
  }

  const DiscoverOptions& options_;
  DiagnosticSink& diags_;
  fs::path root_;                 // canonical form of the directory argument being walked
  std::vector<std::string> missing_;  // arguments that do not exist (written by the caller only)
  WalkedDirectories walked_dirs_;
  std::mutex mutex_;              // guards everything below during a pass
  std::vector<DirTask> linked_;   // outside directory symlinks found in this pass
  std::vector<std::vector<SourceFile>> found_parts_;  // each thread's finds, each sorted
  static constexpr int kOpenDirBudget = 256;
  std::atomic<int> open_dirs_{0};  // directories held open by walk_subtree, all threads
};

}  // namespace

std::string missing_path_message(const std::string& display) {
  return "path '" + display + "' does not exist";
}

std::vector<SourceFile> discover_sources(const std::vector<std::string>& paths,
                                         const DiscoverOptions& options, DiagnosticSink& diags) {
  return discover_paths(paths, options, diags).files;
}

DiscoveredSources discover_paths(const std::vector<std::string>& paths, const DiscoverOptions& options,
                                 DiagnosticSink& diags) {
  DiscoveredSources out;
  DiagnosticSink walk_diags;
  Walker walker(options, walk_diags);
  // `-`: standard input (`zcat job.err.gz | megatriage -`, `kubectl logs pod | megatriage -`),
  // read as a stream by open_source, never walked or stat'ed.
  bool stdin_listed = false;
  for (const std::string& p : paths) {
    if (p != "-") {
      walker.walk_argument(p);
    } else if (stdin_listed) {
      walk_diags.add(Severity::Info, "discover.duplicate", "'-' (standard input) given twice; read once",
                     kStdinDisplayPath);
    } else {
      stdin_listed = true;
    }
  }
  out.missing = walker.take_missing();
  std::vector<std::vector<SourceFile>> parts = walker.take();
  if (stdin_listed) {
    SourceFile in;
    in.path = "-";
    in.display_path = kStdinDisplayPath;
    in.is_stdin = true;
    parts.emplace_back().push_back(std::move(in));
  }
  // Threads finish directories in any order: sort what they reported by path, then code.
  std::vector<Diagnostic> reported = walk_diags.take();
  std::stable_sort(reported.begin(), reported.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.path, a.code) < std::tie(b.path, b.code);
  });
  for (Diagnostic& d : reported) diags.add(std::move(d));
  // Every part is sorted by display path (sort_by_display_path); their merge is the files' order.
  const std::vector<PartPosition> order = merge_order(parts);

  // The same file named twice (overlapping arguments, a file symlink or hard link inside the
  // tree) would double every event; keep the first display path. Without a stat per file the
  // caller does this once the files are opened (one rule: all repeats at once, in order).
  std::vector<bool> repeated(order.size(), false);
  if (options.stat_files) {
    std::vector<FileIdentity> ids;
    ids.reserve(order.size());
    for (const PartPosition& at : order) {
      const SourceFile& f = parts[at.part][at.index];
      ids.push_back({f.device, f.inode});
    }
    repeated = find_repeats(ids);
  }

  std::vector<SourceFile>& files = out.files;
  files.reserve(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    SourceFile& f = parts[order[k].part][order[k].index];
    if (repeated[k]) {
      diags.add(Severity::Info, "discover.duplicate",
                "'" + f.display_path + "' is the same file as one listed before; skipped",
                f.display_path);
      continue;
    }
    f.id = static_cast<FileId>(files.size());
    files.push_back(std::move(f));
  }
  return out;
}

std::vector<bool> find_repeats(const std::vector<FileIdentity>& ids) {
  // One sort of (identity, position) rather than a set insert per file.
  std::vector<std::pair<FileIdentity, std::size_t>> order(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) order[i] = {ids[i], i};
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.device, a.first.inode, a.second) < std::tie(b.first.device, b.first.inode, b.second);
  });
  std::vector<bool> repeated(ids.size(), false);
  for (std::size_t i = 1; i < order.size(); ++i)
    if (order[i].first.inode != 0 && order[i - 1].first.device == order[i].first.device &&
        order[i - 1].first.inode == order[i].first.inode)
      repeated[order[i].second] = true;
  return repeated;
}

Attribution hint_from_path(const std::string& display_path) {
  ComponentsFromEnd components(display_path);
  std::string_view last;
  if (!components.next(last)) return {};
  return file_hint(last, directory_hint(components.rest()));
}

}  // namespace megatriage
