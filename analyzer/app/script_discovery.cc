// Finding the job's batch scripts beside its logs.
#include "app/script_discovery.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace megatriage {

std::vector<std::string> find_scripts(const std::vector<std::string>& given,
                                      const std::vector<std::string>& log_paths) {
  if (!given.empty()) return given;
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  for (const auto& arg : log_paths) {
    std::error_code ec;
    fs::path dir(arg);
    if (!fs::is_directory(dir, ec)) continue;
    for (const fs::path& where : {dir, dir.lexically_normal().parent_path()}) {
      fs::path base = where.empty() ? fs::path(".") : where;
      std::vector<std::string> here;
      for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
        std::string ext = it->path().extension().string();
        if ((ext == ".sbatch" || ext == ".slurm") && it->is_regular_file(ec))
          here.push_back((where.empty() ? it->path().filename() : it->path()).string());
      }
      std::sort(here.begin(), here.end());
      for (auto& h : here)
        if (std::find(found.begin(), found.end(), h) == found.end()) found.push_back(h);
    }
  }
  return found;
}

}  // namespace megatriage
