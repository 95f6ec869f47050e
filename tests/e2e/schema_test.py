#!/usr/bin/env python3
"""Every report megatriage writes validates against the JSON Schemas in schema/ (draft 2020-12,
checked with Debian's python3-jsonschema): each fixture's report (schema/report.schema.json), its
--all-jobs envelope (schema/report-jobs.schema.json) and `lint --format json` of every batch
script in fixtures/lint (schema/lint.schema.json). Also: check ids are unique within a report.
Usage: schema_test.py MEGATRIAGE REPO_ROOT"""
import json
import pathlib
import subprocess
import sys
import warnings

import jsonschema

megatriage, root = str(pathlib.Path(sys.argv[1]).resolve()), pathlib.Path(sys.argv[2]).resolve()
schemas = {name: json.loads((root / "schema" / f"{name}.schema.json").read_text())
           for name in ("report", "report-jobs", "lint")}
for schema in schemas.values():
    jsonschema.Draft202012Validator.check_schema(schema)


def validator(name):
    """A validator for one schema that resolves the $ref of report-jobs to report by its $id."""
    schema = schemas[name]
    try:  # jsonschema >= 4.18 resolves references through the `referencing` library
        from referencing import Registry, Resource
        registry = Registry().with_resources(
            [(s["$id"], Resource.from_contents(s)) for s in schemas.values()])
        return jsonschema.Draft202012Validator(schema, registry=registry)
    except ImportError:  # Debian 12's jsonschema 4.10
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            store = {s["$id"]: s for s in schemas.values()}
            resolver = jsonschema.RefResolver.from_schema(schema, store=store)
            return jsonschema.Draft202012Validator(schema, resolver=resolver)


validators = {name: validator(name) for name in schemas}
failures = []


def check(name, what, doc):
    errors = sorted(validators[name].iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        failures.append(f"{what}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
    return not errors


def run(args, cwd, most=1):
    p = subprocess.run([megatriage, *args], cwd=cwd, capture_output=True, text=True)
    if p.returncode > most:
        failures.append(f"{cwd}: megatriage {' '.join(args)} exited {p.returncode}: {p.stderr[-500:]}")
        return None
    return json.loads(p.stdout)


reports = envelopes = scripts = 0
for case in sorted(d for d in (root / "fixtures").iterdir() if (d / "logs").is_dir()):
    doc = run(["--format", "json", "--no-progress", "logs"], case)
    if doc is not None and check("report", case.name, doc):
        reports += 1
        ids = [c["id"] for c in (doc["root_cause"] or {}).get("checks", [])]
        if len(ids) != len(set(ids)):
            failures.append(f"{case.name}: check ids repeat: {ids}")
    jobs = run(["--format", "json", "--all-jobs", "--no-progress", "logs"], case)
    if jobs is not None and check("report-jobs", case.name + " --all-jobs", jobs):
        envelopes += 1
for script in sorted((root / "fixtures" / "lint").glob("*.sbatch")):
    doc = run(["lint", "--format", "json", "--no-filesystem", str(script)], root)
    if doc is not None and check("lint", script.name, doc):
        scripts += 1
# A path that cannot be linted is in the JSON too, with its problem.
doc = run(["lint", "--format", "json", str(root / "fixtures" / "no-such.sbatch")], root, most=2)
if doc is not None and check("lint", "missing path", doc) and doc["scripts"][0]["linted"] is not False:
    failures.append("a missing path is reported as linted")

# The schema bites: a fact of the wrong type, a missing key and an unknown one are each refused.
sample = json.loads(subprocess.run([megatriage, "--format", "json", "logs"], capture_output=True, text=True,
                                   cwd=root / "fixtures" / "synthetic-oom-megatron-backward").stdout)
for name, spoil in (("a float micro_batch_size", lambda d: d["root_cause"]["facts"].update(micro_batch_size=4.5)),
                    ("no verdict", lambda d: d.pop("verdict")),
                    ("an unknown key", lambda d: d.update(extra=1)),
                    ("a string schema_version", lambda d: d.update(schema_version="2"))):
    spoilt = json.loads(json.dumps(sample))
    spoil(spoilt)
    if not list(validators["report"].iter_errors(spoilt)):
        failures.append(f"the report schema accepts {name}")

for f in failures:
    print("FAIL", f)
print(f"schema: {reports} reports, {envelopes} --all-jobs envelopes, {scripts} lint outputs valid; "
      f"{len(failures)} problem(s)")
sys.exit(1 if failures or reports == 0 else 0)
