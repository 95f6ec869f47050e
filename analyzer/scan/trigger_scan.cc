#include "scan/trigger_scan.h"

#include "base/run_cache.h"
#include "base/simd_level.h"

#if MEGATRIAGE_HAVE_VECTORSCAN
#include <hs/hs.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace megatriage {

#if MEGATRIAGE_HAVE_VECTORSCAN
struct TriggerScanner::Database {
  hs_database_t* db = nullptr;
  std::uint64_t serial = 0;  // unique per database ever built: addresses get reused
};
#endif

namespace {

// Every timestamp shape parse_timestamp() accepts prints `HH:MM:SS` with two-digit fields. Found
// by a SIMD pass of our own: as a Vectorscan regex it cost more than all the literals together.
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// `text[i]` and `text[i + 3]` are ':'; are the six digits around them there too?
bool time_at(std::string_view text, std::size_t i) {
  if (i < 2 || i + 6 > text.size()) return false;
  const char* p = text.data() + i;
  return is_digit(p[-2]) && is_digit(p[-1]) && is_digit(p[1]) && is_digit(p[2]) && is_digit(p[4]) &&
         is_digit(p[5]);
}

void check_time_at(std::string_view text, std::size_t i, std::vector<TriggerScanner::Hit>& hits) {
  if (time_at(text, i)) hits.push_back({static_cast<std::uint32_t>(i + 5), TriggerScanner::kStamp, false});
}

// A one-byte literal found in the same pass as the stamps (ESC): one pass over the text fewer.
struct ByteLiteral {
  int byte = -1;  // -1: none
  std::uint16_t literal = 0;
  bool needle = false;
};

void find_times_scalar(std::string_view text, std::size_t from, const ByteLiteral& one,
                       std::vector<TriggerScanner::Hit>& hits, std::vector<TriggerScanner::Hit>& byte_hits) {
  for (std::size_t i = from; i < text.size(); ++i) {
    if (i + 3 < text.size() && text[i] == ':' && text[i + 3] == ':') check_time_at(text, i, hits);
    if (static_cast<unsigned char>(text[i]) == one.byte)
      byte_hits.push_back({static_cast<std::uint32_t>(i), one.literal, one.needle});
  }
}

void add_byte_hits(std::uint64_t mask, std::size_t at, const ByteLiteral& one,
                   std::vector<TriggerScanner::Hit>& byte_hits) {
  for (; mask != 0; mask &= mask - 1)
    byte_hits.push_back({static_cast<std::uint32_t>(at + static_cast<std::size_t>(__builtin_ctzll(mask))),
                         one.literal, one.needle});
}

#if defined(__x86_64__)
void find_times_sse2(std::string_view text, std::size_t from, const ByteLiteral& one,
                     std::vector<TriggerScanner::Hit>& hits, std::vector<TriggerScanner::Hit>& byte_hits) {
  const __m128i colon = _mm_set1_epi8(':');
  const __m128i byte = _mm_set1_epi8(static_cast<char>(one.byte));  // used only with_byte
  const bool with_byte = one.byte >= 0;
  std::size_t i = from;
  for (; i + 3 + 16 <= text.size(); i += 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + 3));
    auto mask = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, colon), _mm_cmpeq_epi8(b, colon))));
    while (mask != 0) {
      check_time_at(text, i + static_cast<std::size_t>(__builtin_ctz(mask)), hits);
      mask &= mask - 1;
    }
    if (with_byte) add_byte_hits(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, byte))), i, one, byte_hits);
  }
  // The last colons: one block that ends at the text's end and overlaps what was looked at,
  // instead of a byte at a time (in a one-line text that tail was most of the work).
  if (!with_byte && i + 3 < text.size() && text.size() >= 3 + 16) {
    const std::size_t at = text.size() - 3 - 16;  // i - at < 16: the loop stopped within a block
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + at));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + at + 3));
    auto mask = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, colon), _mm_cmpeq_epi8(b, colon))));
    mask &= ~((1U << (i - at)) - 1);  // positions before i were looked at
    for (; mask != 0; mask &= mask - 1) check_time_at(text, at + static_cast<std::size_t>(__builtin_ctz(mask)), hits);
    return;
  }
  find_times_scalar(text, i, one, hits, byte_hits);
}

