// The name of a traceback's chain kind, for debug strings and tests.
#include "model/traceback.h"

namespace megatriage {

const char* chain_kind_name(ChainKind k) {
  switch (k) {
    case ChainKind::None: return "";
    case ChainKind::Cause: return "cause";
    case ChainKind::Context: return "context";
  }
  return "";
}

}  // namespace megatriage
