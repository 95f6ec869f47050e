#!/usr/bin/env python3
"""The invariance of `megatriage partial` + `megatriage merge` on one log folder: for several
splits of its files into groups (one partial of the whole folder, one partial per file, random
halves, the halves compressed), merging the groups' partial reports gives exactly the report of
`megatriage` on the folder: JSON byte for byte, and text, markdown and html for the one-per-file
split. With paths qualified by a host (`--host node7`), the reports are equal once the `node7:`
is taken off every path. Two hosts: the same root cause, each file named as its host's. A
fixture with a batch script beside logs/: the scripts found there are attached and linted alike
when the partial reports carry them (one node, or two holding a half of the logs each). Each
partial report validates against schema/partial.schema.json.
Usage: partial_test.py MEGATRIAGE REPO_ROOT LOG_FOLDER_PARENT [--jobs N]
LOG_FOLDER_PARENT holds logs/ (a fixture's folder, or a generated job)."""
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile

import jsonschema

megatriage = str(pathlib.Path(sys.argv[1]).resolve())
root = pathlib.Path(sys.argv[2]).resolve()
case_dir = pathlib.Path(sys.argv[3]).resolve()
jobs = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--jobs" else "2"
schema = json.loads((root / "schema" / "partial.schema.json").read_text())
validator = jsonschema.Draft202012Validator(schema)
env = dict(os.environ, LC_ALL="C.UTF-8")
env.pop("COLUMNS", None)
for name in ("SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_CLUSTER_NAME", "SLURMD_NODENAME", "SLURM_JOB_UID"):
    env.pop(name, None)
failures = []


def run(args, cwd, ok=(0, 1)):
    p = subprocess.run([megatriage] + args, cwd=cwd, env=env, capture_output=True)
    if p.returncode not in ok:
        sys.exit(f"megatriage {' '.join(args)} exited {p.returncode}: {p.stderr.decode(errors='replace')}")
    return p.stdout


def strip_host(value, prefix):
    """The report with `prefix` taken off every string (paths, and messages that quote them)."""
    if isinstance(value, dict):
        return {k: strip_host(v, prefix) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_host(v, prefix) for v in value]
    if isinstance(value, str):
        return value.replace(prefix, "")
    return value


