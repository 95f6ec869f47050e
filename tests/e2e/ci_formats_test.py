#!/usr/bin/env python3
"""The CI formats on every fixture, read back by parsing them:
  --format markdown   at most 60 lines; a verdict heading that agrees with the JSON report
  --format github     every line one workflow command (::error/::warning/::notice), its
                      properties unescaped back to the root's file and line; one warning per failed
                      check, one notice
  lint --format sarif every batch script of fixtures/lint: SARIF 2.1.0's required structure, one
                      result per finding the JSON output shows unsuppressed, on its line
and the golden files: tests/e2e/expected/ci/<case>.md and <case>.github, and
tests/e2e/expected/lint/<script>.sarif, one per file there (tools/update-golden regenerates
exactly those; add an empty file to add a case).
Usage: ci_formats_test.py MEGATRIAGE REPO_ROOT"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

megatriage, root = str(pathlib.Path(sys.argv[1]).resolve()), pathlib.Path(sys.argv[2]).resolve()
expected = root / "tests" / "e2e" / "expected"
failures = []
env = dict(os.environ, LC_ALL="C.UTF-8")
env.pop("COLUMNS", None)


def run(args, cwd, most=1):
    p = subprocess.run([megatriage, *args], cwd=cwd, capture_output=True, text=True, env=env)
    if p.returncode > most:
        failures.append(f"{cwd}: megatriage {' '.join(args)} exited {p.returncode}: {p.stderr[-400:]}")
    return p.stdout


def unescape(s):
    return s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


COMMAND = re.compile(r"^::(error|warning|notice)(?: ([^:]*))?::(.*)$")


def parse_github(text):
    """[(name, {property: value}, message)] or None when a line is no workflow command."""
    out = []
    for line in text.splitlines():
        m = COMMAND.match(line)
        if not m:
            return None
        props = {}
        for part in (m.group(2) or "").split(","):
            if part:
                key, _, value = part.partition("=")
                props[key] = unescape(value)
        out.append((m.group(1), props, unescape(m.group(3))))
    return out


def copy_case(case, tmp):
    """The case's logs in a copy whose files carry the fixtures' capture day (as check_case.sh)."""
    dst = tmp / case.name
    shutil.copytree(case / "logs", dst / "logs", symlinks=True)
    stamp = 1795953600  # 2026-11-29 12:00:00 UTC
    for path in [dst / "logs", *(dst / "logs").rglob("*")]:
        os.utime(path, (stamp, stamp), follow_symlinks=False)
    return dst


def golden(path, got):
    if path.read_text() != got:
        diff = subprocess.run(["diff", "-u", str(path), "-"], input=got, capture_output=True, text=True).stdout
        failures.append(f"{path.relative_to(root)} differs:\n{diff[:3000]}")


longest = 0
cases = 0
with tempfile.TemporaryDirectory() as tmpdir:
    tmp = pathlib.Path(tmpdir)
    for case in sorted(d for d in (root / "fixtures").iterdir() if (d / "logs").is_dir()):
        cases += 1
        where = copy_case(case, tmp)
        report = json.loads(run(["--format", "json", "--jobs", "2", "logs"], where) or "null")
        markdown = run(["--format", "markdown", "--jobs", "2", "logs"], where)
        github = run(["--format", "github", "--jobs", "2", "logs"], where)
        lines = markdown.count("\n")
        longest = max(longest, lines)
        if lines > 60:
            failures.append(f"{case.name}: markdown is {lines} lines")
        failed = report is not None and report["verdict"] == "failure"
        head = "## megatriage: FAILURE — " if failed else "## megatriage: no failure found"
        if not markdown.startswith(head):
            failures.append(f"{case.name}: markdown starts {markdown[:60]!r}")
        commands = parse_github(github)
        if commands is None:
            failures.append(f"{case.name}: a github line is no workflow command:\n{github[:500]}")
            continue
        names = [c[0] for c in commands]
        if names.count("notice") != 1 or names[-1] != "notice":
            failures.append(f"{case.name}: github output has no closing notice: {names}")
        if failed:
            rc = report["root_cause"]
            errors = [c for c in commands if c[0] == "error"]
            if len(errors) != 1 or errors[0][1].get("file") != rc["file"] or errors[0][1].get("line") != str(rc["line"]):
                failures.append(f"{case.name}: the ::error is not at {rc['file']}:{rc['line']}: {errors}")
            want = sum(1 for c in rc["checks"] if c["status"] == "failed")
            if names.count("warning") != want:
                failures.append(f"{case.name}: {names.count('warning')} warnings for {want} failed checks")
        elif names != ["notice"]:
            failures.append(f"{case.name}: no failure, yet {names}")
        for kind, suffix, text in (("md", ".md", markdown), ("github", ".github", github)):
            path = expected / "ci" / (case.name + suffix)
            if path.exists():
                golden(path, text)

lint_dir = root / "fixtures" / "lint"
scripts = 0
for script in sorted(lint_dir.glob("*.sbatch")):
    scripts += 1
    sarif_text = run(["lint", "--format", "sarif", "--no-filesystem", script.name], lint_dir)
    data = json.loads(run(["lint", "--format", "json", "--no-filesystem", script.name], lint_dir))
    sarif = json.loads(sarif_text)
    what = script.name
    if sarif.get("version") != "2.1.0" or "sarif-schema-2.1.0" not in sarif.get("$schema", ""):
        failures.append(f"{what}: not SARIF 2.1.0: {sarif.get('version')} {sarif.get('$schema')}")
        continue
    (run_,) = sarif["runs"]
    driver = run_["tool"]["driver"]
    rule_ids = [r["id"] for r in driver["rules"]]
    if driver["name"] != "megatriage" or not driver.get("version") or not rule_ids:
        failures.append(f"{what}: driver {driver.get('name')} {driver.get('version')} with {len(rule_ids)} rules")
    shown = [(f["rule"], f["line"]) for s in data["scripts"] for f in s["findings"] if not f["suppressed"]]
    got = []
    for r in run_["results"]:
        loc = r["locations"][0]["physicalLocation"]
        if r["ruleId"] not in rule_ids or r["level"] not in ("error", "note") or not r["message"]["text"]:
            failures.append(f"{what}: result {r}")
        if loc["artifactLocation"]["uri"] != script.name:
            failures.append(f"{what}: result at {loc['artifactLocation']['uri']}")
        line = loc.get("region", {}).get("startLine")
        if line is not None and line < 1:
            failures.append(f"{what}: startLine {line}")
        got.append((r["ruleId"], line))
    if got != shown:
        failures.append(f"{what}: SARIF results {got}, JSON shows {shown}")
    path = expected / "lint" / (script.stem + ".sarif")
    if path.exists():
        golden(path, sarif_text)

for f in failures:
    print("FAIL", f)
print(f"ci formats: {cases} fixtures (longest markdown {longest} lines), {scripts} lint scripts; "
      f"{len(failures)} problem(s)")
sys.exit(1 if failures else 0)
