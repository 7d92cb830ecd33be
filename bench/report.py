#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tables, JSON and a plot from one `make bench` guest run.

Reads what qemu/guest/run-bench.sh wrote (raw.tsv, the per-function
reports of sleepy-parse and perf report) and callgrind_annotate's output
of the same workloads on the host; writes bench/results/{overhead,
accuracy,drain}.json, bench/results/summary.md (the tables printed here,
each after a comment naming it) and bench/results/overhead.{svg,png}.
Medians over the repetitions, each with its [min, max] over them.
Every file is stamped (bench/stamp.py).

    bench/report.py --parse-speed RESULTS
writes RESULTS/parse-speed.md, the page of bench/parse-speed.sh's
parse-speed.json (which can run alone, on the host): its table and its
targets.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

from stamp import stamp_line

# The rates of qemu/guest/run-bench.sh: primes, so that no sampling timer
# keeps expiring with the tick (sleepy-tick samples on it on purpose).
LOW_HZ, HIGH_HZ = 997, 9973
CONFIGS = ["none", "sleepy-tick", f"sleepy-{LOW_HZ}", f"sleepy-{HIGH_HZ}",
           f"perf-{LOW_HZ}", f"perf-{HIGH_HZ}", f"perf-tuned-{LOW_HZ}", f"perf-tuned-{HIGH_HZ}",
           f"sleepy-pid-{HIGH_HZ}", f"perf-pid-{HIGH_HZ}"]
ACCURACY_WORKLOADS = ["loop", "call", "btree"]


def read_raw(path):
    rows = {"overhead": [], "calibration": {}, "drain": [], "stalled": [],
            "memory": None, "sched": [], "irq": [], "irq-io": [], "callgraph": [],
            "busy": [], "capacity": []}
    with open(path) as f:
        for line in f:
            kind, *fields = line.rstrip("\n").split("\t")
            if kind in ("overhead", "callgraph", "busy"):
                # The recording's bytes came later: absent from older runs.
                workload, config, rep, ns, samples, dropped = fields[:6]
                rows[kind].append(dict(
                    workload=workload, config=config, rep=int(rep),
                    elapsed_ns=int(ns), samples=int(samples),
                    dropped=int(dropped),
                    bytes=int(fields[6]) if len(fields) > 6 else 0,
                    cpu_samples=int(fields[7]) if len(fields) > 7 else 0,
                    # Per-task runs: start to end of the tool, its own CPU.
                    total_ns=int(fields[8]) if len(fields) > 8 else 0,
                    tool_cpu_ns=int(fields[9]) if len(fields) > 9 else 0))
            elif kind == "calibration":
                rows["calibration"][fields[0]] = [int(x) for x in fields[1:]]
            elif kind == "drain":
                hz, seconds, samples, dropped = map(int, fields[:4])
                rows["drain"].append(dict(frequency=hz, seconds=seconds,
                                          samples=samples, dropped=dropped,
                                          missed=int(fields[4]) if len(fields) > 4 else None))
            elif kind == "stalled":
                size, seconds, hz, samples, dropped = fields
                rows["stalled"].append(dict(
                    buffer_size=size, drainer_stopped_s=int(seconds),
                    frequency=int(hz), samples=int(samples),
                    dropped=int(dropped)))
            elif kind in ("sched", "irq", "irq-io"):
                config, rep, ns, events, dropped = fields
                rows[kind].append(dict(config=config, rep=int(rep), elapsed_ns=int(ns),
                                          events=int(events), dropped=int(dropped or 0)))
            elif kind == "capacity":
                tool, rep, cpus, ns, drained, dropped, file_bytes, samples = fields
                rows["capacity"].append(dict(tool=tool, rep=int(rep), cpus=int(cpus),
                                             ns=int(ns), drained_bytes=int(drained),
                                             dropped=int(dropped), file_bytes=int(file_bytes),
                                             samples=int(samples)))
            elif kind == "memory" and len(fields) == 2:
                rows["memory"] = dict(buffer_bytes_per_cpu=int(fields[0]),
                                      table_bytes_per_appid=int(fields[1]))
    return rows


def spread(values, spec):
    """The median of @values and [min, max], each formatted with @spec."""
    return (f"{statistics.median(values):{spec}} "
            f"[{min(values):{spec}}, {max(values):{spec}}]")


def overlap(a, b):
    """Whether the ranges of value lists @a and @b overlap."""
    return min(a) <= max(b) and min(b) <= max(a)


def recount_one_cpu(runs):
    """On one vCPU every sample is on the workload's CPU, so a sleepy run
    whose sample count (sleepy-stop's summary line) is missing takes its
    recording's own (sleepy-parse --sort cpu).  Returns how many runs took
    it, and of those that have both counts, how many and how many agree."""
    taken = compared = agree = 0
    for r in runs:
        if not r["config"].startswith("sleepy"):
            continue
        if not r["samples"] and r["cpu_samples"]:
            r["samples"] = r["cpu_samples"]
            taken += 1
        elif r["samples"]:
            compared += 1
            agree += r["samples"] == r["cpu_samples"]
    return taken, compared, agree


def uncounted_note(table):
    """The runs left out of the cost per sample for want of a count: a line
    for the page, or none."""
    left = [f"{r['workload']} {r['config']} ({r['uncounted']} of {r['repetitions']})"
            for r in table if r.get("uncounted")]
    return ["\nLeft out of the cost per sample, having no sample count (the tool's "
            "summary line was missing): " + ", ".join(left) + ".\n"] if left else []


