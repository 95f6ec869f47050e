// Rules: load, validate and sample-check `rules/*.json`. nlohmann_json and RE2 exceptions and
// errors are translated into `rules.*` diagnostics here; nothing throws out of this file.

#include "base/fork_join.h"
#include "base/run_cache.h"
#include "match/knowledge_tables.h"
#include "match/rule_regex_options.h"
#include "match/rules.h"
#include "model/typed_value.h"

#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <string_view>
#include <system_error>
#include <utility>

namespace megatriage {

namespace {

using nlohmann::json;

constexpr std::size_t kMinNeedleBytes = 2;  // the matcher's prefilter indexes needle byte pairs

const std::set<std::string_view>& allowed_rule_keys() {
  static const std::set<std::string_view> keys = {
      "id",    "title",   "category", "applies_to", "role",   "priority",
      "needles", "regex", "explain",  "checks",     "samples", "tags", "headline", "field_types"};
  return keys;
}

const char* const kRequiredRuleKeys[] = {"id",      "title", "category", "applies_to", "role",
                                         "needles", "regex", "explain",  "samples"};

bool parse_category(std::string_view s, Category& out) {
  static const std::pair<std::string_view, Category> table[] = {
      {"oom", Category::Oom},       {"shape", Category::Shape}, {"import", Category::Import},
      {"nccl", Category::Nccl},     {"unknown", Category::Unknown}};
  for (const auto& [name, c] : table) {
    if (s == name) {
      out = c;
      return true;
    }
  }
  return false;
}

bool parse_role(std::string_view s, RuleRole& out) {
  static const std::pair<std::string_view, RuleRole> table[] = {{"cause", RuleRole::Cause},
                                                                {"symptom", RuleRole::Symptom},
                                                                {"context", RuleRole::Context},
                                                                {"teardown", RuleRole::Teardown}};
  for (const auto& [name, r] : table) {
    if (s == name) {
      out = r;
      return true;
    }
  }
  return false;
}

bool parse_applies_to(std::string_view s, AppliesTo& out) {
  if (s == "line") {
    out = AppliesTo::Line;
    return true;
  }
  if (s == "exception") {
    out = AppliesTo::Exception;
    return true;
  }
  return false;
}

bool is_kebab_word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// `family.kebab-name`: lower-case words, one dot, words in the name joined by single dashes.
bool valid_rule_id(std::string_view id) {
  const auto dot = id.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= id.size()) return false;
  const std::string_view family = id.substr(0, dot);
  const std::string_view name = id.substr(dot + 1);
  for (char c : family) {
    if (!is_kebab_word_char(c)) return false;
  }
  char prev = '-';
  for (char c : name) {
    if (c == '-') {
      if (prev == '-') return false;
    } else if (!is_kebab_word_char(c)) {
      return false;
    }
    prev = c;
  }
  return prev != '-';
}

bool is_placeholder_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Calls f(name) for each `{name}` in text (name: [A-Za-z0-9_]+); other braces are literal.
template <typename F>
void for_each_placeholder(std::string_view text, F&& f) {
  std::size_t i = 0;
  while ((i = text.find('{', i)) != std::string_view::npos) {
    std::size_t j = i + 1;
    while (j < text.size() && is_placeholder_char(text[j])) ++j;
    if (j > i + 1 && j < text.size() && text[j] == '}') {
      f(text.substr(i + 1, j - i - 1));
      i = j + 1;
    } else {
      ++i;
    }
  }
}

std::string shorten(std::string_view s, std::size_t max = 120) {
  std::string out;
  for (char c : s.substr(0, std::min(s.size(), max))) out += (c == '\n') ? ' ' : c;
  if (s.size() > max) out += "...";
  return out;
}

/// 1-based line and column of byte offsets (0-based) in a text, counted on from the last offset
/// asked for: a file's rules are positioned in order, so the whole file is walked once, not
/// once per rule (that was O(rules x bytes) on every run).
class LineCounter {
 public:
  explicit LineCounter(const std::string& text) : text_(text) {}
  std::pair<std::uint64_t, std::uint64_t> at(std::size_t offset) {
    offset = std::min(offset, text_.size());
    if (offset < counted_) counted_ = line_start_ = 0, line_ = 1;  // backwards: from the start again
    for (const char* p = text_.data() + counted_, *end = text_.data() + offset;
         (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)))) != nullptr; ++p) {
      ++line_;
      line_start_ = static_cast<std::size_t>(p - text_.data()) + 1;
    }
    counted_ = offset;
    return {line_, offset - line_start_ + 1};
  }

 private:
  const std::string& text_;
  std::size_t counted_ = 0, line_start_ = 0;
  std::uint64_t line_ = 1;
};

std::pair<std::uint64_t, std::uint64_t> line_column(const std::string& text, std::size_t offset) {
  return LineCounter(text).at(offset);
}

/// Everything the validation of one rule reports against.
struct RuleContext {
  const std::string& source_name;
  std::uint64_t line;  // 0: unknown
  std::string label;   // `rule 'id'` or `rule #N`
  DiagnosticSink& diags;
  int problems = 0;
  std::uint64_t column = 0;  // of the rule's "id" key; 0: unknown
  bool checked_before = false;  // this file's text passed every check before (RunCache): its
                                // regexes are neither compiled nor run on the samples here

  std::string where() const {
    return line ? source_name + ":" + std::to_string(line) : source_name;
  }
  // `file:line:column` in diagnostics (the editor-clickable form).
  std::string position() const {
    return line && column ? where() + ":" + std::to_string(column) : where();
  }
  void report(const char* code, const std::string& what, std::string hint = {}) {
    ++problems;
    diags.add(Severity::Error, code, position() + ": " + label + ": " + what, source_name, line,
              std::move(hint));
  }
};

/// Named groups of a compiled regex.
std::set<std::string> group_names(const RE2& re) {
  std::set<std::string> names;
  for (const auto& [name, index] : re.NamedCapturingGroups()) names.insert(name);
  return names;
}

/// `text` with every time of day `HH:MM:SS` (and its fraction) set to another one, or empty
/// when it holds none.
std::string with_other_time(std::string_view text) {
  auto digit = [&](std::size_t i) { return i < text.size() && text[i] >= '0' && text[i] <= '9'; };
  std::string out(text);
  bool changed = false;
  for (std::size_t i = 0; i + 8 <= text.size(); ++i) {
    if (!(digit(i) && digit(i + 1) && text[i + 2] == ':' && digit(i + 3) && digit(i + 4) &&
          text[i + 5] == ':' && digit(i + 6) && digit(i + 7)))
      continue;
    out.replace(i, 8, "23:59:58");
    std::size_t j = i + 8;
    if (j < text.size() && (text[j] == '.' || text[j] == ',')) 
      for (++j; digit(j); ++j) out[j] = '7';
    changed = true;
    i = j - 1;
  }
  return changed ? out : std::string();
}

