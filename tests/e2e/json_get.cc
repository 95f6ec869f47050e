// megatriage_json_get REPORT.json PATH: prints the values at PATH in a JSON report, one per
// line (a string as its text, anything else as compact JSON), so the e2e scripts assert on
// parsed fields instead of grepping the report's layout. Exit 0: at least one value; 1: none;
// 2: usage or a file that is not JSON.
//
// PATH is a JSON pointer (/root_cause/category, /files/0/path) whose segments may also be
//   *           every element of an array or member of an object
//   [KEY=TEXT]  the array elements whose member KEY is the string TEXT (or dumps as TEXT:
//               [skipped=true]); TEXT may contain '/'.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

// Splits PATH at '/', keeping a [KEY=TEXT] segment whole. Pointer escapes: ~1 is '/', ~0 is '~'.
std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] != '/') return {};
    ++i;
    std::string seg;
    if (i < path.size() && path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string::npos) return {};
      seg = path.substr(i, close + 1 - i);
      i = close + 1;
    } else {
      std::size_t next = path.find('/', i);
      if (next == std::string::npos) next = path.size();
      for (std::size_t k = i; k < next; ++k) {
        if (path[k] == '~' && k + 1 < next && (path[k + 1] == '0' || path[k + 1] == '1')) {
          seg += path[k + 1] == '1' ? '/' : '~';
          ++k;
        } else {
          seg += path[k];
        }
      }
      i = next;
    }
    out.push_back(seg);
  }
  return out;
}

bool equals_text(const json& value, const std::string& text) {
  return value.is_string() ? value.get<std::string>() == text : value.dump() == text;
}

void collect(const json& node, const std::vector<std::string>& segs, std::size_t at,
             std::vector<const json*>& out) {
  if (at == segs.size()) {
    out.push_back(&node);
    return;
  }
  const std::string& seg = segs[at];
  if (seg == "*") {
    if (node.is_array() || node.is_object())
      for (const json& child : node) collect(child, segs, at + 1, out);
  } else if (seg.size() > 2 && seg.front() == '[' && seg.back() == ']') {
    std::size_t eq = seg.find('=');
    if (eq == std::string::npos || !node.is_array()) return;
    const std::string key = seg.substr(1, eq - 1), text = seg.substr(eq + 1, seg.size() - eq - 2);
    for (const json& child : node)
      if (child.is_object() && child.contains(key) && equals_text(child[key], text))
        collect(child, segs, at + 1, out);
  } else if (node.is_object()) {
    if (auto it = node.find(seg); it != node.end()) collect(*it, segs, at + 1, out);
  } else if (node.is_array() && !seg.empty() && seg.find_first_not_of("0123456789") == std::string::npos) {
    std::size_t index = std::stoul(seg);
    if (index < node.size()) collect(node[index], segs, at + 1, out);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: megatriage_json_get REPORT.json PATH\n";
    return 2;
  }
  json doc;
  try {
    std::ifstream in(argv[1]);
    in >> doc;
  } catch (const std::exception& e) {
    std::cerr << "megatriage_json_get: " << argv[1] << ": " << e.what() << "\n";
    return 2;
  }
  const std::string path = argv[2];
  std::vector<std::string> segs = split_path(path);
  if (segs.empty() && !path.empty()) {
    std::cerr << "megatriage_json_get: bad path " << path << "\n";
    return 2;
  }
  std::vector<const json*> found;
  collect(doc, segs, 0, found);
  for (const json* v : found) std::cout << (v->is_string() ? v->get<std::string>() : v->dump()) << "\n";
  return found.empty() ? 1 : 0;
}