def overhead_table(runs, ns_per_instruction, configs=CONFIGS):
    """Medians over the repetitions.  Overhead and cost per sample are
    paired: each run against the no-profiler run of its own repetition
    (the runs of one repetition are back to back), so a slow drift of the
    guest over the boot (fork/exec costs move by a few % after thousands
    of processes) does not pass for a profiler's cost."""
    by_key = {}
    for r in runs:
        by_key.setdefault((r["workload"], r["config"]), []).append(r)
    workloads = list(dict.fromkeys(r["workload"] for r in runs))
    table = []
    for w in workloads:
        base_of = {r["rep"]: r["elapsed_ns"] for r in by_key[(w, "none")]}
        base = statistics.median(base_of.values())
        for c in configs:
            rs = [r for r in by_key.get((w, c), []) if r["rep"] in base_of]
            if not rs:
                continue
            extra = [r["elapsed_ns"] - base_of[r["rep"]] for r in rs]
            overhead = [100.0 * (r["elapsed_ns"] - base_of[r["rep"]]) / base_of[r["rep"]]
                        for r in rs]
            # No cost from a run that dropped records: fewer samples would
            # divide the extra time by less.  A run without a sample count
            # (none's, or one whose count was lost) gives none either, and
            # its 0 is no count in the median.
            counted = [(x, r) for x, r in zip(extra, rs) if r["samples"]]
            samples = statistics.median(r["samples"] for _, r in counted) if counted else 0
            costs_ns = ([x / r["samples"] for x, r in counted]
                        if counted and not any(r["dropped"] for r in rs) else None)
            cost_ns = statistics.median(costs_ns) if costs_ns else None
            row = dict(
                workload=w, config=c, repetitions=len(rs),
                elapsed_s=statistics.median(r["elapsed_ns"] for r in rs) / 1e9,
                overhead_pct=statistics.median(overhead),
                overhead_pct_runs=overhead,
                baseline_spread_pct=100.0 * (max(base_of.values()) - min(base_of.values())) / base,
                samples=samples,
                cost_per_sample_us=cost_ns / 1e3 if cost_ns is not None else None,
                cost_per_sample_us_runs=[c / 1e3 for c in costs_ns] if costs_ns else None,
                instructions_per_sample=cost_ns / ns_per_instruction
                if cost_ns is not None and ns_per_instruction else None,
                bytes_per_sample=statistics.median(r["bytes"] / r["samples"] for _, r in counted)
                if counted and all(r["bytes"] for _, r in counted) else None,
                uncounted=len(rs) - len(counted) if c != "none" else 0,
                # The workload's CPU only (the extra time is not divided
                # by them: it is spent on every CPU).
                cpu_samples=statistics.median(r["cpu_samples"] for r in rs),
                dropped=sum(r["dropped"] for r in rs))
            if all(r["total_ns"] for r in rs):
                # From the tool's start to its end (setup, flush, perf's
                # build-id pass), over the workload alone; and the CPU
                # time of the tool's own processes per sample.
                row["total_s"] = statistics.median(r["total_ns"] for r in rs) / 1e9
                row["total_overhead_pct_runs"] = [
                    100.0 * (r["total_ns"] - base_of[r["rep"]]) / base_of[r["rep"]] for r in rs]
                row["total_overhead_pct"] = statistics.median(row["total_overhead_pct_runs"])
                row["tool_cpu_ms"] = statistics.median(r["tool_cpu_ns"] for r in rs) / 1e6
                row["tool_cpu_per_sample_us_runs"] = (
                    [r["tool_cpu_ns"] / r["samples"] / 1e3 for r in rs]
                    if all(r["samples"] for r in rs) else None)
            table.append(row)
    return table


def symbol_aliases(binary):
    """One name for every set of symbols at the same address.

    Static glibc has weak aliases (random_r and __random_r): callgrind
    names a function by one, perf and sleepy-parse by another.  The name
    with the fewest leading underscores, then the shortest, stands for
    all of them.
    """
    by_address = {}
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "TtWwi":
            by_address.setdefault(fields[0], []).append(fields[2])
    canonical = {}
    for names in by_address.values():
        best = min(names, key=lambda n: (len(n) - len(n.lstrip("_")), len(n), n))
        canonical.update((n, best) for n in names)
    return canonical


def merge_aliases(shares, canonical):
    merged = {}
    for fn, pct in shares.items():
        name = canonical.get(fn, fn)
        merged[name] = merged.get(name, 0.0) + pct
    return merged


