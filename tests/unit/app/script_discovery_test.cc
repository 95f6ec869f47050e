// script_discovery: the sbatch scripts beside or above a log directory, read; those whose output
// names fit the logs are the job's, the others named in an info diagnostic.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/script_discovery.h"

using namespace megatriage;

TEST_SUITE("script_discovery") {
TEST_CASE("script_discovery: output patterns against log names") {
  CHECK(output_pattern_matches("logs/%x-%j.out", "megatron", "logs/megatron-25.out"));
  CHECK(output_pattern_matches("logs/%x-%j.out", "", "logs/anything-25.out"));
  CHECK(output_pattern_matches("/abs/out/%x_%A_%a.err", "train", "x/train_7_3.err"));
  CHECK(output_pattern_matches("slurm-%j.out", "s", "slurm-123.out"));
  CHECK(output_pattern_matches("%N-%4j.log", "s", "node07-0042.log"));
  CHECK(output_pattern_matches("100%%-%j.out", "s", "100%-9.out"));
  CHECK_FALSE(output_pattern_matches("logs/%x-%j.out", "megatron", "logs/other-25.out"));
  CHECK_FALSE(output_pattern_matches("logs/%x-%j.out", "megatron", "logs/megatron-ab.out"));
  CHECK_FALSE(output_pattern_matches("logs/%x-%j.out", "megatron", "logs/megatron-25.err"));
  CHECK_FALSE(output_pattern_matches("slurm-%j.out", "s", "rank0.err"));
}

TEST_CASE("script_discovery: only the scripts whose output names fit the logs, sorted, each once") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "megatriage-script-discovery-test";
  fs::remove_all(root);
  fs::create_directories(root / "logs" / "sub");
  auto write = [&](const char* name, const std::string& text) { std::ofstream(root / name) << text; };
  const std::string ours = "#!/bin/bash\n#SBATCH --job-name=megatron\n#SBATCH --output=logs/%x-%j.out\nsrun hostname\n";
  write("z.slurm", ours);
  write("a.sbatch", "#!/bin/bash\n#SBATCH -J eval -o logs/%x-%j.out\nsrun hostname\n");  // another job's
  write("notes.txt", ours);
  write("logs/inner.sbatch", "#!/bin/bash\nsrun hostname\n");  // SLURM's default slurm-%j.out
  write("logs/sub/deep.sbatch", ours);
  write("logs/empty.sbatch", "");
  fs::create_directories(root / "dir.sbatch");  // a directory with the extension is no script

  const std::string logs = (root / "logs").string();
  const std::vector<std::string> names = {"logs/megatron-25.out", "logs/slurm-25.out"};
  const std::vector<FoundScript> beside = scripts_beside({logs, logs});
  std::vector<std::string> read;  // every candidate once, sorted per directory
  for (const FoundScript& f : beside) read.push_back(std::filesystem::path(f.path).filename().string());
  CHECK(read == std::vector<std::string>{"empty.sbatch", "inner.sbatch", "a.sbatch", "dir.sbatch", "z.slurm"});
  DiagnosticSink diags;
  std::vector<std::string> found;
  for (const FoundScript& f : scripts_of_logs(beside, names, diags)) {
    CHECK(f.text);
    CHECK(f.name == f.path);
    found.push_back(f.path);
  }
  CHECK(found == std::vector<std::string>{(root / "logs" / "inner.sbatch").string(), (root / "z.slurm").string()});
  std::vector<std::string> left_out;
  for (const Diagnostic& d : diags.items()) {
    CHECK(d.code == "lint.script-not-attached");
    CHECK(d.severity == Severity::Info);
    left_out.push_back(std::filesystem::path(d.path).filename().string());
  }
  std::sort(left_out.begin(), left_out.end());
  CHECK(left_out == std::vector<std::string>{"a.sbatch", "dir.sbatch", "empty.sbatch"});

  DiagnosticSink none;
  CHECK(scripts_of_logs(scripts_beside({logs}), {"logs/rank0.err"}, none).empty());  // no log name fits
  CHECK(scripts_beside({(root / "logs" / "inner.sbatch").string()}).empty());  // not a directory
  CHECK(scripts_beside({(root / "missing").string()}).empty());

  // `partial --host`'s prefix names the script and its reader's diagnostics; the opened path
  // (and the job name taken from its file name) stay.
  for (const FoundScript& f : scripts_beside({logs}, "node7:")) {
    CHECK(f.name == "node7:" + f.path);
    for (const Diagnostic& d : f.problems) CHECK(d.path == f.name);
  }
  fs::remove_all(root);
}
}