/// A line rule must match a line the same way whatever time of day the line was printed at:
/// repeated lines that differ only in their stamps skip the regexes (match/unmatched_lines.h).
void check_time_independent(const Rule& rule, const RE2& re, RuleContext& ctx) {
  if (rule.applies_to != AppliesTo::Line) return;
  auto check = [&](const std::string& text, const char* kind, int index) {
    const std::string other = with_other_time(text);
    if (other.empty()) return;
    const bool a = RE2::PartialMatch(text, re), b = RE2::PartialMatch(other, re);
    if (a != b)
      ctx.report("rules.time-dependent",
                 std::string(kind) + " sample " + std::to_string(index) + (a ? " matches" : " does not match") +
                     " but the same line at another time of day " + (b ? "does" : "does not") + ": \"" +
                     shorten(text) + "\"",
                 "match stamps by shape ([0-9:.]+), never by their value");
  };
  int index = 0;
  for (const RuleSample& sample : rule.match_samples) check(sample.text, "match", ++index);
  index = 0;
  for (const std::string& sample : rule.no_match_samples) check(sample, "no_match", ++index);
}

/// Runs the regex and needle checks of one rule whose regex compiled; reports problems.
void check_samples(const Rule& rule, const RE2& re, RuleContext& ctx) {
  check_time_independent(rule, re, ctx);
  const int ngroups = re.NumberOfCapturingGroups();
  std::vector<re2::StringPiece> sub(static_cast<std::size_t>(ngroups) + 1);
  const auto& named = re.NamedCapturingGroups();
  int index = 0;
  for (const RuleSample& sample : rule.match_samples) {
    ++index;
    const re2::StringPiece text(sample.text.data(), sample.text.size());
    if (!re.Match(text, 0, text.size(), RE2::UNANCHORED, sub.data(), ngroups + 1)) {
      ctx.report("rules.sample-failed",
                 "match sample " + std::to_string(index) + " does not match the regex: \"" +
                     shorten(sample.text) + "\"");
      continue;
    }
    // The needle must lie inside the matched text: that is the prefilter's contract.
    const std::string_view matched(sub[0].data(), sub[0].size());
    const bool has_needle = std::any_of(rule.needles.begin(), rule.needles.end(),
                                        [&](const std::string& n) {
                                          return !n.empty() && matched.find(n) != std::string_view::npos;
                                        });
    if (!has_needle) {
      ctx.report("rules.needle-missing",
                 "match sample " + std::to_string(index) +
                     " matches the regex but its matched text contains none of the needles: \"" +
                     shorten(matched) + "\"",
                 "add a literal that every match contains to \"needles\"");
    }
    // A declared type must hold for what the samples capture: the report relies on it.
    for (const auto& [field, type] : rule.field_types) {
      const auto it = named.find(field);
      if (it == named.end()) continue;  // reported with the placeholders
      const re2::StringPiece& got = sub[static_cast<std::size_t>(it->second)];
      if (got.data() && !read_typed_value(type, std::string_view(got.data(), got.size())))
        ctx.report("rules.field-type", "match sample " + std::to_string(index) + ": field '" + field +
                                           "' captured \"" + shorten(std::string_view(got.data(), got.size())) +
                                           "\", which is not " + (type == FactType::Int ? "an " : "a ") +
                                           fact_type_name(type));
    }
    for (const auto& [field, expected] : sample.fields) {
      const auto it = named.find(field);
      if (it == named.end()) {
        ctx.report("rules.sample-failed", "match sample " + std::to_string(index) +
                                              " expects field '" + field +
                                              "', which is not a named group of the regex");
        continue;
      }
      const re2::StringPiece& got = sub[static_cast<std::size_t>(it->second)];
      const std::string got_text = got.data() ? std::string(got.data(), got.size()) : "<unset>";
      if (!got.data() || got_text != expected) {
        ctx.report("rules.sample-failed", "match sample " + std::to_string(index) + ": field '" +
                                              field + "' is \"" + got_text + "\", expected \"" +
                                              expected + "\"");
      }
    }
  }
  index = 0;
  for (const std::string& sample : rule.no_match_samples) {
    ++index;
    const re2::StringPiece text(sample.data(), sample.size());
    if (re.Match(text, 0, text.size(), RE2::UNANCHORED, nullptr, 0)) {
      ctx.report("rules.sample-failed", "no_match sample " + std::to_string(index) +
                                            " matches the regex: \"" + shorten(sample) + "\"");
    }
  }
}

/// Compiles the regex and checks placeholders, needles and samples. True when the rule is valid;
/// then `keep` (if given) receives the compiled regex.
bool check_compiled_parts(const Rule& rule, RuleContext& ctx,
                          std::shared_ptr<const RE2>* keep = nullptr) {
  const int before = ctx.problems;
  auto compiled = std::make_shared<const RE2>(rule.regex, rule_regex_options());
  const RE2& re = *compiled;
  if (!re.ok()) {
    ctx.report("rules.bad-regex", "regex does not compile: " + re.error() +
                                      (re.error_arg().empty() ? "" : " at '" + re.error_arg() + "'"));
    return false;
  }
  const std::set<std::string> names = group_names(re);
  auto check_text = [&](const std::string& text, const std::string& what) {
    for_each_placeholder(text, [&](std::string_view name) {
      if (!names.count(std::string(name))) {
        ctx.report("rules.unknown-placeholder", what + " uses {" + std::string(name) +
                                                    "}, which is not a named group of the regex");
      }
    });
  };
  check_text(rule.explain, "explain");
  check_text(rule.headline, "headline");
  for (const auto& [name, type] : rule.field_types) {
    if (!names.count(name))
      ctx.report("rules.field-type", "field_types names '" + name + "', which is not a named group of the regex");
  }
  for (std::size_t i = 0; i < rule.checks.size(); ++i) {
    check_text(rule.checks[i], "checks[" + std::to_string(i) + "]");
  }
  for (const std::string& n : rule.needles) {
    if (n.size() < kMinNeedleBytes) {
      ctx.report("rules.needle-too-short", "needle \"" + n + "\" is shorter than " +
                                               std::to_string(kMinNeedleBytes) + " bytes");
    }
  }
  if (rule.needles.empty()) ctx.report("rules.bad-value", "\"needles\" must not be empty");
  if (rule.match_samples.empty()) {
    ctx.report("rules.bad-value", "\"samples.match\" needs at least one sample");
  }
  check_samples(rule, re, ctx);
  if (ctx.problems != before) return false;
  if (keep != nullptr) *keep = std::move(compiled);
  return true;
}

bool get_string(const json& obj, const char* key, std::string& out, RuleContext& ctx) {
  const json& v = obj.at(key);
  if (!v.is_string()) {
    ctx.report("rules.bad-value", std::string("\"") + key + "\" must be a string");
    return false;
  }
  out = v.get<std::string>();
  return true;
}

bool get_string_list(const json& v, const std::string& key, std::vector<std::string>& out,
                     RuleContext& ctx) {
  if (!v.is_array()) {
    ctx.report("rules.bad-value", "\"" + key + "\" must be an array of strings");
    return false;
  }
  for (const json& item : v) {
    if (!item.is_string()) {
      ctx.report("rules.bad-value", "\"" + key + "\" must be an array of strings");
      return false;
    }
    out.push_back(item.get<std::string>());
  }
  return true;
}

