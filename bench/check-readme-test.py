#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench/check-readme.py on pages made to fail: each breakage the check
is there to catch (a drifting table, an untied or wrongly tied figure, a
result without a stamp, a table naming no result) must fail it, the
unbroken page must pass, and --fill must repair a drifted one.  Prints
TAP.

    bench/check-readme-test.py
"""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-readme.py")

SUMMARY = """Stamp: commit abc1234, kernel configuration sha256 0123.

<!-- table: busy -->
| workload | configuration | µs/sample | samples |
|----------|---------------|-----------|---------|
|     loop |  sleepy-10000 |      3.09 |   78357 |
|     loop |    perf-10000 |      4.58 |   72749 |

<!-- list: targets -->
- a target: met (3.09 vs 4.58 µs)
"""
STAMPED_JSON = '{"stamp": {"commit": "abc1234", "kernel_config_sha256": "0123"}, "x": 1}\n'

GOOD = """# Performance

<!-- table: busy -->
| workload | configuration | µs/sample | samples |
|---|---|---|---|
| loop | perf-10000 | 4.58 | 72749 |

sleepy costs 3.09 µs<!-- busy | loop | sleepy-10000 | µs/sample --> per
sample, perf 4.58 µs<!-- busy | loop | perf-10000 | µs/sample --> over
78,357<!-- busy | loop | sleepy-10000 | samples --> samples.

<!-- list: targets -->
- a target: met (3.09 vs 4.58 µs)

A figure from elsewhere, 12.5 µs, is not make bench's: a host run.

Inputs are commands: `elapsed -c 1 ticker 20000 50 µs`.

