// The frames of one exception block, packed: their texts in one buffer and a small record per
// frame, where a Frame holds three strings of its own. A job of thousands of ranks keeps a
// traceback of each until the report, and their frames were a large part of what it kept.
// Read as Frame values; the report copies the few it shows (RootCauseReport::frames).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace megatriage {

struct Frame {
  std::string path;
  int line = 0;
  std::string function;
  std::string source;  // first source line, stripped; empty when not printed
};

class FrameList {
 public:
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  std::string_view path(std::size_t i) const { return part(i, 0); }
  std::string_view function(std::size_t i) const { return part(i, 1); }
  std::string_view source(std::size_t i) const { return part(i, 2); }
  int line(std::size_t i) const { return entries_[i].line; }

  /// Frame `i` as a value (its strings copied).
  Frame operator[](std::size_t i) const;
  Frame at(std::size_t i) const;  // throws std::out_of_range past the end
  Frame front() const { return (*this)[0]; }
  Frame back() const { return (*this)[size() - 1]; }
  /// Frames `from` to the end, as values.
  std::vector<Frame> to_vector(std::size_t from = 0) const;

  void push_back(std::string_view path, int line, std::string_view function, std::string_view source = {});
  void push_back(const Frame& f) { push_back(f.path, f.line, f.function, f.source); }
  /// Sets the source line of the last frame (printed on the line after it).
  void set_last_source(std::string_view source);
  /// Drops frame `i` (the frame cap's middle frame); its bytes are reclaimed once they are
  /// half of the buffer, so a cap hit on every frame of an endless traceback stays linear.
  void erase(std::size_t i);
  /// Gives back the buffers' growth slack (a finished traceback is kept until the report).
  void shrink_to_fit();

  /// Iterates frames as values (`for (const Frame& f : list)`).
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Frame;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Frame;
    const_iterator(const FrameList* list, std::size_t i) : list_(list), i_(i) {}
    Frame operator*() const { return (*list_)[i_]; }
    const_iterator& operator++() { ++i_; return *this; }
    const_iterator operator++(int) { const_iterator old = *this; ++i_; return old; }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const FrameList* list_;
    std::size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  // A frame's texts lie together in text_: path, function, source.
  struct Entry {
    std::uint64_t at = 0;
    std::uint32_t sizes[3] = {0, 0, 0};
    int line = 0;
  };
  std::string_view part(std::size_t i, int which) const;

  std::vector<Entry> entries_;
  std::string text_;
  std::size_t unused_bytes_ = 0;  // bytes in text_ of erased or rewritten frames
};

}  // namespace megatriage
