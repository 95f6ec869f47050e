// megatriage's version, as CMakeLists.txt's project() says: what `--version` prints and what
// every report that a machine reads (JSON, SARIF) names as its producer. `--version` also says
// how this binary was built, which is what a bug report from a cluster needs first.
#pragma once

#include <string>

namespace megatriage {

/// `0.1.0`. Compiled into version.cc alone, so a new version rebuilds one object.
const char* megatriage_version();

/// What `megatriage --version` prints, four lines: the version; the git commit built from
/// (`-dirty` with local edits, `unknown` outside a checkout); the CMake build type; whether the
/// Vectorscan trigger search is in (with its version) or the built-in search serves.
std::string version_details();

}  // namespace megatriage