with tempfile.TemporaryDirectory() as tmp:
    work = pathlib.Path(tmp)
    # Git keeps no mtimes and a log without a year takes it from its file's: fixed ones.
    shutil.copytree(case_dir / "logs", work / "logs", symlinks=True)
    for path in sorted(work.joinpath("logs").rglob("*")) + [work / "logs"]:
        os.utime(path, (1796040000, 1796040000), follow_symlinks=False)
    files = sorted(str(p.relative_to(work)) for p in work.joinpath("logs").rglob("*")
                   if p.is_file() and not p.is_symlink())
    formats = {"json": ["--format", "json"], "text": ["--color", "never"], "markdown": ["--format", "markdown"],
               "html": ["--format", "html"]}
    single = {name: run(flags + ["--jobs", jobs, "logs"], work) for name, flags in formats.items()}

    rng = random.Random(case_dir.name)
    halves = files[:]
    rng.shuffle(halves)
    cut = len(halves) // 2
    splits = {
        "one": [["logs"]],
        "per-file": [[f] for f in files],
        "halves": [sorted(halves[:cut]), sorted(halves[cut:])],
    }
    count = 0
    for split, groups in splits.items():
        groups = [g for g in groups if g]
        parts = work / f"parts-{split}"
        for k, group in enumerate(groups):
            # The halves' second part compressed: a merge reads both kinds.
            suffix = ".json.zst" if split == "halves" and k == 1 else ".json"
            # --context 10: what --format html shows (3, the default, is what text and JSON show).
            context = ["--context", "10"] if split == "per-file" else []
            run(["partial", "--host", "", "--jobs", jobs, "-o", str(parts / f"p{k:04d}{suffix}")] + context + group,
                work, ok=(0, 2))
            count += 1
        checked = formats if split == "per-file" else {"json": formats["json"]}
        for name, flags in checked.items():
            merged = run(["merge"] + flags + ["--jobs", jobs, str(parts)], work)
            if merged != single[name]:
                failures.append(f"{case_dir.name}: split {split}: the merged {name} report differs")
    for p in sorted((work / "parts-per-file").iterdir())[:3]:
        for error in validator.iter_errors(json.loads(p.read_text())):
            failures.append(f"{case_dir.name}: {p.name}: {error.message} at {list(error.path)}")

    # Paths qualified by one host: the same report once the host is taken off.
    qualified = work / "parts-host"
    for k, group in enumerate(splits["halves"]):
        if group:
            run(["partial", "--host", "node7", "-o", str(qualified / f"p{k}.json")] + group, work, ok=(0, 2))
    merged = json.loads(run(["merge", "--format", "json", str(qualified)], work))
    if strip_host(merged, "node7:") != json.loads(single["json"]):
        failures.append(f"{case_dir.name}: --host node7: the merged report differs beyond the host prefix")
    # Two hosts: every file is named as its host's, the root cause of the same category (file
    # ids now follow the hosts, and they break ties of the same second).
    if len(files) > 1:
        two = work / "parts-two"
        for k, group in enumerate(splits["halves"]):
            run(["partial", "--host", f"n{k}", "-o", str(two / f"p{k}.json")] + group, work, ok=(0, 2))
        merged = json.loads(run(["merge", "--format", "json", str(two)], work))
        one = json.loads(single["json"])
        paths = sorted(f["path"] for f in merged["files"])
        want = sorted([f"n0:{f}" for f in splits["halves"][0]] + [f"n1:{f}" for f in splits["halves"][1]])
        if paths != want:
            failures.append(f"{case_dir.name}: two hosts: files {paths[:4]}... are not {want[:4]}...")
        if (merged.get("root_cause") or {}).get("category") != (one.get("root_cause") or {}).get("category"):
            failures.append(f"{case_dir.name}: two hosts: a root cause of another category")

    # Batch scripts beside the logs (a fixture that has one: job.sbatch next to logs/), with a
    # script of the same job that lint finds a problem in, another job's script and an empty
    # one: the one scan attaches and lints the job's, and names the others. A partial report of
    # a folder carries the scripts beside it; the merge attaches them by every node's log names.
    # Two nodes each hold a half of the logs in their own logs/ (the scripts beside one node's,
    # then the other's; the job's own script beside both, as on shared storage): the merged
    # report is the one scan's.
    scripts = sorted(p for p in case_dir.iterdir() if p.suffix in (".sbatch", ".slurm") and p.is_file())
    if scripts:
        beside = work / "beside"
        beside.mkdir()
        shutil.copytree(work / "logs", beside / "logs", symlinks=True)
        for script in scripts:
            shutil.copy(script, beside / script.name)
        job_name = next((line.split("=", 1)[1].strip() for line in scripts[0].read_text().splitlines()
                         if line.startswith("#SBATCH --job-name=")), scripts[0].name)
        trip = (root / "fixtures" / "lint" / "trip-cuda-device-max-connections.sbatch").read_text()
        (beside / "other.slurm").write_text(trip)
        (beside / "tripped.sbatch").write_text(trip.replace("#SBATCH --job-name=megatron", f"#SBATCH --job-name={job_name}"))
        (beside / "empty.sbatch").write_text("")
        extra = ["other.slurm", "tripped.sbatch", "empty.sbatch"]
        for path in sorted(beside.rglob("*")) + [beside]:
            os.utime(path, (1796040000, 1796040000), follow_symlinks=False)
        one_scan = {name: run(formats[name] + ["--jobs", jobs, "logs"], beside) for name in ("json", "text")}
        want = json.loads(one_scan["json"])
        checks = [c["id"] for c in (want.get("root_cause") or {}).get("checks", [])]
        left_out = [d["path"] for d in want["diagnostics"] if d["code"] == "lint.script-not-attached"]
        if "tripped.sbatch" not in want.get("scripts", []) or (want.get("root_cause") and not any(
                c.startswith("lint.") for c in checks)) or sorted(left_out) != ["empty.sbatch", "other.slurm"]:
            failures.append(f"{case_dir.name}: scripts beside the logs: the one scan attached {want.get('scripts')}, "
                            f"checks {checks}, left out {left_out}: not what this test is about")
        node_splits = {"one": None, "scripts-n0": 0, "scripts-n1": 1}
        for split, holder in node_splits.items():
            parts = beside / f"parts-{split}"
            if holder is None:
                run(["partial", "--host", "", "--jobs", jobs, "-o", str(parts / "p.json"), "logs"], beside, ok=(0, 2))
            for k, group in enumerate(splits["halves"] if holder is not None else []):
                node = beside / f"{split}-n{k}"
                (node / "logs").mkdir(parents=True)
                for f in group:
                    shutil.copy2(work / f, node / f)
                for script in scripts + [beside / name for name in extra if k == holder]:
                    shutil.copy2(script, node / script.name)
                os.utime(node / "logs", (1796040000, 1796040000))
                run(["partial", "--host", "", "--jobs", jobs, "-o", str(parts / f"p{k}.json"), "logs"], node, ok=(0, 2))
            for name in ("json", "text"):
                if run(["merge"] + formats[name] + ["--jobs", jobs, str(parts)], beside) != one_scan[name]:
                    failures.append(f"{case_dir.name}: scripts beside the logs, split {split}: the merged {name} report differs")
            for p in sorted(parts.iterdir()):
                for error in validator.iter_errors(json.loads(p.read_text())):
                    failures.append(f"{case_dir.name}: {split}/{p.name}: {error.message} at {list(error.path)}")

for f in failures:
    print(f)
print(f"{case_dir.name}: {len(files)} files, {count} partial reports, {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
