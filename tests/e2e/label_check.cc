// Compares a megatriage JSON report with a fixture's label.json (fixtures/README.md): category,
// root location and root rank, scored as tools/score.cc scores them. A null in the label means
// "the logs cannot tell" and is not checked, except category "none", which requires verdict
// no_failure.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
  // --valid FILE: the file parses as JSON (nlohmann rejects invalid UTF-8 in strings).
  if (argc == 3 && std::string(argv[1]) == "--valid") {
    try {
      nlohmann::json doc;
      std::ifstream(argv[2]) >> doc;
      return doc.is_object() ? 0 : 1;
    } catch (const std::exception& e) {
      std::cerr << "invalid JSON: " << e.what() << "\n";
      return 1;
    }
  }
  if (argc != 3) {
    std::cerr << "usage: megatriage_label_check REPORT.json LABEL.json\n";
    return 2;
  }
  nlohmann::json report, label;
  try {
    std::ifstream(argv[1]) >> report;
    std::ifstream(argv[2]) >> label;
  } catch (const std::exception& e) {
    std::cerr << "cannot parse: " << e.what() << "\n";
    return 2;
  }
  int failures = 0;
  auto expect = [&](const std::string& what, const nlohmann::json& got, const nlohmann::json& want) {
    if (got != want) {
      std::cerr << what << ": report says " << got.dump() << ", label says " << want.dump() << "\n";
      ++failures;
    }
  };
  if (label["category"] == "none") {
    expect("verdict", report["verdict"], "no_failure");
  } else {
    expect("verdict", report["verdict"], "failure");
    const auto& root = report["root_cause"];
    if (root.is_null()) {
      std::cerr << "report has no root cause\n";
      return 1;
    }
    expect("category", root["category"], label["category"]);
    // The root's place: the label's file and line or one of its alternatives (a --tee copy, an
    // excerpt's first line); an NCCL failure is a cluster of lines, so within 40 lines of one.
    if (!label["root_line"].is_null()) {
      std::vector<std::pair<nlohmann::json, nlohmann::json>> places{{label["root_file"], label["root_line"]}};
      if (label.contains("alt_locations") && label["alt_locations"].is_array())
        for (const auto& alt : label["alt_locations"]) places.emplace_back(alt[0], alt[1]);
      const bool nccl = label["category"] == "nccl";
      bool found = false;
      for (const auto& [file, line] : places) {
        if (root["file"] != file || !root["line"].is_number() || !line.is_number()) continue;
        long distance = std::labs(root["line"].get<long>() - line.get<long>());
        if (distance == 0 || (nccl && distance <= 40)) found = true;
      }
      if (!found) {
        std::cerr << "location: report says " << root["file"].dump() << ":" << root["line"].dump()
                  << ", label says " << label["root_file"].dump() << ":" << label["root_line"].dump()
                  << (nccl ? " (within 40 lines)" : "") << " or an alt_location\n";
        ++failures;
      }
    } else if (!label["root_file"].is_null()) {
      expect("file", root["file"], label["root_file"]);
    }
    if (!label["root_rank"].is_null()) expect("rank", root["rank"], label["root_rank"]);
    if (label.contains("root_host") && !label["root_host"].is_null())
      expect("host", root["host"], label["root_host"]);
  }
  if (failures == 0) std::cout << "label agrees\n";
  return failures == 0 ? 0 : 1;
}
