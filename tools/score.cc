// tools/score — how often does megatriage name what a careful human names? Runs megatriage on
// every labelled case under fixtures/ (label.json, format in fixtures/README.md) and scores three
// answers per case: the category, the root's location and the root's rank. Prints a table per
// source family and per category, then every miss with what was reported and what the label says.
//
//   megatriage_score MEGATRIAGE FIXTURES_DIR [--misses-only]
//
// Location: the label's root_file and root_line or one of its alt_locations; for category nccl
// the same file within 40 lines (an NCCL failure is a cluster of lines, any of them is a fair
// pointer); for "none" a report of no failure. Rank: only cases whose label knows the rank; when
// the label says no log line ties the root to a rank (rank_from_text: false), "unknown" is right.
// Exit status: 0 when every case ran, 1 when megatriage failed on a case, 2 on usage errors.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Tally {
  int cases = 0, category = 0, location = 0, rank_known = 0, rank = 0;
  void add(bool cat, bool loc, int rank_state) {  // rank_state: -1 not scored, 0 miss, 1 hit
    ++cases;
    category += cat;
    location += loc;
    if (rank_state >= 0) {
      ++rank_known;
      rank += rank_state;
    }
  }
};

std::string percent(int hit, int of) {
  if (of == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%3.0f %% (%d/%d)", 100.0 * hit / of, hit, of);
  return buf;
}

// Where a case comes from, from its folder name: the families a reader of the table cares
// about are "made for this project on real programs" and "public logs nobody here wrote".
std::string family_of(const std::string& name) {
  if (name.rfind("public-", 0) == 0) return "public (threads, repositories)";
  if (name.rfind("synthetic-", 0) == 0) return "synthetic";
  return "captures (real runs made here)";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs megatriage on a copy of the case's logs whose files carry the fixtures' capture day (a
// log without a year takes it from its file's mtime), as the label tests do.
bool run_case(const std::string& megatriage, const fs::path& case_dir, json& report, std::string& error) {
  fs::path tmp = fs::temp_directory_path() / ("megatriage-score-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  fs::copy(case_dir / "logs", tmp / "logs", fs::copy_options::recursive);
  std::string cmd = "cd " + shell_quote(tmp.string()) +
                    " && find logs -exec touch -h -d '2026-11-29 12:00:00 UTC' {} + && " +
                    shell_quote(megatriage) + " --format json logs 2>/dev/null";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int status = ::pclose(p);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    if (rc > 1) error = "megatriage exited " + std::to_string(rc);
  } else {
    error = "cannot run megatriage";
  }
  fs::remove_all(tmp);
  if (!error.empty()) return false;
  try {
    report = json::parse(out);
  } catch (const std::exception& e) {
    error = std::string("report is not JSON: ") + e.what();
    return false;
  }
  return true;
}

std::string or_dash(const json& v) { return v.is_null() ? "-" : (v.is_string() ? v.get<std::string>() : v.dump()); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: megatriage_score MEGATRIAGE FIXTURES_DIR [--misses-only]\n";
    return 2;
  }
  const std::string megatriage = fs::absolute(argv[1]).string();
  const fs::path fixtures = argv[2];
  const bool misses_only = argc > 3 && std::string(argv[3]) == "--misses-only";

  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(fixtures))
    if (fs::exists(entry.path() / "label.json") && fs::is_directory(entry.path() / "logs")) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());

  std::map<std::string, Tally> by_family, by_category;
  Tally all;
  std::vector<std::string> misses;
  int failed_runs = 0;
  for (const fs::path& dir : cases) {
    const std::string name = dir.filename().string();
    json label, report;
    try {
      std::ifstream(dir / "label.json") >> label;
    } catch (const std::exception& e) {
      misses.push_back(name + ": label.json does not parse: " + e.what());
      continue;
    }
    std::string error;
    if (!run_case(megatriage, dir, report, error)) {
      ++failed_runs;
      misses.push_back(name + ": " + error);
      continue;
    }
    const std::string want = label.value("category", "");
    const json& root = report["root_cause"];
    const bool no_failure = report.value("verdict", "") == "no_failure";
    const std::string got = no_failure ? "none" : (root.is_object() ? root.value("category", "?") : "?");
    const bool cat_ok = got == want;

    bool loc_ok;
    if (want == "none") {
      loc_ok = no_failure;
    } else if (!root.is_object()) {
      loc_ok = false;
    } else if (label["root_line"].is_null()) {  // the label knows no line: the file must agree
      loc_ok = !no_failure && (label["root_file"].is_null() || root["file"] == label["root_file"]);
    } else {
      std::vector<std::pair<json, json>> places{{label["root_file"], label["root_line"]}};
      if (label.contains("alt_locations") && label["alt_locations"].is_array())
        for (const auto& alt : label["alt_locations"]) places.emplace_back(alt[0], alt[1]);
      loc_ok = false;
      for (const auto& [file, line] : places) {
        if (root["file"] != file || !root["line"].is_number() || !line.is_number()) continue;
        long got_line = root["line"].get<long>(), want_line = line.get<long>();
        if (want == "nccl" ? std::labs(got_line - want_line) <= 40 : got_line == want_line) loc_ok = true;
      }
    }

    int rank_state = -1;
    if (!label["root_rank"].is_null()) {
      const json got_rank = root.is_object() ? root["rank"] : json();
      const bool unknown_is_right = label.value("rank_from_text", true) == false;
      rank_state = (got_rank == label["root_rank"] || (unknown_is_right && got_rank.is_null())) ? 1 : 0;
    }

    all.add(cat_ok, loc_ok, rank_state);
    by_family[family_of(name)].add(cat_ok, loc_ok, rank_state);
    by_category[want].add(cat_ok, loc_ok, rank_state);
    if (!cat_ok || !loc_ok || rank_state == 0) {
      std::string line = name + ":";
      if (!cat_ok) line += " category " + got + " (label " + want + ")";
      if (!loc_ok)
        line += " root " + (root.is_object() ? or_dash(root["file"]) + ":" + or_dash(root["line"]) : "-") +
                " (label " + or_dash(label["root_file"]) + ":" + or_dash(label["root_line"]) + ")";
      if (rank_state == 0)
        line += " rank " + (root.is_object() ? or_dash(root["rank"]) : "-") + " (label " + or_dash(label["root_rank"]) + ")";
      misses.push_back(line);
    }
  }

  if (!misses_only) {
    auto row = [](const std::string& what, const Tally& t) {
      std::printf("| %-32s | %5d | %-14s | %-14s | %-14s |\n", what.c_str(), t.cases,
                  percent(t.category, t.cases).c_str(), percent(t.location, t.cases).c_str(),
                  percent(t.rank, t.rank_known).c_str());
    };
    std::printf("| %-32s | %5s | %-14s | %-14s | %-14s |\n", "cases", "n", "category", "root location", "rank");
    std::printf("|%s|%s|%s|%s|%s|\n", std::string(34, '-').c_str(), std::string(7, '-').c_str(),
                std::string(16, '-').c_str(), std::string(16, '-').c_str(), std::string(16, '-').c_str());
    for (const auto& [family, t] : by_family) row(family, t);
    for (const auto& [category, t] : by_category) row("category " + category, t);
    row("all", all);
    std::printf("\n");
  }
  std::printf("misses (%zu):\n", misses.size());
  for (const std::string& m : misses) std::printf("  %s\n", m.c_str());
  return failed_runs > 0 ? 1 : 0;
}
