// script_discovery: --script wins; otherwise sbatch scripts beside or above a log directory.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/script_discovery.h"

using namespace megatriage;

TEST_SUITE("script_discovery") {
TEST_CASE("script_discovery: given scripts are used as given") {
  CHECK(find_scripts({"a.sbatch", "b"}, {"/nonexistent"}) == std::vector<std::string>{"a.sbatch", "b"});
}

TEST_CASE("script_discovery: scripts in the log directory and its parent, sorted, each once") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "megatriage-script-discovery-test";
  fs::remove_all(root);
  fs::create_directories(root / "logs" / "sub");
  for (const char* name : {"z.slurm", "a.sbatch", "notes.txt", "logs/inner.sbatch", "logs/sub/deep.sbatch"})
    std::ofstream(root / name) << "#!/bin/bash\n";
  fs::create_directories(root / "dir.sbatch");  // a directory with the extension is no script

  const std::string logs = (root / "logs").string();
  const std::vector<std::string> found = find_scripts({}, {logs, logs});
  CHECK(found == std::vector<std::string>{(root / "logs" / "inner.sbatch").string(),
                                          (root / "a.sbatch").string(), (root / "z.slurm").string()});
  CHECK(find_scripts({}, {(root / "logs" / "inner.sbatch").string()}).empty());  // not a directory
  CHECK(find_scripts({}, {(root / "missing").string()}).empty());
  fs::remove_all(root);
}
}
