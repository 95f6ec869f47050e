#include "input/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/iostreams/categories.hpp>
#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filter/lzma.hpp>
#include <boost/iostreams/filter/zlib.hpp>
#include <boost/iostreams/filter/zstd.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <ios>
#include <string_view>
#include <utility>
#include <vector>

#include "base/unique_fd.h"
#include "input/zstd_frames.h"

namespace megatriage {

namespace {

namespace io = boost::iostreams;

std::string errno_text(int err) { return std::strerror(err); }

// Reads from `fd` retrying EINTR. Returns bytes read, 0 at end, -1 with errno on error.
ssize_t read_fd(int fd, char* buffer, std::size_t capacity) {
  for (;;) {
    ssize_t n = ::read(fd, buffer, capacity);
    if (n >= 0 || errno != EINTR) return n;
  }
}

// Opens a regular file for reading without ever blocking: O_NONBLOCK keeps open(2) from
// hanging if the path has become a FIFO since discovery, and fstat then rejects anything that
// is not a regular file. The flag stays set: it has no effect on reads of regular files.
// A file we may not read is reported as `discover.unreadable` (the walk only lists files; it
// does not open them), anything else as `read.open-failed`.
int open_regular(SourceFile& file, DiagnosticSink& diags, struct stat& st) {
  int fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    int err = errno;
    // The report still lists the file with its size (listed without a stat, it has none yet).
    if (struct stat named; !file.sized && ::stat(file.path.c_str(), &named) == 0 && S_ISREG(named.st_mode))
      set_stat(file, named);
    if (err == EACCES || err == EPERM) {
      diags.add(Severity::Warning, "discover.unreadable",
                "cannot read '" + file.display_path + "': " + errno_text(err), file.display_path, 0,
                "check its permissions (run as the job's user, or chmod/chgrp the log directory)");
    } else {
      diags.add(Severity::Warning, "read.open-failed", "cannot open file: " + errno_text(err),
                file.display_path, 0, "check that the file still exists and is readable");
    }
    return -1;
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    diags.add(Severity::Warning, "read.open-failed",
              "cannot open file: no longer a regular file", file.display_path, 0,
              "the path was replaced while megatriage ran");
    return -1;
  }
  return fd;
}

constexpr std::size_t kMagicBytes = 6;  // the longest magic number detect_compression knows (xz)

// Compression from the file's first bytes (pread: the file offset stays at 0).
Compression sniff_fd(int fd, std::uint64_t size) {
  if (size == 0) return Compression::None;
  unsigned char magic[kMagicBytes];
  ssize_t n;
  do {
    n = ::pread(fd, magic, sizeof magic, 0);
  } while (n < 0 && errno == EINTR);
  return n > 0 ? detect_compression(magic, static_cast<std::size_t>(n)) : Compression::None;
}


// ---- plain sources ----

class PlainFileSource final : public ByteSource {
 public:
  // Reads the file as it was when opened: a log still being written (a live job) is read up to
  // its size at open, so a writer faster than us cannot keep the read going forever.
  PlainFileSource(int fd, std::uint64_t size_at_open, std::string display_path, DiagnosticSink& diags)
      : fd_(fd), display_path_(std::move(display_path)), diags_(diags), size_at_open_(size_at_open) {}

