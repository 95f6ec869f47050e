#include "base/version.h"

#include "git_commit.h"  // generated at build time: MEGATRIAGE_GIT_COMMIT

namespace megatriage {

const char* megatriage_version() { return MEGATRIAGE_VERSION; }

std::string version_details() {
  std::string text = std::string("megatriage ") + MEGATRIAGE_VERSION + "\n";
  text += std::string("commit: ") + MEGATRIAGE_GIT_COMMIT + "\n";
  text += std::string("build type: ") + MEGATRIAGE_BUILD_TYPE + "\n";
#ifdef MEGATRIAGE_HAVE_VECTORSCAN
  text += std::string("Vectorscan: yes (") + MEGATRIAGE_VECTORSCAN_VERSION + ")\n";
#else
  text += "Vectorscan: no (the built-in trigger search serves)\n";
#endif
  return text;
}

}  // namespace megatriage
