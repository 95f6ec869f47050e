#!/usr/bin/env python3
"""megatriage(1) covers the command line: every flag that a subcommand's --help lists is
described in that subcommand's section of the man page (the default command's in OPTIONS),
every subcommand that `megatriage --help` lists has a section, every exit code of
base/exit_codes.h and every environment variable the code reads is explained, the sections a
manual needs are there, and groff renders it without a warning.

Usage: man_page_test.py BINARY MAN_PAGE SOURCE_DIR
"""
import re
import subprocess
import sys
from pathlib import Path

binary, man_page, source = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
failures = []


def fail(message):
    failures.append(message)
    print("FAIL", message)


def help_text(words):
    return subprocess.run([binary, *words, "--help"], capture_output=True, text=True, check=True).stdout


def help_flags(words):
    """The flags at the start of CLI11's option lines: `  -o,--output TEXT  ...`."""
    flags = set()
    for line in help_text(words).splitlines():
        m = re.match(r"^  ((?:-[A-Za-z],)?--[a-z][a-z-]*)", line)
        if m:
            flags.update(m.group(1).split(","))
    return flags


def subcommands():
    """From `megatriage --help`'s Subcommands block: `megatriage rules check ...` gives
    ["rules", "check"] (the words after megatriage up to the first argument)."""
    text = help_text([])
    block = text.split("Subcommands", 1)[1].split("\n\n", 1)[0]
    found = []
    for line in block.splitlines():
        m = re.match(r"^\s+megatriage((?: [a-z]+)+)", line)
        if m:
            found.append(m.group(1).split())
    return found


# The man page's sections: a .SH or .SS line opens one; its body runs to the next.
sections = {}
current = None
for line in man_page.read_text().splitlines():
    m = re.match(r'^\.S[HS] "?([^"]+)"?$', line)
    if m:
        current = m.group(1)
        sections[current] = ""
    elif current is not None:
        sections[current] += line + "\n"


def plain(roff):
    """Roff text as words: font escapes gone, escaped hyphens plain."""
    return re.sub(r"\\f[BIRP]", "", roff).replace("\\-", "-")


for name in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "RULES SEARCH PATH",
             "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"):
    if name not in sections:
        fail(f"no {name} section")

commands = [[]] + subcommands()
if len(commands) < 5:
    fail(f"found only {commands} in megatriage --help")
for words in commands:
    section = "OPTIONS" if not words else "megatriage " + " ".join(words)
    if section not in sections:
        fail(f"no section '{section}' for the subcommand")
        continue
    body = plain(sections[section])
    for flag in sorted(help_flags(words)):
        # A flag counts where the section shows it as a word of its own.
        if not re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", body):
            fail(f"'{' '.join(['megatriage', *words])}': {flag} is not described in section '{section}'")

exit_status = plain(sections.get("EXIT STATUS", ""))
codes = re.findall(r"constexpr int kExit\w+ = (\d+);", (source / "analyzer/base/exit_codes.h").read_text())
if len(codes) < 4:
    fail(f"read only {codes} from exit_codes.h")
for code in codes:
    if not re.search(r"^\.B " + code + "$", sections.get("EXIT STATUS", ""), re.M):
        fail(f"exit status {code} is not explained")

# The environment variables the code reads (getenv, or postmortem's env helper); HOME and the
# test-only trigger aside.
environment = plain(sections.get("ENVIRONMENT", ""))
read = set()
for path in (source / "analyzer").rglob("*.cc"):
    read.update(re.findall(r'\b(?:getenv|env)\("([A-Z][A-Z0-9_]*)"\)', path.read_text()))
for name in sorted(read - {"HOME", "MEGATRIAGE_TEST_THROW"}):
    if not re.search(r"\b" + name + r"\b", environment):
        fail(f"environment variable {name} is not in ENVIRONMENT")

# groff: no warning at the strictest level (lintian's manpage check runs the same).
groff = subprocess.run(["groff", "-man", "-ww", "-z", "-Tutf8", str(man_page)], capture_output=True, text=True)
if groff.returncode != 0 or groff.stderr.strip():
    fail("groff warns: " + groff.stderr.strip())

if not failures:
    print(f"man page: {len(commands)} commands, every flag, {len(codes)} exit codes and "
          f"{len(read)} environment variables covered")
sys.exit(1 if failures else 0)
