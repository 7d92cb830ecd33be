#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Parse speed on the host: sleepy-parse and perf report on the same
# samples, about 1 M and 10 M of them, and on each tool's own recording of
# one workload in the guest.  Prints one table and writes
# bench/results/parse-speed.json.
#
#   bash bench/parse-speed.sh        # RUNS=5 SIZES="1000000 10000000" STEADY_SIZES="1000000 10000000"
#   GUEST_RECORDINGS=out/bench-parse/parse bash bench/parse-speed.sh
#
# Inputs are made once and kept in build/bench/parse-speed/ (delete it to
# remake them; the first run takes a few minutes more):
#  * perf.data: perf record -e cpu-clock at a 20 us period of a real
#    workload (compiles, text tools, compression, scripts: thousands of
#    short processes, two at a time), stopped by --max-size near the
#    size; and, for STEADY_SIZES, of a steady one (two xz -9 that run
#    for minutes, as a long-running service would): a recording whose
#    (process, IP) pairs are few, where the other has millions;
#  * the sleepy recording of the same samples: perf script's samples,
#    forks, execs, exits and file mappings (with perf's build-ids)
#    converted by perf2sleepy (a guest session cannot produce 10 M
#    samples in reasonable time), so both tools resolve the same IPs in
#    the same files on this host;
#  * the guest's recordings (make bench's recording boot, copied from
#    $GUEST_RECORDINGS): sleepy-start -k -F 10000 and then perf record -a
#    -F 10000, 50 s each of the same workload of PIE programs with shared
#    libraries (xz, gzip, sort, md5sum) and btree on both vCPUs, about
#    1 M samples each; both tools read the files from the host (the guest
#    has copies of them: --symfs), perf the guest's kallsyms.  Not the
#    same samples: the ratios there are of samples per CPU second.
#
# What is compared:
#  * sleepy-parse --sort pid,ip: by process and raw IP, aggregation
#    alone (no symbols), what naming the functions is measured against;
#  * sleepy-parse --sort app,sym and its default report (by application,
#    by application and IP, by application and function): the common
#    reports, whose samples per second leave out the reading of symbol
#    files (--times tells it apart);
#  * sleepy-parse --sort pid,sym and perf report --stdio --sort pid,sym:
#    the same work, every sample resolved to its function (ELF symbols,
#    kernel symbols), summed per process and function, all rows printed;
#  * sleepy-parse --sort comm,dso,sym and perf report --stdio (its default,
#    comm,dso,sym): the same work too, per command name, file and function.
# Each command runs RUNS times with its output to /dev/null, the tools in
# turn; the table has the least, median and largest CPU (user + sys) time,
# the median wall time, the largest peak RSS and, for sleepy-parse, the
# median CPU time of reading symbol files (--times).  The host is shared
# with other jobs: compare the CPU-time figures.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=$top/build/bench/parse-speed
results=$top/bench/results
# make bench passes the stamp it took when it began.
stamp=${BENCH_STAMP:-$(python3 "$top/bench/stamp.py" "$top/build/kernel-bench/.config")}
runs=${RUNS:-5}
sizes=${SIZES:-"1000000 10000000"}
# Sets of samples: SIZE (the workload of many processes) or steady-SIZE.
sets="$sizes"
for size in ${STEADY_SIZES-1000000 10000000}; do
	sets="$sets steady-$size"
done
parse=$top/build/userland/sleepy-parse
convert=$top/build/userland/bench/perf2sleepy
# cpu-clock at 50 kHz per running thread: from 100 kHz on, the sampling
# interrupts take most of the time in this VM and the workload barely moves.
perf_period_ns=20000
perf_sample_bytes=32	# header, ip, pid/tid, time

