#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""How far sleepy-parse's and perf report's default reports agree on the
same samples: perf report's default (comm,dso,sym) of PERF_DATA against
sleepy-parse --sort comm,dso,sym of SLEEPY_DATA (perf2sleepy's conversion
of it, as bench/parse-speed.sh makes), joined on command, file, mode and
name (an unnamed address compared as a number).  Prints the share of the
samples on rows both tools give alike, then the heaviest rows of each
that the other does not have.

    python3 bench/perf-agreement.py build/bench/parse-speed/perf-1000000.data \\
        build/bench/parse-speed/sleepy-1000000.data [SLEEPY_PARSE]
"""
import csv
import re
import subprocess
import sys


def key_of(comm, dso, sym):
    mark, name = re.match(r"\[(.)\] (.*)", sym.strip()).groups()
    name = name.strip()
    if name.startswith("0x"):
        name = hex(int(name, 16))
    return comm.strip(), dso.strip(), mark, name


def perf_rows(path):
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "-n", "-t", "\t"],
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        fields = line.split("\t")
        if line.startswith("#") or len(fields) < 5:
            continue
        key = key_of(*fields[2:5])
        rows[key] = rows.get(key, 0) + int(fields[1])
    return rows


def sleepy_rows(parse, path):
    out = subprocess.run([parse, "--format", "csv", "--sort", "comm,dso,sym", path],
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for fields in list(csv.reader(out.splitlines()))[1:]:
        key = key_of(*fields[3:6])
        rows[key] = rows.get(key, 0) + int(fields[1])
    return rows


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: perf-agreement.py PERF_DATA SLEEPY_DATA [SLEEPY_PARSE]")
    parse = sys.argv[3] if len(sys.argv) == 4 else "build/userland/sleepy-parse"
    perf, sleepy = perf_rows(sys.argv[1]), sleepy_rows(parse, sys.argv[2])
    total = sum(perf.values())
    if not total or not sleepy:
        sys.exit("perf-agreement: no rows from perf report or sleepy-parse")
    alike = sum(min(perf.get(k, 0), n) for k, n in sleepy.items())
    print(f"{alike} of {total} samples ({100 * alike / total:.2f}%) on rows alike; "
          f"perf report {len(perf)} rows, sleepy-parse {len(sleepy)}")
    for name, mine, other in (("perf report", perf, sleepy), ("sleepy-parse", sleepy, perf)):
        for n, key in sorted(((n, k) for k, n in mine.items() if k not in other),
                             reverse=True)[:5]:
            print(f"  only {name}: {n} {' '.join(key)}")


if __name__ == "__main__":
    main()