// The 64-byte block at `i`: a stamp's check where `times` has a bit (a `:` three bytes before
// another), a hit where `bytes` has one (the one-byte literal). Inlined into each width's loop.
[[gnu::always_inline]] inline void take_block(std::string_view text, std::size_t i, std::uint64_t times,
                                              std::uint64_t bytes, const ByteLiteral& one,
                                              std::vector<TriggerScanner::Hit>& hits,
                                              std::vector<TriggerScanner::Hit>& byte_hits) {
  for (; times != 0; times &= times - 1)
    check_time_at(text, i + static_cast<std::size_t>(__builtin_ctzll(times)), hits);
  if (bytes != 0) add_byte_hits(bytes, i, one, byte_hits);
}

// The byte masks of two 32-byte blocks, the first in the low half.
__attribute__((target("avx2"))) std::uint64_t mask64(__m256i low, __m256i high) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(low))) |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(high))) << 32;
}

__attribute__((target("avx2"))) void find_times_avx2(std::string_view text, const ByteLiteral& one,
                                                     std::vector<TriggerScanner::Hit>& hits,
                                                     std::vector<TriggerScanner::Hit>& byte_hits) {
  const __m256i colon = _mm256_set1_epi8(':');
  const __m256i byte = _mm256_set1_epi8(static_cast<char>(one.byte));  // used only with_byte
  const bool with_byte = one.byte >= 0;
  std::size_t i = 0;
  // Two blocks a step, one test for all: most of a log has no `:..:` at all.
  for (; i + 3 + 64 <= text.size(); i += 64) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i + 3));
    __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i + 32));
    __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i + 35));
    __m256i first = _mm256_and_si256(_mm256_cmpeq_epi8(a, colon), _mm256_cmpeq_epi8(b, colon));
    __m256i second = _mm256_and_si256(_mm256_cmpeq_epi8(c, colon), _mm256_cmpeq_epi8(d, colon));
    __m256i byte_low = _mm256_setzero_si256(), byte_high = _mm256_setzero_si256();
    if (with_byte) {
      byte_low = _mm256_cmpeq_epi8(a, byte);
      byte_high = _mm256_cmpeq_epi8(c, byte);
    }
    __m256i any = _mm256_or_si256(_mm256_or_si256(first, second), _mm256_or_si256(byte_low, byte_high));
    if (_mm256_testz_si256(any, any)) continue;
    take_block(text, i, mask64(first, second), with_byte ? mask64(byte_low, byte_high) : 0, one, hits,
               byte_hits);
  }
  // The last bytes 16 at a time: a short text (one line) is mostly tail.
  find_times_sse2(text, i, one, hits, byte_hits);
}

// The same, 64 bytes a step compared straight into masks (AVX-512BW).
__attribute__((target("avx512f,avx512bw"))) void find_times_avx512(
    std::string_view text, const ByteLiteral& one, std::vector<TriggerScanner::Hit>& hits,
    std::vector<TriggerScanner::Hit>& byte_hits) {
  const __m512i colon = _mm512_set1_epi8(':');
  const __m512i byte = _mm512_set1_epi8(static_cast<char>(one.byte));  // used only with_byte
  const bool with_byte = one.byte >= 0;
  std::size_t i = 0;
  for (; i + 3 + 64 <= text.size(); i += 64) {
    const __m512i a = _mm512_loadu_si512(text.data() + i);
    const __m512i b = _mm512_loadu_si512(text.data() + i + 3);
    const std::uint64_t times = _mm512_mask_cmpeq_epi8_mask(_mm512_cmpeq_epi8_mask(a, colon), b, colon);
    const std::uint64_t bytes = with_byte ? _mm512_cmpeq_epi8_mask(a, byte) : 0;
    if ((times | bytes) != 0) take_block(text, i, times, bytes, one, hits, byte_hits);
  }
  find_times_sse2(text, i, one, hits, byte_hits);
}

#endif

// Appends the stamps of `text` to `hits` and the occurrences of `one`'s byte to `byte_hits`,
// each in ascending order.
void find_times(std::string_view text, const ByteLiteral& one, std::vector<TriggerScanner::Hit>& hits,
                std::vector<TriggerScanner::Hit>& byte_hits) {
#if defined(__x86_64__)
  if (simd_level() >= SimdLevel::Avx512) return find_times_avx512(text, one, hits, byte_hits);
  if (simd_level() >= SimdLevel::Avx2) return find_times_avx2(text, one, hits, byte_hits);
  return find_times_sse2(text, 0, one, hits, byte_hits);
#else
  find_times_scalar(text, 0, one, hits, byte_hits);
#endif
}