# perf record runs this script again as its workload (--workload2: two
# --workload loops), until --max-size stops the recording and perf
# terminates it.
if [ "${1-}" = --workload ]; then
	work=$2
	mkdir -p "$work"
	seq 1 20000 | sed 's/$/ lorem ipsum dolor sit amet/' > "$work/text"
	sources=("$top"/userland/*.c "$top"/userland/lib/*/*.c)
	# Many short processes of many programs, as on a busy machine.
	for ((i = 0; ; i++)); do
		src=${sources[i % ${#sources[@]}]}
		# pprof.c needs the header protoc-c generated into the build.
		gcc -O$((i % 2)) -std=gnu11 -isystem "$top/build/headers/include" \
			-I "$top/userland/lib" -I "$top/build/userland/lib" -c -o "$work/x.o" "$src"
		sort -k2 -r "$work/text" | md5sum > /dev/null
		grep -rc static "$top/userland" > /dev/null
		awk '{ s += $1 } END { print s }' "$work/text" > /dev/null
		sed 's/o/0/g' "$work/text" | wc -l > /dev/null
		gzip -c "$work/text" | gzip -dc | cmp -s - "$work/text"
		xz -1 -c "$work/text" | xz -dc > /dev/null
		/usr/bin/python3 -c 'print(sum(i * i for i in range(20000)))' > /dev/null
		perl -e 'my %h; $h{$_ % 1000} += $_ for 1 .. 20000' > /dev/null
		tar -cf - -C "$top" userland/lib | md5sum > /dev/null
	done
fi
# The steady workload: one long process after the other.
if [ "${1-}" = --steady ]; then
	mkdir -p "$2"
	seq 1 3000000 | sed 's/$/ lorem ipsum dolor sit amet/' > "$2/text"
	# Ended by --steady2, with the xz running (it would run on for a minute).
	trap 'kill $xz; exit' TERM
	while :; do
		xz -9 -T1 -c "$2/text" > /dev/null & xz=$!
		wait $xz
	done
fi
if [ "${1-}" = --workload2 ] || [ "${1-}" = --steady2 ]; then
	one=${1%2}
	bash "$0" "$one" "$2/a" & a=$!
	bash "$0" "$one" "$2/b" & b=$!
	# perf ends only this shell: take the loops along.
	trap 'kill $a $b' TERM
	wait
	exit
fi

die() {
	echo "parse-speed: $*" >&2
	exit 1
}

if ! command -v perf > /dev/null; then
	bash "$top/scripts/deps.sh" || die "needs perf (linux-perf)"
fi
if [ ! -e "$top/build/headers/include/linux/sleepy.h" ]; then
	make -s -C "$top" headers
fi
make -s -C "$top/userland" O="$top/build/userland" HDR="$top/build/headers/include"
mkdir -p "$cache" "$results"

# Kernel samples too when this user may take them, as sleepy's have.
perf_event="cpu-clock:u"
if [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ]; then
	perf_event="cpu-clock"
fi

# Total of the perf.data $1's events of the types $2 (a regex).
perf_events() {
	perf report --stats -i "$1" 2> /dev/null |
		awk -v types="^($2)\$" '/^Aggregated stats:/ { on = 1 }
			/ stats:$/ && !/^Aggregated/ { on = 0 }
			on && $1 ~ types && $2 == "events:" { n += $3 }
			END { print n + 0 }'
}

# Records the set $1 (SIZE or steady-SIZE: about SIZE samples) into
# $cache/perf-$1.data, its exact sample count into perf-$1.samples and its
# processes into perf-$1.processes, retrying with a corrected size limit
# when the count is over 1% off.
record_perf() {
	local want=${1#steady-} data=$cache/perf-$1.data tmp=$cache/perf-$1.tmp
	local limit_kb=$((${1#steady-} * perf_sample_bytes / 1024 + 256)) got
	local workload=--workload2

	[ "$1" = "$want" ] || workload=--steady2
	for _ in 1 2 3; do
		echo "parse-speed: recording $want samples of the $workload workload with perf ($perf_event, up to $limit_kb KiB)" >&2
		# perf ends the workload and then itself with SIGTERM: the
		# subshell keeps the shell's "Terminated" out of the output.
		# --max-size is checked after each read of the ring buffers:
		# small ones (-m, 128 KiB per CPU) stop it close to the size.
		(perf record -q -e "$perf_event" -c $perf_period_ns -N -m 32 \
			--max-size=${limit_kb}K -o "$tmp" \
			-- bash "$0" $workload "$cache/work" || true) > /dev/null 2>&1
		got=$(perf_events "$tmp" SAMPLE)
		((got)) || die "perf record wrote no samples to $tmp"
		if ((got * 100 >= want * 99 && got * 100 <= want * 101)); then
			mv "$tmp" "$data"
			echo "$got" > "$cache/perf-$1.samples"
			# Each fork and each exec is a new sleepy application.
			perf_events "$data" 'FORK|COMM' > "$cache/perf-$1.processes"
			return
		fi
		echo "parse-speed: got $got samples, trying again" >&2
		limit_kb=$((limit_kb * want / got))
	done
	die "perf record gave $got samples, not about $want"
}

median() {
	sort -g | sed -n "$(((runs + 1) / 2))p"
}

# Runs "$@" once, its output to /dev/null; appends "wall-s cpu-s rss-KiB
# symbols-s" to the file $1 (symbols-s from sleepy-parse --times, else -).
# Its rusage to the microsecond: /usr/bin/time prints hundredths, a tenth
# of a run of 0.1 s.
run_timed() {
	local times=$1 out=$cache/time.out err=$cache/time.err wall cpu rss
	local symbols

	shift
	/usr/bin/python3 -c '
import os, subprocess, sys, time
start = time.monotonic()
child = subprocess.Popen(sys.argv[3:], stdout=subprocess.DEVNULL,
                         stderr=open(sys.argv[2], "w"))
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as out:
    out.write("%.6f %.6f %d\n" % (time.monotonic() - start,
                                  usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) != 0)
' "$out" "$err" "$@" || die "failed: $*"
	read -r wall cpu rss < "$out"
	symbols=-
	case $1 in
	*sleepy-parse)
		symbols=$(sed -n 's/^sleepy-parse: CPU time .*, reading [0-9]* symbol files \([0-9.]*\) s, the rest .*/\1/p' "$err")
		[ -n "$symbols" ] || die "no --times line from: $*"
		;;
	esac
	echo "$wall $cpu $rss $symbols" >> "$times"
}

# label|command (the first %s its options, the second its input)|what
# it computes|label of the row doing the same work, for the ratios
tools=(
	"sleepy-parse -s pid,ip|$parse --times --sort pid,ip %s%s|by process + raw IP: aggregation alone, no symbols|sleepy-parse -s pid,ip"
	"sleepy-parse -s app,sym|$parse --times --sort app,sym %s%s|by app instance + function: a common report|sleepy-parse -s app,sym"
	"sleepy-parse (default)|$parse --times %s%s|by app instance, by app instance + IP, by app instance + function: the default report|sleepy-parse (default)"
	"sleepy-parse -s pid,sym|$parse --times --sort pid,sym %s%s|by process + function|sleepy-parse -s pid,sym"
	"perf report -s pid,sym|perf report --stdio --sort pid,sym %s-i %s|by process + function|sleepy-parse -s pid,sym"
	"sleepy-parse -s comm,dso,sym|$parse --times --sort comm,dso,sym %s%s|by command name + file + function|sleepy-parse -s comm,dso,sym"
	"perf report|perf report --stdio %s-i %s|default sort comm,dso,sym: by command name + file + function|sleepy-parse -s comm,dso,sym"
)

# measure SET SLEEPY-INPUT SLEEPY-SAMPLES SLEEPY-OPTIONS PERF-INPUT
# PERF-SAMPLES PERF-OPTIONS: every tool on its input, RUNS times, into
# rows (options end with a space).
measure() {
	local set=$1 t i wall cpu rss lines label command what same samples
	local cpu_min cpu_max symbols
	local -a commands=() inputs=() counts=()

	for t in "${!tools[@]}"; do
		IFS='|' read -r label command what same <<< "${tools[t]}"
		case $label in
		sleepy*) inputs[t]=$2 counts[t]=$3 opts=$4 ;;
		*) inputs[t]=$5 counts[t]=$6 opts=$7 ;;
		esac
		# shellcheck disable=SC2059 # the command is the format
		commands[t]=$(printf "$command" "$opts" "${inputs[t]}")
		cat "${inputs[t]}" > /dev/null	# into the page cache
		rm -f "$cache/times.$t"
	done
	# Round by round, so that every tool sees the same load.
	for ((i = 0; i < runs; i++)); do
		for t in "${!tools[@]}"; do
			# shellcheck disable=SC2086 # words; no paths with spaces
			run_timed "$cache/times.$t" ${commands[t]}
		done
	done
	for t in "${!tools[@]}"; do
		IFS='|' read -r label command what same <<< "${tools[t]}"
		wall=$(cut -d' ' -f1 "$cache/times.$t" | median)
		cpu=$(cut -d' ' -f2 "$cache/times.$t" | median)
		cpu_min=$(cut -d' ' -f2 "$cache/times.$t" | sort -g | head -n 1)
		cpu_max=$(cut -d' ' -f2 "$cache/times.$t" | sort -g | tail -n 1)
		rss=$(cut -d' ' -f3 "$cache/times.$t" | sort -n | tail -n 1)
		symbols=$(cut -d' ' -f4 "$cache/times.$t" | median)
		# shellcheck disable=SC2086
		lines=$(${commands[t]} 2> /dev/null | wc -l)
		rows+=("$set|${counts[t]}|$label|$wall|$cpu|$rss|$lines|$(stat -c %s "${inputs[t]}")|${commands[t]}|$what|$same|$cpu_min|$cpu_max|$symbols")
	done
}

# Sample records in the sleepy recording $1 (its idle ticks are counted,
# not recorded).
sleepy_samples() {
	"$parse" --format json --top 1 "$1" 2> /dev/null |
		sed -n 's/^ *"samples": \([0-9]*\),.*/\1/p' | head -n1
}

rows=()
load=$(cut -d' ' -f1-3 /proc/loadavg)
for size in $sets; do
	if [ ! -s "$cache/perf-$size.processes" ] || [ ! -s "$cache/perf-$size.data" ]; then
		record_perf "$size"
	fi
	samples=$(cat "$cache/perf-$size.samples")
	recording=$cache/sleepy-$size.data
	if [ ! -s "$recording" ] || [ "$convert" -nt "$recording" ] ||
	   [ "$cache/perf-$size.data" -nt "$recording" ]; then
		echo "parse-speed: converting perf-$size.data into a sleepy recording" >&2
		perf buildid-list -i "$cache/perf-$size.data" > "$cache/perf-$size.build-ids" 2> /dev/null
		perf script -i "$cache/perf-$size.data" --show-task-events \
			--show-mmap-events -F comm,pid,tid,time,ip 2> /dev/null |
			"$convert" -F $((1000000000 / perf_period_ns)) \
				-b "$cache/perf-$size.build-ids" "$recording" ||
			die "perf2sleepy failed on perf-$size.data"
	fi
	# perf samples pid 0 too; sleepy counts those as idle ticks.
	converted=$("$parse" --format json --top 1 "$recording" 2> /dev/null |
		    sed -n 's/^ *"samples": \([0-9]*\),.*"idle": \([0-9]*\),.*/\1 + \2/p' |
		    head -n1)
	[ -n "$converted" ] && [ $((converted)) = "$samples" ] ||
		die "the sleepy recording has ${converted:-no} samples, perf.data $samples"
	measure "$size" "$recording" "$samples" "" "$cache/perf-$size.data" "$samples" ""
done

# The guest's recordings, kept once copied.  Its files are the host's
# (mkinitramfs copied them): a root of links to them is their --symfs.
guest=$cache/guest
if [ -n "${GUEST_RECORDINGS:-}" ]; then
	for f in sleepy.data perf.data kallsyms; do
		[ -s "$GUEST_RECORDINGS/$f" ] || die "no $GUEST_RECORDINGS/$f (make bench's recording boot)"
	done
	rm -rf "$guest"
	mkdir -p "$guest/root/sleepy"
	cp "$GUEST_RECORDINGS"/{sleepy.data,perf.data,kallsyms} "$guest/"
	for d in bin lib lib64 usr; do ln -s "/$d" "$guest/root/$d"; done
	ln -s "$top/build/userland/bench" "$guest/root/sleepy/bench"
fi
if [ -s "$guest/perf.data" ]; then
	measure guest "$guest/sleepy.data" "$(sleepy_samples "$guest/sleepy.data")" \
		"--symfs $guest/root " \
		"$guest/perf.data" "$(perf_events "$guest/perf.data" SAMPLE)" \
		"--symfs $guest/root --kallsyms $guest/kallsyms "
fi

# One table and the JSON, with sleepy-parse's speed over each perf report's.
printf '%s\n' "${rows[@]}" | /usr/bin/python3 -c '
import json, sys

runs, event, period, load, path, top, stamp, perf_version = sys.argv[1:9]
rows = []
for line in sys.stdin:
    (size, samples, tool, wall, cpu, rss, lines, nbytes, command, what, same,
     cpu_min, cpu_max, symbols) = line.rstrip("\n").split("|")
    samples, wall, cpu = int(samples), float(wall), float(cpu)
    guest = size == "guest"
    row = {"set": size, "size": size if guest else int(size.split("-")[-1]),
           "workload": "guest" if guest else
                       "steady" if size.startswith("steady-") else "processes",
           "samples": samples, "tool": tool,
                 "input": "each tool recorded the workload itself, in the guest"
                          if guest else "the same samples (perf.data, converted)",
                 "command": command.replace(top + "/", ""), "computes": what,
                 "same_work_as": same,
                 "input_bytes": int(nbytes), "output_lines": int(lines),
                 "wall_s": wall, "cpu_s": cpu, "peak_rss_kib": int(rss),
                 "samples_per_s_wall": round(samples / max(wall, 1e-6)),
                 "samples_per_s_cpu": round(samples / max(cpu, 1e-6)),
                 "cpu_s_min": float(cpu_min), "cpu_s_max": float(cpu_max)}
    if symbols != "-":
        # Names included, the reading of symbol files told apart:
        # the samples per second the common reports aim at.
        row["symbol_files_cpu_s"] = float(symbols)
        row["samples_per_s_cpu_without_symbol_files"] = round(
            samples / max(cpu - float(symbols), 1e-6))
    rows.append(row)


def row_of(set_, tool):
    return next(r for r in rows if r["set"] == set_ and r["tool"] == tool)


# Ratios of samples per second: the two guest recordings differ in size.
for row in rows:
    if row["tool"].startswith("perf"):
        # sleepy-parse doing the same work, over this perf report
        ref = row_of(row["set"], row["same_work_as"])
        row["sleepy_speedup_cpu"] = round(ref["samples_per_s_cpu"] /
                                          max(row["samples_per_s_cpu"], 1), 2)
        row["sleepy_speedup_wall"] = round(ref["samples_per_s_wall"] /
                                           max(row["samples_per_s_wall"], 1), 2)
        row["sleepy_memory_fraction"] = round(ref["peak_rss_kib"] / row["peak_rss_kib"], 3)
    elif row["tool"] in ("sleepy-parse -s pid,sym", "sleepy-parse -s comm,dso,sym"):
        # what naming every sample costs over aggregating them
        ref = row_of(row["set"], "sleepy-parse -s pid,ip")
        row["cpu_over_aggregation"] = round(row["cpu_s"] / max(ref["cpu_s"], 1e-6), 2)

head = "%-15s %-28s %9s %7s %20s %7s %11s %8s %8s %s"
print(head % ("", "", "", "wall", "cpu s", "symbol", "samples/s", "peak RSS", "output", ""))
print(head % ("set", "tool", "samples", "s", "min/median/max", "files s", "(cpu)", "MiB",
              "lines", "ratio"))
for r in rows:
    if r["size"] == "guest" and r["tool"] == "sleepy-parse -s pid,ip":
        print("-- each tool recorded one workload itself, in the guest:")
    if "sleepy_speedup_cpu" in r:
        ratio = "sleepy-parse %.1fx faster (cpu), %.2f of the memory" % (
            r["sleepy_speedup_cpu"], r["sleepy_memory_fraction"])
    elif "cpu_over_aggregation" in r:
        ratio = "%.1fx the cpu time of aggregating alone" % r["cpu_over_aggregation"]
    else:
        ratio = ""
    print(head % (r["set"], r["tool"], r["samples"], "%.2f" % r["wall_s"],
                  "%.3f/%.3f/%.3f" % (r["cpu_s_min"], r["cpu_s"], r["cpu_s_max"]),
                  "%.3f" % r["symbol_files_cpu_s"] if "symbol_files_cpu_s" in r else "-",
                  r["samples_per_s_cpu"], "%.1f" % (r["peak_rss_kib"] / 1024),
                  r["output_lines"], ratio))
json.dump({"stamp": json.loads(stamp), "benchmark": "parse-speed", "runs": int(runs),
           "statistic": "median wall and cpu (user+sys) time, least and largest "
                        "cpu time, largest peak RSS, median cpu time of reading "
                        "symbol files (sleepy-parse --times)",
           "perf_record": {"event": event, "period_ns": int(period)},
           "perf_version": perf_version,
           "workloads": {"processes": "compiles, text tools, compression, "
                                      "scripts: thousands of short processes, "
                                      "two loops at a time",
                         "steady": "two loops of xz -9 -T1 of 100 MB of text, "
                                   "each run a minute or more"},
           "sleepy_recording": "perf2sleepy: the same samples, forks, execs, "
                               "exits and file mappings (with build-ids) as "
                               "the perf.data",
           "guest_recordings": "size guest: sleepy-start -k -F 10000 and perf "
                               "record -a -e cpu-clock -c 100000, 120 s each of one "
                               "workload (xz, gzip, sort, md5sum, btree; two "
                               "loops) in the bench guest, read on the host "
                               "with --symfs (perf: --kallsyms of the guest)",
           "load_before": load, "results": rows},
          open(path, "w"), indent=2)
' "$runs" "$perf_event" "$perf_period_ns" "$load" "$results/parse-speed.json" \
	"$top" "$stamp" "$(perf --version)"
python3 "$top/bench/report.py" --parse-speed "$results"
echo "parse-speed: wrote $results/parse-speed.json and parse-speed.md"