  std::size_t read(char* buffer, std::size_t capacity) override {
    if (done_ || capacity == 0) return 0;
    const std::uint64_t left = size_at_open_ - total_;
    if (left == 0) {
      done_ = true;
      // Reported here, at the end, so a source handed over to a decoder never says it: a read
      // that asked for one byte past the rest already knows; else ask the file now.
      std::uint64_t size_now = grew_to_;
      struct stat st;
      if (!end_seen_ && ::fstat(fd_.get(), &st) == 0) size_now = static_cast<std::uint64_t>(st.st_size);
      report_growth(size_now);
      return 0;
    }
    // When the rest fits, ask for one byte more: getting it shows the file grew, and getting
    // exactly the rest shows it did not (no fstat per file to find out).
    const bool probe = capacity > left;
    const std::size_t want = probe ? static_cast<std::size_t>(left) + 1 : capacity;
    ssize_t n = read_fd(fd_.get(), buffer, want);
    if (n < 0) {
      int err = errno;
      diags_.add(Severity::Warning, "read.io-error",
                 "read error after " + std::to_string(total_) + " bytes: " + errno_text(err),
                 display_path_, 0, "the rest of the file could not be read; the bytes before "
                 "the error were analysed");
      done_ = true;
      return 0;
    }
    if (n == 0) {
      done_ = true;
      diags_.add(Severity::Warning, "read.file-shrank",
            "file shrank while being read: ended after " + std::to_string(total_) + " of " +
                std::to_string(size_at_open_) + " bytes",
            display_path_, 0, "something truncated or rewrote the log while megatriage ran");
    }
    if (probe && static_cast<std::uint64_t>(n) > left) {
      n = static_cast<ssize_t>(left);  // the extra byte is past the size at open: not ours
      struct stat st;
      grew_to_ = ::fstat(fd_.get(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : size_at_open_ + 1;
      end_seen_ = true;
    } else if (probe && static_cast<std::uint64_t>(n) == left) {
      end_seen_ = true;  // the file ended exactly at its size at open
    }
    total_ += static_cast<std::uint64_t>(n);
    return static_cast<std::size_t>(n);
  }

  int fd() const { return fd_.get(); }
  /// Gives up the file descriptor (this source reads nothing more).
  int release_fd() {
    done_ = true;
    return fd_.release();
  }

 private:
  void report_growth(std::uint64_t size_now) {
    if (size_now <= size_at_open_) return;
    diags_.add(Severity::Info, "read.file-grew",
               "file grew from " + std::to_string(size_at_open_) + " to " +
                   std::to_string(size_now) + " bytes while being read; the first " +
                   std::to_string(size_at_open_) + " were analysed",
               display_path_, 0, "the job may still be writing; run again once it has ended");
  }

  UniqueFd fd_;
  std::string display_path_;
  DiagnosticSink& diags_;
  std::uint64_t size_at_open_;
  std::uint64_t total_ = 0;
  bool done_ = false;
  bool end_seen_ = false;      // a read already showed whether the file grew
  std::uint64_t grew_to_ = 0;  // the size that read saw, when past the size at open
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string bytes) : bytes_(std::move(bytes)) {}

  std::size_t read(char* buffer, std::size_t capacity) override {
    std::size_t n = std::min(capacity, bytes_.size() - pos_);
    std::memcpy(buffer, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::string bytes_;
  std::size_t pos_ = 0;
};

// ---- decompressing sources ----

// The compressed bytes, as a Boost.Iostreams Source device: owned bytes, then a file descriptor
// (read through a staging buffer) if there is one.
//
// Boost's decompressors drop whatever a read() call decoded when that call ends in an
// exception. So the device answers "would block" (0) once after every block it delivers, which
// makes the decoder return its output before it looks at more input: a failure then costs at
// most the text of the one block it failed in. For zstd, blocks are also cut at frame ends
// (ZstdFrameTracker, zstd_frames.h), so a damaged frame never costs the frames before it. At
// the end of the input the device keeps answering "would block" until the owner allows EOF
// (-1): a truncated stream throws exactly when told about EOF, and by then everything
// decodable has been handed over.
//
// Single-byte reads never get "would block": gzip_decompressor reads the byte after a member's
// footer with get() and would push back a bogus byte; it holds no decoded output there.
class CompressedInput {
 public:
  typedef char char_type;
  struct category : io::source_tag {};

  // `bytes` come first; then, if `fd` is open, the rest of the file from its current offset.
  CompressedInput(int fd, std::string bytes) : fd_(fd), bytes_(std::move(bytes)) {
    if (fd_ >= 0) stage_.resize(kStageBytes);
    data_ = bytes_.data();
    size_ = bytes_.size();
  }

  std::streamsize read(char* s, std::streamsize n) {
    if (n <= 0) return 0;
    if (pause_ && n > 1) {
      pause_ = false;
      ++events_;
      return 0;
    }
    if (pos_ == size_ && !exhausted_) fill_stage();
    if (pos_ < size_) {
      std::size_t got = std::min(static_cast<std::size_t>(n), size_ - pos_);
      if (tracker_) got = tracker_->feed(reinterpret_cast<const unsigned char*>(data_ + pos_), got);
      std::memcpy(s, data_ + pos_, got);
      pos_ += got;
      pause_ = true;
      ++events_;
      return static_cast<std::streamsize>(got);
    }
    if (eof_allowed_ || n == 1) {
      eof_reported_ = true;
      return -1;
    }
    return 0;
  }

  void set_tracker(ZstdFrameTracker* tracker) { tracker_ = tracker; }
  bool exhausted() const { return exhausted_ && pos_ == size_; }
  bool eof_allowed() const { return eof_allowed_; }
  void allow_eof(bool allow) { eof_allowed_ = allow; }
  bool eof_reported() const { return eof_reported_; }
  int read_errno() const { return read_errno_; }
  /// Deliveries plus pauses so far: if a decoder call returns nothing and this did not move,
  /// the decoder is stuck.
  std::uint64_t events() const { return events_; }

 private:
  static constexpr std::size_t kStageBytes = 64 << 10;

  void fill_stage() {
    if (fd_ < 0) {
      exhausted_ = true;
      return;
    }
    ssize_t r = read_fd(fd_, stage_.data(), stage_.size());
    if (r < 0) read_errno_ = errno;
    if (r <= 0) {
      exhausted_ = true;
      size_ = pos_ = 0;
      return;
    }
    data_ = stage_.data();
    size_ = static_cast<std::size_t>(r);
    pos_ = 0;
  }

  int fd_;             // not owned; -1 for in-memory input
  std::string bytes_;  // in-memory input
  std::vector<char> stage_;
  const char* data_ = nullptr;
  std::size_t size_ = 0, pos_ = 0;  // data_[pos_, size_) not yet delivered
  ZstdFrameTracker* tracker_ = nullptr;
  bool pause_ = false, exhausted_ = false, eof_allowed_ = false, eof_reported_ = false;
  int read_errno_ = 0;
  std::uint64_t events_ = 0;
};

// A short reason for a library exception; Boost's what() is mostly "iostream error".
std::string describe_error(const std::exception& e) {
  if (const auto* g = dynamic_cast<const io::gzip_error*>(&e)) {
    switch (g->error()) {
      case io::gzip::bad_crc: return "CRC mismatch";
      case io::gzip::bad_length: return "length mismatch";
      case io::gzip::bad_header: return "bad gzip header";
      case io::gzip::bad_footer: return "bad or missing gzip footer";
      case io::gzip::zlib_error:
        if (g->zlib_error_code() == io::zlib::data_error) return "invalid deflate data";
        if (g->zlib_error_code() == io::zlib::buf_error) return "deflate data ends early";
        return "zlib error " + std::to_string(g->zlib_error_code());
      default: break;
    }
    return "gzip error " + std::to_string(g->error());
  }
  if (const auto* z = dynamic_cast<const io::zlib_error*>(&e))
    return "zlib error " + std::to_string(z->error());
  if (const auto* b = dynamic_cast<const io::bzip2_error*>(&e)) {
    if (b->error() == io::bzip2::data_error || b->error() == io::bzip2::data_error_magic)
      return "invalid bzip2 data";
    if (b->error() == io::bzip2::unexpected_eof) return "bzip2 data ends early";
    return "bzip2 error " + std::to_string(b->error());
  }
  if (const auto* x = dynamic_cast<const io::lzma_error*>(&e)) {
    if (x->error() == io::lzma::data_error) return "invalid xz data";
    if (x->error() == io::lzma::buf_error) return "xz data ends early";
    return "xz error " + std::to_string(x->error());
  }
  if (const auto* z = dynamic_cast<const io::zstd_error*>(&e))
    return "zstd error " + std::to_string(z->error());
  if (dynamic_cast<const std::bad_alloc*>(&e)) return "out of memory";
  return e.what();
}

template <typename Filter>
class DecodingSource final : public ByteSource {
 public:
  DecodingSource(Compression compression, int fd, std::string bytes, std::string display_path,
                 DiagnosticSink& diags, const ReadLimits& limits)
      : compression_(compression),
        fd_(fd),
        input_(fd, std::move(bytes)),
        display_path_(std::move(display_path)),
        diags_(diags),
        limit_(limits.max_decompressed_bytes) {
    if (compression_ == Compression::Zstd) input_.set_tracker(&tracker_);
  }

  std::size_t read(char* buffer, std::size_t capacity) override {
    if (done_ || capacity == 0) return 0;
    // Ask for one byte past the limit when the limit is near: getting it proves the stream is
    // longer than allowed, while a stream that ends exactly at the limit is not reported.
    std::uint64_t room = limit_ - produced_;
    std::size_t want = capacity;
    if (room < capacity) want = static_cast<std::size_t>(room) + 1;

    std::size_t got = 0;
    try {
      // A call that returns nothing has either paused after a block (call again), drained
      // everything before the end of input (allow EOF and call again), or finished.
      for (;;) {
        std::uint64_t events = input_.events();
        std::streamsize n = filter_.read(input_, buffer, static_cast<std::streamsize>(want));
        if (n > 0) {
          got = static_cast<std::size_t>(n);
          input_.allow_eof(false);
          break;
        }
        if (n == 0 && input_.exhausted() && !input_.eof_allowed()) {
          input_.allow_eof(true);
          continue;
        }
        if (n == 0 && input_.events() != events && !input_.eof_allowed()) continue;
        finish_clean();
        return 0;
      }
    } catch (const std::exception& e) {
      fail(e);
      return 0;
    }
    if (got > room) {
      got = static_cast<std::size_t>(room);
      done_ = true;
      diags_.add(Severity::Warning, "read.decompressed-limit",
                 "stopped after " + std::to_string(limit_) +
                     " decompressed bytes (the per-file limit); the rest was not analysed",
                 display_path_, 0,
                 "the limit guards against decompression bombs; raise it if the log really is "
                 "this large");
    }
    produced_ += got;
    return got;
  }

 private:
  void finish_clean() {
    done_ = true;
    if (report_io_error()) return;
    if (compression_ == Compression::Zstd && !tracker_.at_boundary()) {
      diags_.add(Severity::Warning, "read.truncated-zstd",
                 "zstd stream ends early (truncated) after " + std::to_string(produced_) +
                     " decoded bytes",
                 display_path_, 0,
                 "the file is damaged or was cut while being written; the " +
                     std::to_string(produced_) + " bytes decoded before the cut were analysed");
    }
  }

  bool report_io_error() {
    if (input_.read_errno() == 0) return false;
    diags_.add(Severity::Warning, "read.io-error",
               "read error after " + std::to_string(produced_) +
                   " decoded bytes: " + errno_text(input_.read_errno()),
               display_path_, 0,
               "the rest of the file could not be read; the bytes before the error were "
               "analysed");
    return true;
  }

  void fail(const std::exception& e) {
    done_ = true;
    if (report_io_error()) return;
    // Told about the end of input before it failed: the stream was cut, not garbled.
    bool truncated = input_.eof_reported();
    std::string format = compression_name(compression_);
    std::string decoded = std::to_string(produced_);
    if (truncated) {
      diags_.add(Severity::Warning, "read.truncated-" + format,
                 format + " stream ends early (truncated) after " + decoded +
                     " decoded bytes (" + describe_error(e) + ")",
                 display_path_, 0,
                 "the file is damaged or was cut while being written; the " + decoded +
                     " bytes decoded before the cut were analysed");
    } else {
      diags_.add(Severity::Warning, "read.corrupt-" + format,
                 format + " data is corrupt after " + decoded + " decoded bytes (" +
                     describe_error(e) + "); the rest of the file was skipped",
                 display_path_, 0,
                 "the file is damaged; the " + decoded +
                     " bytes decoded before the damage were analysed");
    }
  }

  Compression compression_;
  UniqueFd fd_;
  ZstdFrameTracker tracker_;
  CompressedInput input_;
  Filter filter_;
  std::string display_path_;
  DiagnosticSink& diags_;
  std::uint64_t limit_;
  std::uint64_t produced_ = 0;
  bool done_ = false;
};

std::unique_ptr<ByteSource> make_decoder(Compression compression, int fd, std::string bytes,
                                         const std::string& display_path,
                                         DiagnosticSink& diags, const ReadLimits& limits) {
  switch (compression) {
    case Compression::Gzip:
      return std::make_unique<DecodingSource<io::gzip_decompressor>>(
          compression, fd, std::move(bytes), display_path, diags, limits);
    case Compression::Bzip2:
      return std::make_unique<DecodingSource<io::bzip2_decompressor>>(
          compression, fd, std::move(bytes), display_path, diags, limits);
    case Compression::Xz:
      return std::make_unique<DecodingSource<io::lzma_decompressor>>(
          compression, fd, std::move(bytes), display_path, diags, limits);
    case Compression::Zstd:
      return std::make_unique<DecodingSource<io::zstd_decompressor>>(
          compression, fd, std::move(bytes), display_path, diags, limits);
    case Compression::None: break;
  }
  return nullptr;
}

// A file whose compression its first read shows: the magic bytes are looked at in the data a
// plain read gets anyway, so a small file costs no read of its own for them. A compressed file
// then goes to a decoder that starts with those bytes and reads on from the file.
class SniffingSource final : public ByteSource {
 public:
  SniffingSource(int fd, std::uint64_t size, SourceFile& file, DiagnosticSink& diags,
                 const ReadLimits& limits)
      : plain_(std::make_unique<PlainFileSource>(fd, size, file.display_path, diags)),
        file_(file), diags_(diags), limits_(limits), size_(size) {}

  std::size_t read(char* buffer, std::size_t capacity) override {
    if (decoder_) return decoder_->read(buffer, capacity);
    if (sniffed_) return plain_->read(buffer, capacity);
    sniffed_ = true;
    const std::size_t n = plain_->read(buffer, capacity);
    file_.compression = detect_compression(reinterpret_cast<const unsigned char*>(buffer), n);
    // A read too small to hold a whole magic number (a tiny buffer, not a tiny file): look
    // at the file's first bytes directly.
    if (file_.compression == Compression::None && n < kMagicBytes && n < size_)
      file_.compression = sniff_fd(plain_->fd(), size_);
    if (file_.compression == Compression::None) return n;
    // Back to just after the bytes handed over (a read that saw the file grow took one more).
    const int fd = plain_->release_fd();
    plain_.reset();
    if (::lseek(fd, static_cast<off_t>(n), SEEK_SET) < 0) {
      ::close(fd);
      diags_.add(Severity::Warning, "read.io-error",
                 "cannot go on reading after the first " + std::to_string(n) + " bytes: " + errno_text(errno),
                 file_.display_path, 0, "the rest of the file could not be read");
      return 0;
    }
    decoder_ = make_decoder(file_.compression, fd, std::string(buffer, n), file_.display_path, diags_, limits_);
    return decoder_->read(buffer, capacity);
  }

 private:
  std::unique_ptr<PlainFileSource> plain_;
  std::unique_ptr<ByteSource> decoder_;
  SourceFile& file_;
  DiagnosticSink& diags_;
  ReadLimits limits_;
  std::uint64_t size_;
  bool sniffed_ = false;
};

// Standard input (`-`): a pipe, a terminal or a redirected file, read once to its end. Its
// size is unknown until then (the report's size is the bytes it gave); compression is found
// from its first bytes, as a small file's is, and a compressed stream goes to a decoder that
// starts with those bytes and reads on from the pipe.
class StreamSource final : public ByteSource {
 public:
  StreamSource(int fd, SourceFile& file, DiagnosticSink& diags, const ReadLimits& limits)
      : fd_(fd), file_(file), diags_(diags), limits_(limits) {}

  std::size_t read(char* buffer, std::size_t capacity) override {
    if (decoder_) return decoder_->read(buffer, capacity);
    if (capacity == 0) return 0;
    std::size_t n = 0;
    if (!sniffed_) {
      sniffed_ = true;
      // A pipe hands over what its writer has written so far: read on until the longest magic
      // number is in (or the input ends).
      while (!done_ && n < kMagicBytes && n < capacity) n += read_some(buffer + n, capacity - n);
      file_.compression = detect_compression(reinterpret_cast<const unsigned char*>(buffer), n);
      if (file_.compression != Compression::None) {
        decoder_ = make_decoder(file_.compression, fd_.release(), std::string(buffer, n),
                                file_.display_path, diags_, limits_);
        return decoder_->read(buffer, capacity);
      }
    } else {
      n = read_some(buffer, capacity);
    }
    file_.size_bytes += n;
    return n;
  }

 private:
  std::size_t read_some(char* buffer, std::size_t capacity) {
    if (done_) return 0;
    const ssize_t r = read_fd(fd_.get(), buffer, capacity);
    if (r > 0) return static_cast<std::size_t>(r);
    done_ = true;
    if (r < 0) {
      diags_.add(Severity::Warning, "read.io-error",
                 "read error after " + std::to_string(file_.size_bytes) + " bytes: " + errno_text(errno),
                 file_.display_path, 0, "the rest of the input could not be read; the bytes before "
                 "the error were analysed");
    }
    return 0;
  }

  UniqueFd fd_;
  std::unique_ptr<ByteSource> decoder_;
  SourceFile& file_;
  DiagnosticSink& diags_;
  ReadLimits limits_;
  bool sniffed_ = false, done_ = false;
};

std::unique_ptr<ByteSource> open_stdin(SourceFile& file, const ReadLimits& limits, DiagnosticSink& diags) {
  // A copy of the descriptor: the decoders close theirs, and standard input stays open.
  const int fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    diags.add(Severity::Warning, "read.open-failed", "cannot read standard input: " + errno_text(errno),
              file.display_path, 0, "pipe the log into megatriage (zcat job.err.gz | megatriage -)");
    return nullptr;
  }
  file.compression = Compression::None;
  file.size_bytes = 0;
  return std::make_unique<StreamSource>(fd, file, diags, limits);
}

}  // namespace

std::unique_ptr<ByteSource> open_source(SourceFile& file, const ReadLimits& limits,
                                        DiagnosticSink& diags, std::uint64_t sniff_at_open_above) {
  if (file.is_stdin) return open_stdin(file, limits, diags);
  struct stat st;
  int fd = open_regular(file, diags, st);
  if (fd < 0) return nullptr;
  set_stat(file, st);  // what is read is what this stat saw, whatever the walk saw before
  const auto size = static_cast<std::uint64_t>(st.st_size);
  file.compression = Compression::None;
  if (size > 0 && size <= sniff_at_open_above)
    return std::make_unique<SniffingSource>(fd, size, file, diags, limits);
  file.compression = sniff_fd(fd, size);
  if (file.compression == Compression::None)
    return std::make_unique<PlainFileSource>(fd, size, file.display_path, diags);
  return make_decoder(file.compression, fd, {}, file.display_path, diags, limits);
}

Compression sniff_compression(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return Compression::None;
  struct stat st;
  Compression c = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
                      ? sniff_fd(fd, static_cast<std::uint64_t>(st.st_size))
                      : Compression::None;
  ::close(fd);
  return c;
}

std::optional<std::string> read_whole_file(const std::string& path, const std::string& display_path,
                                           std::uint64_t max_bytes, DiagnosticSink& diags) {
  // A stat before the open: a FIFO is reported without opening it (nothing may block), and a
  // directory by name, where open_source would only say "not a regular file".
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == EACCES || err == EPERM) {
      diags.add(Severity::Warning, "discover.unreadable",
                "cannot read '" + display_path + "': " + errno_text(err), display_path, 0,
                "check its permissions and those of the folders above it");
    } else {
      diags.add(Severity::Warning, "read.open-failed", "cannot open '" + display_path + "': " + errno_text(err),
                display_path, 0, "check the path");
    }
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    diags.add(Severity::Warning, "read.directory", "'" + display_path + "' is a directory, not a file",
              display_path, 0, "name the file itself, e.g. " + display_path + "/job.sbatch");
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                                              : "not a regular file";
    diags.add(Severity::Warning, "discover.special-file",
              "'" + display_path + "' is " + std::string(kind) + "; skipped (never opened)", display_path, 0,
              "pass a regular file; save a pipe's output to a file first");
    return std::nullopt;
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    diags.add(Severity::Warning, "read.too-large",
              "'" + display_path + "' is " + std::to_string(st.st_size) + " bytes, over the " +
                  std::to_string(max_bytes) + " this file may have; skipped",
              display_path, 0, "is it the right file?");
    return std::nullopt;
  }
  SourceFile file;
  file.path = path;
  file.display_path = display_path;
  ReadLimits limits;
  limits.max_decompressed_bytes = max_bytes;
  std::unique_ptr<ByteSource> source = open_source(file, limits, diags);
  if (!source) return std::nullopt;
  std::string bytes;
  char buffer[64 << 10];
  while (std::size_t n = source->read(buffer, sizeof buffer)) bytes.append(buffer, n);
  if (bytes.empty()) {
    diags.add(Severity::Warning, "read.empty-file", "'" + display_path + "' is empty", display_path);
    return std::nullopt;
  }
  return bytes;
}

std::unique_ptr<ByteSource> memory_source(std::string bytes, Compression compression,
                                          const std::string& display_path,
                                          DiagnosticSink& diags, const ReadLimits& limits) {
  if (compression == Compression::None) return std::make_unique<MemorySource>(std::move(bytes));
  return make_decoder(compression, -1, std::move(bytes), display_path, diags, limits);
}

}  // namespace megatriage
