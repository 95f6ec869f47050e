#include "model/types.h"

namespace megatriage {

const char* category_name(Category c) {
  switch (c) {
    case Category::Oom: return "oom";
    case Category::Shape: return "shape";
    case Category::Import: return "import";
    case Category::Nccl: return "nccl";
    case Category::Unknown: return "unknown";
  }
  return "unknown";
}

const char* role_name(RuleRole r) {
  switch (r) {
    case RuleRole::Cause: return "cause";
    case RuleRole::Symptom: return "symptom";
    case RuleRole::Context: return "context";
    case RuleRole::Teardown: return "teardown";
  }
  return "cause";
}

}  // namespace megatriage