#if MEGATRIAGE_HAVE_VECTORSCAN
// Scratch space is per thread; one scratch serves every database (hs_alloc_scratch grows it).
struct ThreadScratch {
  hs_scratch_t* scratch = nullptr;
  std::uint64_t sized_for = 0;  // serial of the database it fits (hs_alloc_scratch is not free)
  ~ThreadScratch() {
    if (scratch != nullptr) hs_free_scratch(scratch);
  }
};

// Pattern id: the literal's index.
struct MatchContext {
  std::vector<TriggerScanner::Hit>* hits;
  const std::vector<bool>* needle;
};
int on_match(unsigned int id, unsigned long long, unsigned long long to, unsigned int, void* context) {
  auto& c = *static_cast<MatchContext*>(context);
  c.hits->push_back({static_cast<std::uint32_t>(to - 1), static_cast<std::uint16_t>(id), (*c.needle)[id]});
  return 0;
}
#endif

}  // namespace

TriggerScanner::TriggerScanner(const std::vector<Needle>& needles,
                               const std::vector<std::string>& anchors, DiagnosticSink& diags,
                               Engine engine, const RunCache* cache) {
  // A literal that contains another one finds no line the shorter one misses: drop it (the
  // search costs about linearly in the number of literals). The kept one then stands for a
  // needle whenever a needle contains it, and a hit on it names every such needle's tag.
  std::vector<std::string> kept;
  for (const Needle& n : needles) kept.push_back(n.text);
  kept.insert(kept.end(), anchors.begin(), anchors.end());
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  std::vector<std::string> needed;
  std::vector<bool> needle, anchor;
  for (const std::string& l : kept) {
    bool covered = l.empty() || std::any_of(kept.begin(), kept.end(), [&](const std::string& other) {
                     return !other.empty() && other.size() < l.size() && l.find(other) != std::string::npos;
                   });
    if (covered) continue;
    needed.push_back(l);
    std::vector<int>& tags = tags_.emplace_back();
    bool in_needle = false;
    for (const Needle& n : needles) {
      if (n.text.find(l) == std::string::npos) continue;
      in_needle = true;
      if (n.tag >= 0) tags.push_back(n.tag);
    }
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    needle.push_back(in_needle);
    anchor.push_back(std::any_of(anchors.begin(), anchors.end(),
                                 [&](const std::string& a) { return a.find(l) != std::string::npos; }));
  }
  literals_ = needed;
  needle_ = std::move(needle);
  anchor_ = std::move(anchor);
  if (needed.size() >= kStamp) {
    diags.add(Severity::Warning, "rules.trigger-scan-unavailable",
              "too many trigger literals (" + std::to_string(needed.size()) +
                  "); every line is examined instead (slower, same report)",
              "", 0, "use fewer needles");
    return;
  }
  // A one-byte literal (ESC) is found outside either engine, in the stamps' pass (any further
  // ones by memchr): in Vectorscan's literal matcher it more than doubled the cost of the whole
  // search (docs/performance.md).
  std::vector<std::string> multi;
  std::vector<unsigned> multi_ids;
  for (std::size_t i = 0; i < needed.size(); ++i) {
    if (needed[i].size() == 1) {
      single_bytes_ += needed[i];
      single_literal_.push_back(static_cast<std::uint16_t>(i));
    } else {
      multi.push_back(needed[i]);
      multi_ids.push_back(static_cast<unsigned>(i));
    }
  }
#if MEGATRIAGE_HAVE_VECTORSCAN
  if (engine == Engine::Best) {
    compile_vectorscan(multi, multi_ids, diags, cache);
    if (database_ != nullptr) return;
  }
#endif
  (void)engine;
  (void)diags;
  (void)cache;
  for (std::size_t i = 0; i < multi.size(); ++i) pairs_.add(multi[i], static_cast<int>(multi_ids[i]));
  pairs_.finish();
  builtin_ = true;
}

