#include "scan/chunk_scan.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <system_error>

namespace megatriage {

ChunkedHits::ChunkedHits(const std::string& path, std::uint64_t size, const TriggerScanner& scanner,
                         std::size_t chunk_bytes, std::size_t max_line_bytes, unsigned helpers)
    : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)), size_(size), scanner_(scanner), chunk_bytes_(std::max<std::size_t>(chunk_bytes, 1)),
      max_line_bytes_(max_line_bytes), chunk_count_((size + chunk_bytes_ - 1) / chunk_bytes_),
      max_ahead_(2 * static_cast<std::uint64_t>(std::max(helpers, 1u)) + 2) {
  // Fewer helpers than asked (thread limit) only means the reader searches more itself.
  try {
    for (unsigned i = 0; i < std::max(helpers, 1u); ++i) threads_.emplace_back([this] { work(); });
  } catch (const std::system_error&) {
  }
}

ChunkedHits::~ChunkedHits() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (auto& t : threads_) t.join();
  if (fd_ >= 0) ::close(fd_);
}

void ChunkedHits::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] {
      return stop_ || (next_ < chunk_count_ && (next_ < first_ + max_ahead_ || next_ <= wanted_));
    });
    if (stop_) return;
    try {
      take_and_search(lock);
    } catch (const std::exception&) {
      return;  // out of memory here: the reader searches what is left itself
    }
  }
}

// Requires: `lock` held, next_ < chunk_count_. Searches chunk next_ with the lock released.
void ChunkedHits::take_and_search(std::unique_lock<std::mutex>& lock) {
  // Room first, then take the index: if the deque cannot grow, no chunk is left half-taken.
  while (window_.size() <= next_ - first_) window_.emplace_back();
  std::uint64_t index = next_++;
  Chunk result;
  if (!spare_.empty()) {  // reuse a buffer: a fresh 2 MiB allocation costs page faults
    result.bytes = std::move(spare_.back());
    spare_.pop_back();
  }
  lock.unlock();
  try {
    search_chunk(index, result);
  } catch (const std::exception&) {  // out of memory in a helper: the reader reads it itself
    result = Chunk{};
    result.done = result.failed = true;
  }
  lock.lock();
  if (index >= first_) window_[index - first_] = std::move(result);
  changed_.notify_all();
}

// Reads chunk `index` from one byte before it (to see whether a line starts at its first byte)
// to max_line_bytes past its end (to finish its last line) and searches the lines starting in it.
void ChunkedHits::search_chunk(std::uint64_t index, Chunk& chunk) const {
  chunk.done = true;
  const std::uint64_t start = index * chunk_bytes_, stop = std::min(size_, start + chunk_bytes_);
  const std::uint64_t from = start == 0 ? 0 : start - 1;
  const std::uint64_t to = std::min<std::uint64_t>(size_, stop + max_line_bytes_ + 2);
  std::vector<char>& buffer = chunk.bytes;
  chunk.from = from;
  buffer.resize(static_cast<std::size_t>(to - from));
  std::size_t got = 0;
  while (fd_ >= 0 && got < buffer.size()) {
    ssize_t n = ::pread(fd_, buffer.data() + got, buffer.size() - got, static_cast<off_t>(from + got));
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  // Not opened, shrank or failed: the extractor's ordinary reader takes over these bytes.
  if (got < buffer.size()) {
    chunk.failed = true;
    return;
  }
  const char* data = buffer.data();
  std::size_t first = 0;  // index of the first line start at or after `start`
  if (start > 0) {
    const void* nl = std::memchr(data, '\n', got);
    if (nl == nullptr) return;  // one line spans the chunk: it started earlier
    first = static_cast<std::size_t>(static_cast<const char*>(nl) - data) + 1;
  }
  const std::size_t chunk_end = static_cast<std::size_t>(stop - from);
  if (first >= chunk_end) return;  // no line starts here
  // The last line starting in the chunk ends at the first '\n' from chunk_end - 1 on.
  const std::size_t look = std::max(first, chunk_end - 1);
  const void* nl = std::memchr(data + look, '\n', got - look);
  const std::size_t end = nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - data) + 1 : got;
  chunk.base = from + first;
  if (searching_.load(std::memory_order_relaxed)) scanner_.scan(std::string_view(data + first, end - first), chunk.hits);
}

void ChunkedHits::stop_searching() {
  searching_.store(false, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mutex_);
  for (Chunk& c : window_) c.hits = {};
}

