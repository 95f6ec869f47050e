// What tools/bench's two tree writers share (bench_gen.cc: the Megatron job; bench_styles.cc:
// the other log styles): deterministic random numbers, printf into a string, clock fields, and
// a buffered output file that stops the program on a write error. Header-only, so that each
// writer still builds with one g++ command and no dependencies.
#pragma once

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace bench {

constexpr std::int64_t kUs = 1000000;

inline std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Random numbers keyed by up to three values (rank, phase, ...) from a writer's seed: the same
/// keys give the same numbers whatever else was drawn before.
struct Rng {
  std::uint64_t s;
  Rng(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) : s(seed) {
    s ^= a * 0x9e3779b97f4a7c15ULL;
    splitmix(s);
    s ^= b * 0xc2b2ae3d27d4eb4fULL;
    splitmix(s);
    s ^= c * 0x165667b19e3779f9ULL;
    splitmix(s);
  }
  std::uint64_t next() { return splitmix(s); }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
};

inline void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
inline void appendf(std::string& out, const char* fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) < sizeof buf) {
    out.append(buf, static_cast<std::size_t>(n));
    return;
  }
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(big.data(), big.size(), fmt, ap);
  va_end(ap);
  out.append(big.data(), static_cast<std::size_t>(n));
}

/// A time of day in microseconds since midnight, as its fields.
struct Clock {
  int h, m, s;
  std::int64_t us;
};
inline Clock clock_of(std::int64_t t) {
  std::int64_t sec = t / kUs;
  return {static_cast<int>(sec / 3600), static_cast<int>(sec / 60 % 60), static_cast<int>(sec % 60), t % kUs};
}

[[noreturn]] inline void die(const std::string& what) {
  std::fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what.c_str(), std::strerror(errno));
  std::exit(1);
}

/// An output file written through a 1 MiB buffer; any write error ends the program.
struct File {
  FILE* f = nullptr;
  std::uint64_t bytes = 0;
  explicit File(const std::filesystem::path& p) {
    f = std::fopen(p.c_str(), "wb");
    if (!f) die("cannot write " + p.string());
    std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  void put(const std::string& s) {
    if (!s.empty() && std::fwrite(s.data(), 1, s.size(), f) != s.size()) die("write failed");
    bytes += s.size();
  }
  ~File() {
    if (f && std::fclose(f) != 0) die("close failed");
  }
};

}  // namespace bench
