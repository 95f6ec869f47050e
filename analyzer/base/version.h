// megatriage's version, as CMakeLists.txt's project() says: what `--version` prints and what
// every report that a machine reads (JSON, SARIF) names as its producer.
#pragma once

namespace megatriage {

/// `0.1.0`. Compiled into version.cc alone, so a new version rebuilds one object.
const char* megatriage_version();

}  // namespace megatriage
