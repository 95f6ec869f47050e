#!/usr/bin/env python3
"""The HTML report in a real browser (headless Chromium through Selenium).

For each fixture: render `--format html`, open the page from a file:// URL and check what a
reader and a tool rely on. Everything is read from the page's DOM and its embedded JSON, never
grepped from the HTML text:
  - no console error and no network request (Performance API); the page's CSP forbids any and
    lets only the page's own script run (by its hash);
  - the embedded JSON report is the one `--format json` writes;
  - the timeline has one row per rank of the report (per host group when folded), the root is
    marked on its rank's row and its line is shown (context block, detail panel, hover);
  - in the hostile fixture, markup from the logs stays text: nothing ran, no element came in.
Also a generated 1,024-rank job (tools/bench_gen): the page stays under 2 MB and starts folded.
Screenshots of two fixtures (the page, and its timeline alone) go to --out.

Usage: html_report_test.py --megatriage BIN --fixtures DIR --out DIR [--bench-gen BIN]
Exit 77 (CTest: skipped) when Chromium, chromedriver or Selenium is missing.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77


def skip(why):
    # tools/test has just installed the browser: there a missing one is a failure, not a skip.
    if os.environ.get("MEGATRIAGE_REQUIRE_BROWSER") == "1":
        print("FAIL: " + why + " (MEGATRIAGE_REQUIRE_BROWSER=1)")
        sys.exit(1)
    print("SKIP: " + why)
    sys.exit(SKIP)

PAGE_LIMIT_BYTES = 2 * 1024 * 1024
# Fixtures opened, and which two are photographed (the first one is the README's picture).
CASES = [
    "gpu-decoy-watchdog-first",
    "gpu-oom-torchrun-logdir",
    "synthetic-hostile-markup",
    "megatron-none-1gpu",
    "slurm-label-interleaved-shape",
    "no-timestamps-import-pertask",
    "public-shape-nemo11480-world-size-1-not-divisible",  # one rank
    "public-oom-olmo-ddp-8gpu-logits",                     # no rank named: rank-less rows only
    "slurm-e-time-limit-hang",                             # a job-wide end: the root has no rank
]
SCREENSHOTS = ["gpu-decoy-watchdog-first", "gpu-oom-torchrun-logdir"]
HOSTILE = "synthetic-hostile-markup"

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def open_browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        skip("python3-selenium is not installed (tools/setup test installs it)")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_bin = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not browser or not os.path.exists(driver_bin):
        skip("chromium / chromium-driver are not installed (tools/setup test installs them)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--hide-scrollbars", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=driver_bin), options=opts)


def render(megatriage, case_dir, work, fmt):
    """megatriage on a copy of the case (report paths are logs/...), as the golden tests run it."""
    out = os.path.join(work, "report." + fmt)
    # The page shows 10 lines each side of the root by default; the JSON to compare shows as many.
    rc = subprocess.run([megatriage, "--format", fmt, "--context", "10", "--jobs", "2", "-o", out, "logs"],
                        cwd=work).returncode
    if rc not in (0, 1):
        raise SystemExit(f"megatriage --format {fmt} exited {rc} on {case_dir}")
    return out


def copy_case(case_dir, work):
    shutil.copytree(os.path.join(case_dir, "logs"), os.path.join(work, "logs"), symlinks=True)
    # Logs without a year take it from the file's mtime: the fixtures' capture day, as the goldens.
    stamp = time.mktime((2026, 11, 29, 12, 0, 0, 0, 0, 0)) - time.timezone
    for root, dirs, files in os.walk(os.path.join(work, "logs")):
        for name in dirs + files:
            os.utime(os.path.join(root, name), (stamp, stamp), follow_symlinks=False)


def load(driver, page):
    driver.get("file://" + os.path.abspath(page))
    for _ in range(100):
        if driver.execute_script("return document.readyState") == "complete":
            break
        time.sleep(0.05)
    driver.execute_script("window.scrollTo(0, 0)")


def csp_problems(csp):
    """What the page's policy allows beyond itself: it must forbid every request and run only
    the page's own script (by its hash, not 'unsafe-inline')."""
    if not csp:
        return ["no Content-Security-Policy"]
    rules = {}
    for part in csp.split(";"):
        words = part.split()
        if words:
            rules[words[0]] = words[1:]
    problems = []
    if rules.get("default-src") != ["'none'"]:
        problems.append("default-src is not 'none'")
    script = rules.get("script-src", [])
    if len(script) != 1 or not script[0].startswith("'sha256-"):
        problems.append(f"script-src is {script}, not one sha256")
    for name, values in rules.items():
        if any(v not in ("'none'", "'unsafe-inline'", "data:") and not v.startswith("'sha256-") for v in values):
            problems.append(f"{name} allows {values}")
    return problems


