#!/usr/bin/env bash
# The rules search path: a rule in a $MEGATRIAGE_RULES_PATH folder replaces the built-in rule
# with the same id (in `rules list` and in a report), a user's rule
# (${XDG_CONFIG_HOME}/megatriage/rules) replaces the site's, a --rules folder replaces both;
# missing or empty folders on the path are skipped; `rules check` checks every folder used.
# Usage: site-rules_test.sh BINARY BUILD_DIR SOURCE_DIR JSON_GET
. "$(dirname "$0")/lib.sh"

# oom_rule DIR TITLE: DIR/site.json holds a cuda.oom rule titled TITLE.
oom_rule() {
  mkdir -p "$1"
  cat >"$1/site.json" <<JSON
{
  "rules": [
    {
      "id": "cuda.oom",
      "title": "$2",
      "category": "oom",
      "applies_to": "exception",
      "role": "cause",
      "priority": 100,
      "needles": ["CUDA out of memory"],
      "regex": "CUDA out of memory\\\\. Tried to allocate (?P<tried>[0-9.]+ [KMGT]?i?B)",
      "explain": "Tried to allocate {tried}: see the site's GPU memory guide.",
      "checks": ["Site check: ask the GPU team."],
      "samples": {
        "match": [{"text": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0", "fields": {"tried": "2.00 GiB"}}],
        "no_match": ["CUDA error: an illegal memory access was encountered"]
      }
    }
  ]
}
JSON
}
oom_rule "$tmp/site" "Site: out of GPU memory"
oom_rule "$tmp/user/megatriage/rules" "User: out of GPU memory"
oom_rule "$tmp/flag" "Flag: out of GPU memory"
mkdir "$tmp/empty-site"

# list_source ID [ENV...] -- [ARGS...]: the file `rules list` says rule ID came from.
list_source() {
  local id=$1 envs=() args=()
  shift
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" "$binary" rules list "$@" >"$tmp/list.tsv" 2>"$tmp/list.err" || { bad "rules list failed"; cat "$tmp/list.err"; }
  while IFS=$'\t' read -r rid file; do
    [[ $rid == "$id" ]] && { echo "${file%:*}"; return; }
  done <"$tmp/list.tsv"
}
builtin=$(list_source cuda.oom --)
[[ $builtin == */cuda.json ]] || bad "built-in cuda.oom comes from '$builtin'"
path="MEGATRIAGE_RULES_PATH=$tmp/missing:$tmp/empty-site::$tmp/site"
[[ $(list_source cuda.oom "$path" --) == "$tmp/site/site.json" ]] || bad "the site's rule does not replace the built-in one"
[[ $(list_source cuda.oom "$path" XDG_CONFIG_HOME="$tmp/user" --) == "$tmp/user/megatriage/rules/site.json" ]] ||
  bad "the user's rule does not replace the site's"
[[ $(list_source cuda.oom "$path" XDG_CONFIG_HOME="$tmp/user" -- --rules "$tmp/flag") == "$tmp/flag/site.json" ]] ||
  bad "--rules does not replace the user's rule"
[[ $(list_source cuda.oom-legacy "$path" --) == */cuda.json ]] || bad "other built-in rules are not listed"
[[ -s $tmp/list.err ]] && { bad "rules list printed problems"; cat "$tmp/list.err"; }

# rules check: the built-in folder and the site's, clean.
out=$(env "$path" "$binary" rules check 2>"$tmp/check.err") || { bad "rules check with the site folder failed"; cat "$tmp/check.err"; }
[[ $out =~ ^[0-9]+\ rules\ loaded\ from\ 2\ directories,\ 0\ problem ]] || bad "rules check said: $out"

# A report uses the site's rule.
run=$(fixture_copy gpu-oom-torchrun-logdir)
(cd "$run" && env "$path" "$binary" --format json logs >"$tmp/site.json")
[[ $("$json_get" "$tmp/site.json" /root_cause/rule) == cuda.oom ]] || bad "report: root cause rule is not cuda.oom"
[[ $("$json_get" "$tmp/site.json" /root_cause/title) == "Site: out of GPU memory" ]] ||
  bad "report: title '$("$json_get" "$tmp/site.json" /root_cause/title)', not the site rule's"
finish
