#include "lint/script_file.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

using namespace megatriage;

namespace {

// A scratch folder under /tmp, removed at scope end.
class ScratchDir {
 public:
  ScratchDir() {
    char pattern[] = "/tmp/megatriage-script-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name, const std::string& bytes) const {
    std::string p = path_ + "/" + name;
    FILE* f = std::fopen(p.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The one diagnostic's code, or "" when there is not exactly one.
std::string only_code(const DiagnosticSink& diags) {
  return diags.items().size() == 1 ? diags.items().front().code : std::string();
}

}  // namespace

TEST_SUITE("script_file") {
  TEST_CASE("script_file: a batch script is a shebang, a directive or a launch") {
    CHECK(looks_like_batch_script("#!/bin/bash\necho hi\n"));
    CHECK(looks_like_batch_script("#!/usr/bin/env bash\n"));
    CHECK(looks_like_batch_script("#!/bin/sh\n"));
    CHECK(looks_like_batch_script("#SBATCH --nodes=2\n"));
    CHECK(looks_like_batch_script("export X=1\nsrun python train.py\n"));
    CHECK(looks_like_batch_script("uv run python -m torch.distributed.run train.py\n"));
    CHECK_FALSE(looks_like_batch_script("#!/usr/bin/python3\nprint('x')\n"));
    CHECK_FALSE(looks_like_batch_script("[rank0]: Traceback (most recent call last):\n"));
    CHECK_FALSE(looks_like_batch_script("This folder holds the job's scripts.\n"));
  }

  TEST_CASE("script_file: each unusable path is one diagnostic with the log reader's code") {
    ScratchDir dir;
    DiagnosticSink diags;
    SUBCASE("a directory") {
      CHECK_FALSE(read_batch_script(dir.path(), "d", diags));
      CHECK(only_code(diags) == "read.directory");
    }
    SUBCASE("a FIFO is never opened") {
      const std::string fifo = dir.path() + "/fifo";
      REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
      CHECK_FALSE(read_batch_script(fifo, "fifo", diags));
      CHECK(only_code(diags) == "discover.special-file");
    }
    SUBCASE("an empty file") {
      CHECK_FALSE(read_batch_script(dir.file("e.sbatch", ""), "e.sbatch", diags));
      CHECK(only_code(diags) == "read.empty-file");
    }
    SUBCASE("a binary file") {
      CHECK_FALSE(read_batch_script(dir.file("core", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\x01\x02\x03", 16)),
                                    "core", diags));
      CHECK(only_code(diags) == "read.binary-file");
    }
    SUBCASE("text that is no script") {
      CHECK_FALSE(read_batch_script(dir.file("x.err", "[rank0]: RuntimeError: boom\n"), "x.err", diags));
      CHECK(only_code(diags) == "lint.not-a-script");
    }
    SUBCASE("a missing path") {
      CHECK_FALSE(read_batch_script(dir.path() + "/nope", "nope", diags));
      CHECK(only_code(diags) == "read.open-failed");
    }
    SUBCASE("a file over SLURM's script size") {
      CHECK_FALSE(read_batch_script(dir.file("big.sbatch", "#!/bin/bash\n" + std::string(kMaxBatchScriptBytes, '#')),
                                    "big.sbatch", diags));
      CHECK(only_code(diags) == "read.too-large");
    }
    SUBCASE("a script is read whole") {
      auto text = read_batch_script(dir.file("ok.sbatch", "#!/bin/bash\nsrun hostname\n"), "ok.sbatch", diags);
      REQUIRE(text);
      CHECK(*text == "#!/bin/bash\nsrun hostname\n");
      CHECK(diags.empty());
    }
  }
}