def callgrind_shares(path):
    costs = {}
    # "  1,234 (12.34%)  file.c:function [binary]"; recursion levels of a
    # function ("insert'2") are the function.
    pattern = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+\S+?:(.+?)(?:'\d+)?(?: \[.*\])?$")
    with open(path) as f:
        for line in f:
            m = pattern.match(line)
            if m:
                fn = m.group(2)
                costs[fn] = costs.get(fn, 0) + int(m.group(1).replace(",", ""))
    total = sum(costs.values())
    return {fn: 100.0 * c / total for fn, c in costs.items()}, total


def sleepy_shares(path, workload):
    with open(path) as f:
        report = json.load(f)
    counts = {}
    for row in report.get("by_function", []):
        if row["app"].split("#")[0] != workload or row["function"] == "[kernel]":
            continue
        counts[row["function"]] = counts.get(row["function"], 0) + row["samples"]
    total = sum(counts.values())
    return {fn: 100.0 * c / total for fn, c in counts.items()} if total else {}, total


def perf_shares(path):
    counts = {}
    pattern = re.compile(r"^\s*[\d.]+%\s+(\d+)\s+\[\.\]\s+(\S+)")
    with open(path) as f:
        for line in f:
            m = pattern.match(line)
            if m:
                counts[m.group(2)] = counts.get(m.group(2), 0) + int(m.group(1))
    total = sum(counts.values())
    return {fn: 100.0 * c / total for fn, c in counts.items()} if total else {}, total


def accuracy(raw, binaries):
    result = []
    for w in ACCURACY_WORKLOADS:
        files = [os.path.join(raw, n) for n in (
            f"callgrind-{w}.txt", f"accuracy-sleepy-{w}.json",
            f"accuracy-perf-{w}.txt")]
        if not all(os.path.exists(f) for f in files):
            continue
        canonical = symbol_aliases(os.path.join(binaries, w))
        truth, instructions = callgrind_shares(files[0])
        sleepy, sleepy_n = sleepy_shares(files[1], w)
        perf, perf_n = perf_shares(files[2])
        truth, sleepy, perf = (merge_aliases(s, canonical) for s in (truth, sleepy, perf))
        functions = sorted(set(truth) | set(sleepy) | set(perf),
                           key=lambda fn: (-truth.get(fn, 0), fn))
        rows = [dict(function=fn, callgrind_pct=truth.get(fn, 0.0),
                     sleepy_pct=sleepy.get(fn, 0.0), perf_pct=perf.get(fn, 0.0))
                for fn in functions]
        result.append(dict(
            workload=w, callgrind_instructions=instructions,
            sleepy_user_samples=sleepy_n, perf_user_samples=perf_n,
            sleepy_max_diff_pp=max(abs(r["sleepy_pct"] - r["callgrind_pct"]) for r in rows),
            perf_max_diff_pp=max(abs(r["perf_pct"] - r["callgrind_pct"]) for r in rows),
            functions=rows))
    return result


def tcg_accuracy(raw_tcg, raw, binaries, workload="btree"):
    """Per-function shares of the plain-TCG runs (time is not instructions
    there): each tool's mean and range over the repetitions, callgrind's
    instruction share, and the largest gaps."""
    if not raw_tcg or not os.path.isdir(raw_tcg):
        return None
    reps = sorted(int(n[len(f"sleepy-{workload}-"):-len(".json")])
                  for n in os.listdir(raw_tcg)
                  if n.startswith(f"sleepy-{workload}-") and n.endswith(".json"))
    reps = [r for r in reps
            if os.path.exists(os.path.join(raw_tcg, f"perf-{workload}-{r}.txt"))]
    truth_file = os.path.join(raw, f"callgrind-{workload}.txt")
    if not reps or not os.path.exists(truth_file):
        return None
    canonical = symbol_aliases(os.path.join(binaries, workload))
    truth = merge_aliases(callgrind_shares(truth_file)[0], canonical)
    runs = {"sleepy": [], "perf": []}
    for r in reps:
        runs["sleepy"].append(merge_aliases(sleepy_shares(
            os.path.join(raw_tcg, f"sleepy-{workload}-{r}.json"), workload)[0], canonical))
        runs["perf"].append(merge_aliases(perf_shares(
            os.path.join(raw_tcg, f"perf-{workload}-{r}.txt"))[0], canonical))
    functions = sorted(set(truth).union(*runs["sleepy"], *runs["perf"]),
                       key=lambda fn: (-truth.get(fn, 0), fn))
    rows = []
    for fn in functions:
        row = dict(function=fn, callgrind_pct=truth.get(fn, 0.0))
        for tool, shares in runs.items():
            values = [s.get(fn, 0.0) for s in shares]
            row[f"{tool}_pct"] = statistics.mean(values)
            row[f"{tool}_min_pct"] = min(values)
            row[f"{tool}_max_pct"] = max(values)
        rows.append(row)
    return dict(workload=workload, repetitions=len(reps),
                sleepy_vs_perf_max_pp=max(abs(r["sleepy_pct"] - r["perf_pct"]) for r in rows),
                sleepy_vs_callgrind_max_pp=max(abs(r["sleepy_pct"] - r["callgrind_pct"])
                                               for r in rows),
                perf_vs_callgrind_max_pp=max(abs(r["perf_pct"] - r["callgrind_pct"])
                                             for r in rows),
                functions=rows)


def write_result(results, name, stamp, data):
    """One JSON file of bench/results, stamped with what made it."""
    with open(os.path.join(results, name), "w") as f:
        json.dump(dict(stamp=stamp, **data), f, indent=1)


def fmt_table(table_id, header, rows):
    """A markdown table, after a comment naming it: docs/performance.md
    ties its tables and figures to tables of summary.md by that name."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).rjust(w) for c, w in zip(cells, widths)) + " |"
    out = [f"<!-- table: {table_id} -->", line(header),
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def cost_cell(row):
    """Cost per sample µs, median [min, max], or "-" without one."""
    costs = row["cost_per_sample_us_runs"]
    return spread(costs, ".2f") if costs else "-"


def sleepy_twin(config):
    """The sleepy configuration a peer's cost is compared with: the same
    rate, and per task for per task."""
    rate = config.rsplit("-", 1)[1]
    return f"sleepy-pid-{rate}" if "-pid-" in config else f"sleepy-{rate}"


def pivot_cell(row, twin):
    """Overhead % (cost per sample µs), each median [min, max]; a peer's
    cell marked ≈ where its cost's range overlaps that of @twin, sleepy
    at the same rate: the two are not told apart."""
    if row is None:
        return "-"
    over = spread(row["overhead_pct_runs"], "+.2f")
    if row["dropped"]:
        return f"{over} (dropped {row['dropped']}: no cost)"
    if not row["cost_per_sample_us_runs"]:
        return "-"
    costs = row["cost_per_sample_us_runs"]
    same = (twin is not None and twin["cost_per_sample_us_runs"]
            and overlap(costs, twin["cost_per_sample_us_runs"]))
    return f"{over} ({spread(costs, '.1f')}){' ≈' if same else ''}"


def overhead_pivot(table_id, table):
    """Overhead % and cost per sample, one row per workload, one column
    per configuration: the table the README shows."""
    configs = [c for c in CONFIGS[1:] if any(r["config"] == c for r in table)]
    rows = []
    for w in dict.fromkeys(r["workload"] for r in table):
        cells = {r["config"]: r for r in table if r["workload"] == w}
        rows.append([w] + [pivot_cell(cells.get(c), None if c.startswith("sleepy")
                                      else cells.get(sleepy_twin(c)))
                           for c in configs])
    return fmt_table(table_id, ["workload"] + configs, rows)


PIVOT_LEGEND = ("Each figure is the median, with [min, max] over the repetitions; ≈ marks "
                "a peer whose cost per sample's range overlaps sleepy's at the same rate: "
                "the two are not told apart.")


def parse_speed_table(speed):
    rows = []
    for r in speed["results"]:
        if "sleepy_speedup_cpu" in r:
            ratio = f"sleepy-parse {r['sleepy_speedup_cpu']:.1f}x the samples/s ({r['same_work_as']})"
        elif "cpu_over_aggregation" in r:
            ratio = f"{r['cpu_over_aggregation']:.1f}x the CPU time of aggregating alone"
        else:
            ratio = "-"
        size = ("guest, each its own" if r["size"] == "guest" else
                f"{'steady' if r.get('workload') == 'steady' else 'same'} "
                f"{r['size'] // 1000000} M")
        without = r.get("samples_per_s_cpu_without_symbol_files")
        rows.append([size, r["tool"], f"{r['samples']}",
                     f"{r['cpu_s_min']:.3f}/{r['cpu_s']:.3f}/{r['cpu_s_max']:.3f}",
                     f"{r['symbol_files_cpu_s']:.3f}" if "symbol_files_cpu_s" in r else "-",
                     f"{r['samples_per_s_cpu'] / 1e6:.2f}",
                     f"{without / 1e6:.2f}" if without else "-",
                     f"{r['peak_rss_kib'] / 1024:.0f}", ratio])
    return fmt_table("parse-speed", ["recording", "tool", "samples", "CPU s min/median/max",
                                     "symbol files CPU s", "M samples/s",
                                     "M samples/s without symbol files", "peak RSS MiB",
                                     "same work compared"], rows)


def targets(table, drain):
    """The issue's targets, each with the figure that meets or misses it,
    on the configuration of @table (both vCPUs busy when make bench ran it)."""
    out = []

    def cost(config):
        cps = [r["cost_per_sample_us"] for r in table
               if r["config"] == config and r["cost_per_sample_us"] is not None]
        return statistics.median(cps) if cps else None

    def dropped(config):
        return sum(r["dropped"] for r in table if r["config"] == config)

    for hz in (LOW_HZ, HIGH_HZ):
        s, p = cost(f"sleepy-{hz}"), cost(f"perf-{hz}")
        lost = {t: dropped(f"{t}-{hz}") for t in ("sleepy", "perf")}
        if any(lost.values()):
            # Fewer samples would divide the extra time by less.
            out.append(f"cost per sample at most half of perf's at {hz} Hz: no verdict ("
                       + ", ".join(f"{t} dropped {n}" for t, n in lost.items() if n) + ")")
        elif s is not None and p is not None:
            out.append(f"cost per sample at most half of perf's at {hz} Hz: "
                       f"{'met' if s <= p / 2 else 'missed'} ({s:.2f} vs {p:.2f} µs, "
                       f"{s / p:.2f} of it, median over workloads)")
    at_low = [r for r in table if r["config"] == f"sleepy-{LOW_HZ}"]
    if at_low:
        worst = max(at_low, key=lambda r: r["overhead_pct"])
        over = [r["workload"] for r in at_low if r["overhead_pct"] >= 0.5]
        out.append(f"under 0.5% overhead at {LOW_HZ} Hz: "
                   f"{'met' if not over else 'missed on ' + ', '.join(over)} "
                   f"(worst {worst['overhead_pct']:+.2f}% on {worst['workload']})")
    at_high = [r for r in table if r["config"] == f"sleepy-{HIGH_HZ}"]
    drain10k = [d for d in (drain or {}).get("sessions", []) if d["frequency"] == 10000]
    lost = sum(r["dropped"] for r in at_high) + sum(d["dropped"] for d in drain10k)
    # A missed period is a sample the timer grid asked for and no CPU took.
    missed = sum(d["missed"] or 0 for d in drain10k)
    grid = sum(d["frequency"] * d["seconds"] * 2 for d in drain10k)
    if at_high:
        out.append(f"zero drops and zero missed periods at 10 kHz: "
                   f"{'met' if not lost and not missed else 'missed'} ({lost} dropped"
                   + (f"; {missed} of the drain session's {grid} periods missed, "
                      f"{100.0 * missed / grid:.1f}%, counted" if grid else "") + ")")
    return "\n".join(f"- {t}" for t in out)


def capacity_rows(runs):
    """Per tool, what its reader drained a second, median [min-max] over
    the repetitions: bytes, and samples at the recording's bytes a sample
    (side-band records included)."""
    out = []
    for tool in dict.fromkeys(r["tool"] for r in runs):
        rs = [r for r in runs if r["tool"] == tool and r["ns"] and r["samples"]]
        if not rs:
            continue
        mb = [r["drained_bytes"] / r["ns"] * 1e3 for r in rs]
        per = [r["file_bytes"] / r["samples"] for r in rs]
        sps = [r["drained_bytes"] / (r["file_bytes"] / r["samples"]) / (r["ns"] / 1e9) for r in rs]
        out.append(dict(tool=tool, cpus=rs[0]["cpus"], repetitions=len(rs),
                        drained_mb=statistics.median(r["drained_bytes"] for r in rs) / 1e6,
                        drain_s=statistics.median(r["ns"] for r in rs) / 1e9,
                        mb_per_s=statistics.median(mb), mb_per_s_min=min(mb), mb_per_s_max=max(mb),
                        bytes_per_sample=statistics.median(per),
                        samples_per_s=statistics.median(sps), samples_per_s_min=min(sps),
                        samples_per_s_max=max(sps),
                        dropped=sum(r["dropped"] for r in rs)))
    return out


def capacity_section(rows):
    """The 8-vCPU table of what each reader drains a second.  A run whose
    buffers filled while its reader was stopped drained a backlog cut
    short: its drops are in the table, and the section says so."""
    full = [r["tool"] for r in rows if r["dropped"]]
    return "\n".join([
        "\n### Capacity: what one reader drains a second, every vCPU busy "
        f"({rows[0]['cpus']} vCPUs, a buffer of 1 MiB per CPU, median [min-max] of the runs)\n",
        *([f"Not a capacity for {' and '.join(full)}: "
           f"{'its' if len(full) == 1 else 'their'} buffers filled while the reader was stopped "
           "(dropped), so the backlog drained was cut short.\n"] if full else []),
        fmt_table("capacity", ["tool", "runs", "backlog MB", "drain s", "MB/s", "bytes/sample",
                               "samples/s", "dropped"],
                  [[r["tool"], r["repetitions"], f"{r['drained_mb']:.2f}", f"{r['drain_s']:.3f}",
                    f"{r['mb_per_s']:.2f} [{r['mb_per_s_min']:.2f}-{r['mb_per_s_max']:.2f}]",
                    f"{r['bytes_per_sample']:.1f}",
                    f"{r['samples_per_s']:.0f} [{r['samples_per_s_min']:.0f}-"
                    f"{r['samples_per_s_max']:.0f}]", r["dropped"]] for r in rows])])


def parse_targets(speed):
    """The parse-speed targets, each with the figures that meet or miss it."""
    out = []

    def verdict(met):
        return "met" if all(met) else "met on some recordings" if any(met) else "missed"

    def at(row):
        if row["size"] == "guest":
            return "the guest's own recordings"
        return (f"{row['size'] // 1000000} M"
                + (" steady" if row.get("workload") == "steady" else ""))

    for perf, work in (("perf report -s pid,sym", "--sort pid,sym, every sample named"),
                       ("perf report", "perf report as run, its default comm,dso,sym; "
                                       "sleepy-parse --sort comm,dso,sym")):
        ratios = [(r, r["sleepy_speedup_cpu"]) for r in speed["results"]
                  if r["tool"] == perf and "sleepy_speedup_cpu" in r]
        if ratios:
            out.append("sleepy-parse at least 10x perf report's samples/s on the same work "
                       f"({work}): {verdict([x >= 10 for _, x in ratios])} (" +
                       ", ".join(f"{x:.1f}x at {at(n)}" for n, x in ratios) + ")")
    common = [(r, r["tool"][len("sleepy-parse "):], r["samples_per_s_cpu_without_symbol_files"])
              for r in speed["results"]
              if r["tool"] in ("sleepy-parse -s app,sym", "sleepy-parse (default)")
              and r["size"] != "guest" and r["size"] >= 10000000
              and "samples_per_s_cpu_without_symbol_files" in r]
    if common:
        out.append("the common reports (--sort app,sym, the default) at 20 M samples/s "
                   "on 10 M samples, names included, reading symbol files apart: "
                   f"{verdict([x >= 20e6 for _, _, x in common])} ("
                   + ", ".join(f"{t} {x / 1e6:.1f} M/s at {at(r)}" for r, t, x in common) + ")")
    naming = [(r, r["cpu_over_aggregation"]) for r in speed["results"]
              if r["tool"] == "sleepy-parse -s pid,sym" and "cpu_over_aggregation" in r]
    if naming:
        out.append("naming every sample within 3x the time of aggregating alone: "
                   f"{'met' if all(x <= 3 for _, x in naming) else 'missed'} (" +
                   ", ".join(f"{x:.1f}x at {at(n)}" for n, x in naming) + ")")
    return "\n".join(f"- {t}" for t in out)


def parse_speed_page(speed):
    """bench/results/parse-speed.md: the stamp, the table, the targets."""
    return "\n".join([
        stamp_line(speed["stamp"]),
        f"\n### Parse speed on the host (bench/parse-speed.sh, least, median and "
        f"largest CPU time of {speed['runs']} runs)\n",
        f"perf report: {speed.get('perf_version', 'version not recorded')}.\n",
        parse_speed_table(speed),
        "\n### Parse-speed targets\n",
        "<!-- list: parse-targets -->",
        parse_targets(speed)]) + "\n"


def plot(table, results):
    """Mean overhead over the workloads against the sampling frequency."""
    data = os.path.join(results, "overhead.dat")
    with open(data, "w") as f:
        f.write("# frequency sleepy_pct perf_pct (mean over workloads)\n")
        for hz in (LOW_HZ, HIGH_HZ):
            means = []
            for tool in ("sleepy", "perf"):
                vals = [r["overhead_pct"] for r in table if r["config"] == f"{tool}-{hz}"]
                means.append(statistics.mean(vals) if vals else float("nan"))
            f.write(f"{hz} {means[0]:.4f} {means[1]:.4f}\n")
    tick = [r["overhead_pct"] for r in table if r["config"] == "sleepy-tick"]
    script = f"""
set logscale x
set xrange [700:14000]
set xlabel 'sampling frequency per CPU (Hz)'
set ylabel 'overhead vs no profiler (%, mean of workloads)'
set title 'sleepy vs perf record -e cpu-clock (QEMU -icount, guest time)'
set key top left
set grid
plot '{data}' using 1:2 with linespoints lw 2 pt 7 title 'sleepy -F', \\
     '{data}' using 1:3 with linespoints lw 2 pt 5 title 'perf record -a -F', \\
     '-' using 1:2 with points pt 9 ps 2 title 'sleepy on the tick (HZ=1000)'
1000 {statistics.mean(tick) if tick else float('nan'):.4f}
e
"""
    for term, ext in (("svg size 720,480", "svg"), ("pngcairo size 720,480", "png")):
        path = os.path.join(results, f"overhead.{ext}")
        subprocess.run(["gnuplot"], input=f"set terminal {term}\nset output '{path}'\n" + script,
                       text=True, check=True)


def write_parse_speed_page(results):
    with open(os.path.join(results, "parse-speed.json")) as f:
        speed = json.load(f)
    with open(os.path.join(results, "parse-speed.md"), "w") as f:
        f.write(parse_speed_page(speed))


def main():
    if sys.argv[1:2] == ["--parse-speed"] and len(sys.argv) == 3:
        write_parse_speed_page(sys.argv[2])
        return
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--raw", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--icount-shift", type=int, required=True,
                    help="QEMU's -icount shift; -1: the guest ran under KVM, in real time")
    ap.add_argument("--binaries", required=True,
                    help="the benchmark binaries callgrind and the guest ran")
    ap.add_argument("--raw-tcg",
                    help="the plain-TCG boot's accuracy runs (out/bench-parse/tcg-accuracy)")
    ap.add_argument("--stamp", required=True,
                    help="bench/stamp.py's JSON, taken when the run began")
    args = ap.parse_args()
    stamp = json.loads(args.stamp)
    raw_path = os.path.join(args.raw, "raw.tsv")
    if not os.path.exists(raw_path):
        sys.exit(f"report.py: no {raw_path}; run make bench first")
    ns_per_instruction = 2 ** args.icount_shift if args.icount_shift >= 0 else None
    os.makedirs(args.results, exist_ok=True)
    raw = read_raw(raw_path)
    md = []
    if ns_per_instruction:
        guest = (f"QEMU TCG -icount shift={args.icount_shift},sleep=off: 1 guest ns = "
                 f"{1 / ns_per_instruction:g} instructions, one guest second = "
                 f"{1e9 / ns_per_instruction:.0e} instructions summed over both vCPUs")
    else:
        guest = "QEMU with KVM (-cpu host): real time on the host's CPU, not emulated"
    md.append(stamp_line(stamp))
    md.append(f"Guest time: {guest}.")
    cal = raw["calibration"]
    if "one" in cal and "two" in cal:
        md.append(f"Calibration: `loop 50000000` alone {cal['one'][0] / 1e9:.3f} s; "
                  f"two at once on the 2 vCPUs {cal['two'][0] / 1e9:.3f} s and "
                  f"{cal['two'][1] / 1e9:.3f} s.")

    table = overhead_table(raw["overhead"], ns_per_instruction)
    if table:
        md.append("\n### Overhead (guest time, median of %d repetitions; overhead and "
                  "cost per sample against the no-profiler run of the same repetition)\n"
                  % table[0]["repetitions"])
        md.append(fmt_table("overhead",
            ["workload", "configuration", "elapsed s", "overhead %", "samples",
             "on workload CPU", "cost/sample µs",
             "instr/sample", "bytes/sample", "dropped"],
            [[r["workload"], r["config"], f"{r['elapsed_s']:.4f}",
              spread(r["overhead_pct_runs"], "+.2f") if r["config"] != "none"
              else f"+0.00 (baseline spread {r['baseline_spread_pct']:.2f}%)",
              f"{r['samples']:.0f}", f"{r['cpu_samples']:.0f}", cost_cell(r),
              f"{r['instructions_per_sample']:.0f}" if r["instructions_per_sample"] is not None else "-",
              f"{r['bytes_per_sample']:.1f}" if r.get("bytes_per_sample") is not None else "-",
              r["dropped"]] for r in table]))
        summary = []
        for c in CONFIGS[1:]:
            rs = [r for r in table if r["config"] == c]
            if rs:
                cps = [r["cost_per_sample_us"] for r in rs if r["cost_per_sample_us"] is not None]
                summary.append([c, f"{statistics.mean(r['overhead_pct'] for r in rs):+.2f}",
                                f"{max(r['overhead_pct'] for r in rs):+.2f}",
                                f"{statistics.median(cps):.2f}" if cps else "-",
                                sum(r["dropped"] for r in rs)])
        md += uncounted_note(table)
        md.append("\n### Overhead % (cost per sample µs) by workload\n")
        md.append(PIVOT_LEGEND + "\n")
        md.append(overhead_pivot("overhead-pivot", table))
        md.append("\n### Per configuration, over the workloads\n")
        md.append(fmt_table("per-config", ["configuration", "mean overhead %", "worst overhead %",
                             "median cost/sample µs", "dropped"], summary))
        write_result(args.results, "overhead.json", stamp,
                     dict(guest=guest, calibration_ns=cal, runs=raw["overhead"], table=table))
        plot(table, args.results)

    one_path = os.path.join(args.raw, "one-vcpu", "raw.tsv")
    if os.path.exists(one_path):
        one_runs = read_raw(one_path)["overhead"]
        taken, compared, agree = recount_one_cpu(one_runs)
        one = overhead_table(one_runs, ns_per_instruction)
        if one:
            md.append("\n### One vCPU: the workload and the profiler share it (median of %d "
                      "repetitions)\n" % one[0]["repetitions"])
            md.append("Equal terms: idle parking cannot help (the CPU is never idle while "
                      "the workload runs), both tools sample exactly the one CPU and count "
                      "the same samples, and the drainer's or perf's own user-space work "
                      "is in the workload's time.  Record sizes: sleepy's sample 48 bytes, "
                      "perf's 56 (IP, TID, TIME, ID, CPU, PERIOD, as `perf report -D` shows "
                      "for `perf record -a -e cpu-clock -F N`).  " + PIVOT_LEGEND + "\n")
            md.append(overhead_pivot("one-vcpu-pivot", one))
            if taken:
                md.append(f"\nThe sample count of {taken} sleepy runs here is their "
                          "recording's (sleepy-parse), every sample of one vCPU being on "
                          "the workload's: sleepy-stop's summary line, the usual count, was "
                          f"missing.  Of the {compared} runs that have both, {agree} have "
                          "the same two counts.\n")
            md += uncounted_note(one)
            task = [r for r in one if "total_s" in r]
            if task:
                md.append(f"\nPer task (`sleepy-record -F {HIGH_HZ} -- CMD`, `perf record -e "
                          f"cpu-clock -F {HIGH_HZ} -- CMD`): the workload's time as above, the "
                          "tool's from its start to its end (setup, the last drain or "
                          "perf's build-id pass included), and the CPU time of the tool's "
                          "own processes (drainer; perf), which the workload's time "
                          "already pays for on one vCPU.\n")
                md.append(fmt_table("per-task",
                    ["workload", "configuration", "workload s", "overhead %", "samples",
                     "start to end s", "overhead start to end %", "tool CPU ms",
                     "tool CPU µs/sample"],
                    [[r["workload"], r["config"], f"{r['elapsed_s']:.4f}",
                      spread(r["overhead_pct_runs"], "+.2f"), f"{r['samples']:.0f}",
                      f"{r['total_s']:.4f}", spread(r["total_overhead_pct_runs"], "+.2f"),
                      f"{r['tool_cpu_ms']:.1f}",
                      spread(r["tool_cpu_per_sample_us_runs"], ".2f")
                      if r["tool_cpu_per_sample_us_runs"] else "-"]
                     for r in task]))
            write_result(args.results, "overhead-one-vcpu.json", stamp,
                         dict(guest=guest, table=one))

    def event_cost_table(runs, configs, plain_of):
        """Median elapsed and overhead over none, and the cost per event:
        the extra time over the same tool sampling alone (plain_of) divided
        by the events it recorded, paired by repetition; both with their
        [min, max] over the repetitions."""
        def elapsed_by_rep(config):
            return {r["rep"]: r["elapsed_ns"] for r in runs if r["config"] == config}

        base = elapsed_by_rep("none")
        rows = []
        for c in configs:
            rs = [r for r in runs if r["config"] == c and r["rep"] in base]
            if not rs:
                continue
            plain = elapsed_by_rep(plain_of.get(c, c.split("-")[0]))
            over = [100.0 * (r["elapsed_ns"] - base[r["rep"]]) / base[r["rep"]] for r in rs]
            per = [(r["elapsed_ns"] - plain[r["rep"]]) / r["events"] / 1000.0
                   for r in rs if r["events"] and r["rep"] in plain]
            rows.append([c, f"{statistics.median(r['elapsed_ns'] for r in rs) / 1e9:.4f}",
                         spread(over, "+.2f"), f"{statistics.median(r['events'] for r in rs):.0f}",
                         spread(per, ".3f") if per else "-",
                         sum(r["dropped"] for r in rs)])
        return len(base), rows

    if raw["sched"]:
        reps, rows = event_cost_table(
            raw["sched"],
            ["none", "sleepy", "sleepy-sched", "sleepy-irq",
             "sleepy-sched-irq", "perf", "perf-sched", "perf-sched-record"],
            {"sleepy": "sleepy", "perf": "perf", "perf-sched-record": "none"})
        md.append("\n### --sched and --irq on a context-switch storm (pingpong, 20,000 rounds "
                  "on one CPU; sampling at 1 kHz; median of %d)\n" % reps)
        md.append("Cost per record: the extra time over the same tool sampling alone "
                  "(sleepy, perf; `perf sched record`, which does not sample: over none) "
                  "divided by the switch and wakeup records written.  perf-sched records "
                  "the tracepoints sleepy's probes are on (sched_switch, sched_waking, "
                  "sched_wakeup_new); `perf sched record` its own set (with raw tracepoint "
                  "data, and sched_wakeup and sched_migrate_task besides).\n")
        md.append(fmt_table("sched", ["configuration", "elapsed s", "overhead %", "records",
                             "cost/record µs", "dropped"], rows))
        write_result(args.results, "sched.json", stamp, dict(guest=guest, runs=raw["sched"]))

    if raw["irq"]:
        reps, rows = event_cost_table(raw["irq"], ["none", "sleepy", "sleepy-irq",
                                                   "perf", "perf-irq"], {})
        md.append("\n### --irq on a timer interrupt storm (20,000 sleeps of 50 µs on one CPU, "
                  "each ended by a local timer interrupt; sampling at 1 kHz; median of %d)\n" % reps)
        md.append("Cost per event: the extra time over the same tool sampling alone divided "
                  "by the interrupts and softirqs handled during the run (sleepy: the counts "
                  "of its histograms; perf: its *_entry records of irq:irq_handler, "
                  "irq:softirq and irq_vectors:local_timer, the tracepoints BCC's hardirqs "
                  "and softirqs use, each interrupt two records; sleepy's probes are on "
                  "the same tracepoints, softirq_raise and x86's other timed vectors).\n")
        md.append(fmt_table("irq-timer", ["configuration", "elapsed s", "overhead %", "events",
                             "cost/event µs", "dropped"], rows))
        write_result(args.results, "irq.json", stamp,
                     dict(guest=guest, runs=raw["irq"], virtio_runs=raw["irq-io"]))

    if raw["irq-io"]:
        reps, rows = event_cost_table(raw["irq-io"], ["none", "sleepy", "sleepy-irq",
                                                      "perf", "perf-irq"], {})
        md.append("\n### --irq on virtio traffic (16 MiB written to the 9p share in 64 KiB "
                  "writes on one CPU; sampling at 1 kHz; median of %d)\n" % reps)
        md.append("Events and cost per event as above.  The host completes the writes in "
                  "real time, so this workload does not repeat under -icount: mind the "
                  "ranges.\n")
        md.append(fmt_table("irq-virtio", ["configuration", "elapsed s", "overhead %", "events",
                             "cost/event µs", "dropped"], rows))

    if raw["busy"]:
        busy_table = overhead_table(raw["busy"], ns_per_instruction)
        md.append("\n### Both vCPUs busy (the workload on each vCPU, timed until both "
                  "end, the baseline included; guest time, median of %d repetitions)\n"
                  % busy_table[0]["repetitions"])
        md.append("No CPU is idle, so sleepy's idle parking cannot help; the drainer and "
                  "perf share the CPUs with the workload.  Under -icount the guest's time is "
                  "the instructions both vCPUs executed, whichever way QEMU shares them out: "
                  "times are about twice those above, and the extra time over all samples is "
                  "the cost per sample on a busy CPU.\n")
        md.append(fmt_table("busy",
            ["workload", "configuration", "elapsed s", "overhead %", "samples (both CPUs)",
             "µs/sample", "dropped"],
            [[r["workload"], r["config"], f"{r['elapsed_s']:.4f}",
              spread(r["overhead_pct_runs"], "+.2f"), f"{r['samples']:.0f}", cost_cell(r),
              r["dropped"]] for r in busy_table]))
        md += uncounted_note(busy_table)
        md.append("\nOverhead % (cost per sample µs), both vCPUs busy.  " + PIVOT_LEGEND + "\n")
        md.append(overhead_pivot("busy-pivot", busy_table))
        write_result(args.results, "overhead-busy.json", stamp,
                     dict(guest=guest, table=busy_table, runs=raw["busy"]))

    if raw["callgraph"]:
        cg_table = overhead_table(raw["callgraph"], ns_per_instruction,
                               ["none"] + [f"{c}-{HIGH_HZ}" for c in
                                           ("sleepy", "sleepy-gk", "perf", "perf-g")])
        md.append(f"\n### Call stacks at {HIGH_HZ} Hz (guest time, median of "
                  f"{cg_table[0]['repetitions']} repetitions)\n")
        md.append(f"sleepy-gk: `sleepy-start -F {HIGH_HZ} -g -k` (user and kernel stacks); "
                  f"perf-g: `perf record -a -g -e cpu-clock -F {HIGH_HZ}` (both, always); both "
                  "walk frame pointers (the workloads are built with them).  Cost per "
                  "sample: the extra time over all samples (perf samples the idle CPU "
                  "too, sleepy parks it).  Bytes per "
                  "sample: the recording's size (sleepy's file, perf.data with its "
                  "side-band records) over its samples.\n")
        md.append(fmt_table("callgraph",
            ["workload", "configuration", "elapsed s", "overhead %", "samples",
             "on workload CPU", "cost/sample µs",
             "bytes/sample", "dropped"],
            [[r["workload"], r["config"], f"{r['elapsed_s']:.4f}",
              spread(r["overhead_pct_runs"], "+.2f"), f"{r['samples']:.0f}",
              f"{r['cpu_samples']:.0f}", cost_cell(r),
              f"{r['bytes_per_sample']:.1f}" if r["bytes_per_sample"] is not None else "-",
              r["dropped"]] for r in cg_table]))
        md += uncounted_note(cg_table)
        write_result(args.results, "callgraph.json", stamp,
                     dict(guest=guest, table=cg_table, runs=raw["callgraph"]))

    acc = accuracy(args.raw, args.binaries)
    if acc:
        md.append("\n### Accuracy: share of user-mode samples per function vs callgrind's "
                  f"self cost ({HIGH_HZ} Hz)\n")
        rows = []
        for a in acc:
            for r in a["functions"]:
                if max(r["callgrind_pct"], r["sleepy_pct"], r["perf_pct"]) >= 0.5:
                    rows.append([a["workload"], r["function"], f"{r['callgrind_pct']:.2f}",
                                 f"{r['sleepy_pct']:.2f}", f"{r['perf_pct']:.2f}"])
            rows.append([a["workload"], "**largest difference (pp)**", "",
                         f"{a['sleepy_max_diff_pp']:.2f}", f"{a['perf_max_diff_pp']:.2f}"])
        md.append(fmt_table("accuracy", ["workload", "function", "callgrind %", "sleepy %", "perf %"], rows))
        write_result(args.results, "accuracy.json", stamp, dict(workloads=acc))
    tcg = tcg_accuracy(args.raw_tcg, args.raw, args.binaries)
    if tcg:
        md.append("\n### Accuracy without -icount: %s under each tool at 10 kHz, per task, "
                  "plain TCG, %d repetitions (mean, [min-max])\n"
                  % (tcg["workload"], tcg["repetitions"]))
        md.append("Under plain TCG instructions do not all take the same time, so time "
                  "shares may differ from callgrind's instruction shares; the two tools "
                  "sample the same emulated time and should agree with each other.\n")
        md.append(fmt_table("accuracy-tcg",
            ["function", "callgrind %", "sleepy %", "sleepy range", "perf %", "perf range"],
            [[r["function"], f"{r['callgrind_pct']:.2f}", f"{r['sleepy_pct']:.2f}",
              f"{r['sleepy_min_pct']:.2f}-{r['sleepy_max_pct']:.2f}", f"{r['perf_pct']:.2f}",
              f"{r['perf_min_pct']:.2f}-{r['perf_max_pct']:.2f}"]
             for r in tcg["functions"]
             if max(r["callgrind_pct"], r["sleepy_pct"], r["perf_pct"]) >= 0.5]))
        md.append("\nLargest differences over the functions:\n")
        md.append(fmt_table("accuracy-tcg-max",
            ["sleepy vs perf pp", "sleepy vs callgrind pp", "perf vs callgrind pp"],
            [[f"{tcg['sleepy_vs_perf_max_pp']:.2f}", f"{tcg['sleepy_vs_callgrind_max_pp']:.2f}",
              f"{tcg['perf_vs_callgrind_max_pp']:.2f}"]]))
        write_result(args.results, "accuracy-tcg.json", stamp, tcg)

    drain = None
    if raw["drain"] or raw["stalled"]:
        drain = dict(guest=guest, sessions=raw["drain"], stalled_drainer=raw["stalled"],
                     kernel_memory=raw["memory"])
        # Nothing lost: no record dropped and every period of the grid taken
        # (a missed period is a sample the CPU could not take, counted).
        clean = [d["frequency"] for d in raw["drain"]
                 if d["dropped"] == 0 and not d["missed"]]
        drain["highest_lossless_frequency"] = max(clean) if clean else None
        md.append("\n### Drain capacity: both vCPUs busy, default buffer\n")
        md.append("Grid points: frequency x seconds x 2 CPUs; a missed period is one the "
                  "CPU could not take (the sample before it ran late or long), counted.\n")
        md.append(fmt_table("drain", ["frequency Hz", "seconds", "samples", "dropped", "periods missed",
                             "samples % of grid points"],
                            [[d["frequency"], d["seconds"], d["samples"], d["dropped"],
                              "-" if d["missed"] is None else d["missed"],
                              f"{100.0 * d['samples'] / (d['frequency'] * d['seconds'] * 2):.1f}"]
                             for d in raw["drain"]]))
        best = drain["highest_lossless_frequency"]
        md.append("\nHighest frequency with nothing dropped and no period missed: " +
                  (f"{best} Hz." if best else "none (every session missed periods)."))
        if raw["stalled"]:
            md.append("\n### Drainer stopped (SIGSTOP) for 5 s at 10 kHz, both vCPUs busy\n")
            md.append(fmt_table("drain-stopped", ["buffer per CPU", "samples kept", "dropped", "dropped %"],
                                [[s["buffer_size"], s["samples"], s["dropped"],
                                  f"{100.0 * s['dropped'] / max(1, s['samples'] + s['dropped']):.1f}"]
                                 for s in raw["stalled"]]))
        if raw["memory"]:
            md.append("\nKernel memory (sleepy-stop, the last stalled run):\n")
            md.append(fmt_table("memory", ["buffer bytes per CPU", "table bytes per live appid"],
                                [[raw["memory"]["buffer_bytes_per_cpu"],
                                  raw["memory"]["table_bytes_per_appid"]]]))
        write_result(args.results, "drain.json", stamp, drain)

    capacity_path = os.path.join(args.raw, "capacity", "raw.tsv")
    if os.path.exists(capacity_path):
        runs = read_raw(capacity_path)["capacity"]
        rows = capacity_rows(runs)
        if rows:
            md.append(capacity_section(rows))
        # A capacity boot run alone (qemu/boot.sh) leaves its own stamp.
        own = os.path.join(args.raw, "capacity", "stamp.json")
        capacity_stamp = stamp
        if os.path.exists(own):
            with open(own) as f:
                capacity_stamp = json.load(f)
            md.append("\n" + stamp_line(capacity_stamp).replace("Stamp:", "Capacity's stamp (run alone):"))
        write_result(args.results, "capacity.json", capacity_stamp,
                     dict(guest="QEMU TCG, a host thread per vCPU, real time"
                          if ns_per_instruction else guest, runs=runs, table=rows))

    if table:
        md.append("\n### Targets (%s)\n" % ("both vCPUs busy" if raw["busy"] else
                                              "the main guest, vCPU 0 mostly idle"))
        md.append("<!-- list: targets -->")
        md.append(targets(busy_table if raw["busy"] else table,
                          drain if raw["drain"] else None))
    text = "\n".join(md) + "\n"
    with open(os.path.join(args.results, "summary.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
