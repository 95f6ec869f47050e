#include "input/discover.h"

#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "app/triage.h"
#include "input/reader.h"
#include "render/render.h"

namespace megatriage {
namespace {

namespace fs = std::filesystem;

// A scratch directory under /tmp, removed with everything in it at scope end. The only unit
// tests that touch the disk are these: discovery is about the file system.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/megatriage-discover-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    REQUIRE(made != nullptr);
    path_ = made;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

  void write(const std::string& rel, const std::string& bytes) const {
    fs::path p = *this / rel;
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << bytes;
  }
  void mkdir(const std::string& rel) const { fs::create_directories(*this / rel); }
  void symlink(const std::string& target, const std::string& rel) const {
    fs::create_symlink(target, *this / rel);
  }

 private:
  std::string path_;
};

std::vector<std::string> display_paths(const std::vector<SourceFile>& files) {
  std::vector<std::string> out;
  for (const SourceFile& f : files) out.push_back(f.display_path);
  return out;
}

const Diagnostic* find_code(const DiagnosticSink& diags, const std::string& code,
                            const std::string& path = {}) {
  for (const Diagnostic& d : diags.items()) {
    if (d.code == code && (path.empty() || d.path == path)) return &d;
  }
  return nullptr;
}

std::string hint_string(const std::string& path) {
  Attribution a = hint_from_path(path);
  return "rank=" + std::to_string(a.rank) + " local=" + std::to_string(a.local_rank) +
         " task=" + std::to_string(a.task) + " host=" + a.host;
}

// Runs `check` as an unprivileged user: root reads any file, so permission tests need a real
// user. Returns the check's result.
bool run_unprivileged(const std::function<bool()>& check) {
  if (::geteuid() != 0) return check();
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    bool ok = ::setgid(65534) == 0 && ::setuid(65534) == 0 && check();
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_SUITE("discover") {
  TEST_CASE("discover: files are sorted by display path and numbered in that order") {
    TempDir tmp;
    tmp.write("logs/b.err", "b\n");
    tmp.write("logs/a/z.out", "z\n");
    tmp.write("logs/a/b.err", "ab\n");
    tmp.write("logs/c.log", "c\n");
    tmp.write("logs/A.log", "upper\n");
    const std::string logs = tmp / "logs";
    for (const std::string& arg : {logs, logs + "/", logs + "//"}) {
      CAPTURE(arg);
      DiagnosticSink diags;
      std::vector<SourceFile> files = discover_sources({arg}, {}, diags);
      CHECK(display_paths(files) == std::vector<std::string>{logs + "/A.log", logs + "/a/b.err",
                                                             logs + "/a/z.out", logs + "/b.err",
                                                             logs + "/c.log"});
      for (std::size_t i = 0; i < files.size(); ++i) {
        CHECK(files[i].id == i);
        CHECK(files[i].path == files[i].display_path);
      }
      CHECK(diags.empty());
    }
  }

  TEST_CASE("discover: a file argument displays as given and sorts with the rest") {
    TempDir tmp;
    tmp.write("logs/x.err", "x\n");
    tmp.write("other/a.err", "a\n");
    DiagnosticSink diags;
    std::vector<SourceFile> files =
        discover_sources({tmp / "other/a.err", tmp / "logs"}, {}, diags);
    CHECK(display_paths(files) ==
          std::vector<std::string>{tmp / "logs/x.err", tmp / "other/a.err"});
    CHECK(files[0].id == 0);
    CHECK(files[1].id == 1);
  }

  TEST_CASE("discover: the finds of several threads and arguments come out in one byte-wise order") {
    // Each thread sorts its own finds and the parts are merged: a file argument is a part of
    // its own, so many arguments make many parts. Names that differ only in case, length and
    // bytes above 0x7f test the order is bytes, not locale.
    TempDir tmp;
    std::vector<std::string> args;
    for (int node = 0; node < 12; ++node)
      for (int local = 0; local < 6; ++local)
        tmp.write("logs/n" + std::to_string(node) + "/" + std::to_string(local) + "/stderr.log", "x\n");
    for (const char* name : {"logs/B.log", "logs/b.log", "logs/bb.log", "logs/\xc3\xa9.log", "logs/n1/_.log"})
      tmp.write(name, "y\n");
    for (const char* name : {"extra/z.log", "extra/a.log", "extra/m.log", "extra/A.log"}) {
      tmp.write(name, "z\n");
      args.push_back(tmp / name);
    }
    args.push_back(tmp / "logs");
    for (bool stat_files : {true, false}) {
      std::vector<std::string> first;
      for (unsigned threads : {1u, 2u, 3u, 8u}) {
        CAPTURE(stat_files);
        CAPTURE(threads);
        DiscoverOptions options;
        options.threads = threads;
        options.stat_files = stat_files;
        DiagnosticSink diags;
        const std::vector<SourceFile> files = discover_sources(args, options, diags);
        const std::vector<std::string> paths = display_paths(files);
        REQUIRE(paths.size() == 12 * 6 + 5 + 4);
        CHECK(std::is_sorted(paths.begin(), paths.end()));
        CHECK(std::adjacent_find(paths.begin(), paths.end()) == paths.end());
        for (std::size_t i = 0; i < files.size(); ++i) CHECK(files[i].id == i);
        if (first.empty()) first = paths;
        CHECK(paths == first);
      }
    }
  }

  TEST_CASE("discover: '-' is standard input, listed once as <stdin> and never walked") {
    TempDir tmp;
    tmp.write("logs/x.err", "x\n");
    DiagnosticSink diags;
    DiscoveredSources found = discover_paths({"-", tmp / "logs", "-"}, {}, diags);
    CHECK(found.missing.empty());
    REQUIRE(found.files.size() == 2);
    // Sorted with the rest by its display path ('/' sorts before '<').
    CHECK(found.files[1].display_path == kStdinDisplayPath);
    CHECK(found.files[1].is_stdin);
    CHECK(found.files[1].id == 1);
    CHECK_FALSE(found.files[1].sized);
    CHECK_FALSE(found.files[0].is_stdin);
    REQUIRE(diags.items().size() == 1);
    CHECK(diags.items()[0].code == "discover.duplicate");
  }

  TEST_CASE("discover: arguments that do not exist are listed as typed, beside their diagnostic") {
    TempDir tmp;
    tmp.write("logs/x.err", "x\n");
    const std::string gone = tmp / "gone", dangling = tmp / "logs/../nothing/";
    DiagnosticSink diags;
    DiscoveredSources found = discover_paths({gone, tmp / "logs", dangling}, {}, diags);
    CHECK(display_paths(found.files) == std::vector<std::string>{tmp / "logs/x.err"});
    CHECK(found.missing == std::vector<std::string>{gone, tmp / "logs/../nothing"});
    int reported = 0;
    for (const Diagnostic& d : diags.items()) {
      if (d.code != "discover.not-found") continue;
      ++reported;
      CHECK(d.severity == Severity::Error);
      CHECK(d.message == missing_path_message(d.path));
    }
    CHECK(reported == 2);
  }

  TEST_CASE("discover: compression comes from magic bytes when opened, not from the name") {
    TempDir tmp;
    tmp.write("logs/plain.log.gz", "this gzip is really plain text\n");
    tmp.write("logs/gzip.log", std::string("\x1f\x8b\x08\x00rest", 8));
    tmp.write("logs/bzip2.txt", "BZh91AY&SY");
    tmp.write("logs/xz.bin", std::string("\xfd" "7zXZ\0rest", 10));
    tmp.write("logs/zstd.log", std::string("\x28\xb5\x2f\xfd\x00\x00", 6));
    tmp.write("logs/short", "\x1f");
    tmp.write("logs/empty", "");
    DiagnosticSink diags;
    std::vector<SourceFile> files = discover_sources({tmp / "logs"}, {}, diags);
    REQUIRE(files.size() == 7);
    const std::vector<std::string> want{"bzip2.txt=bzip2", "empty=none", "gzip.log=gzip",
                                        "plain.log.gz=none", "short=none", "xz.bin=xz",
                                        "zstd.log=zstd"};
    std::vector<std::string> sniffed;
    for (const SourceFile& f : files) {
      CHECK(f.compression == Compression::None);  // the walk does not open files
      sniffed.push_back(compression_name(sniff_compression(f.path)));
    }
    // Known at open (files over the threshold), or after the first read, whatever its size
    // (a 2-byte read cannot hold a whole magic number: the source then looks itself).
    for (std::uint64_t at_open_above : {std::uint64_t{0}, std::uint64_t{1} << 20}) {
      for (std::size_t first_read : {std::size_t{2}, std::size_t{4096}}) {
        CAPTURE(at_open_above);
        CAPTURE(first_read);
        std::vector<std::string> got;
        for (SourceFile f : files) {
          DiagnosticSink read_diags;
          std::unique_ptr<ByteSource> source = open_source(f, {}, read_diags, at_open_above);
          REQUIRE(source != nullptr);
          std::vector<char> buffer(first_read);
          source->read(buffer.data(), buffer.size());
          got.push_back(fs::path(f.display_path).filename().string() + "=" +
                        compression_name(f.compression));
        }
        CHECK(got == want);
      }
    }
    CHECK(sniffed == std::vector<std::string>{"bzip2", "none", "gzip", "none", "none", "xz", "zstd"});
    CHECK(std::string(compression_name(sniff_compression(tmp / "logs/missing"))) == "none");
  }

  TEST_CASE("discover: detect_compression reads only the bytes it is given") {
    auto detect = [](std::string_view magic) {
      return compression_name(detect_compression(
          reinterpret_cast<const unsigned char*>(magic.data()), magic.size()));
    };
    CHECK(std::string(detect(std::string_view("\x1f\x8b", 2))) == "gzip");
    CHECK(std::string(detect("BZh9")) == "bzip2");
    CHECK(std::string(detect("BZh is how a log line may start")) == "none");
    CHECK(std::string(detect(std::string_view("\xfd" "7zXZ\0", 6))) == "xz");
    CHECK(std::string(detect(std::string_view("\xfd" "7zXZ", 5))) == "none");
    CHECK(std::string(detect("\x28\xb5\x2f\xfd")) == "zstd");
    CHECK(std::string(detect("")) == "none");
    CHECK(std::string(detect("\x1f")) == "none");
  }

  TEST_CASE("discover: empty files are kept, with size, mtime and stdout flag") {
    TempDir tmp;
    tmp.write("logs/empty.err", "");
    tmp.write("logs/job-12-0.out", "0123456789");
    tmp.write("logs/run/attempt_0/3/stdout.log.gz", std::string("\x1f\x8b", 2));
    tmp.write("logs/slurm-7.out.1", "x");
    DiagnosticSink diags;
    std::vector<SourceFile> files = discover_sources({tmp / "logs"}, {}, diags);
    REQUIRE(files.size() == 4);
    CHECK(files[0].display_path == tmp / "logs/empty.err");
    CHECK(files[0].size_bytes == 0);
    CHECK_FALSE(files[0].is_stdout);
    CHECK(files[1].size_bytes == 10);
    CHECK(files[1].is_stdout);
    CHECK(files[1].hint.task == 0);
    CHECK(files[2].is_stdout);
    CHECK(files[2].hint.local_rank == 3);
    CHECK(files[3].is_stdout);
    struct stat st;
    REQUIRE(::stat(files[1].path.c_str(), &st) == 0);
    CHECK(files[1].mtime_us == static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000 +
                                   st.st_mtim.tv_nsec / 1000);
    CHECK(files[1].mtime_us > 0);
    CHECK(diags.empty());
  }

  TEST_CASE("discover: FIFOs, sockets and devices are skipped without being opened") {
    TempDir tmp;
    tmp.write("logs/real.err", "real\n");
    // Opening a FIFO for reading would block forever with no writer: this test hangs if
    // discovery ever opens one.
    REQUIRE(::mkfifo((tmp / "logs/pipe.err").c_str(), 0644) == 0);
    int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(sock >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::string sock_path = tmp / "logs/sock.err";
    REQUIRE(sock_path.size() < sizeof addr.sun_path);
    std::memcpy(addr.sun_path, sock_path.c_str(), sock_path.size() + 1);
    REQUIRE(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);

    DiagnosticSink diags;
    std::vector<SourceFile> files = discover_sources({tmp / "logs", "/dev/null"}, {}, diags);
    ::close(sock);
    CHECK(display_paths(files) == std::vector<std::string>{tmp / "logs/real.err"});
    const Diagnostic* fifo = find_code(diags, "discover.special-file", tmp / "logs/pipe.err");
    REQUIRE(fifo != nullptr);
    CHECK(fifo->message.find("FIFO") != std::string::npos);
    const Diagnostic* socket = find_code(diags, "discover.special-file", tmp / "logs/sock.err");
    REQUIRE(socket != nullptr);
    CHECK(socket->message.find("socket") != std::string::npos);
    const Diagnostic* device = find_code(diags, "discover.special-file", "/dev/null");
    REQUIRE(device != nullptr);
    CHECK(device->message.find("character device") != std::string::npos);

    SUBCASE("the reader refuses a FIFO without blocking") {
      SourceFile fifo_file;
      fifo_file.path = fifo_file.display_path = tmp / "logs/pipe.err";
      DiagnosticSink read_diags;
      CHECK(open_source(fifo_file, {}, read_diags) == nullptr);
      CHECK(find_code(read_diags, "read.open-failed") != nullptr);
    }
  }

  TEST_CASE("discover: directory symlink loops are reported and not followed") {
    TempDir tmp;
    tmp.write("logs/a/x.err", "x\n");
    tmp.symlink("..", "logs/a/up");
    tmp.symlink(".", "logs/a/here");
    tmp.symlink("self", "logs/self");  // a link to itself: ELOOP
    DiagnosticSink diags;
    std::vector<SourceFile> files = discover_sources({tmp / "logs"}, {}, diags);
    CHECK(display_paths(files) == std::vector<std::string>{tmp / "logs/a/x.err"});
    CHECK(find_code(diags, "discover.symlink-loop", tmp / "logs/a/up") != nullptr);
    CHECK(find_code(diags, "discover.symlink-loop", tmp / "logs/a/here") != nullptr);
    CHECK(find_code(diags, "discover.symlink-loop", tmp / "logs/self") != nullptr);
  }

  TEST_CASE("discover: symlinks outside the tree are followed only when asked") {
    TempDir tmp;
    tmp.write("logs/in.err", "in\n");
    tmp.write("outside/a.err", "a\n");
    tmp.write("outside/dir/b.err", "b\n");
    tmp.symlink(tmp / "outside/a.err", "logs/ext.err");
    tmp.symlink("../outside/dir", "logs/extdir");
    tmp.symlink("../nowhere.err", "logs/dangling.err");

    DiagnosticSink diags;
    std::vector<SourceFile> files = discover_sources({tmp / "logs"}, {}, diags);
    CHECK(display_paths(files) == std::vector<std::string>{tmp / "logs/in.err"});
    const Diagnostic* d = find_code(diags, "discover.symlink-outside", tmp / "logs/ext.err");
    REQUIRE(d != nullptr);
    CHECK(d->message.find("outside") != std::string::npos);
    CHECK(find_code(diags, "discover.symlink-outside", tmp / "logs/extdir") != nullptr);
    CHECK(find_code(diags, "discover.broken-symlink", tmp / "logs/dangling.err") != nullptr);

    DiscoverOptions follow;
    follow.follow_symlinks_outside = true;
    DiagnosticSink diags2;
    files = discover_sources({tmp / "logs"}, follow, diags2);
    CHECK(display_paths(files) == std::vector<std::string>{tmp / "logs/ext.err",
                                                           tmp / "logs/extdir/b.err",
                                                           tmp / "logs/in.err"});
    CHECK(find_code(diags2, "discover.symlink-outside") == nullptr);
  }

  TEST_CASE("discover: the number of walking threads never changes files or diagnostics") {
    // Wide and deep (a torchrun tree), with every kind of entry the walk decides about: links
    // out of the tree (two to one directory, one inside another's target), loops, dangling
    // links, a FIFO, an in-tree directory link. Threads finish directories in any order.
    TempDir tmp;
    for (int node = 0; node < 12; ++node)
      for (int local = 0; local < 6; ++local)
        tmp.write("logs/torchrun/node" + std::to_string(node) + "/run/attempt_0/" +
                      std::to_string(local) + "/stderr.log",
                  "x\n");
    tmp.write("outside/one/a.err", "a\n");
    tmp.write("outside/one/inner/b.err", "b\n");
    tmp.write("outside/two/c.err", "c\n");
    tmp.symlink(tmp / "outside/one", "logs/link-a");
    tmp.symlink(tmp / "outside/one", "logs/torchrun/link-b");
    tmp.symlink(tmp / "outside/one/inner", "logs/link-inner");
    tmp.symlink(tmp / "outside/two", "outside/one/to-two");
    tmp.symlink("..", "logs/torchrun/node3/up");
    tmp.symlink("../nowhere", "logs/torchrun/node5/dangling.err");
    tmp.symlink("torchrun/node1", "logs/node1-again");
    REQUIRE(::mkfifo((tmp / "logs/torchrun/node7/pipe.err").c_str(), 0644) == 0);

    // Without a stat per file the listing is the same, sizes aside (learnt when opened).
    auto listing = [&](unsigned threads, bool follow, bool stat_files = true) {
      DiscoverOptions options;
      options.threads = threads;
      options.follow_symlinks_outside = follow;
      options.stat_files = stat_files;
      DiagnosticSink diags;
      std::string out;
      for (const SourceFile& f : discover_sources({tmp / "logs"}, options, diags))
        out += std::to_string(f.id) + " " + f.display_path + " " + f.path + " " +
               (stat_files ? std::to_string(f.size_bytes) : "") + "\n";
      for (const Diagnostic& d : diags.items()) out += d.code + " " + d.path + " " + d.message + "\n";
      return out;
    };
    for (bool follow : {false, true}) {
      CAPTURE(follow);
      const std::string one = listing(1, follow);
      CHECK(one.find("node11/run/attempt_0/5/stderr.log") != std::string::npos);
      CHECK(one.find("discover.special-file") != std::string::npos);
      if (follow) {
        CHECK(one.find("logs/link-a/a.err") != std::string::npos);  // the first link by name
        CHECK(one.find("logs/torchrun/link-b/a.err") == std::string::npos);
        CHECK(one.find("logs/link-a/to-two/c.err") != std::string::npos);
      }
      for (int run = 0; run < 20; ++run)
        for (unsigned threads : {2u, 3u, 8u}) {
          CAPTURE(threads);
          CHECK(listing(threads, follow) == one);
        }
      const std::string unsized = listing(1, follow, false);
      CHECK(unsized.find("node11/run/attempt_0/5/stderr.log") != std::string::npos);
      for (unsigned threads : {1u, 2u, 8u}) {
        CAPTURE(threads);
        CHECK(listing(threads, follow, false) == unsized);
      }
      std::string one_unsized;  // `one` with the sizes cut off the file lines
      std::istringstream lines(one);
      for (std::string l; std::getline(lines, l);)
        one_unsized += (l.find("discover.") == 0 ? l : l.substr(0, l.rfind(' ') + 1)) + "\n";
      CHECK(unsized == one_unsized);
    }
  }

  TEST_CASE("discover: the same file reached twice is listed once") {
    TempDir tmp;
    tmp.write("logs/job-5.err", "x\n");
    tmp.write("logs/sub/y.err", "y\n");
    tmp.symlink("job-5.err", "logs/latest.err");
    tmp.symlink("sub", "logs/current");  // directory link inside the tree
    DiagnosticSink diags;
    std::vector<SourceFile> files =
        discover_sources({tmp / "logs", tmp / "logs/sub/y.err"}, {}, diags);
    CHECK(display_paths(files) ==
          std::vector<std::string>{tmp / "logs/job-5.err", tmp / "logs/sub/y.err"});
    CHECK(files[1].id == 1);
    const Diagnostic* d = find_code(diags, "discover.duplicate", tmp / "logs/latest.err");
    REQUIRE(d != nullptr);
    CHECK(d->severity == Severity::Info);
    CHECK(find_code(diags, "discover.duplicate", tmp / "logs/current") != nullptr);

    DiagnosticSink twice;
    CHECK(discover_sources({tmp / "logs", tmp / "logs/"}, {}, twice).size() == 2);
    CHECK(find_code(twice, "discover.duplicate", tmp / "logs") != nullptr);
  }

  TEST_CASE("discover: without a stat per file, duplicates are left to the caller") {
    TempDir tmp;
    tmp.write("logs/job-5.err", "x\n");
    tmp.write("logs/a.log.gz", "not really gzip\n");
    REQUIRE(::link((tmp / "logs/job-5.err").c_str(), (tmp / "logs/hard.err").c_str()) == 0);
    tmp.symlink("job-5.err", "logs/latest.err");
    DiscoverOptions stat_each;
    DiagnosticSink stat_diags;
    std::vector<SourceFile> stated = discover_sources({tmp / "logs"}, stat_each, stat_diags);
    CHECK(display_paths(stated) == std::vector<std::string>{tmp / "logs/a.log.gz", tmp / "logs/hard.err"});
    CHECK(find_code(stat_diags, "discover.duplicate", tmp / "logs/job-5.err") != nullptr);
    CHECK(find_code(stat_diags, "discover.duplicate", tmp / "logs/latest.err") != nullptr);
    for (const SourceFile& f : stated) CHECK(f.sized);

    DiscoverOptions listed_only;
    listed_only.stat_files = false;
    DiagnosticSink diags;
    std::vector<SourceFile> files = discover_sources({tmp / "logs"}, listed_only, diags);
    CHECK(display_paths(files) == std::vector<std::string>{tmp / "logs/a.log.gz", tmp / "logs/hard.err",
                                                           tmp / "logs/job-5.err", tmp / "logs/latest.err"});
    CHECK(diags.empty());
    REQUIRE(files.size() == 4);
    CHECK(files[0].sized);    // a compression suffix: stat'ed, so big archives can go first
    CHECK_FALSE(files[1].sized);
    CHECK_FALSE(files[2].sized);
    CHECK(files[3].sized);    // a symlink is always looked at
    // Opening a file stats it: the identity that finds the duplicates afterwards.
    DiagnosticSink read_diags;
    REQUIRE(open_source(files[1], {}, read_diags) != nullptr);
    REQUIRE(open_source(files[2], {}, read_diags) != nullptr);
    CHECK(files[1].sized);
    CHECK(files[1].size_bytes == 2);
    CHECK(files[1].inode != 0);
    CHECK(files[1].inode == files[2].inode);
    CHECK(files[1].inode == files[3].inode);
    CHECK(find_repeats({{files[1].device, files[1].inode}, {0, 0}, {0, 0}, {files[2].device, files[2].inode}}) ==
          std::vector<bool>{false, false, false, true});
  }

  TEST_CASE("discover + triage: a tree listed without a stat per file gives the same report") {
    // The CLI stats every file only for the progress line; both ways must agree, duplicates,
    // ids, sizes and a file read in chunks (found big only when opened) included.
    TempDir tmp;
    std::string big;
    for (int i = 0; i < 400; ++i)
      big += "[rank1]:[W501 12:00:" + std::to_string(10 + i % 50) + ".000000000 x.cpp:1] iteration " +
             std::to_string(i) + "\n";
    big += "[rank1]: Traceback (most recent call last):\n[rank1]:   File \"train.py\", line 3, in <module>\n"
           "[rank1]: ValueError: bad shape\n";
    tmp.write("logs/big-rank1.err", big);
    tmp.write("logs/rank0.err", "[rank0]: Traceback (most recent call last):\n[rank0]:   File \"a.py\", line 1, in f\n"
                                "[rank0]: torch.distributed.DistBackendError: NCCL communicator was aborted on rank 0.\n");
    tmp.write("logs/rank2.err.gz", "[rank2]: hello\n");
    REQUIRE(::link((tmp / "logs/rank0.err").c_str(), (tmp / "logs/a-hard.err").c_str()) == 0);
    tmp.symlink("rank0.err", "logs/z-latest.err");
    auto report = [&](bool progress, unsigned jobs) {
      TriageOptions options;
      options.paths = {tmp / "logs"};
      options.jobs = jobs;
      options.progress = progress;          // stats every file in the walk...
      options.progress_after_ms = 3600000;  // ...and never draws
      options.analyze.chunk_bytes = 1024;   // big-rank1.err is read in chunks
      TriageOutcome outcome = run_triage(options);
      // Ids follow the list without the repeats (events point at their file by id).
      REQUIRE(outcome.leftovers != nullptr);
      const auto& results = outcome.leftovers->results;
      for (std::size_t i = 0; i < results.size(); ++i) {
        CHECK(results[i].file.id == i);
        for (const Event& e : results[i].events) CHECK(e.origin.file == i);
      }
      return render_json(outcome.report);
    };
    const std::string want = report(true, 1);
    CHECK(want.find("\"ValueError: bad shape\"") != std::string::npos);
    CHECK(want.find("rank0.err' is the same file as one listed before") != std::string::npos);
    CHECK(want.find("z-latest.err' is the same file as one listed before") != std::string::npos);
    CHECK(want.find("\"path\": \"" + tmp / "logs/a-hard.err") != std::string::npos);
    for (bool progress : {true, false})
      for (unsigned jobs : {1u, 2u, 3u}) {
        CAPTURE(progress);
        CAPTURE(jobs);
        CHECK(report(progress, jobs) == want);
      }
  }

  TEST_CASE("discover: a tree deeper than the directories the walk keeps open") {
    // Past 256 open directories the walk opens the rest by path: nothing is lost either way.
    TempDir tmp;
    std::string deep = "logs";
    for (int level = 0; level < 300; ++level) {
      deep += "/d";
      if (level % 50 == 0) tmp.write(deep + "/rank" + std::to_string(level) + ".err", "x\n");
    }
    tmp.write(deep + "/bottom.err", "x\n");
    for (unsigned threads : {1u, 2u}) {
      CAPTURE(threads);
      DiscoverOptions options;
      options.threads = threads;
      options.stat_files = false;
      DiagnosticSink diags;
      std::vector<SourceFile> files = discover_sources({tmp / "logs"}, options, diags);
      CHECK(diags.empty());
      REQUIRE(files.size() == 7);
      CHECK(std::any_of(files.begin(), files.end(),
                        [&](const SourceFile& f) { return f.display_path == tmp / deep + "/bottom.err"; }));
    }
  }

  TEST_CASE("discover: a nonexistent argument is an error diagnostic") {
    TempDir tmp;
    tmp.write("logs/a.err", "a\n");
    DiagnosticSink diags;
    std::vector<SourceFile> files =
        discover_sources({tmp / "missing", tmp / "logs"}, {}, diags);
    CHECK(files.size() == 1);
    const Diagnostic* d = find_code(diags, "discover.not-found");
    REQUIRE(d != nullptr);
    CHECK(d->severity == Severity::Error);
    CHECK(d->path == tmp / "missing");
    CHECK(d->message.find(tmp / "missing") != std::string::npos);
  }

  TEST_CASE("discover: unreadable files and directories are reported with the reason") {
    TempDir tmp;
    tmp.write("logs/ok.err", "ok\n");
    tmp.write("logs/secret.err", "secret\n");
    tmp.write("logs/locked/inner.err", "inner\n");
    fs::permissions(tmp.path(), fs::perms::owner_all | fs::perms::group_read |
                                    fs::perms::group_exec | fs::perms::others_read |
                                    fs::perms::others_exec);
    fs::permissions(tmp / "logs/secret.err", fs::perms::none);
    fs::permissions(tmp / "logs/locked", fs::perms::none);
    const std::string logs = tmp / "logs";
    bool ok = run_unprivileged([&] {
      DiagnosticSink diags;
      std::vector<SourceFile> files = discover_sources({logs}, {}, diags);
      const Diagnostic* dir = find_code(diags, "discover.unreadable", logs + "/locked");
      // The walk lists files without opening them: the unreadable one is reported when opened.
      if (display_paths(files) != std::vector<std::string>{logs + "/ok.err", logs + "/secret.err"})
        return false;
      DiagnosticSink read_diags;
      if (open_source(files[1], {}, read_diags) != nullptr) return false;
      const Diagnostic* file = find_code(read_diags, "discover.unreadable", logs + "/secret.err");
      // Listed without a stat, a file that cannot be opened still gets its size for the report.
      DiscoverOptions listed_only;
      listed_only.stat_files = false;
      DiagnosticSink unsized_diags;
      std::vector<SourceFile> unsized = discover_sources({logs}, listed_only, unsized_diags);
      if (unsized.size() != 2 || unsized[1].sized || open_source(unsized[1], {}, unsized_diags) != nullptr ||
          !unsized[1].sized || unsized[1].size_bytes != 7)
        return false;
      return file != nullptr && file->message.find("Permission denied") != std::string::npos &&
             !file->hint.empty() && dir != nullptr;
    });
    CHECK(ok);
  }

  TEST_CASE("discover: discovered files open with the reader their magic asks for") {
    TempDir tmp;
    // `printf 'hi gz\n' | gzip -n`
    const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
                                0xcb, 0xc8, 0x54, 0x48, 0xaf, 0xe2, 0x02, 0x00, 0x51, 0x33,
                                0xe8, 0x19, 0x06, 0x00, 0x00, 0x00};
    tmp.write("logs/a.log", std::string(reinterpret_cast<const char*>(gz), sizeof gz));
    tmp.write("logs/b.log.gz", "plain after all\n");
    DiagnosticSink diags;
    std::vector<SourceFile> files = discover_sources({tmp / "logs"}, {}, diags);
    REQUIRE(files.size() == 2);
    std::vector<std::string> texts;
    for (SourceFile& f : files) {
      std::unique_ptr<ByteSource> source = open_source(f, {}, diags);
      REQUIRE(source != nullptr);
      std::string text;
      char buffer[5];
      for (std::size_t n; (n = source->read(buffer, sizeof buffer)) > 0;) text.append(buffer, n);
      texts.push_back(text);
    }
    CHECK(texts == std::vector<std::string>{"hi gz\n", "plain after all\n"});
    CHECK(diags.empty());
  }

  TEST_CASE("discover: the walk gives each file the hint its display path gives") {
    // The walk reads a directory's part of the hint once for all its files.
    TempDir tmp;
    for (const char* f : {"logs/rank5/attempt_0/2/stderr.log", "logs/rank5/attempt_0/2/rank9.log",
                          "logs/rank5/local_rank1/x.log", "logs/gpt-25-3.err", "logs/run/attempt_1/7/stdout.log",
                          "logs/run/attempt_1/7/other.log"})
      tmp.write(f, "x\n");
    for (bool stat_files : {false, true}) {
      DiscoverOptions options;
      options.stat_files = stat_files;
      DiagnosticSink diags;
      std::vector<SourceFile> files = discover_sources({tmp / "logs"}, options, diags);
      REQUIRE(files.size() == 6);
      int with_hint = 0;
      for (const SourceFile& f : files) {
        CAPTURE(f.display_path);
        const Attribution want = hint_from_path(f.display_path);
        CHECK(f.hint.rank == want.rank);
        CHECK(f.hint.local_rank == want.local_rank);
        CHECK(f.hint.task == want.task);
        if (f.hint.rank >= 0 || f.hint.local_rank >= 0 || f.hint.task >= 0) ++with_hint;
      }
      CHECK(with_hint == 5);  // all but other.log: the torchrun layout names only std{err,out}.log
    }
  }

  TEST_CASE("discover: hints from file names and torchrun layouts") {
    struct Row {
      const char* path;
      const char* expected;
    };
    const Row rows[] = {
        // torchrun --log-dir: attempt_<N>/<local_rank>/{stderr,stdout}.log
        {"logs/run1/attempt_0/3/stderr.log", "rank=-1 local=3 task=-1 host="},
        {"logs/run1/attempt_2/0/stdout.log", "rank=-1 local=0 task=-1 host="},
        {"run/attempt_1/7/stderr.log.gz", "rank=-1 local=7 task=-1 host="},
        {"run/attempt_x/7/stderr.log", "rank=-1 local=-1 task=-1 host="},
        {"run/attempt_1/seven/stderr.log", "rank=-1 local=-1 task=-1 host="},
        // sbatch %x-%j-%t
        {"logs/gpt-tiny-25-3.err", "rank=-1 local=-1 task=3 host="},
        {"logs/gpt-tiny-25-12.out.zst", "rank=-1 local=-1 task=12 host="},
        {"25-4.err", "rank=-1 local=-1 task=4 host="},
        // %x-%j only: a job id, no task
        {"logs/gpt-tiny-25.err", "rank=-1 local=-1 task=-1 host="},
        {"slurm-12345.out", "rank=-1 local=-1 task=-1 host="},
        {"logs/train-a-3.err", "rank=-1 local=-1 task=-1 host="},
        {"logs/gpt-25-3.log", "rank=-1 local=-1 task=-1 host="},
        // submitit: %j_%t_log.{out,err}, an array job's %j being <jobid>_<index>
        {"logs/.submitit/4242/4242_11_log.err", "rank=-1 local=-1 task=11 host="},
        {"multirun/.submitit/4242_3/4242_3_0_log.out", "rank=-1 local=-1 task=0 host="},
        {"logs/train_3_log.err", "rank=-1 local=-1 task=-1 host="},
        {"logs/4242_x_log.err", "rank=-1 local=-1 task=-1 host="},
        {"logs/_3_log.err", "rank=-1 local=-1 task=-1 host="},
        // rank tokens
        {"logs/rank3.log", "rank=3 local=-1 task=-1 host="},
        {"logs/worker_rank_12.txt.bz2", "rank=12 local=-1 task=-1 host="},
        {"logs/out-rank-7-final.log", "rank=7 local=-1 task=-1 host="},
        {"logs/rank5/stderr.txt", "rank=5 local=-1 task=-1 host="},
        {"logs/local_rank2.log", "rank=-1 local=2 task=-1 host="},
        {"logs/frank3.log", "rank=-1 local=-1 task=-1 host="},
        {"logs/rank3x.log", "rank=-1 local=-1 task=-1 host="},
        {"logs/ranks.log", "rank=-1 local=-1 task=-1 host="},
        {"logs/rank5/local_rank1/x.log", "rank=-1 local=1 task=-1 host="},  // the nearest token only
        {"logs/rank5/attempt_0/2/stderr.log", "rank=5 local=2 task=-1 host="},
        {"logs/rank5/attempt_0/2/rank9.log", "rank=9 local=-1 task=-1 host="},
        {"/rank4/x.err", "rank=4 local=-1 task=-1 host="},
        // Open MPI's --output-filename tree: DIR/<job>/rank.<N>/stdout|stderr
        {"logs/1/rank.3/stderr", "rank=3 local=-1 task=-1 host="},
        {"out/1/rank.012/stdout", "rank=12 local=-1 task=-1 host="},
        {"logs/rank.log", "rank=-1 local=-1 task=-1 host="},
        // no host from names
        {"logs/node-gpu017.err", "rank=-1 local=-1 task=-1 host="},
        {"", "rank=-1 local=-1 task=-1 host="},
    };
    for (const Row& row : rows) {
      CAPTURE(row.path);
      CHECK(hint_string(row.path) == row.expected);
    }
  }
}

}  // namespace megatriage
