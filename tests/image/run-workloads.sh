#!/bin/sh
# make run IMAGE=debian, in the image (sleepy.mode=workloads): Debian's own
# programs profiled, with no program of ours: a python3 script, xz -9 of a
# file, a sqlite3 workload, and make -j2 of a small C project (that one
# with --sched too: the wall-clock account and who waits for whom).  For
# each, in out/workloads/NAME/: the recording, the report by application
# and function (report.txt) and a flame graph (flamegraph.svg).
w=/mnt/tests/image/workloads
out=/mnt/out/workloads
rm -rf "$out"
mkdir -p "$out"
cd /tmp
cat /usr/bin/* /usr/lib/x86_64-linux-gnu/*.so* 2> /dev/null | head -c 16000000 > /tmp/input
sh $w/project.sh /tmp/project > /dev/null

# profile NAME OPTIONS -- COMMAND...: record, report, flame graph, timing.
profile() {
	name=$1; shift
	mkdir -p "$out/$name"
	t0=$(date +%s.%N)
	sleepy-record -F 499 -g -k -o "$out/$name/sleepy.data" "$@" \
		> "$out/$name/record.txt" 2>&1
	status=$?
	t1=$(date +%s.%N)
	sleepy-parse --top 25 "$out/$name/sleepy.data" > "$out/$name/report.txt" 2>&1
	sleepy-parse --flamegraph cpu "$out/$name/sleepy.data" > "$out/$name/flamegraph.svg" 2> /dev/null
	echo "== $name: exit $status, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s under sleepy-record"
	tail -n 1 "$out/$name/record.txt"
	sed -n '/By application and function/,/^$/p' "$out/$name/report.txt" | head -n 14
}

profile python3 -- python3 $w/work.py
profile xz -- xz -9 -k -f -T1 /tmp/input
profile sqlite3 -- sh -c "rm -f /tmp/work.db; sqlite3 /tmp/work.db < $w/work.sql"
profile make --sched -- make -s -j2 -C /tmp/project
sleepy-parse --chain make#1 "$out/make/sleepy.data" 2>&1 |
	sed -n '/Wakeup chain/,$p' > "$out/make/chain.txt"
echo "== make -j2: wall-clock account (--sched)"
sed -n '/Wall-clock time by application/,/^$/p' "$out/make/report.txt" | head -n 12
echo "== make -j2: who make waited for (sleepy-parse --chain make#1)"
head -n 20 "$out/make/chain.txt"
echo "== outputs in out/workloads/: $(ls "$out" | tr '\n' ' ')"
