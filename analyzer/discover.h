// Discover stage: turn CLI paths into a sorted list of SourceFiles. Walks directories (on
// several threads), stats each entry and takes rank/local-rank/task hints from file names.
// Never opens a file: compression and readability are found when the file is opened for
// analysis (reader.h open_source).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "types.h"

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
  Compression compression = Compression::None;  // set by open_source from the magic bytes
  Attribution hint;                  // from the file name / directory layout; -1/empty unknown
  bool is_stdout = false;            // name says stdout (.out, stdout.log)
};

struct DiscoverOptions {
  bool follow_symlinks_outside = false;  // follow symlinks that leave the argument's tree
  unsigned threads = 1;                  // directories listed in parallel (output is the same)
};

/// Walks `paths` (files or directories, recursed) and returns readable regular files sorted by
/// display path, ids assigned in that order. Problems (unreadable, symlink loops, special
/// files) become diagnostics; a path that does not exist is reported with code
/// `discover.not-found` and severity Error (the caller decides whether that is a usage error).
std::vector<SourceFile> discover_sources(const std::vector<std::string>& paths,
                                         const DiscoverOptions& options, DiagnosticSink& diags);

/// Fills `hint` from a path: torchrun `attempt_N/<local_rank>/stderr.log`, sbatch `%x-%j-%t`,
/// `rank<N>` / `rank_<N>` / `rank-<N>` tokens. Compression suffixes are ignored; host names are
/// never taken from file names. Exposed for tests.
Attribution hint_from_path(const std::string& display_path);

}  // namespace megatriage