def page_state(driver):
    return driver.execute_script("""
      const data = id => { const e = document.getElementById(id);
                           try { return e ? JSON.parse(e.textContent) : null; } catch (x) { return null; } };
      const t = data('megatriage-timeline') || {ranks: [], marks: []};
      const r = data('megatriage-report');
      const csp = document.querySelector('meta[http-equiv="Content-Security-Policy"]');
      return {
        timeline: t, report: r, csp: csp ? csp.content : null, title: document.title,
        resources: performance.getEntriesByType('resource').map(e => e.name),
        hostRows: document.querySelectorAll('#timeline .tl-host').length,
        openHosts: document.querySelectorAll('#timeline .tl-host.open').length,
        rankRows: Array.from(document.querySelectorAll('#timeline .tl-rank')).map(e => +e.dataset.rank),
        rootMarks: Array.from(document.querySelectorAll('#timeline .tl-rank .mk.root, #timeline .tl-unranked .mk.root'))
                     .map(e => { const row = e.closest('.tl-row');
                                 return {rank: row.dataset.rank === undefined ? -1 : +row.dataset.rank,
                                         rowIsRoot: row.classList.contains('is-root')}; }),
        rootLine: (document.getElementById('root-line') || {}).textContent || null,
        detailWhere: (document.querySelector('#tl-detail .where') || {}).textContent || null,
        detailLine: (document.querySelector('#tl-detail .line') || {}).textContent || null,
        exception: (document.querySelector('#root-cause pre.exception') || {}).textContent || null,
        filePaths: Array.from(document.querySelectorAll('#files td.path')).map(e => e.textContent),
        scripts: document.scripts.length,
        foreign: document.querySelectorAll('img, svg, iframe, object, embed, b, i, textarea, a').length,
        pwned: window.pwned === undefined ? null : String(window.pwned),
      };""")


