#!/usr/bin/env bash
# Source checks that keep the layout honest (docs/architecture.md):
#  1. analyzer/ folders form a pipeline: a file may include only its own folder and the folders
#     before it in LAYERS (so `ls analyzer` reads in the order a log line travels);
#  2. CMakeLists.txt lists every source and unit test file (the lists are explicit, not globbed,
#     so a file missing from them would silently not be built).
# Usage: layering_test.sh SOURCE_DIR
set -euo pipefail
root=$1
LAYERS=(base model input scan match extract lint decide slurm render app cli)

layer_of() {
  local i
  for i in "${!LAYERS[@]}"; do
    [[ ${LAYERS[$i]} == "$1" ]] && { echo "$i"; return; }
  done
  echo -1
}

problems=0
cd "$root"
for dir in analyzer/*/; do
  folder=$(basename "$dir")
  if [[ $(layer_of "$folder") -lt 0 ]]; then
    echo "analyzer/$folder/ is not in LAYERS (add it where it belongs in the pipeline)"
    problems=$((problems + 1))
  fi
done
while IFS= read -r file; do
  folder=$(cut -d/ -f2 <<<"$file")
  own=$(layer_of "$folder")
  while IFS= read -r used; do
    [[ -z $used ]] && continue
    at=$(layer_of "$used")
    if [[ $at -lt 0 || $at -gt $own ]]; then
      echo "$file includes $used/ (a later layer than $folder/)"
      problems=$((problems + 1))
    fi
  done < <(sed -n 's@^#include "\([a-z_]*\)/.*@\1@p' "$file" | sort -u)
done < <(find analyzer -mindepth 2 \( -name '*.h' -o -name '*.cc' \) | sort)

while IFS= read -r file; do
  if ! grep -q "$file" CMakeLists.txt; then
    echo "$file is not listed in CMakeLists.txt"
    problems=$((problems + 1))
  fi
done < <(find analyzer tests/unit -name '*.cc' | sort)

echo "layering: $problems problem(s)"
[[ $problems -eq 0 ]]