bool parse_samples(const json& v, Rule& rule, RuleContext& ctx) {
  if (!v.is_object()) {
    ctx.report("rules.bad-value", "\"samples\" must be an object");
    return false;
  }
  bool ok = true;
  for (const auto& [key, value] : v.items()) {
    if (key != "match" && key != "no_match") {
      ctx.report("rules.unknown-key", "unknown key \"samples." + key + "\"");
      ok = false;
    }
  }
  if (!v.contains("match")) {
    ctx.report("rules.missing-key", "missing key \"samples.match\"");
    return false;
  }
  const json& match = v.at("match");
  if (!match.is_array()) {
    ctx.report("rules.bad-value", "\"samples.match\" must be an array");
    return false;
  }
  for (const json& s : match) {
    RuleSample sample;
    if (s.is_string()) {  // shorthand: a positive sample without expected fields
      sample.text = s.get<std::string>();
    } else if (s.is_object()) {
      for (const auto& [key, value] : s.items()) {
        if (key != "text" && key != "fields") {
          ctx.report("rules.unknown-key", "unknown key \"samples.match[]." + key + "\"");
          ok = false;
        }
      }
      if (!s.contains("text") || !s.at("text").is_string()) {
        ctx.report(s.contains("text") ? "rules.bad-value" : "rules.missing-key",
                   "a match sample needs a string \"text\"");
        ok = false;
        continue;
      }
      sample.text = s.at("text").get<std::string>();
      if (s.contains("fields")) {
        const json& fields = s.at("fields");
        if (!fields.is_object()) {
          ctx.report("rules.bad-value", "\"fields\" of a match sample must be an object");
          ok = false;
          continue;
        }
        for (const auto& [name, value] : fields.items()) {
          if (!value.is_string()) {
            ctx.report("rules.bad-value", "field \"" + name + "\" of a match sample must be a string");
            ok = false;
            continue;
          }
          sample.fields[name] = value.get<std::string>();
        }
      }
    } else {
      ctx.report("rules.bad-value", "a match sample must be an object or a string");
      ok = false;
      continue;
    }
    rule.match_samples.push_back(std::move(sample));
  }
  if (v.contains("no_match") &&
      !get_string_list(v.at("no_match"), "samples.no_match", rule.no_match_samples, ctx)) {
    ok = false;
  }
  return ok;
}

// A tag is one or more lower-case words joined by single dashes: the shape of a rule id's name.
bool valid_tag(std::string_view tag) {
  if (tag.empty() || tag.front() == '-' || tag.back() == '-') return false;
  for (std::size_t i = 0; i < tag.size(); ++i) {
    if (tag[i] == '-' ? tag[i - 1] == '-' : !is_kebab_word_char(tag[i])) return false;
  }
  return true;
}

bool parse_tags(const json& v, Rule& rule, RuleContext& ctx) {
  if (!get_string_list(v, "tags", rule.tags, ctx)) return false;
  bool ok = true;
  std::set<std::string_view> seen;
  for (const std::string& tag : rule.tags) {
    if (!valid_tag(tag)) {
      ctx.report("rules.bad-value", "tag \"" + tag + "\" is not kebab-case (lower-case words joined by '-')");
      ok = false;
    } else if (!seen.insert(tag).second) {
      ctx.report("rules.bad-value", "tag \"" + tag + "\" is listed twice");
      ok = false;
    }
  }
  return ok;
}

// `"field_types": {"gpu": "int", ...}`: the types a capture may declare. A list is a fact's
// type (a Python list printed whole), not something one regex group captures.
bool parse_field_types(const json& v, Rule& rule, RuleContext& ctx) {
  if (!v.is_object()) {
    ctx.report("rules.bad-value", "\"field_types\" must be an object of group name -> type");
    return false;
  }
  bool ok = true;
  for (const auto& [name, type] : v.items()) {
    const std::optional<FactType> t = type.is_string() ? fact_type_from_name(type.get<std::string>()) : std::nullopt;
    if (!t || *t == FactType::List) {
      ctx.report("rules.bad-value", "field_types \"" + name + "\" must be one of \"int\", \"float\", \"bool\", \"text\"");
      ok = false;
      continue;
    }
    rule.field_types[name] = *t;
  }
  return ok;
}

/// Fills `rule` from one element of the "rules" array; true when the rule is valid.
bool parse_rule(const json& j, Rule& rule, RuleContext& ctx) {
  if (!j.is_object()) {
    ctx.report("rules.bad-value", "a rule must be a JSON object");
    return false;
  }
  bool ok = true;
  for (const auto& [key, value] : j.items()) {
    if (!allowed_rule_keys().count(key)) {
      ctx.report("rules.unknown-key", "unknown key \"" + key + "\"",
                 "allowed keys: id, title, category, applies_to, role, priority, needles, regex, "
                 "explain, headline, checks, samples, tags, field_types");
      ok = false;
    }
  }
  for (const char* key : kRequiredRuleKeys) {
    // A text that passed before was read without its samples (parse_rules_text).
    if (ctx.checked_before && std::string_view(key) == "samples") continue;
    if (!j.contains(key)) {
      ctx.report("rules.missing-key", std::string("missing key \"") + key + "\"");
      ok = false;
    }
  }
  if (!ok) return false;

  std::string text;
  if (get_string(j, "id", rule.id, ctx) && !valid_rule_id(rule.id)) {
    ctx.report("rules.bad-value", "id \"" + rule.id + "\" is not of the form family.kebab-name");
    ok = false;
  }
  ok = get_string(j, "title", rule.title, ctx) && ok;
  if (get_string(j, "category", text, ctx)) {
    if (!parse_category(text, rule.category)) {
      ctx.report("rules.bad-value",
                 "category \"" + text + "\" is not one of oom, shape, import, nccl, unknown");
      ok = false;
    }
  } else {
    ok = false;
  }
  if (get_string(j, "applies_to", text, ctx)) {
    if (!parse_applies_to(text, rule.applies_to)) {
      ctx.report("rules.bad-value", "applies_to \"" + text + "\" is not one of line, exception");
      ok = false;
    }
  } else {
    ok = false;
  }
  if (get_string(j, "role", text, ctx)) {
    if (!parse_role(text, rule.role)) {
      ctx.report("rules.bad-value",
                 "role \"" + text + "\" is not one of cause, symptom, context, teardown");
      ok = false;
    }
  } else {
    ok = false;
  }
  if (j.contains("priority")) {
    const json& p = j.at("priority");
    if (!p.is_number_integer() || p.get<long long>() < -1000000 || p.get<long long>() > 1000000) {
      ctx.report("rules.bad-value", "\"priority\" must be an integer in [-1000000, 1000000]");
      ok = false;
    } else {
      rule.priority = static_cast<int>(p.get<long long>());
    }
  }
  ok = get_string_list(j.at("needles"), "needles", rule.needles, ctx) && ok;
  ok = get_string(j, "regex", rule.regex, ctx) && ok;
  ok = get_string(j, "explain", rule.explain, ctx) && ok;
  if (j.contains("headline")) ok = get_string(j, "headline", rule.headline, ctx) && ok;
  if (j.contains("checks")) ok = get_string_list(j.at("checks"), "checks", rule.checks, ctx) && ok;
  if (j.contains("tags")) ok = parse_tags(j.at("tags"), rule, ctx) && ok;
  if (j.contains("field_types")) ok = parse_field_types(j.at("field_types"), rule, ctx) && ok;
  if (!ctx.checked_before) ok = parse_samples(j.at("samples"), rule, ctx) && ok;
  if (rule.regex.empty()) {
    ctx.report("rules.bad-value", "\"regex\" must not be empty");
    ok = false;
  }
  if (!ok) return false;
  if (ctx.checked_before) {
    // This exact text passed every check with this executable (RunCache): nothing to compile.
    rule.checked_before = true;
    return true;
  }
  return check_compiled_parts(rule, ctx, &rule.compiled);
}

