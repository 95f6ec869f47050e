#include "model/frame_list.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace megatriage {

namespace {

// A field longer than a record can say is cut there (4 GiB: no cap of the analysis lets one
// get near it).
std::string_view fitted(std::string_view s) {
  return s.substr(0, std::min<std::size_t>(s.size(), std::numeric_limits<std::uint32_t>::max()));
}

// Room for a typical block's frames at its first frame: one growth or none, where doubling from
// empty took seven.
constexpr std::size_t kFirstTextBytes = 1024;
constexpr std::size_t kFirstFrames = 8;

}  // namespace

std::string_view FrameList::part(std::size_t i, int which) const {
  const Entry& e = entries_[i];
  std::size_t at = static_cast<std::size_t>(e.at);
  for (int k = 0; k < which; ++k) at += e.sizes[k];
  return std::string_view(text_).substr(at, e.sizes[which]);
}

Frame FrameList::operator[](std::size_t i) const {
  Frame f;
  f.path = path(i);
  f.line = line(i);
  f.function = function(i);
  f.source = source(i);
  return f;
}

Frame FrameList::at(std::size_t i) const {
  if (i >= size()) throw std::out_of_range("FrameList::at");
  return (*this)[i];
}

std::vector<Frame> FrameList::to_vector(std::size_t from) const {
  std::vector<Frame> out;
  if (from >= size()) return out;
  out.reserve(size() - from);
  for (std::size_t i = from; i < size(); ++i) out.push_back((*this)[i]);
  return out;
}

void FrameList::push_back(std::string_view path, int line, std::string_view function, std::string_view source) {
  if (entries_.empty()) {
    entries_.reserve(kFirstFrames);
    text_.reserve(kFirstTextBytes);
  }
  path = fitted(path), function = fitted(function), source = fitted(source);
  Entry e;
  e.at = text_.size();
  e.sizes[0] = static_cast<std::uint32_t>(path.size());
  e.sizes[1] = static_cast<std::uint32_t>(function.size());
  e.sizes[2] = static_cast<std::uint32_t>(source.size());
  e.line = line;
  text_.append(path).append(function).append(source);
  entries_.push_back(e);
}

void FrameList::set_last_source(std::string_view source) {
  if (entries_.empty()) return;
  Entry& e = entries_.back();
  const std::size_t end = static_cast<std::size_t>(e.at) + e.sizes[0] + e.sizes[1] + e.sizes[2];
  source = fitted(source);
  if (end == text_.size()) {
    // The last frame's texts end the buffer (they always do: frames are only added at the end).
    text_.resize(end - e.sizes[2]);
    text_.append(source);
  } else {
    const std::string head(std::string_view(text_).substr(static_cast<std::size_t>(e.at), e.sizes[0] + e.sizes[1]));
    unused_bytes_ += end - static_cast<std::size_t>(e.at);
    e.at = text_.size();
    text_.append(head).append(source);
  }
  e.sizes[2] = static_cast<std::uint32_t>(source.size());
}

void FrameList::erase(std::size_t i) {
  if (i >= entries_.size()) return;
  const Entry& e = entries_[i];
  unused_bytes_ += e.sizes[0] + e.sizes[1] + e.sizes[2];
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  if (2 * unused_bytes_ <= text_.size()) return;
  // Half the buffer is erased frames: copy the others' texts together, in order.
  std::string packed;
  packed.reserve(text_.size() - unused_bytes_);
  for (Entry& kept : entries_) {
    const std::size_t bytes = kept.sizes[0] + kept.sizes[1] + kept.sizes[2];
    const std::size_t from = static_cast<std::size_t>(kept.at);
    kept.at = packed.size();
    packed.append(text_, from, bytes);
  }
  text_ = std::move(packed);
  unused_bytes_ = 0;
}

void FrameList::shrink_to_fit() {
  entries_.shrink_to_fit();
  text_.shrink_to_fit();
}

}  // namespace megatriage
