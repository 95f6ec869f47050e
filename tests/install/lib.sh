# Shared by tests/install/*_test.sh: arguments, a scratch folder removed at exit, failure
# bookkeeping, and the two things most tests do (install to a prefix, compare two JSON reports).
# Usage (sourced): . lib.sh BINARY BUILD_DIR SOURCE_DIR JSON_GET
set -uo pipefail
binary=$(realpath "$1") build=$(realpath "$2") source=$(realpath "$3") json_get=$(realpath "$4")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
finish() {
  [[ $fail -eq 0 ]] && echo "${0##*/}: all checks passed"
  exit $fail
}
# A run must find only what the test gives it: no rules from the environment, this machine's
# site folder aside (tests never write /etc), no cache.
unset MEGATRIAGE_RULES_DIR MEGATRIAGE_RULES_PATH
export XDG_CONFIG_HOME=$tmp/no-config MEGATRIAGE_CACHE_DIR=off HOME=$tmp/home
mkdir -p "$tmp/home"

# A sanitizer build (tools/test's second pass): its instrumentation names the source files, and
# lintian's verdict on it says nothing about the real package.
sanitized=0
readelf -d "$binary" | grep -q 'NEEDED.*libasan' && sanitized=1

# install_to PREFIX: cmake --install of the build tree, quiet unless it fails. --strip, as a
# site's software team installs (and as the .deb ships): no debug info naming the build tree.
install_to() {
  cmake --install "$build" --prefix "$1" --strip >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; echo "FAIL cmake --install"; exit 1; }
}

# same_report A.json B.json: the two reports are the same document (parsed, not compared as text).
same_report() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
if a != b:
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            print(f"  differs at /{key}")
    sys.exit(1)
PY
}

# fixture_copy NAME: a copy of fixtures/NAME/logs under $tmp/run/logs; prints $tmp/run.
fixture_copy() {
  rm -rf "$tmp/run"
  mkdir -p "$tmp/run"
  cp -r "$source/fixtures/$1/logs" "$tmp/run/logs"
  echo "$tmp/run"
}
