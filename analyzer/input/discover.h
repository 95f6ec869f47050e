// Discover stage: turn CLI paths into a sorted list of SourceFiles. Walks directories (on
// several threads) and takes rank/local-rank/task hints from file names. Never opens a file:
// compression and readability are found when the file is opened for analysis (reader.h
// open_source), which also stats it.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "model/types.h"

namespace megatriage {

enum class Compression : std::uint8_t { None, Gzip, Bzip2, Xz, Zstd };

const char* compression_name(Compression c);

/// Detect compression from the first bytes of a file. Requires: `size` bytes at `magic`.
Compression detect_compression(const unsigned char* magic, std::size_t size);

/// One input file. `display_path` is the path as walked from the argument (e.g. `logs/x.err`);
/// `path` is what we open.
struct SourceFile {
  FileId id = 0;
  std::string path;
  std::string display_path;
  std::uint64_t size_bytes = 0;      // on disk (compressed size for archives)
  std::int64_t mtime_us = 0;
  bool sized = false;                // size_bytes/mtime_us/device/inode are known (stat'ed)
  std::uint64_t device = 0, inode = 0;
  Compression compression = Compression::None;  // set by open_source from the magic bytes
  Attribution hint;                  // from the file name / directory layout; -1/empty unknown
  bool is_stdout = false;            // name says stdout (.out, stdout.log)
  bool is_stdin = false;             // the argument `-`: standard input, read as a stream
};

/// What the argument `-` (standard input) is called in reports.
inline constexpr const char* kStdinDisplayPath = "<stdin>";

struct DiscoverOptions {
  bool follow_symlinks_outside = false;  // follow symlinks that leave the argument's tree
  unsigned threads = 1;                  // directories listed in parallel (output is the same)
  // false: a regular file is listed from its directory entry's type alone, without a stat (a
  // stat per file is a visible share of a 9,000-file run, and opening the file stats it
  // anyway). Such files come back `sized == false`, and the same file under two names (hard
  // links, a file symlink into the tree) is not removed here: the caller does that once the
  // files are opened (drop_duplicate_files). Names with a compression suffix are still stat'ed,
  // so the big archives can be started first.
  bool stat_files = true;
};

/// Walks `paths` (files or directories, recursed) and returns regular files sorted by display
/// path, ids assigned in that order. The argument `-` is standard input (`is_stdin`, display
/// path `<stdin>`; once, however often it is given). Problems (unreadable, symlink loops, special files)
/// become diagnostics; a path that does not exist is reported with code `discover.not-found`
/// and severity Error (the caller decides whether that is a usage error).
std::vector<SourceFile> discover_sources(const std::vector<std::string>& paths,
                                         const DiscoverOptions& options, DiagnosticSink& diags);

/// What discover_paths found: the files (as discover_sources returns them) and the arguments
/// that do not exist, as typed, for the caller that treats them as a usage error.
struct DiscoveredSources {
  std::vector<SourceFile> files;
  std::vector<std::string> missing;
};
/// What the `discover.not-found` diagnostic says about a missing argument.
std::string missing_path_message(const std::string& display);
DiscoveredSources discover_paths(const std::vector<std::string>& paths, const DiscoverOptions& options,
                                 DiagnosticSink& diags);

/// Takes size, modification time and identity from a stat of the file; sets `sized`.
void set_stat(SourceFile& file, const struct stat& st);

/// A file's identity on disk; inode 0 when unknown.
struct FileIdentity {
  std::uint64_t device = 0, inode = 0;
};

/// For each position, whether an earlier position holds the same (known) identity.
std::vector<bool> find_repeats(const std::vector<FileIdentity>& ids);

/// Fills `hint` from a path: torchrun `attempt_N/<local_rank>/stderr.log`, sbatch `%x-%j-%t`,
/// `rank<N>` / `rank_<N>` / `rank-<N>` tokens. Compression suffixes are ignored; host names are
/// never taken from file names. Exposed for tests.
Attribution hint_from_path(const std::string& display_path);

}  // namespace megatriage