#if MEGATRIAGE_HAVE_VECTORSCAN
void TriggerScanner::compile_vectorscan(const std::vector<std::string>& literals,
                                        const std::vector<unsigned>& literal_ids, DiagnosticSink& diags,
                                        const RunCache* cache) {
  static std::atomic<std::uint64_t> serials{0};
  // The database depends on the literals, their order (ids) and the Vectorscan build; it is
  // compiled for this CPU, which the cache key (this executable on this machine) pins too.
  std::string key;
  if (cache != nullptr && cache->enabled()) {
    std::string what = hs_version();
    for (std::size_t i = 0; i < literals.size(); ++i)
      what.append(1, '\0').append(std::to_string(literal_ids[i])).append(1, '=').append(std::to_string(literals[i].size()))
          .append(1, ':').append(literals[i]);
    key = cache->key("triggers", what);
    if (std::optional<std::string> bytes = cache->get(key)) {
      hs_database_t* db = nullptr;
      if (hs_deserialize_database(bytes->data(), bytes->size(), &db) == HS_SUCCESS) {
        database_ = new Database{db, ++serials};
        from_cache_ = true;
        return;
      }
    }
  }
  std::vector<const char*> expressions;
  std::vector<std::size_t> lengths;
  std::vector<unsigned> flags(literals.size(), 0), ids = literal_ids;
  for (const std::string& l : literals) {
    expressions.push_back(l.data());
    lengths.push_back(l.size());
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_lit_multi(expressions.data(), flags.data(), ids.data(), lengths.data(),
                           static_cast<unsigned>(expressions.size()), HS_MODE_BLOCK, nullptr, &db,
                           &error) != HS_SUCCESS) {
    diags.add(Severity::Warning, "rules.trigger-scan-unavailable",
              std::string("could not compile the trigger search (") +
                  (error != nullptr && error->message != nullptr ? error->message : "unknown error") +
                  "); the built-in search is used instead (slower, same report)",
              "", 0, "report this with the rules/ directory you used");
    hs_free_compile_error(error);
    return;
  }
  database_ = new Database{db, ++serials};
  char* bytes = nullptr;
  std::size_t size = 0;
  if (!key.empty() && hs_serialize_database(db, &bytes, &size) == HS_SUCCESS) {
    cache->put(key, std::string_view(bytes, size));
    std::free(bytes);  // hs_serialize_database allocates with the default allocator (malloc)
  }
}
#endif

TriggerScanner::~TriggerScanner() {
#if MEGATRIAGE_HAVE_VECTORSCAN
  if (database_ != nullptr) {
    hs_free_database(database_->db);
    delete database_;
  }
#endif
}

void TriggerScanner::watch(const std::vector<std::vector<std::string>>& watched) {
  watch_bits_.assign(literals_.size(), 0);
  uncertain_watches_ = 0;
  for (std::size_t i = 0; i < watched.size() && i < 8; ++i) {
    const auto bit = static_cast<std::uint8_t>(1U << i);
    // A group is told apart only when each of its texts is.
    bool covered = !watched[i].empty();
    for (const std::string& text : watched[i]) {
      bool this_covered = false;
      for (std::size_t l = 0; l < literals_.size(); ++l) {
        if (text.find(literals_[l]) == std::string::npos) continue;
        watch_bits_[l] |= bit;
        this_covered = true;
      }
      covered = covered && this_covered;
    }
    if (!covered) {
      uncertain_watches_ |= bit;
      for (std::uint8_t& bits : watch_bits_) bits |= bit;
    }
  }
}

std::uint16_t TriggerScanner::find_literal(std::string_view text) const {
  auto it = std::find(literals_.begin(), literals_.end(), text);
  return it == literals_.end() ? kStamp : static_cast<std::uint16_t>(it - literals_.begin());
}

const std::vector<int>& TriggerScanner::needle_tags(std::uint16_t literal) const {
  static const std::vector<int> none;
  return literal < tags_.size() ? tags_[literal] : none;
}

void TriggerScanner::find_stamps(std::string_view text, std::uint32_t shift, std::vector<Hit>& hits) {
  const std::size_t first = hits.size();
  thread_local std::vector<Hit> no_byte_hits;  // stays empty: no byte looked for
  find_times(text, ByteLiteral{}, hits, no_byte_hits);
  if (shift != 0)
    for (std::size_t i = first; i < hits.size(); ++i) hits[i].end += shift;
}

