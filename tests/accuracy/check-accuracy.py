#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""btree's report from the -icount guest against truths sleepy has no part in.

Under -icount guest time is instructions, so each function's share of
btree's user-mode samples must be its share of the instructions that
callgrind counted running the same binary with the same arguments on the
host (within 3 percentage points, for every function above 2% in either);
and every instruction pointer the report names must lie in the function of
that name in the binary's symbol table as nm reads it (or in its PLT,
named [plt]).  TAP on stdout.

    check-accuracy.py REPORT.json BINARY CALLGRIND_ANNOTATE.txt
"""
import bisect
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from report import callgrind_shares, merge_aliases, sleepy_shares, symbol_aliases  # noqa: E402

TOLERANCE_PP = 3.0
SHOWN_PCT = 2.0


def nm_functions(binary):
    """Sorted (start, end, name) of the binary's functions, from nm -S."""
    out = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    functions = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "TtWwi":
            start, size = int(fields[0], 16), int(fields[1], 16)
            functions.append((start, start + size, fields[3]))
    functions.sort()
    return functions


def plt_ranges(binary):
    """[start, end) of the binary's PLT sections, whose stubs perf and
    sleepy-parse name [plt] (nm lists no symbol there)."""
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True,
                         text=True, check=True).stdout
    ranges = []
    for m in re.finditer(r"\]\s+(\.plt\S*)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", out):
        start = int(m.group(2), 16)
        ranges.append((start, start + int(m.group(3), 16)))
    return ranges


def nm_name(functions, starts, ip):
    """The function of the symbol table that holds ip (one of its aliases)."""
    i = bisect.bisect_right(starts, ip) - 1
    start = starts[i] if i >= 0 else None
    while i >= 0 and starts[i] == start:
        if ip < functions[i][1]:
            return functions[i][2]
        i -= 1
    return None


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: check-accuracy.py REPORT.json BINARY CALLGRIND_ANNOTATE.txt")
    report_path, binary, callgrind_path = sys.argv[1:]
    workload = os.path.basename(binary)
    results = []

    canonical = symbol_aliases(binary)
    truth = merge_aliases(callgrind_shares(callgrind_path)[0], canonical)
    shares, samples = sleepy_shares(report_path, workload)
    shares = merge_aliases(shares, canonical)
    rows = []
    for fn in sorted(set(truth) | set(shares), key=lambda f: -truth.get(f, 0.0)):
        t, s = truth.get(fn, 0.0), shares.get(fn, 0.0)
        if max(t, s) >= SHOWN_PCT:
            rows.append((fn, t, s))
    worst = max((abs(s - t) for _, t, s in rows), default=None)
    results.append((bool(rows) and samples > 1000 and worst <= TOLERANCE_PP,
                    f"{workload}: shares of {samples} user samples against callgrind's of the "
                    f"instructions, within {TOLERANCE_PP} pp (worst {worst if worst is None else round(worst, 2)}): "
                    + ", ".join(f"{fn} {s:.1f}/{t:.1f}" for fn, t, s in rows)))

    functions = nm_functions(binary)
    starts = [f[0] for f in functions]
    plts = plt_ranges(binary)
    with open(report_path) as f:
        report = json.load(f)
    named = wrong = unnamed = 0
    examples = []
    for row in report.get("by_app_ip", []):
        if row["app"].split("#")[0] != workload or row.get("mode") != "user":
            continue
        ip = int(row["ip"], 16)
        expected = nm_name(functions, starts, ip)
        if expected is None and any(a <= ip < b for a, b in plts):
            expected = "[plt]"
        if not row.get("function"):
            unnamed += row["samples"]
            continue
        if expected is not None and canonical.get(expected, expected) == \
                canonical.get(row["function"], row["function"]):
            named += row["samples"]
        else:
            wrong += row["samples"]
            if len(examples) < 3:
                examples.append(f"{row['ip']} named {row['function']}, nm: {expected}")
    results.append((named > 0 and wrong == 0 and unnamed * 100 <= named,
                    f"{workload}: user IPs named as nm -S's symbol table has them: {named} samples "
                    f"right, {wrong} wrong, {unnamed} unnamed" + (f" ({'; '.join(examples)})" if examples else "")))

    print(f"1..{len(results)}")
    for n, (ok, name) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {name}")
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
