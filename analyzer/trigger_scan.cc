#include "trigger_scan.h"

#include <hs/hs.h>

#include <algorithm>
#include <cstdio>

namespace megatriage {

struct TriggerScanner::Database {
  hs_database_t* db = nullptr;
};

namespace {

// Every timestamp shape parse_timestamp() accepts prints `HH:MM:SS` with two-digit fields.
constexpr const char* kTimeOfDay = "[0-9]{2}:[0-9]{2}:[0-9]{2}";

std::string escape_literal(const std::string& literal) {
  std::string out;
  out.reserve(literal.size() * 4);
  char buf[5];
  for (unsigned char c : literal) {
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  }
  return out;
}

// Scratch space is per thread; one scratch serves every database (hs_alloc_scratch grows it).
struct ThreadScratch {
  hs_scratch_t* scratch = nullptr;
  ~ThreadScratch() {
    if (scratch != nullptr) hs_free_scratch(scratch);
  }
};

int on_match(unsigned int, unsigned long long, unsigned long long to, unsigned int, void* context) {
  auto& hits = *static_cast<std::vector<std::uint32_t>*>(context);
  hits.push_back(static_cast<std::uint32_t>(to - 1));
  return 0;
}

}  // namespace

TriggerScanner::TriggerScanner(const std::vector<std::string>& literals, DiagnosticSink& diags) {
  std::vector<std::string> patterns;
  for (const std::string& l : literals)
    if (!l.empty()) patterns.push_back(escape_literal(l));
  std::sort(patterns.begin(), patterns.end());
  patterns.erase(std::unique(patterns.begin(), patterns.end()), patterns.end());
  literal_count_ = patterns.size();
  patterns.emplace_back(kTimeOfDay);

  std::vector<const char*> expressions;
  std::vector<unsigned> flags(patterns.size(), 0), ids(patterns.size(), 0);
  for (const std::string& p : patterns) expressions.push_back(p.c_str());
  hs_database_t* db = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_multi(expressions.data(), flags.data(), ids.data(),
                       static_cast<unsigned>(expressions.size()), HS_MODE_BLOCK, nullptr, &db,
                       &error) != HS_SUCCESS) {
    diags.add(Severity::Warning, "rules.trigger-scan-unavailable",
              std::string("could not compile the trigger search (") +
                  (error != nullptr && error->message != nullptr ? error->message : "unknown error") +
                  "); every line is examined instead (slower, same report)",
              "", 0, "report this with the rules/ directory you used");
    hs_free_compile_error(error);
    return;
  }
  database_ = new Database{db};
}

TriggerScanner::~TriggerScanner() {
  if (database_ != nullptr) {
    hs_free_database(database_->db);
    delete database_;
  }
}

void TriggerScanner::scan(std::string_view text, std::vector<std::uint32_t>& hits) const {
  if (database_ == nullptr || text.empty()) return;
  thread_local ThreadScratch local;
  if (hs_alloc_scratch(database_->db, &local.scratch) != HS_SUCCESS) {
    // Out of memory for scratch: report every line start as a hit rather than miss a line.
    hits.push_back(0);
    for (std::size_t i = 0; i + 1 < text.size(); ++i)
      if (text[i] == '\n') hits.push_back(static_cast<std::uint32_t>(i + 1));
    return;
  }
  std::size_t first = hits.size();
  hs_scan(database_->db, text.data(), static_cast<unsigned>(text.size()), 0, local.scratch,
          on_match, &hits);
  if (!std::is_sorted(hits.begin() + static_cast<long>(first), hits.end()))
    std::sort(hits.begin() + static_cast<long>(first), hits.end());
}

}  // namespace megatriage