def errors_in_console(driver):
    return [e for e in driver.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")]


def press(driver, label):
    driver.execute_script("""
      for (const b of document.querySelectorAll('#timeline .tl-tools button'))
        if (b.textContent === arguments[0]) b.click();""", label)


def expand_all(driver):
    press(driver, "expand all")


def visible_rows(driver):
    """Rows a reader sees: [host group rows, rank rows] (folded groups hide their ranks)."""
    return driver.execute_script("""
      const shown = s => Array.from(document.querySelectorAll(s)).filter(e => e.offsetParent !== null).length;
      return [shown('#timeline .tl-host'), shown('#timeline .tl-rank')];""")


def expected_ranks(report):
    """Every rank the JSON report names: the timeline must have a row for each."""
    ranks = set()
    rc = report.get("root_cause")
    if rc:
        if rc.get("rank") is not None:
            ranks.add(rc["rank"])
        ranks.update(rc.get("same_failure_ranks") or [])
    for g in report.get("symptoms", []):
        ranks.update(g.get("ranks") or [])
    for f in report.get("files", []):
        if f.get("rank") is not None:
            ranks.add(f["rank"])
    return ranks


def host_groups(timeline):
    """Row groups as the page folds them: ranks by host, hostless ranks in blocks of 64, plus a
    group per host (or none) that has only rank-less marks."""
    keys, hostless = set(), 0
    for rank, host in sorted(timeline["ranks"]):
        if host >= 0:
            keys.add(("h", host))
        else:
            keys.add(("b", hostless // 64))
            hostless += 1
    for m in timeline["marks"]:
        if m[0] < 0:
            keys.add(("h", m[1]) if m[1] >= 0 else ("none", 0))
    return len(keys)


def check_page(driver, case, page, json_path, out_dir):
    load(driver, page)
    st = page_state(driver)
    errors = errors_in_console(driver)
    check(not errors, f"{case}: console errors: {errors}")
    check(all(n.startswith("file:") for n in st["resources"]), f"{case}: network requests: {st['resources']}")
    check(not csp_problems(st["csp"]), f"{case}: CSP {st['csp']!r}: {csp_problems(st['csp'])}")
    with open(json_path, encoding="utf-8") as f:
        check(st["report"] == json.load(f), f"{case}: the embedded report differs from --format json")
    if not check(st["report"] is not None, f"{case}: no readable embedded report"):
        return st
    report, timeline = st["report"], st["timeline"]
    rc = report.get("root_cause")
    want_title = "megatriage: " + ("FAILURE \u2014 " + rc["failure_name"] if rc else "no failure found")
    check(st["title"] == want_title, f"{case}: title {st['title']!r}, want {want_title!r}")

    ranks = [r for r, _ in timeline["ranks"]]
    check(expected_ranks(report) <= set(ranks),
          f"{case}: ranks of the report without a row: {sorted(expected_ranks(report) - set(ranks))}")
    check(st["hostRows"] == host_groups(timeline), f"{case}: {st['hostRows']} host rows, want {host_groups(timeline)}")
    if len(ranks) > 64:
        # Folded: only the root's group is open, so far fewer rank rows than ranks.
        check(st["openHosts"] <= 1, f"{case}: {st['openHosts']} host groups open at start")
    expand_all(driver)
    st2 = page_state(driver)
    check(sorted(st2["rankRows"]) == sorted(ranks), f"{case}: rank rows {len(st2['rankRows'])}, want {len(ranks)}")
    check(len(set(st2["rankRows"])) == len(st2["rankRows"]), f"{case}: a rank has two rows")
    check(visible_rows(driver) == [st["hostRows"], len(ranks)], f"{case}: unfolded, rows seen {visible_rows(driver)}")
    press(driver, "collapse all")
    check(visible_rows(driver) == [st["hostRows"], 0], f"{case}: folded, rows seen {visible_rows(driver)}")
    expand_all(driver)

    if rc:
        check(len(st2["rootMarks"]) == 1, f"{case}: {len(st2['rootMarks'])} root marks")
        if st2["rootMarks"]:
            want = rc["rank"] if rc["rank"] is not None else -1
            check(st2["rootMarks"][0]["rank"] == want, f"{case}: root mark on rank {st2['rootMarks'][0]['rank']}, want {want}")
            check(st2["rootMarks"][0]["rowIsRoot"], f"{case}: the root's row is not marked")
        where = f"{rc['file']}:{rc['line']}"
        check(st["detailWhere"] == where, f"{case}: detail shows {st['detailWhere']!r}, want {where!r}")
        if rc["context"]:
            root_text = [c["text"] for c in rc["context"] if c["line"] == rc["line"]]
            check(st["rootLine"] is not None and st["rootLine"].startswith(str(rc["line"])),
                  f"{case}: root line shown as {st['rootLine']!r}")
            check(root_text and st["rootLine"].endswith(root_text[0]), f"{case}: root line text {st['rootLine']!r}")
        check(st["exception"] == rc["exception"], f"{case}: exception shown {st['exception']!r}")
        hover_root(driver, case, where)
    else:
        check(not st2["rootMarks"], f"{case}: a root mark in a report without a root")

    if case == HOSTILE:
        check(st["pwned"] is None, f"{case}: script from the logs ran (window.pwned = {st['pwned']})")
        check(st["scripts"] == 3, f"{case}: {st['scripts']} script elements, want the page's 3")
        check(st["foreign"] == 0, f"{case}: {st['foreign']} elements came from log text")
        paths = [f["path"] for f in report["files"]]
        check(sorted(st["filePaths"]) == sorted(paths), f"{case}: file names shown {st['filePaths']}")
        check(any("<img" in p for p in st["filePaths"]), f"{case}: markup in file names not shown as text")
        check("</script>" in (st["exception"] or ""), f"{case}: the exception's markup is not shown as text")
    return st


def hover_root(driver, case, where):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    marks = driver.find_elements(By.CSS_SELECTOR, "#timeline .mk.root")
    if not check(marks, f"{case}: no root mark to hover"):
        return
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", marks[0])
    ActionChains(driver).move_to_element(marks[0]).perform()
    tip = driver.execute_script("""
      const t = document.querySelector('.tl-tip');
      return t && !t.hidden ? (t.querySelector('.where') || {}).textContent : null;""")
    check(tip == where, f"{case}: hover shows {tip!r}, want {where!r}")


def screenshot(driver, page, path):
    """The page from the top (at most 2,400 px of it), and its timeline section alone."""
    from selenium.webdriver.common.by import By
    load(driver, page)
    height = driver.execute_script("return Math.min(document.body.scrollHeight, 2400)")
    driver.set_window_size(1400, height)
    driver.save_screenshot(path)
    driver.find_element(By.ID, "timeline-section").screenshot(path.replace(".png", "-timeline.png"))
    driver.set_window_size(1400, 1000)


def big_job(driver, megatriage, bench_gen, out_dir, ranks=1024):
    """A generated 1,024-rank job: the page size limit, and folding by host."""
    work = tempfile.mkdtemp(prefix="megatriage-html-big-")
    try:
        subprocess.run([bench_gen, "logdir", work, str(ranks), "1"], check=True, stdout=subprocess.DEVNULL)
        pages = {}
        for fmt in ("html", "json"):
            pages[fmt] = os.path.join(out_dir, f"bench-{ranks}.{fmt}")
            rc = subprocess.run([megatriage, "--format", fmt, "--context", "10", "-o", pages[fmt], "logs"],
                                cwd=work).returncode
            check(rc == 1, f"bench {ranks}: megatriage exited {rc}")
        size = os.path.getsize(pages["html"])
        print(f"bench {ranks} ranks: page {size} bytes")
        check(size <= PAGE_LIMIT_BYTES, f"bench {ranks}: page is {size} bytes, over {PAGE_LIMIT_BYTES}")
        started = time.time()
        check_page(driver, f"bench-{ranks}", pages["html"], pages["json"], out_dir)
        print(f"bench {ranks} ranks: checked in the browser in {time.time() - started:.1f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--megatriage", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--bench-gen")
    args = ap.parse_args()
    megatriage = os.path.abspath(args.megatriage)
    os.makedirs(args.out, exist_ok=True)
    driver = open_browser()
    try:
        for case in CASES:
            case_dir = os.path.join(args.fixtures, case)
            work = tempfile.mkdtemp(prefix="megatriage-html-")
            try:
                copy_case(case_dir, work)
                page = render(megatriage, case_dir, work, "html")
                json_path = render(megatriage, case_dir, work, "json")
                check_page(driver, case, page, json_path, args.out)
                kept = os.path.join(args.out, case + ".html")
                shutil.copyfile(page, kept)
                if case in SCREENSHOTS:
                    screenshot(driver, kept, os.path.join(args.out, case + ".png"))
                    print(f"screenshot: {os.path.join(args.out, case + '.png')}")
            finally:
                shutil.rmtree(work, ignore_errors=True)
        if args.bench_gen:
            big_job(driver, megatriage, args.bench_gen, args.out)
    finally:
        driver.quit()
    print(f"html report: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
