#!/usr/bin/env python3
"""README.md's CI snippets do what they say: the command lines of the GitHub Actions steps
(`run:`) and of the GitLab job (`script:`) run as the runners run them (bash -e -o pipefail, one
shell per step; $GITHUB_STEP_SUMMARY set) on a copy of the demo fixture, with fixtures/lint as
jobs/. Each step must succeed, and what it writes must parse: the workflow commands, the step
summary, the JSON report, the SARIF log.
Usage: readme_ci_test.py MEGATRIAGE REPO_ROOT"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

megatriage, root = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
readme = (root / "README.md").read_text().splitlines()
failures = []


def snippet(name):
    """The lines of the fenced block after `<!-- snippet: NAME -->`."""
    start = readme.index(f"<!-- snippet: {name} -->")
    assert readme[start + 1].startswith("```"), name
    end = readme.index("```", start + 2)
    return readme[start + 2:end]


def indent(line):
    return len(line) - len(line.lstrip(" "))


def github_steps(lines):
    """Each step's `run:` script: a one-line `run: cmd`, or the lines of a `run: |` block."""
    steps = []
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)(?:- )?run: (.*)$", line)
        if not m:
            continue
        if m.group(2) != "|":
            steps.append(m.group(2))
            continue
        body = []
        for more in lines[i + 1:]:
            if more.strip() and indent(more) <= len(m.group(1)):
                break
            body.append(more.strip())
        steps.append("\n".join(body))
    return steps


def gitlab_script(lines):
    """The `script:` list of the job, one command per item."""
    start = next(i for i, l in enumerate(lines) if l.strip() == "script:")
    out = []
    for line in lines[start + 1:]:
        if not line.strip().startswith("- "):
            break
        out.append(line.strip()[2:])
    return out


def run_step(script, cwd, env):
    p = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script],
                       cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"step failed ({p.returncode}): {script!r}\n{p.stderr[-500:]}")
    return p.stdout


with tempfile.TemporaryDirectory() as tmpdir:
    work = pathlib.Path(tmpdir)
    shutil.copytree(root / "fixtures" / "gpu-decoy-watchdog-first" / "logs", work / "logs")
    (work / "jobs").mkdir()
    for script in (root / "fixtures" / "lint").glob("*.sbatch"):
        shutil.copy(script, work / "jobs")
    env = dict(os.environ, PATH=f"{megatriage.parent}:{os.environ['PATH']}",
               GITHUB_STEP_SUMMARY=str(work / "summary.md"))
    env.pop("COLUMNS", None)

    # --- GitHub Actions ---------------------------------------------------------------------
    steps = github_steps(snippet("github-actions"))
    if len(steps) != 2:
        failures.append(f"github-actions: {len(steps)} run steps, expected 2")
    out = "".join(run_step(s, work, env) for s in steps)
    commands = [l for l in out.splitlines() if l]
    if not commands or not all(re.match(r"^::(error|warning|notice)[ :]", l) for l in commands):
        failures.append(f"github-actions: not workflow commands: {out[:300]!r}")
    if not any(l.startswith("::error file=logs/job.err,line=84,") for l in commands):
        failures.append("github-actions: no ::error at the demo's root cause (logs/job.err:84)")
    summary = (work / "summary.md").read_text() if (work / "summary.md").exists() else ""
    if not summary.startswith("## megatriage: FAILURE — OOM") or summary.count("\n") > 60:
        failures.append(f"github-actions: step summary {summary[:80]!r}")
    report = json.loads((work / "triage.json").read_text())
    if report["root_cause"]["rule"] != "cuda.oom":
        failures.append(f"github-actions: triage.json root rule {report['root_cause']['rule']}")
    sarif = json.loads((work / "lint.sarif").read_text())
    results = sarif["runs"][0]["results"]
    if sarif["version"] != "2.1.0" or not results:
        failures.append(f"github-actions: lint.sarif {sarif['version']} with {len(results)} results")
    if not all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("jobs/") for r in results):
        failures.append("github-actions: SARIF results not on jobs/ paths")

    # --- GitLab CI --------------------------------------------------------------------------
    for name in ("triage.json", "triage.md"):
        (work / name).unlink(missing_ok=True)
    script = gitlab_script(snippet("gitlab-ci"))
    if len(script) != 3:
        failures.append(f"gitlab-ci: {len(script)} script lines, expected 3")
    # GitLab runs a job's script lines in one shell that stops at the first failing line.
    text = run_step("\n".join(script), work, env)
    if not text.startswith("megatriage: FAILURE — OOM"):
        failures.append(f"gitlab-ci: text report starts {text[:60]!r}")
    note = (work / "triage.md").read_text()
    if not note.startswith("## megatriage: FAILURE — OOM") or note.count("\n") > 60:
        failures.append(f"gitlab-ci: triage.md {note[:80]!r}")
    if json.loads((work / "triage.json").read_text())["verdict"] != "failure":
        failures.append("gitlab-ci: triage.json is no failure report")

    # A step must still fail on a usage error (exit 2): the `|| [ $? -eq 1 ]` idiom.
    bad = subprocess.run(["bash", "-e", "-c", script[0].replace("logs/", "no-such-dir/")], cwd=work, env=env,
                         capture_output=True)
    if bad.returncode == 0:
        failures.append("gitlab-ci: a usage error does not fail the step")

for f in failures:
    print("FAIL", f)
print(f"readme-ci: {len(steps)} GitHub steps, {len(script)} GitLab lines; {len(failures)} problem(s)")
sys.exit(1 if failures else 0)