std::size_t TriggerScanner::first_stamp_end(std::string_view text) {
  std::size_t i = 0;
#if defined(__x86_64__)
  // 16 colon pairs at a time; the last block ends at the text's end (overlapping the one before).
  const __m128i colon = _mm_set1_epi8(':');
  while (i + 3 < text.size() && text.size() >= 3 + 16) {
    const std::size_t at = std::min(i, text.size() - 3 - 16);
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + at));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + at + 3));
    auto mask = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, colon), _mm_cmpeq_epi8(b, colon))));
    mask &= ~((1U << (i - at)) - 1);  // positions before i were looked at
    for (; mask != 0; mask &= mask - 1) {
      const std::size_t colon_at = at + static_cast<std::size_t>(__builtin_ctz(mask));
      if (time_at(text, colon_at)) return colon_at + 5;
    }
    i = at + 16;
  }
#endif
  for (; i + 3 < text.size(); ++i)
    if (text[i] == ':' && text[i + 3] == ':' && time_at(text, i)) return i + 5;
  return npos;
}

void TriggerScanner::scan(std::string_view text, std::vector<TriggerScanner::Hit>& hits, bool stamps) const {
  if (text.empty() || !ok()) return;
  std::size_t first = hits.size();
  if (builtin_) {
    pairs_.for_each(text, [&](std::size_t start, const PairIndex::Entry& e) {
      const auto literal = static_cast<std::uint16_t>(e.tags.front());
      hits.push_back({static_cast<std::uint32_t>(start + e.text.size() - 1), literal, needle_[literal]});
      return false;
    });
  } else {
    scan_vectorscan(text, hits);
  }
  // The first one-byte literal is looked for in the stamps' pass, any others by memchr (all of
  // them without that pass).
  for (std::size_t b = stamps ? 1 : 0; b < single_bytes_.size(); ++b)
    for (const char* p = text.data();
         (p = static_cast<const char*>(std::memchr(p, single_bytes_[b], text.data() + text.size() - p))); ++p)
      hits.push_back({static_cast<std::uint32_t>(p - text.data()), single_literal_[b], needle_[single_literal_[b]]});
  auto by_end = [](const Hit& a, const Hit& b) { return a.end < b.end; };
  if (!std::is_sorted(hits.begin() + static_cast<long>(first), hits.end(), by_end))
    std::sort(hits.begin() + static_cast<long>(first), hits.end(), by_end);
  if (!stamps) return;
  ByteLiteral one;
  if (!single_bytes_.empty()) {
    one.byte = static_cast<unsigned char>(single_bytes_[0]);
    one.literal = single_literal_[0];
    one.needle = needle_[single_literal_[0]];
  }
  thread_local std::vector<Hit> byte_hits;
  byte_hits.clear();
  std::size_t middle = hits.size();
  find_times(text, one, hits, byte_hits);
  std::inplace_merge(hits.begin() + static_cast<long>(first), hits.begin() + static_cast<long>(middle),
                     hits.end(), by_end);
  if (!byte_hits.empty()) {
    middle = hits.size();
    hits.insert(hits.end(), byte_hits.begin(), byte_hits.end());
    std::inplace_merge(hits.begin() + static_cast<long>(first), hits.begin() + static_cast<long>(middle),
                       hits.end(), by_end);
  }
}

void TriggerScanner::scan_vectorscan(std::string_view text, std::vector<TriggerScanner::Hit>& hits) const {
#if MEGATRIAGE_HAVE_VECTORSCAN
  thread_local ThreadScratch local;
  if (local.sized_for != database_->serial) {
    // A failed allocation may free the old scratch: it then fits no database.
    local.sized_for = hs_alloc_scratch(database_->db, &local.scratch) == HS_SUCCESS ? database_->serial : 0;
  }
  const std::size_t before = hits.size();
  MatchContext context{&hits, &needle_};
  if (local.sized_for != database_->serial ||
      hs_scan(database_->db, text.data(), static_cast<unsigned>(text.size()), 0, local.scratch,
              on_match, &context) != HS_SUCCESS) {
    // No scratch (out of memory) or a failed scan: every line start is a hit that names no
    // literal (the rules then look for their needles themselves), so no line is missed (only
    // the speed is lost).
    hits.resize(before);
    hits.push_back({0, kStamp, true});
    for (std::size_t i = 0; i + 1 < text.size(); ++i)
      if (text[i] == '\n') hits.push_back({static_cast<std::uint32_t>(i + 1), kStamp, true});
  }
#else
  (void)text;
  (void)hits;
#endif
}

}  // namespace megatriage