/// Line of the rule whose id is `id`, searching from `from`; updates `from`. 0 when not found.
std::pair<std::uint64_t, std::uint64_t> find_rule_position(const std::string& text, const std::string& id,
                                                           std::size_t& from, LineCounter& lines) {
  const std::string quoted = json(id).dump();
  std::size_t pos = from;
  while ((pos = text.find(quoted, pos)) != std::string::npos) {
    // Prefer the occurrence that is the value of an "id" key.
    std::size_t k = pos;
    while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t' || text[k - 1] == '\n' ||
                     text[k - 1] == '\r')) {
      --k;
    }
    if (k > 0 && text[k - 1] == ':') {
      std::size_t q = k - 1;
      while (q > 0 && (text[q - 1] == ' ' || text[q - 1] == '\t')) --q;
      if (q >= 4 && text.compare(q - 4, 4, "\"id\"") == 0) {
        from = pos + quoted.size();
        return lines.at(q - 4);
      }
    }
    pos += quoted.size();
  }
  return {0, 0};
}

/// "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..." ->
/// "syntax error ..."; we print our own position.
std::string json_error_text(const std::string& what) {
  std::string w = what;
  const auto bracket = w.find("] ");
  if (w.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos) w = w.substr(bracket + 2);
  if (w.rfind("parse error at line", 0) == 0) {
    const auto colon = w.find(": ");
    if (colon != std::string::npos) w = w.substr(colon + 2);
  }
  return w;
}

bool read_file(const std::filesystem::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return false;
  out = ss.str();
  return true;
}

// Knowledge tables (knowledge_tables.h): parsed beside the rules, validated with the same codes.

// The table keys a rules file may hold besides "rules".
constexpr const char* kTableKeys[] = {"gpu_generations", "oom_phases", "lint_rules", "slurm_states",
                                     "runbook_checks"};

bool is_table_key(std::string_view key) {
  return std::any_of(std::begin(kTableKeys), std::end(kTableKeys),
                     [&](const char* k) { return key == k; });
}

/// Checks an entry's keys: each known, each required one present. Reports and returns false.
bool check_entry_keys(const json& j, std::initializer_list<const char*> allowed,
                      std::initializer_list<const char*> required, RuleContext& ctx) {
  bool ok = true;
  for (const auto& item : j.items()) {
    // Named, not a structured binding: clang 14 cannot capture a binding in a lambda.
    const std::string& key = item.key();
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* k) { return key == k; })) {
      std::string list;
      for (const char* k : allowed) list += std::string(list.empty() ? "" : ", ") + k;
      ctx.report("rules.unknown-key", "unknown key \"" + key + "\"", "allowed keys: " + list);
      ok = false;
    }
  }
  for (const char* key : required) {
    if (!j.contains(key)) {
      ctx.report("rules.missing-key", std::string("missing key \"") + key + "\"");
      ok = false;
    }
  }
  return ok;
}

bool no_empty_strings(const std::vector<std::string>& list, const std::string& key, RuleContext& ctx) {
  if (std::none_of(list.begin(), list.end(), [](const std::string& s) { return s.empty(); })) return true;
  ctx.report("rules.bad-value", "\"" + key + "\" must not hold an empty string");
  return false;
}

bool fill_gpu_generation(const json& j, GpuGenerationEntry& e, RuleContext& ctx) {
  if (!check_entry_keys(j, {"id", "compute_capability_major", "models"},
                        {"id", "compute_capability_major", "models"}, ctx)) {
    return false;
  }
  bool ok = true;
  std::string id;
  if (get_string(j, "id", id, ctx) && !parse_generation(id, e.generation)) {
    ctx.report("rules.bad-value", "id \"" + id + "\" is not one of older, ampere, hopper, blackwell");
    ok = false;
  }
  const json& range = j.at("compute_capability_major");
  const auto is_major = [](const json& v) {
    return v.is_number_integer() && v.get<long long>() >= 0 && v.get<long long>() <= 99;
  };
  if (!range.is_array() || range.size() != 2 || !is_major(range[0]) || !is_major(range[1]) ||
      range[0].get<long long>() > range[1].get<long long>()) {
    ctx.report("rules.bad-value",
               "\"compute_capability_major\" must be [first, last], integers 0..99 with first <= last");
    ok = false;
  } else {
    e.min_major = static_cast<int>(range[0].get<long long>());
    e.max_major = static_cast<int>(range[1].get<long long>());
  }
  ok = get_string_list(j.at("models"), "models", e.models, ctx) && no_empty_strings(e.models, "models", ctx) && ok;
  return ok;
}

bool fill_oom_phase(const json& j, OomPhaseEntry& e, RuleContext& ctx) {
  if (!check_entry_keys(j, {"id", "functions", "path_parts"}, {"id", "functions", "path_parts"}, ctx)) {
    return false;
  }
  bool ok = true;
  if (get_string(j, "id", e.phase, ctx) && !valid_tag(e.phase)) {
    ctx.report("rules.bad-value", "id \"" + e.phase + "\" is not kebab-case (lower-case words joined by '-')");
    ok = false;
  }
  ok = get_string_list(j.at("functions"), "functions", e.functions, ctx) &&
       no_empty_strings(e.functions, "functions", ctx) && ok;
  ok = get_string_list(j.at("path_parts"), "path_parts", e.path_parts, ctx) &&
       no_empty_strings(e.path_parts, "path_parts", ctx) && ok;
  if (ok && e.functions.empty() && e.path_parts.empty()) {
    ctx.report("rules.bad-value", "\"functions\" and \"path_parts\" are both empty: the phase never applies");
    ok = false;
  }
  return ok;
}

