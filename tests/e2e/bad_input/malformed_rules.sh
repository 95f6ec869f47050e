#!/usr/bin/env bash
# A malformed --rules directory: a broken rule (bad regex) is reported with file:line:column
# and dropped while the good rule of the same file loads and classifies; a file with a JSON
# syntax error is reported with its position; the built-in rules still load.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
mkdir -p "$tmp/site-rules"
cat >"$tmp/site-rules/site.json" <<'JSON'
{
  // one good rule, one broken
  "rules": [
    {
      "id": "site.index-out-of-bounds",
      "title": "Index out of bounds (site rule)",
      "category": "shape",
      "applies_to": "exception",
      "role": "cause",
      "priority": 500,
      "needles": ["IndexError: index"],
      "regex": "IndexError: index (?P<index>[0-9]+) is out of bounds",
      "explain": "index {index} out of bounds",
      "samples": {"match": ["IndexError: index 4 is out of bounds for dimension 0"],
                  "no_match": ["KeyError: 4"]}
    },
    {
      "id": "site.broken-regex",
      "title": "Broken",
      "category": "unknown",
      "applies_to": "line",
      "role": "cause",
      "needles": ["broken"],
      "regex": "broken (unclosed",
      "explain": "x",
      "samples": {"match": ["broken (unclosed"], "no_match": ["fine"]}
    }
  ]
}
JSON
printf '{"rules": [\n  {"id": "site2.x",,}\n]}\n' >"$tmp/site-rules/site2.json"
run
builtin=$(get /rules/count)
run --rules "$tmp/site-rules" logs
expect_rc 1
# Regression: `--rules DIR logs` took logs as a second rules directory (rules.dir-empty).
expect_no_code rules.dir-empty
expect_listed logs/gpt-tiny-25.err
expect_code rules.bad-regex
expect_code rules.json-syntax
get '/diagnostics/[code=rules.bad-regex]/message' | grep -qE 'site\.json:[0-9]+:[0-9]+: ' ||
  bad "rules.bad-regex has no file:line:column"
get '/diagnostics/[code=rules.json-syntax]/message' | grep -qE 'site2\.json:2:[0-9]+' ||
  bad "rules.json-syntax has no file:line:column"
count=$(get /rules/count)
[[ -n "$builtin" && "$count" == $((builtin + 1)) ]] || bad "rule count $count, want built-in $builtin + 1"
[[ $(get /root_cause/rule) == site.index-out-of-bounds ]] || bad "the good site rule did not classify the root"
expect_root
finish
