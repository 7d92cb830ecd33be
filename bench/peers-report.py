#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-peers' tables: sleepy beside perf, bpftrace and BCC.

Reads the guest's raw lines (tests/image/run-peers.sh), writes markdown
tables (printed too) and the results as JSON, both stamped
(bench/stamp.py) and naming the kernel.  Every cell is "median
(min-max)" over the repetitions.

Sampling (table peers): what the tool added to the loop's time (guest
ns, against the run without a profiler of the same repetition), as a
share of that time and divided by the loop's samples the tool counted.
A cost whose smallest value is within the spread of the runs without a
profiler is marked "n.s.", and a
configuration that lost samples in any run gets no cost at all:
dividing by fewer samples would flatter it.  Nor does one whose output
held fewer than half the loop's samples sleepy took in the same
repetition: the loop executes the same instructions under every tool,
so a tool that wrote far fewer dropped samples it did not count
(bpftrace's printf one: its reader falls behind, and it exits soon
after its stop signal).

Scheduler and interrupt events (tables peers-sched, peers-irq): the time
a tool added to the storm over its baseline (sleepy's event options
over sleepy sampling alone; every other tool over no profiler), divided
by the events sleepy recorded in the same repetition: the BPF tools see
the same tracepoints but do not count them.

Per task (table peers-task): each tool's run around `true` less no
profiler's (its fixed cost), the slope of its extra time over its
samples between two loop lengths (its cost per sample), and the local
timer interrupts per second of the other CPU, where an unrelated, mostly
busy process ran.  An idle machine (table peers-idle): the local timer interrupts per
second while each tool samples it (sleepy parks an idle CPU's timer).  The JSON keeps every run's
figures and, as each configuration's own numbers, the tables' cells.

    bench/peers-report.py RAW JSON MD --stamp JSON --kernel K --config FILE
"""
import argparse
import json
import re
import statistics
import sys

from stamp import stamp_line

# What each sampling configuration is, in the table's order.
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
# The event parts' configurations: what each gives, and its baseline.
EVENT_TOOLS = {
    "sched": {
        "sleepy-sched": ("sleepy-start --sched: every switch and wakeup a record", "sleepy"),
        "perf-switch": ("perf record -a --switch-events -e sched:sched_waking", "none"),
        "perf-offcpu": ("perf record -a --off-cpu", "none"),
        "bpftrace-runqlat": ("bpftrace: runqlat.bt's run-queue latency histogram", "none"),
        "bpftrace-offcpu": ("bpftrace: off-CPU time histogram per command", "none"),
        "bcc-offcputime": ("BCC offcputime: off-CPU time per stack, in-kernel (131072 stacks of room)",
                           "none"),
        "bcc-runqlat": ("BCC runqlat: run-queue latency histogram, in-kernel", "none"),
        "bcc-offwaketime": ("BCC offwaketime: off-CPU time per stack and waker stack (131072 stacks of room)",
                            "none"),
        "libbpf-offcputime": ("BCC's libbpf-tools offcputime: off-CPU time per stack, in-kernel", "none"),
        "libbpf-runqlat": ("BCC's libbpf-tools runqlat: run-queue latency histogram, in-kernel", "none"),
        "libbpf-wakeuptime": ("BCC's libbpf-tools wakeuptime: blocked time per waker stack, in-kernel", "none"),
    },
    "irq": {
        "sleepy-irq": ("sleepy-start --irq: per-CPU histograms of every interrupt", "sleepy"),
        "bpftrace-irqs": ("bpftrace: histograms of every hard interrupt (local timer too) "
                          "and softirq", "none"),
        "bcc-hardirqs": ("BCC hardirqs -d: histogram per interrupt, in-kernel", "none"),
        "bcc-softirqs": ("BCC softirqs -d: histogram per softirq, in-kernel", "none"),
        "libbpf-hardirqs": ("BCC's libbpf-tools hardirqs -d: histogram per interrupt, in-kernel", "none"),
        "libbpf-softirqs": ("BCC's libbpf-tools softirqs -d: histogram per softirq, in-kernel", "none"),
    },
}
HEADER = {
    "peers": ["configuration", "loop's samples", "loop's time +%", "µs per sample",
              "bytes per sample",
              "ready (ms)", "stop (ms)", "start+stop around nothing (ms)"],
    "task": ["configuration", "start+stop around true (ms)", "loop's samples (long run)",
             "µs per sample (slope)", "local timer interrupts per second on the other CPU"],
    "idle": ["configuration", "local timer interrupts per second, idle machine"],
    "events": ["configuration", "baseline", "events", "µs per event", "bytes per event",
               "ready (ms)", "stop (ms)", "lost"],
}


def stats(values, scale=1.0):
    """Median, min, max and number of @values times @scale; None if empty."""
    values = sorted(v * scale for v in values)
    if not values:
        return None
    return statistics.median(values), values[0], values[-1], len(values)


def spread(figures, digits=2):
    """A cell: median (min-max), or the one value of a single run."""
    if figures is None:
        return "-"
    fmt = "{:.%df}" % digits
    if figures[3] == 1:
        return fmt.format(figures[0]) + " (1 run)"
    return "%s (%s-%s)" % tuple(fmt.format(v) for v in figures[:3])


def flat(entry, columns):
    """The row's figures as the config's own numbers."""
    for name, triple in columns.items():
        if triple is not None:
            for key, value in zip(("median", "min", "max"), triple):
                entry["%s_%s" % (name, key)] = value


def table(name, header, rows):
    return (["", "<!-- table: %s -->" % name, "| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows])


def cost_cell(failed, lost, what, figures, costs, base_ns, count, digits=2, short=None):
    """A cost's cell: none from a run that failed, lost @what or, @short
    (kept, expected), kept far fewer than expected (fewer would flatter
    it); "n.s." when the runs of its baseline vary as much."""
    if failed:
        return "failed in %d runs" % len(failed)
    if lost:
        return "lost %d %s: no figure" % (lost, what)
    if short:
        return "wrote %d of about %d %s: no figure" % (short[0], short[1], what)
    noise = (max(base_ns) - min(base_ns)) / count
    return spread(figures, digits) + (" n.s." if min(costs) <= noise else "")


def read_raw(path):
    runs, fixed, events, idle, task, beside = {}, {}, {}, {}, {}, {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == "run" and len(fields) == 9:
                e, samples, lost, nbytes, ready, stop = map(int, fields[3:])
                runs.setdefault(fields[1], {})[int(fields[2])] = dict(
                    elapsed_ns=e, samples=samples, lost=lost, bytes=nbytes,
                    ready_ns=ready, stop_ns=stop)
            elif fields and fields[0] == "fixed" and len(fields) == 4:
                fixed.setdefault(fields[1], []).append(int(fields[3]))
            elif fields and fields[0] == "task" and len(fields) == 7:
                length, e, samples, cpu0 = map(int, fields[3:])
                task.setdefault(fields[1], {}).setdefault(int(fields[2]), {})[length] = dict(
                    elapsed_ns=e, samples=samples, cpu0_interrupts=cpu0)
            elif fields and fields[0] == "beside" and len(fields) == 5:
                beside.setdefault(fields[1], []).append(int(fields[4]) / (int(fields[3]) / 1e9))
            elif fields and fields[0] == "idle" and len(fields) == 5:
                idle.setdefault(fields[1], []).append(int(fields[4]) / (int(fields[3]) / 1e9))
            elif fields and fields[0] == "event" and len(fields) == 10:
                e, count, lost, nbytes, ready, stop = map(int, fields[4:])
                events.setdefault(fields[1], {}).setdefault(fields[2], {})[int(fields[3])] = dict(
                    elapsed_ns=e, events=count, lost=lost, bytes=nbytes,
                    ready_ns=ready, stop_ns=stop)
    return runs, fixed, events, idle, task, beside


def task_part(task, beside):
    """Per task: each tool's fixed cost (its run around `true`), its cost
    per sample (the slope between two loop lengths, over no profiler's),
    both with the other CPU idle, and the local timer interrupts per
    second the other CPU took while busy with an unrelated process."""
    none = task.get("none", {})
    configs, rows = {}, []
    for config, reps in task.items():
        if config == "none":
            continue
        fixed, slope, cpu0 = [], [], beside.get(config, [])
        for rep, runs in sorted(reps.items()):
            base = none.get(rep)
            lengths = sorted(length for length in runs if length)
            if not base or 0 not in runs or len(lengths) < 2:
                continue
            short, long_ = lengths[0], lengths[-1]
            fixed.append(runs[0]["elapsed_ns"] - base[0]["elapsed_ns"])
            extra = [runs[n]["elapsed_ns"] - base[n]["elapsed_ns"] for n in (short, long_)]
            more = runs[long_]["samples"] - runs[short]["samples"]
            if more > 0:
                slope.append((extra[1] - extra[0]) / more)
        columns = {"fixed_ms": stats(fixed, 1e-6), "cost_us": stats(slope, 1e-3),
                   "cpu0_per_s": stats(cpu0),
                   "samples": stats([r[max(r)]["samples"] for r in reps.values()])}
        entry = {"fixed_ns": fixed, "cost_ns_per_sample": slope,
                 "cpu0_interrupts_per_s": cpu0, "runs": reps}
        flat(entry, columns)
        configs[config] = entry
        rows.append([config, spread(columns["fixed_ms"], 1), spread(columns["samples"], 0),
                     spread(columns["cost_us"]), spread(columns["cpu0_per_s"], 0)])
    rows.insert(0, ["none", "-", "-", "-", spread(stats(beside.get("none", [])), 0)])
    return {"configs": configs}, rows


def sample_part(runs, fixed):
    """The sampling table's rows and JSON."""
    none = runs["none"]
    none_fixed = statistics.median(fixed.get("none", [0]))
    base = [r["elapsed_ns"] for r in none.values()]
    sleepy = runs.get("sleepy", {})
    configs, rows = {}, []
    for config in TOOLS:
        if config not in runs:
            continue
        reps = runs[config]
        costs, per_byte, failed, longer = [], [], [], []
        for rep, r in sorted(reps.items()):
            if rep not in none or not r["elapsed_ns"] or not r["samples"]:
                failed.append(rep)
                continue
            extra = r["elapsed_ns"] - none[rep]["elapsed_ns"]
            costs.append(extra / r["samples"])
            longer.append(100.0 * extra / none[rep]["elapsed_ns"])
            per_byte.append(r["bytes"] / r["samples"])
        lost = sum(r["lost"] for r in reps.values())
        short = [(r["samples"], sleepy[rep]["samples"]) for rep, r in sorted(reps.items())
                 if rep in sleepy and r["samples"] < sleepy[rep]["samples"] / 2]
        fixed_ns = [max(0, v - none_fixed - (1e9 if config == "bcc-profile" else 0))
                    for v in fixed.get(config, [])]
        entry = {
            "tool": TOOLS[config],
            "samples": [r["samples"] for _, r in sorted(reps.items())],
            "lost": lost,
            "failed_reps": failed,
            "cost_ns_per_sample": costs,
            "longer_pct": longer,
            "bytes_per_sample": per_byte,
            "ready_ns": [r["ready_ns"] for _, r in sorted(reps.items())],
            "stop_ns": [r["stop_ns"] for _, r in sorted(reps.items())],
            "fixed_ns": fixed_ns,
        }
        columns = {
            "samples": stats(entry["samples"]),
            "longer_pct": stats(longer),
            "cost_us": None if failed or lost or short else stats(costs, 1e-3),
            "bytes_per_sample": stats(per_byte),
            "ready_ms": stats(entry["ready_ns"], 1e-6),
            "stop_ms": stats(entry["stop_ns"], 1e-6),
            "fixed_ms": stats(fixed_ns, 1e-6),
        }
        flat(entry, columns)
        configs[config] = entry
        cost = cost_cell(failed, lost, "samples", columns["cost_us"], costs, base,
                         statistics.median(entry["samples"]),
                         short=min(short) if short else None)
        rows.append([config, spread(columns["samples"], 0), spread(columns["longer_pct"], 1), cost,
                     spread(columns["bytes_per_sample"], 1), spread(columns["ready_ms"], 1),
                     spread(columns["stop_ms"], 1), spread(columns["fixed_ms"], 1)])
    return {"none_elapsed_ns": base, "configs": configs}, rows


def event_part(part, runs):
    """One event table's rows and JSON: each tool over its baseline, per
    event sleepy recorded in the same repetition."""
    sleepy_events = {rep: r["events"] for rep, r in runs.get("sleepy-" + part, {}).items()}
    configs, rows = {}, []
    for config, (what, baseline) in EVENT_TOOLS[part].items():
        if config not in runs or baseline not in runs or not sleepy_events:
            continue
        base = runs[baseline]
        costs, per_byte, failed = [], [], []
        for rep, r in sorted(runs[config].items()):
            count = sleepy_events.get(rep)
            if rep not in base or not r["elapsed_ns"] or not count:
                failed.append(rep)
                continue
            costs.append((r["elapsed_ns"] - base[rep]["elapsed_ns"]) / count)
            per_byte.append(r["bytes"] / count)
        reps = [r for _, r in sorted(runs[config].items())]
        lost = sum(r["lost"] for r in reps)
        entry = {"tool": what, "baseline": baseline, "lost": lost, "failed_reps": failed,
                 "events": [r["events"] for r in reps], "cost_ns_per_event": costs,
                 "bytes_per_event": per_byte,
                 "ready_ns": [r["ready_ns"] for r in reps],
                 "stop_ns": [r["stop_ns"] for r in reps]}
        columns = {
            "events": stats(list(sleepy_events.values())),
            "cost_us": None if failed or lost else stats(costs, 1e-3),
            "bytes_per_event": stats(per_byte),
            "ready_ms": stats(entry["ready_ns"], 1e-6),
            "stop_ms": stats(entry["stop_ns"], 1e-6),
        }
        flat(entry, columns)
        configs[config] = entry
        cost = cost_cell(failed, lost, "records", columns["cost_us"], costs,
                         [r["elapsed_ns"] for r in base.values()],
                         statistics.median(sleepy_events.values()), 3)
        rows.append([config, baseline, spread(columns["events"], 0), cost,
                     spread(columns["bytes_per_event"], 1), spread(columns["ready_ms"], 1),
                     spread(columns["stop_ms"], 1), str(lost)])
    elapsed = {config: [r["elapsed_ns"] for _, r in sorted(reps.items())]
               for config, reps in runs.items()}
    return {"elapsed_ns": elapsed, "configs": configs}, rows


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
    runs, fixed, events, idle, task, beside = read_raw(args.raw)
    if ("none" not in runs or len(runs) < 2) and not events and not idle and not task:
        sys.exit("peers-report: no runs without and with a profiler in %s" % args.raw)
    with open(args.config, "rb") as f:
        hz = re.search(rb"^CONFIG_HZ=(\d+)$", f.read(), re.M)
    results = {"stamp": stamp, "kernel": args.kernel,
               "kernel_hz": int(hz.group(1)) if hz else None}
    page = [stamp_line(stamp), "",
            "Kernel %s (CONFIG_HZ=%s); every cell median (min-max) over the repetitions."
            % (args.kernel, results["kernel_hz"])]
    if "none" in runs and len(runs) >= 2:
        results["sample"], rows = sample_part(runs, fixed)
        page += table("peers", HEADER["peers"], rows)
    for part in ("sched", "irq"):
        if part in events:
            results[part], rows = event_part(part, events[part])
            page += table("peers-" + part, HEADER["events"], rows)
    if task:
        results["task"], rows = task_part(task, beside)
        page += table("peers-task", HEADER["task"], rows)
    if idle:
        results["idle_interrupts_per_s"] = idle
        page += table("peers-idle", HEADER["idle"],
                      [[config, spread(stats(rates), 0)] for config, rates in idle.items()])
    with open(args.json, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    with open(args.md, "w") as f:
        f.write("\n".join(page) + "\n")
    print("\n".join(page))


if __name__ == "__main__":
    main()