// The `variants` of a lint_rules entry: {"kebab-name": {"why": text, "fix": text}, ...}, each
// text's placeholders ones lint.cc fills. `${NAME}` is the script's shell, left alone.
bool fill_lint_variants(const json& variants, LintRuleEntry& e, RuleContext& ctx) {
  if (!variants.is_object()) {
    ctx.report("rules.bad-value", "\"variants\" must be an object of {\"why\": ..., \"fix\": ...} objects");
    return false;
  }
  bool ok = true;
  for (const auto& variant : variants.items()) {
    const std::string& name = variant.key();  // not bindings: the lambda below captures them
    const json& v = variant.value();
    if (!valid_tag(name)) {
      ctx.report("rules.bad-value", "variant \"" + name + "\" is not kebab-case (lower-case words joined by '-')");
      ok = false;
      continue;
    }
    if (!v.is_object()) {
      ctx.report("rules.bad-value", "variant \"" + name + "\" must be an object with \"why\" and \"fix\"");
      ok = false;
      continue;
    }
    if (!check_entry_keys(v, {"why", "fix"}, {"why", "fix"}, ctx)) {
      ok = false;
      continue;
    }
    LintText t;
    t.variant = name;
    const std::pair<const char*, std::string*> texts[] = {{"why", &t.why}, {"fix", &t.fix}};
    for (const auto& field : texts) {
      const char* key = field.first;
      std::string* out = field.second;
      if (!get_string(v, key, *out, ctx)) {
        ok = false;
        continue;
      }
      if (out->empty()) {
        ctx.report("rules.bad-value", "variant \"" + name + "\": \"" + key + "\" must not be empty");
        ok = false;
      }
      const std::string& text = *out;
      for_each_placeholder(text, [&](std::string_view p) {
        const std::size_t at = static_cast<std::size_t>(p.data() - text.data());
        if (at >= 2 && text[at - 2] == '$') return;  // `${NNODES}`: the script's variable
        if (!is_lint_placeholder(p)) {
          ctx.report("rules.unknown-placeholder", "variant \"" + name + "\" " + key + " uses {" + std::string(p) +
                                                      "}, which lint does not fill");
          ok = false;
        }
      });
    }
    e.variants.push_back(std::move(t));
  }
  return ok;
}

bool fill_lint_rule(const json& j, LintRuleEntry& e, RuleContext& ctx) {
  if (!check_entry_keys(j, {"id", "explains", "variants"}, {"id", "explains"}, ctx)) return false;
  bool ok = true;
  if (get_string(j, "id", e.id, ctx) && (!valid_rule_id(e.id) || !e.id.starts_with("lint."))) {
    ctx.report("rules.bad-value", "id \"" + e.id + "\" is not of the form lint.kebab-name");
    ok = false;
  }
  if (get_string_list(j.at("explains"), "explains", e.explains, ctx)) {
    for (const std::string& c : e.explains) {
      Category ignored;
      if (!parse_category(c, ignored)) {
        ctx.report("rules.bad-value", "explains \"" + c + "\" is not one of oom, shape, import, nccl, unknown");
        ok = false;
      }
    }
  } else {
    ok = false;
  }
  if (j.contains("variants")) ok = fill_lint_variants(j.at("variants"), e, ctx) && ok;
  return ok;
}

bool fill_slurm_state(const json& j, SlurmStateEntry& e, RuleContext& ctx) {
  if (!check_entry_keys(j,
                        {"id", "category", "title", "explain", "checks", "headline", "confirm_reason",
                         "traceback_reason", "progress", "at_iteration"},
                        {"id", "category", "title", "explain", "checks", "headline"}, ctx)) {
    return false;
  }
  bool ok = true;
  if (get_string(j, "id", e.id, ctx) && !is_slurm_state_id(e.id)) {
    ctx.report("rules.bad-value", "id \"" + e.id + "\" is not a cause the postmortem decides on",
               "one of sacct.node-fail, sacct.out-of-memory, sacct.timeout, sacct.cancelled, sacct.failed");
    ok = false;
  }
  std::string category;
  if (get_string(j, "category", category, ctx) && !parse_category(category, e.category)) {
    ctx.report("rules.bad-value", "category \"" + category + "\" is not one of oom, shape, import, nccl, unknown");
    ok = false;
  }
  // The texts, each checked for names the postmortem does not fill (they would show as `{name}`).
  const std::pair<const char*, std::string*> texts[] = {
      {"title", &e.title},
      {"explain", &e.explain},
      {"headline", &e.headline},
      {"confirm_reason", &e.confirm_reason},
      {"traceback_reason", &e.traceback_reason},
      {"progress", &e.progress},
      {"at_iteration", &e.at_iteration},
  };
  auto check_placeholders = [&](const std::string& what, const std::string& text) {
    for_each_placeholder(text, [&](std::string_view name) {
      if (!is_slurm_state_placeholder(name)) {
        ctx.report("rules.unknown-placeholder", what + " uses {" + std::string(name) + "}, which the postmortem does not fill");
        ok = false;
      }
    });
  };
  for (const auto& [key, out] : texts) {
    if (!j.contains(key)) continue;
    if (!get_string(j, key, *out, ctx)) {
      ok = false;
      continue;
    }
    check_placeholders(std::string("\"") + key + "\"", *out);
  }
  if (get_string_list(j.at("checks"), "checks", e.checks, ctx) && no_empty_strings(e.checks, "checks", ctx)) {
    for (std::size_t i = 0; i < e.checks.size(); ++i)
      check_placeholders("check " + std::to_string(i + 1), e.checks[i]);
  } else {
    ok = false;
  }
  return ok;
}

// ---- runbook_checks ----

bool parse_check_status(std::string_view s, CheckStatus& out) {
  if (s == "failed") out = CheckStatus::Failed;
  else if (s == "passed") out = CheckStatus::Passed;
  else if (s == "unknown") out = CheckStatus::Unknown;
  else return false;
  return true;
}

// A check id: lower-case words joined by `_` (`world_size_product`). `advice.N` and `lint.*`
// belong to the rules' advice and the batch script's findings.
bool valid_check_id(std::string_view id) {
  if (id.empty() || id.front() == '_' || id.back() == '_') return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    if (id[i] == '_' ? id[i - 1] == '_' : !is_kebab_word_char(id[i])) return false;
  }
  return true;
}

bool fill_check_condition(const json& j, CheckCondition& c, const std::string& what, RuleContext& ctx) {
  if (!j.is_object()) {
    ctx.report("rules.bad-value", what + " must be an object");
    return false;
  }
  if (!check_entry_keys(j, {"categories", "tags_any", "tags_none", "facts_any", "frames_any", "decided"}, {}, ctx))
    return false;
  bool ok = true;
  if (j.contains("categories")) {
    std::vector<std::string> names;
    ok = get_string_list(j.at("categories"), "categories", names, ctx) && ok;
    for (const std::string& n : names) {
      Category cat;
      if (!parse_category(n, cat)) {
        ctx.report("rules.bad-value", what + ": category \"" + n + "\" is not one of oom, shape, import, nccl, unknown");
        ok = false;
        continue;
      }
      c.categories.push_back(cat);
    }
  }
  const std::pair<const char*, std::vector<std::string>*> lists[] = {
      {"tags_any", &c.tags_any}, {"tags_none", &c.tags_none}, {"facts_any", &c.facts_any}, {"frames_any", &c.frames_any}};
  for (const auto& [key, out] : lists) {
    if (!j.contains(key)) continue;
    ok = get_string_list(j.at(key), key, *out, ctx) && no_empty_strings(*out, key, ctx) && ok;
  }
  for (const auto* tags : {&c.tags_any, &c.tags_none}) {
    for (const std::string& t : *tags) {
      if (!t.empty() && !valid_tag(t)) {
        ctx.report("rules.bad-value", what + ": tag \"" + t + "\" is not kebab-case");
        ok = false;
      }
    }
  }
  if (j.contains("decided")) {
    if (!j.at("decided").is_boolean()) {
      ctx.report("rules.bad-value", what + ": \"decided\" must be true or false");
      ok = false;
    } else {
      c.decided = j.at("decided").get<bool>();
    }
  }
  return ok;
}

