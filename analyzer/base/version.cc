#include "base/version.h"

namespace megatriage {

const char* megatriage_version() { return MEGATRIAGE_VERSION; }

}  // namespace megatriage
