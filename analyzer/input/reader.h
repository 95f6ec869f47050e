// Read stage: a ByteSource hands out a file's (decompressed) bytes in blocks. Plain files use
// raw read(2); compressed ones go through Boost.Iostreams (only reader.cc knows that).
// Damaged input becomes a diagnostic and the bytes decoded so far are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/diagnostics.h"
#include "input/discover.h"

namespace megatriage {

/// "Fill this buffer, return the count, 0 at end." Never throws.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Reads up to `capacity` bytes into `buffer`; 0 means end of data (or an error that has been
  /// recorded as a diagnostic).
  virtual std::size_t read(char* buffer, std::size_t capacity) = 0;
};

struct ReadLimits {
  std::uint64_t max_decompressed_bytes = 16ull << 30;  // zip-bomb guard per file (--max-decompressed-bytes)
};

/// Opens `file` and returns a source of its (decompressed) bytes. `file.compression` is set
/// from the first bytes: for a file over `sniff_at_open_above` bytes at once, for a smaller one
/// by its first read (the magic bytes are in the data read anyway: no extra read per file).
/// `file` must outlive the source. Returns nullptr (and a diagnostic) when the file cannot be
/// opened. Standard input (`file.is_stdin`) is read as a stream to its end, compressed or not
/// (magic bytes); its `size_bytes` grows with the bytes read.
/// Later read errors and corrupt/truncated streams are diagnostics recorded into `diags`
/// (codes `read.*`) while reading.
std::unique_ptr<ByteSource> open_source(SourceFile& file, const ReadLimits& limits,
                                        DiagnosticSink& diags,
                                        std::uint64_t sniff_at_open_above = 1 << 20);

/// The compression of the file at `path` by its first bytes; None when it cannot be read.
Compression sniff_compression(const std::string& path);

/// Reads a small file named on the command line (a batch script) whole, with the log reader's
/// checks and codes: a missing path is `read.open-failed`, a directory `read.directory`, a
/// FIFO, socket or device `discover.special-file` (never opened, so nothing blocks), a file we
/// may not read `discover.unreadable`, one over `max_bytes` `read.too-large`, an empty one
/// `read.empty-file` (Warning: the file was asked for); compressed files are decompressed.
/// Returns nullopt after a diagnostic in `diags` when there is nothing to use; the bytes
/// otherwise (damage after the first bytes is a `read.*` diagnostic, the rest is kept).
/// Text or binary is the caller's question (scan/line_splitter.h looks_binary).
std::optional<std::string> read_whole_file(const std::string& path, const std::string& display_path,
                                           std::uint64_t max_bytes, DiagnosticSink& diags);

/// An in-memory source for tests and fuzzing; the bytes are copied. If `compression` is not
/// None the bytes are decompressed like a file's would be.
std::unique_ptr<ByteSource> memory_source(std::string bytes, Compression compression,
                                          const std::string& display_path,
                                          DiagnosticSink& diags,
                                          const ReadLimits& limits = {});

}  // namespace megatriage