bool fill_runbook_check(const json& j, RunbookCheckEntry& e, RuleContext& ctx) {
  if (!check_entry_keys(j,
                        {"id", "text", "evaluate", "when", "status", "detail", "otherwise", "dividend", "divisors",
                         "divisor_factor"},
                        {"id", "text", "evaluate", "when"}, ctx)) {
    return false;
  }
  bool ok = true;
  if (get_string(j, "id", e.id, ctx) && !valid_check_id(e.id)) {
    ctx.report("rules.bad-value", "id \"" + e.id + "\" is not lower-case words joined by '_' (advice and lint ids are taken)");
    ok = false;
  }
  if (get_string(j, "text", e.text, ctx) && e.text.empty()) {
    ctx.report("rules.bad-value", "\"text\" must not be empty");
    ok = false;
  }
  if (get_string(j, "evaluate", e.evaluate, ctx) && !is_check_evaluator(e.evaluate)) {
    std::string names = std::string(kTemplateEvaluator) + ", " + std::string(kDivisibleEvaluator);
    for (std::string_view n : builtin_check_evaluators()) names += ", " + std::string(n);
    ctx.report("rules.bad-value", "\"evaluate\" names no evaluator: \"" + e.evaluate + "\"", "one of " + names);
    ok = false;
  }
  const json& when = j.at("when");
  if (!when.is_array()) {
    ctx.report("rules.bad-value", "\"when\" must be an array of conditions ([] turns the check off)");
    ok = false;
  } else {
    for (std::size_t i = 0; i < when.size(); ++i) {
      CheckCondition c;
      if (fill_check_condition(when[i], c, "when #" + std::to_string(i + 1), ctx)) e.when.push_back(std::move(c));
      else ok = false;
    }
  }
  // The keys of one evaluator are not allowed with another: a typo would otherwise pass silently.
  const bool is_template = e.evaluate == kTemplateEvaluator, is_divisible = e.evaluate == kDivisibleEvaluator;
  for (const char* key : {"status", "detail", "otherwise"}) {
    if (j.contains(key) && !is_template) {
      ctx.report("rules.bad-value", std::string("\"") + key + "\" belongs to \"evaluate\": \"template\"");
      ok = false;
    }
  }
  for (const char* key : {"dividend", "divisors", "divisor_factor"}) {
    if (j.contains(key) && !is_divisible) {
      ctx.report("rules.bad-value", std::string("\"") + key + "\" belongs to \"evaluate\": \"divisible\"");
      ok = false;
    }
  }
  auto status_and_detail = [&](const json& obj, CheckStatus& status, std::string& detail, const std::string& what) {
    if (!obj.contains("status") || !obj.contains("detail")) {
      ctx.report("rules.missing-key", what + " needs \"status\" and \"detail\"");
      return false;
    }
    std::string name;
    bool fine = get_string(obj, "status", name, ctx);
    if (fine && !parse_check_status(name, status)) {
      ctx.report("rules.bad-value", what + ": status \"" + name + "\" is not one of failed, passed, unknown");
      fine = false;
    }
    if (get_string(obj, "detail", detail, ctx)) {
      if (detail.empty()) {
        ctx.report("rules.bad-value", what + ": \"detail\" must not be empty");
        fine = false;
      }
    } else {
      fine = false;
    }
    return fine;
  };
  if (is_template) {
    ok = status_and_detail(j, e.status, e.detail, "a template check") && ok;
    if (j.contains("otherwise")) {
      const json& o = j.at("otherwise");
      if (!o.is_object()) {
        ctx.report("rules.bad-value", "\"otherwise\" must be an object with \"status\" and \"detail\"");
        ok = false;
      } else if (check_entry_keys(o, {"status", "detail"}, {"status", "detail"}, ctx)) {
        e.has_otherwise = status_and_detail(o, e.otherwise_status, e.otherwise_detail, "\"otherwise\"");
        ok = e.has_otherwise && ok;
      } else {
        ok = false;
      }
    }
  }
  if (is_divisible) {
    if (!j.contains("dividend") || !j.contains("divisors")) {
      ctx.report("rules.missing-key", "a divisible check needs \"dividend\" and \"divisors\"");
      ok = false;
    } else {
      ok = get_string(j, "dividend", e.dividend, ctx) && ok;
      ok = get_string_list(j.at("divisors"), "divisors", e.divisors, ctx) &&
           no_empty_strings(e.divisors, "divisors", ctx) && ok;
      if (e.dividend.empty() || e.divisors.empty()) {
        ctx.report("rules.bad-value", "\"dividend\" and \"divisors\" name facts: none may be empty");
        ok = false;
      }
    }
    if (j.contains("divisor_factor")) {
      const json& f = j.at("divisor_factor");
      if (!f.is_number_integer() || f.get<long long>() < 1 || f.get<long long>() > 1024) {
        ctx.report("rules.bad-value", "\"divisor_factor\" must be an integer 1..1024");
        ok = false;
      } else {
        e.divisor_factor = f.get<long long>();
      }
    }
  }
  return ok;
}

/// Parses the table `key` of a file into `out` (entries in file order); each broken entry is
/// reported and skipped, the rest load.
template <typename Entry, typename Fill, typename Id>
void parse_table(const json& doc, const char* key, const std::string& text, const std::string& source_name,
                 DiagnosticSink& diags, std::vector<Entry>& out, Fill fill, Id id_of) {
  const json& list = doc.at(key);
  if (!list.is_array()) {
    diags.add(Severity::Error, "rules.bad-value", source_name + ": \"" + key + "\" must be an array",
              source_name);
    return;
  }
  std::set<std::string> seen;
  std::size_t search_from = 0;
  LineCounter lines(text);
  std::size_t index = 0;
  for (const json& item : list) {
    ++index;
    std::uint64_t line = 0, column = 0;
    std::string label = std::string(key) + " entry #" + std::to_string(index);
    if (item.is_object() && item.contains("id") && item.at("id").is_string()) {
      const std::string id = item.at("id").get<std::string>();
      std::tie(line, column) = find_rule_position(text, id, search_from, lines);
      label = std::string(key) + " entry '" + id + "'";
    }
    RuleContext ctx{source_name, line, label, diags};
    ctx.column = column;
    if (!item.is_object()) {
      ctx.report("rules.bad-value", "an entry must be a JSON object");
      continue;
    }
    Entry entry;
    bool ok = false;
    try {
      ok = fill(item, entry, ctx);
    } catch (const json::exception& e) {  // defensive: every access above is type-checked
      ctx.report("rules.bad-value", json_error_text(e.what()));
    }
    if (!ok) continue;
    if (!seen.insert(std::string(id_of(entry))).second) {
      ctx.report("rules.duplicate-id", "id \"" + std::string(id_of(entry)) + "\" is already defined in this file",
                 "ids must be unique; the later definition is dropped");
      continue;
    }
    entry.source = ctx.where();
    out.push_back(std::move(entry));
  }
}