| tool | what it keeps |
|---|---|
| sleepy | a record per sample |
"""

BROKEN = {
    "a table row drifts from its result":
        (GOOD.replace("| loop | perf-10000 | 4.58 |", "| loop | perf-10000 | 4.57 |"), None,
         "row not in table busy"),
    "a figure in a table that names no results table":
        (GOOD.replace("| sleepy | a record per sample |", "| sleepy | 48 bytes per sample |"),
         None, "names no results table"),
    "a figure outside the code span beside it":
        (GOOD.replace("`elapsed -c 1 ticker 20000 50 µs`", "`elapsed -c 1 ticker 20000` 50 µs"),
         None, "'50 µs' in"),
    "a table names no results table":
        (GOOD.replace("<!-- table: busy -->\n", ""), None, "names no results table"),
    "a table's name has no table after it":
        (GOOD.replace("<!-- table: busy -->\n", "<!-- table: busy -->\n\n<!-- table: peers -->\n\n"),
         None, "<!-- table: peers --> has no table after it"),
    "a table names a table no result has":
        (GOOD.replace("<!-- table: busy -->", "<!-- table: idle -->"), None,
         "no results table 'idle'"),
    "a table's header differs":
        (GOOD.replace("| workload | configuration | µs/sample | samples |\n|---|",
                      "| workload | config | µs/sample | samples |\n|---|"), None, "header"),
    "a prose figure without a tie":
        (GOOD.replace("3.09 µs<!-- busy | loop | sleepy-10000 | µs/sample -->", "3.09 µs"),
         None, "no tie to a result"),
    "a prose figure that differs from its cell":
        (GOOD.replace("3.09 µs<!--", "3.1 µs<!--"), None, "the result is '3.09'"),
    "a tie to the wrong row":
        (GOOD.replace("3.09 µs<!-- busy | loop | sleepy-10000", "3.09 µs<!-- busy | loop | perf-10000"),
         None, "the result is '4.58'"),
    "a tie to a row that is not there":
        (GOOD.replace("| loop | sleepy-10000 | µs/sample", "| call | sleepy-10000 | µs/sample"),
         None, "0 rows labelled call | sleepy-10000"),
    "a tied figure without a unit that differs":
        (GOOD.replace("78,357<!--", "78,358<!--"), None, "the result is '78357'"),
    "a list item that is not a result's line":
        (GOOD.replace("- a target: met (3.09 vs 4.58 µs)", "- a target: met (3.09 vs 4.50 µs)"),
         None, "no tie to a result"),
    "a figure tied to a cell of words, not a figure":
        (GOOD, {"summary.md": SUMMARY.replace("|      3.09 |   78357 |", "| failed in 3 runs | 78357 |")
                .replace("met (3.09 vs", "met (3 vs")
                .replace("|---------------|-----------|", "|---------------|-----------------|")},
         "the result is no figure"),
    "a result without a stamp":
        (GOOD, {"overhead.json": '{"x": 1}\n'}, "overhead.json: no stamp"),
    "a results page without a stamp":
        (GOOD, {"summary.md": SUMMARY.split("\n", 1)[1]}, "summary.md: no stamp"),
}


def run(page, replace_results, fill=False):
    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "results")
        os.mkdir(results)
        files = {"summary.md": SUMMARY, "overhead.json": STAMPED_JSON}
        files.update(replace_results or {})
        for name, text in files.items():
            with open(os.path.join(results, name), "w") as f:
                f.write(text)
        path = os.path.join(tmp, "performance.md")
        with open(path, "w") as f:
            f.write(page)
        done = subprocess.run([sys.executable, CHECK] + (["--fill"] if fill else [])
                              + [path, results],
                              capture_output=True, text=True, timeout=60)
        return done.returncode, done.stdout + done.stderr


def main():
    print(f"1..{len(BROKEN) + 2 + len(BAD_ARGUMENTS)}")
    failed = 0
    status, out = run(GOOD, None)
    ok = status == 0 and "not ok" not in out and "prose: 3 figures" in out
    print(f"{'ok' if ok else 'not ok'} 1 - the unbroken page passes, its 3 tied figures checked")
    if not ok:
        failed += 1
        print("\n".join("#   " + line for line in out.splitlines()))
    for i, (what, (page, results, expect)) in enumerate(BROKEN.items(), 2):
        status, out = run(page, results)
        ok = status == 1 and expect in out
        print(f"{'ok' if ok else 'not ok'} {i} - fails when {what}")
        if not ok:
            failed += 1
            print(f"#   exit {status}, wanted 1 and '{expect}' in:")
            print("\n".join("#   " + line for line in out.splitlines()))
    stale = GOOD.replace("| 4.58 |", "| 4.57 |").replace("3.09 µs<!--", "3.1 µs<!--") \
        .replace("78,357<!--", "78,000<!--").replace("- a target: met (3.09", "- a target: met (3.08")
    status, out = run(stale, None, fill=True)
    ok = status == 0 and "not ok" not in out
    print(f"{'ok' if ok else 'not ok'} {len(BROKEN) + 2} - --fill takes a drifted table "
          "and figures back from the results")
    if not ok:
        failed += 1
        print("\n".join("#   " + line for line in out.splitlines()))
    for i, (what, args) in enumerate(BAD_ARGUMENTS.items(), len(BROKEN) + 3):
        done = subprocess.run([sys.executable, CHECK] + args, capture_output=True,
                              text=True, timeout=60)
        lines = done.stderr.splitlines()
        ok = done.returncode == 2 and len(lines) == 1 and lines[0].startswith("check-readme: ") \
            and not done.stdout
        print(f"{'ok' if ok else 'not ok'} {i} - {what}: one line and exit 2")
        if not ok:
            failed += 1
            print(f"#   exit {done.returncode}, stdout {done.stdout!r}, stderr {done.stderr!r}")
    return 1 if failed else 0


# Command lines the check refuses, each with one line on stderr.
BAD_ARGUMENTS = {
    "an unknown option": ["--bogus"],
    "a page that does not exist": ["/nonexistent/performance.md"],
    "results that do not exist": [os.devnull, "/nonexistent/results"],
    "three arguments": ["a", "b", "c"],
}


if __name__ == "__main__":
    sys.exit(main())