ChunkedHits::Chunk& ChunkedHits::wait_for(std::unique_lock<std::mutex>& lock, std::uint64_t k) {
  wanted_ = std::max(wanted_, k);
  changed_.notify_all();
  // Rather than wait, the extractor searches chunks too: chunk k itself when no helper took it
  // yet, else the next untaken one (searching is most of the work; waiting would leave a core
  // idle on a 2-core machine).
  auto ready = [&] { return k - first_ < window_.size() && window_[k - first_].done; };
  while (!ready()) {
    if (next_ <= k || (next_ < chunk_count_ && next_ < first_ + max_ahead_))
      take_and_search(lock);
    else
      changed_.wait(lock, [&] { return ready() || (next_ < chunk_count_ && next_ < first_ + max_ahead_); });
  }
  return window_[k - first_];
}

std::size_t ChunkedHits::read_bytes(std::uint64_t offset, char* out, std::size_t capacity) {
  if (offset >= size_ || capacity == 0) return 0;
  const std::uint64_t k = offset / chunk_bytes_;
  std::unique_lock<std::mutex> lock(mutex_);
  if (k < first_) return 0;
  Chunk& c = wait_for(lock, k);
  if (c.failed) return 0;
  const std::uint64_t stop = std::min(size_, (k + 1) * chunk_bytes_);
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(capacity, stop - offset));
  std::memcpy(out, c.bytes.data() + (offset - c.from), n);
  if (offset + n == stop) {  // the reader is past this chunk: its buffer can serve another
    spare_.push_back(std::move(c.bytes));
    c.bytes = {};
    // No hits will be asked for: the chunks up to this one are let go here, not by hits_in.
    if (!searching_.load(std::memory_order_relaxed)) {
      for (; first_ <= k && !window_.empty(); ++first_) window_.pop_front();
      if (next_ < first_) next_ = first_;
      changed_.notify_all();
    }
  }
  return n;
}

std::size_t ChunkSource::read(char* buffer, std::size_t capacity) {
  if (ended_) return 0;
  if (!on_fallback_) {
    std::size_t n = chunks_.read_bytes(offset_, buffer, capacity);
    if (n > 0) {
      offset_ += n;
      return n;
    }
    const std::uint64_t size = file_.size_bytes;
    if (offset_ >= size) {
      ended_ = true;
      struct stat st;
      if (::stat(file_.path.c_str(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) > size)
        diags_.add(Severity::Info, "read.file-grew",
                   "file grew from " + std::to_string(size) + " to " + std::to_string(st.st_size) +
                       " bytes while being read; the first " + std::to_string(size) + " were analysed",
                   file_.display_path, 0, "the job may still be writing; run again once it has ended");
      return 0;
    }
    // A chunk could not be read (the file shrank or changed): the ordinary reader goes on from
    // here, and reports what it finds.
    on_fallback_ = true;
    std::vector<char> skip(1 << 16);
    for (std::uint64_t left = offset_; left > 0;) {
      std::size_t got = fallback_->read(skip.data(), static_cast<std::size_t>(std::min<std::uint64_t>(left, skip.size())));
      if (got == 0) return 0;
      left -= got;
    }
  }
  return fallback_->read(buffer, capacity);
}

bool ChunkedHits::hits_in(std::uint64_t begin, std::size_t length, std::vector<TriggerScanner::Hit>& out) {
  if (length == 0) return true;
  const std::uint64_t end = begin + length;
  if (end > size_) return false;
  const std::uint64_t k0 = begin / chunk_bytes_, k1 = (end - 1) / chunk_bytes_;
  std::unique_lock<std::mutex> lock(mutex_);
  if (k0 < first_) return false;  // ranges must come in order
  // Chunks before k0 own no line in this range or later: release them (and let helpers go on).
  while (first_ < k0) {
    if (!window_.empty()) window_.pop_front();
    ++first_;
  }
  if (next_ < first_) next_ = first_;
  wanted_ = std::max(wanted_, k1);
  changed_.notify_all();
  std::size_t before = out.size();
  for (std::uint64_t k = k0; k <= k1; ++k) {
    const Chunk& c = wait_for(lock, k);
    if (c.failed) {
      out.resize(before);
      return false;
    }
    // Offsets from the chunk's base to offsets from `begin` (hits before `begin` dropped).
    auto at = [&](const TriggerScanner::Hit& h) { return c.base + h.end; };
    auto lo = std::lower_bound(c.hits.begin(), c.hits.end(), begin,
                               [&](const TriggerScanner::Hit& h, std::uint64_t b) { return at(h) < b; });
    for (auto it = lo; it != c.hits.end() && at(*it) < end; ++it)
      out.push_back({static_cast<std::uint32_t>(at(*it) - begin), it->literal, it->needle});
  }
  return true;
}

}  // namespace megatriage