std::string gpu_id(const GpuGenerationEntry& e) { return std::string(generation_name(e.generation)); }
std::string phase_id(const OomPhaseEntry& e) { return e.phase; }
std::string lint_id(const LintRuleEntry& e) { return e.id; }
std::string slurm_state_id(const SlurmStateEntry& e) { return e.id; }
std::string runbook_check_id(const RunbookCheckEntry& e) { return e.id; }

void parse_tables(const json& doc, const std::string& text, const std::string& source_name,
                  DiagnosticSink& diags, KnowledgeTables& tables) {
  if (doc.contains("gpu_generations")) {
    parse_table(doc, "gpu_generations", text, source_name, diags, tables.gpu_generations, fill_gpu_generation, gpu_id);
  }
  if (doc.contains("oom_phases")) {
    parse_table(doc, "oom_phases", text, source_name, diags, tables.oom_phases, fill_oom_phase, phase_id);
  }
  if (doc.contains("lint_rules")) {
    parse_table(doc, "lint_rules", text, source_name, diags, tables.lint_rules, fill_lint_rule, lint_id);
  }
  if (doc.contains("slurm_states")) {
    parse_table(doc, "slurm_states", text, source_name, diags, tables.slurm_states, fill_slurm_state, slurm_state_id);
  }
  if (doc.contains("runbook_checks")) {
    parse_table(doc, "runbook_checks", text, source_name, diags, tables.runbook_checks, fill_runbook_check,
                runbook_check_id);
  }
}

/// Merges one file's entries of a table: the same id again in this directory is a duplicate;
/// from an earlier directory it is replaced in place (lookup order stays), else appended.
template <typename Entry, typename Id>
void merge_table(std::vector<Entry>& into, std::vector<Entry>& from, const char* table, Id id_of,
                 std::map<std::string, std::string>& defined_here, const std::string& file,
                 DiagnosticSink& diags) {
  for (Entry& e : from) {
    const std::string id = id_of(e);
    const std::string key = std::string(table) + "/" + id;
    const auto here = defined_here.find(key);
    if (here != defined_here.end()) {
      diags.add(Severity::Error, "rules.duplicate-id",
                e.source + ": " + table + " entry '" + id + "': id is already defined at " + here->second,
                file, 0, "ids must be unique; the later definition is dropped");
      continue;
    }
    defined_here[key] = e.source;
    auto earlier = std::find_if(into.begin(), into.end(), [&](const Entry& x) { return id_of(x) == id; });
    if (earlier != into.end()) {
      diags.add(Severity::Info, "rules.override",
                e.source + ": " + table + " entry '" + id + "' overrides " + earlier->source, file);
      *earlier = std::move(e);
    } else {
      into.push_back(std::move(e));
    }
  }
}

// A text that passed every check before (RunCache) has its rules' samples run already: they
// are half its bytes, and the parser drops them unbuilt (only `rules check` and a first load
// need them). Keys at depth 3 are a rule's ({"rules": [{...}]}).
bool drop_samples(int depth, json::parse_event_t event, json& parsed) {
  return !(event == json::parse_event_t::key && depth == 3 && parsed == "samples");
}

}  // namespace

