#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-peers' table: sleepy beside perf, bpftrace and BCC.

Reads the guest's raw lines (tests/image/run-peers.sh), writes a
markdown table (printed too) and the results as JSON, both stamped
(bench/stamp.py) and naming the kernel.  Per configuration and repetition:
what the tool added to the loop's time (guest ns, against the run
without a profiler of the same repetition) divided by the loop's samples
the tool counted.  Every cell is "median (min-max)" over the
repetitions; a cost whose smallest value is within the spread of the
runs without a profiler (per sample) is marked "n.s.", and a
configuration that lost samples in any run gets no cost at all:
dividing by fewer samples would flatter it.  The JSON keeps every run's
figures and, as each configuration's own numbers, the table's cells.

    bench/peers-report.py RAW JSON MD --stamp JSON --kernel K --config FILE
"""
import argparse
import json
import re
import statistics
import sys

from stamp import stamp_line

# What each configuration is, in the table's order.
TOOLS = {
    "sleepy": "sleepy-start -F R (user IP + appid per sample, to a file)",
    "perf": "perf record -a -e cpu-clock -F R",
    "bpftrace-count": "bpftrace profile:hz:R { @[pid, comm] = count(); }",
    "bcc-profile": "BCC profile -F R (user + kernel stacks, in-kernel counts)",
    "bpftrace-records": "bpftrace profile:hz:R, printf of pid, tid, comm, ip, cpu per sample",
    "sleepy-g": "sleepy-start -F R -g (user call stacks)",
    "perf-g": "perf record -a -g -e cpu-clock -F R",
    "bpftrace-ustack": "bpftrace profile:hz:R { @[pid, comm, ustack] = count(); }",
}


def stats(values, scale=1.0):
    """Median, min and max of @values times @scale; None if empty."""
    values = sorted(v * scale for v in values)
    if not values:
        return None
    return statistics.median(values), values[0], values[-1]


def spread(triple, digits=2):
    if triple is None:
        return "-"
    fmt = "{:.%df}" % digits
    return "%s (%s-%s)" % tuple(fmt.format(v) for v in triple)


def flat(entry, name, triple):
    """The row's figures as the config's own numbers (check-readme.py)."""
    if triple is not None:
        for key, value in zip(("median", "min", "max"), triple):
            entry["%s_%s" % (name, key)] = value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("raw")
    parser.add_argument("json")
    parser.add_argument("md")
    parser.add_argument("--stamp", required=True)
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    stamp = json.loads(args.stamp)

    runs, fixed = {}, {}
    with open(args.raw) as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == "run" and len(fields) == 9:
                config, rep = fields[1], int(fields[2])
                e, samples, lost, nbytes, ready, stop = map(int, fields[3:])
                runs.setdefault(config, {})[rep] = dict(
                    elapsed_ns=e, samples=samples, lost=lost, bytes=nbytes,
                    ready_ns=ready, stop_ns=stop)
            elif fields and fields[0] == "fixed" and len(fields) == 4:
                fixed.setdefault(fields[1], []).append(int(fields[3]))
    if "none" not in runs or len(runs) < 2:
        sys.exit("peers-report: no runs without and with a profiler in %s" % args.raw)
    with open(args.config, "rb") as f:
        config_text = f.read()
    hz = re.search(rb"^CONFIG_HZ=(\d+)$", config_text, re.M)
    none = runs["none"]
    none_fixed = statistics.median(fixed.get("none", [0]))
    results = {
        "stamp": stamp,
        "kernel": args.kernel,
        "kernel_hz": int(hz.group(1)) if hz else None,
        "none_elapsed_ns": [none[r]["elapsed_ns"] for r in sorted(none)],
        "configs": {},
    }
    rows = []
    for config in TOOLS:
        if config not in runs:
            continue
        reps = runs[config]
        costs, per_byte, failed = [], [], []
        for rep, r in sorted(reps.items()):
            if rep not in none or not r["elapsed_ns"] or not r["samples"]:
                failed.append(rep)
                continue
            costs.append((r["elapsed_ns"] - none[rep]["elapsed_ns"]) / r["samples"])
            per_byte.append(r["bytes"] / r["samples"])
        lost = sum(r["lost"] for r in reps.values())
        fixed_ns = [max(0, v - none_fixed - (1e9 if config == "bcc-profile" else 0))
                    for v in fixed.get(config, [])]
        entry = {
            "tool": TOOLS[config],
            "samples": [r["samples"] for _, r in sorted(reps.items())],
            "lost": lost,
            "failed_reps": failed,
            "cost_ns_per_sample": costs,
            "bytes_per_sample": per_byte,
            "ready_ns": [r["ready_ns"] for _, r in sorted(reps.items())],
            "stop_ns": [r["stop_ns"] for _, r in sorted(reps.items())],
            "fixed_ns": fixed_ns,
        }
        columns = {
            "samples": stats(entry["samples"]),
            "cost_us": None if failed or lost else stats(costs, 1e-3),
            "bytes_per_sample": stats(per_byte),
            "ready_ms": stats(entry["ready_ns"], 1e-6),
            "stop_ms": stats(entry["stop_ns"], 1e-6),
            "fixed_ms": stats(fixed_ns, 1e-6),
        }
        for name, triple in columns.items():
            flat(entry, name, triple)
        results["configs"][config] = entry
        if failed:
            cost = "failed in %d runs" % len(failed)
        elif lost:
            cost = "lost %d samples: no figure" % lost
        else:
            cost = spread(columns["cost_us"])
            # The runs without a profiler vary as much as the difference.
            base = [r["elapsed_ns"] for r in none.values()]
            noise = (max(base) - min(base)) / statistics.median(entry["samples"])
            if min(costs) <= noise:
                cost += " n.s."
        rows.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            config, spread(columns["samples"], 0), cost,
            spread(columns["bytes_per_sample"], 1), spread(columns["ready_ms"], 1),
            spread(columns["stop_ms"], 1), spread(columns["fixed_ms"], 1)))
    with open(args.json, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    page = [stamp_line(stamp),
            "Kernel %s (CONFIG_HZ=%s); median (min-max) of %d runs"
            % (args.kernel, results["kernel_hz"], len(none)), "",
            "<!-- table: peers -->",
            "| configuration | loop's samples | µs per sample | bytes per sample"
            " | ready (ms) | stop (ms) | start+stop around nothing (ms) |",
            "|---|---|---|---|---|---|---|"] + rows
    with open(args.md, "w") as f:
        f.write("\n".join(page) + "\n")
    print("\n".join(page))


if __name__ == "__main__":
    main()