std::string sample_free_json(const std::string& text) {
  const json doc = json::parse(text, drop_samples, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  return doc.is_discarded() ? std::string() : doc.dump();
}

std::vector<Rule> parse_rules_text(const std::string& text, const std::string& source_name,
                                   DiagnosticSink& diags, bool checked_before, KnowledgeTables* tables,
                                   const std::string* checked_json) {
  std::vector<Rule> out;
  json doc;  // null until parsed
  // A text checked before is read from the JSON object its check left, when that is one.
  if (checked_before && checked_json != nullptr)
    doc = json::parse(*checked_json, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    try {
      doc = json::parse(text, checked_before ? json::parser_callback_t(drop_samples) : nullptr,
                        /*allow_exceptions=*/true, /*ignore_comments=*/true);
    } catch (const json::parse_error& e) {
      // nlohmann's `byte` is 1-based: the position of the character it stopped at.
      const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
      const auto [line, column] = line_column(text, offset);
      diags.add(Severity::Error, "rules.json-syntax",
                source_name + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                    json_error_text(e.what()),
                source_name, line, "the whole file is skipped; fix the JSON (comments are allowed)");
      return out;
    } catch (const json::exception& e) {
      diags.add(Severity::Error, "rules.json-syntax", source_name + ": " + json_error_text(e.what()),
                source_name);
      return out;
    }
  }

  if (!doc.is_object()) {
    diags.add(Severity::Error, "rules.bad-value",
              source_name + ": the top level must be an object {\"rules\": [...]}", source_name);
    return out;
  }
  bool has_table = false;
  for (const auto& [key, value] : doc.items()) {
    if (is_table_key(key)) {
      has_table = true;
    } else if (key != "rules") {
      diags.add(Severity::Error, "rules.unknown-key",
                source_name + ": unknown top-level key \"" + key + "\"", source_name, 0,
                "allowed: rules, gpu_generations, oom_phases, lint_rules, slurm_states, runbook_checks");
    }
  }
  if (has_table) {
    KnowledgeTables unused;  // validated all the same: `rules check` reports its problems
    parse_tables(doc, text, source_name, diags, tables != nullptr ? *tables : unused);
  }
  if (!doc.contains("rules")) {
    if (has_table) return out;
    diags.add(Severity::Error, "rules.missing-key", source_name + ": missing key \"rules\"",
              source_name);
    return out;
  }
  const json& list = doc.at("rules");
  if (!list.is_array()) {
    diags.add(Severity::Error, "rules.bad-value", source_name + ": \"rules\" must be an array",
              source_name);
    return out;
  }

  std::set<std::string> seen;
  std::size_t search_from = 0;
  LineCounter lines(text);
  std::size_t index = 0;
  for (const json& item : list) {
    ++index;
    std::uint64_t line = 0, column = 0;
    std::string label = "rule #" + std::to_string(index);
    if (item.is_object() && item.contains("id") && item.at("id").is_string()) {
      const std::string id = item.at("id").get<std::string>();
      std::tie(line, column) = find_rule_position(text, id, search_from, lines);
      label = "rule '" + id + "'";
    }
    RuleContext ctx{source_name, line, label, diags};
    ctx.column = column;
    ctx.checked_before = checked_before;
    Rule rule;
    bool ok = false;
    try {
      ok = parse_rule(item, rule, ctx);
    } catch (const json::exception& e) {  // defensive: every access above is type-checked
      ctx.report("rules.bad-value", json_error_text(e.what()));
      ok = false;
    }
    if (!ok) continue;
    if (!seen.insert(rule.id).second) {
      ctx.report("rules.duplicate-id", "id \"" + rule.id + "\" is already defined in this file",
                 "rule ids must be unique; the later definition is dropped");
      continue;
    }
    rule.source = ctx.where();
    out.push_back(std::move(rule));
  }
  return out;
}

int check_rule_samples(const std::vector<Rule>& rules, DiagnosticSink& diags) {
  int problems = 0;
  for (const Rule& rule : rules) {
    // `source` is "file:line"; diagnostics want the file and the line separately.
    std::string file = rule.source;
    std::uint64_t line = 0;
    const auto colon = file.rfind(':');
    if (colon != std::string::npos && colon + 1 < file.size() &&
        file.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      line = std::stoull(file.substr(colon + 1));
      file.resize(colon);
    }
    RuleContext ctx{file, line, "rule '" + rule.id + "'", diags};
    check_compiled_parts(rule, ctx);
    problems += ctx.problems;
  }
  return problems;
}

std::vector<Rule> load_rules(const std::vector<std::string>& directories, DiagnosticSink& diags,
                             unsigned threads, const RunCache* cache, KnowledgeTables* tables) {
  namespace fs = std::filesystem;
  // First the plan, in order: what each directory listing said and the files to parse. Then
  // the files are parsed and checked (the regexes compiled and run on their samples: most of a
  // small run's time) on up to `threads` threads, and merged in the planned order, so the
  // diagnostics and overrides are those of a serial load.
  struct Step {
    std::vector<Diagnostic> listing;  // from listing the directory, before its files
    std::string path;                 // a rules file; empty for a directory's listing step
    std::vector<Rule> rules;
    DiagnosticSink diags;
    std::size_t dir = 0;
    KnowledgeTables tables;
  };
  std::vector<Step> steps;
  for (std::size_t d = 0; d < directories.size(); ++d) {
    const std::string& dir = directories[d];
    DiagnosticSink listing;
    std::error_code ec;
    std::vector<fs::path> files;
    fs::directory_iterator it(dir, ec);
    if (ec || !fs::is_directory(dir)) {
      listing.add(Severity::Error, "rules.dir-unreadable",
                  dir + ": cannot read rules directory: " +
                      (ec ? ec.message() : std::string("not a directory")),
                  dir, 0, "pass an existing directory to --rules");
      steps.push_back({listing.take(), "", {}, {}, d, {}});
      continue;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      const fs::path& p = it->path();
      std::error_code type_ec;
      if (p.extension() == ".json" && !p.filename().string().starts_with(".") &&
          fs::is_regular_file(p, type_ec)) {
        files.push_back(p);
      }
    }
    if (ec) {
      listing.add(Severity::Error, "rules.dir-unreadable",
                  dir + ": error while listing the rules directory: " + ec.message(), dir);
    }
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
    if (files.empty()) {
      listing.add(Severity::Warning, "rules.dir-empty", dir + ": no *.json rule files", dir);
    }
    steps.push_back({listing.take(), "", {}, {}, d, {}});
    for (const fs::path& path : files) steps.push_back({{}, path.string(), {}, {}, d, {}});
  }

  for_each_index(threads, steps.size(), [&](std::size_t k) {
    Step& step = steps[k];
    if (step.path.empty()) return;
    std::string text;
    if (!read_file(step.path, text)) {
      step.diags.add(Severity::Error, "rules.file-unreadable", step.path + ": cannot read rules file",
                     step.path);
      return;
    }
    // Compiling the regexes and running the samples is most of a load; a text that passed before
    // with this executable need not.
    // The check leaves the text's JSON without its samples, which is what is parsed next time.
    const std::string key = cache != nullptr ? cache->key("rules-checked-json", text) : std::string();
    const std::optional<std::string> checked = cache != nullptr ? cache->get(key) : std::nullopt;
    step.rules = parse_rules_text(text, step.path, step.diags, checked.has_value(), &step.tables,
                                  checked ? &*checked : nullptr);
    if (cache != nullptr && !checked && step.diags.items().empty()) cache->put(key, sample_free_json(text));
  });

  std::map<std::string, Rule> by_id;
  std::map<std::string, std::string> defined_here;  // id -> source, the current directory only
  std::map<std::string, std::string> table_ids_here;  // table/id -> source, likewise
  KnowledgeTables merged;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    Step& step = steps[k];
    if (k == 0 || steps[k - 1].dir != step.dir) defined_here.clear(), table_ids_here.clear();
    for (Diagnostic& d : step.listing) diags.add(std::move(d));
    for (Diagnostic& d : step.diags.take()) diags.add(std::move(d));
    const std::string& name = step.path;
    merge_table(merged.gpu_generations, step.tables.gpu_generations, "gpu_generations", gpu_id,
                table_ids_here, name, diags);
    merge_table(merged.oom_phases, step.tables.oom_phases, "oom_phases", phase_id, table_ids_here, name, diags);
    merge_table(merged.lint_rules, step.tables.lint_rules, "lint_rules", lint_id, table_ids_here, name, diags);
    merge_table(merged.slurm_states, step.tables.slurm_states, "slurm_states", slurm_state_id, table_ids_here, name,
                diags);
    merge_table(merged.runbook_checks, step.tables.runbook_checks, "runbook_checks", runbook_check_id, table_ids_here,
                name, diags);
    for (Rule& rule : step.rules) {
      const auto here = defined_here.find(rule.id);
      if (here != defined_here.end()) {
        diags.add(Severity::Error, "rules.duplicate-id",
                  rule.source + ": rule '" + rule.id + "': id is already defined at " +
                      here->second,
                  name, 0, "rule ids must be unique; the later definition is dropped");
        continue;
      }
      defined_here[rule.id] = rule.source;
      auto earlier = by_id.find(rule.id);
      if (earlier != by_id.end()) {
        diags.add(Severity::Info, "rules.override",
                  rule.source + ": rule '" + rule.id + "' overrides " + earlier->second.source,
                  name);
        earlier->second = std::move(rule);
      } else {
        std::string id = rule.id;
        by_id.emplace(std::move(id), std::move(rule));
      }
    }
  }
  if (tables != nullptr) *tables = std::move(merged);
  std::vector<Rule> out;
  out.reserve(by_id.size());
  for (auto& [id, rule] : by_id) out.push_back(std::move(rule));  // std::map: sorted by id
  return out;
}

std::vector<std::string> builtin_rules_dir_candidates() {
  // Order: the environment; the rules installed beside this binary (`<prefix>/bin/megatriage`
  // reads `<prefix>/share/megatriage/rules`, wherever the prefix was moved or mounted); the
  // checkout's rules/ through the link CMake makes beside a binary in its build tree (no
  // installed binary has one, and no checkout path is compiled in); then the configured prefix.
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("MEGATRIAGE_RULES_DIR"); env && *env) return {env};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {"../share/megatriage/rules"};
  std::vector<std::string> places{
      (exe.parent_path() / ".." / "share" / "megatriage" / "rules").lexically_normal().string()};
  if (const fs::path link = exe.parent_path() / "megatriage-checkout-rules"; fs::is_symlink(link, ec)) {
    const fs::path target = fs::canonical(link, ec);  // messages name the checkout's rules/
    places.push_back(ec ? link.string() : target.string());
  }
#ifdef MEGATRIAGE_INSTALL_RULES_DIR
  if (std::find(places.begin(), places.end(), MEGATRIAGE_INSTALL_RULES_DIR) == places.end())
    places.emplace_back(MEGATRIAGE_INSTALL_RULES_DIR);
#endif
  return places;
}

std::string default_rules_dir() {
  const std::vector<std::string> places = builtin_rules_dir_candidates();
  std::error_code ec;
  for (const std::string& place : places)
    if (std::filesystem::is_directory(place, ec)) return place;
  // Nothing found: name the first place looked at, so the diagnostic says where.
  return places.front();
}

}  // namespace megatriage
