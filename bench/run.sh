#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: sleepy side by side with perf, measured in one guest boot.
#
# The guest runs under QEMU -icount shift=1,sleep=off: guest time advances
# 2 ns per guest instruction executed (on either vCPU; idle time is
# skipped), so one guest second is 5 * 10^8 instructions and a figure
# repeats from run to run whatever else the host does.  In that one boot
# (qemu/guest/run-bench.sh): every workload under every configuration in
# alternating order, BENCH_REPS times; the drain capacity; drops with a
# stopped drainer.  Meanwhile the host runs callgrind on the same
# workloads, then the parse-speed comparison; bench/report.py prints the
# tables and writes bench/results/*.json and the plot.  The repeated
# parts share their repetitions out over BENCH_BOOTS boots, so that a
# figure that moves with the boot (where memory landed, which CPU's timer
# came first) shows in the [min, max] of its cell.
#
#   make bench [BENCH_REPS=5] [BENCH_BOOTS=2] [BENCH_DRAIN_SECONDS=60] [BENCH_ACCEL=kvm]
#   bash bench/run.sh --report     # tables again from the last raw results
#
# BENCH_ACCEL=kvm runs the same guests under KVM (-cpu host) where the
# host has /dev/kvm: real time instead of counted instructions, so the
# figures are a real CPU's but vary with whatever else the host runs.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
shift_=1
reps=${BENCH_REPS:-5} boots=${BENCH_BOOTS:-2}
case ${BENCH_ACCEL:-tcg} in
tcg)
	accel= timing="-icount shift=$shift_,sleep=off" ;;
kvm)
	if [ "${1-}" != --report ] && [ ! -w /dev/kvm ]; then
		echo "bench: BENCH_ACCEL=kvm, but this host has no usable /dev/kvm" >&2
		exit 1
	fi
	accel=kvm timing="-cpu host" shift_=-1 ;;
*)
	echo "bench: BENCH_ACCEL is tcg or kvm, not '${BENCH_ACCEL}'" >&2
	exit 2 ;;
esac
drain_seconds=${BENCH_DRAIN_SECONDS:-60}
raw=$top/out/bench
cache=$top/build/bench

if [ "${1-}" != --report ]; then
	mkdir -p "$cache"
	rm -rf "$raw" "$top/out/bench-parse"
	mkdir -p "$raw"
	# What made these results, taken now: the tree may change meanwhile.
	python3 bench/stamp.py build/kernel-bench/.config > "$raw/stamp.json"
	# perf, and the PIE programs of the parse-speed recordings' workload.
	GUEST_HOST_PROGRAMS="/usr/bin/perf /usr/bin/xz /usr/bin/gzip /usr/bin/sort /usr/bin/md5sum" \
		bash qemu/mkinitramfs.sh build/initramfs-bench.cpio.gz
	# The 8-vCPU guest's QEMU (a thread per vCPU): fetched now, so that a
	# fetch that fails does so before the hours of boots.
	qemu_mttcg=
	[ -n "$accel" ] || qemu_mttcg=$(bash scripts/fetch-qemu.sh)

	# Callgrind's self cost per function of the same binaries and work.
	(
		. qemu/guest/bench-workloads.sh
		for w in loop call btree; do
			valgrind --tool=callgrind --callgrind-out-file="$cache/callgrind.$w" \
				build/userland/bench/$w $(workload_args $w) > /dev/null 2>&1
			callgrind_annotate --threshold=100 "$cache/callgrind.$w" > "$raw/callgrind-$w.txt"
		done
	) &
	callgrind=$!

	# bench_boot WHAT LOG TIMEOUT CMDLINE: one bench guest (QEMU_* from
	# the environment), its bench: lines shown, its wall time said; a
	# kernel report in its console (an RCU stall, a warning) fails the
	# run, as in make test; so does a console silent for 15 minutes
	# (qemu/stall-watch.py then says where the vCPUs were).
	bench_boot() {
		local start=$(date +%s) hits failed=

		# A failed boot (boot.sh's reason is in the log, not on the
		# bench: lines) is said after the stall and report checks, not
		# by errexit.
		QEMU_ACCEL=${QEMU_ACCEL:-$accel} QEMU_SILENCE=15 QEMU_SYSTEM_MAP=build/kernel-bench/System.map \
			bash qemu/boot.sh build/kernel-bench/arch/x86/boot/bzImage build/initramfs-bench.cpio.gz \
			bench "$top/out/$2" "$3" "kunit.enable=0 quiet $4" |
			grep --line-buffered -a '^bench:' || failed=1
		echo "bench: $1 finished in $(( $(date +%s) - start )) s (wall)"
		if grep -a '^stall-watch' "$top/out/$2" >&2; then
			echo "bench: $1 stopped: its console was silent for 15 minutes" >&2
			exit 1
		fi
		# Booted quiet: no kernel banner; a line of the guest's instead.
		why=$(bash tests/console-reports.sh "out/$2" '^bench: ') ||
			{ echo "bench: $1: $why" >&2; exit 1; }
		[ -z "$failed" ] || { echo "bench: $1 failed (out/$2: $(tail -n 1 "$top/out/$2"))" >&2; exit 1; }
	}

	# bench_boots WHAT LOG TIMEOUT DIR REPEATED CMDLINE: bench_boot
	# $boots times, the repetitions shared out among them, numbered on
	# across them.  The first boot runs every part into out/DIR; the
	# others only the REPEATED parts (a comma list), into out/DIR/boot-N,
	# and their raw lines are added to out/DIR/raw.tsv.
	bench_boots() {
		local what=$1 log=$2 timeout=$3 dir=$4 repeated=$5 cmdline=$6 b n first=1
		for ((b = 1; b <= boots; b++)); do
			n=$(( reps / boots + (b <= reps % boots ? 1 : 0) ))
			[ "$n" -gt 0 ] || continue
			if [ "$b" = 1 ]; then
				bench_boot "$what" "$log" "$timeout" "$cmdline sleepy.out=$dir sleepy.reps=$n"
			else
				bench_boot "$what, boot $b" "${log%.log}-$b.log" "$timeout" \
					"$cmdline sleepy.out=$dir/boot-$b sleepy.reps=$n sleepy.first_rep=$first sleepy.parts=$repeated"
				# irq's part writes irq-io lines too.
				awk -v kinds=" ${repeated//,/ } irq-io " 'index(kinds, " " $1 " ")' \
					"$top/out/$dir/boot-$b/raw.tsv" >> "$top/out/$dir/raw.tsv"
			fi
			first=$((first + n))
		done
	}

	echo "bench: guest with ${accel:-TCG $timing}, $reps repetitions over $boots boots, ${drain_seconds} s drain sessions (takes a while)"
	QEMU_EXTRA="$timing" bench_boots guest bench-console.log 3600 bench overhead,busy,callgraph,sched,irq \
		"sleepy.drain_seconds=$drain_seconds"

	# The same overhead runs on one vCPU: the workload, the drainer and
	# perf share it, so idle parking cannot help, and both tools sample
	# exactly the one CPU the workload runs on; per task too (sleepy-record
	# and perf record -- CMD), timed start to end with the tools' CPU time.
	echo "bench: one-vCPU guest, $reps repetitions over $boots boots"
	QEMU_SMP=1 QEMU_EXTRA="$timing" bench_boots "one-vCPU guest" bench-one-vcpu-console.log 1800 \
		bench/one-vcpu overhead "sleepy.parts=overhead sleepy.workloads=loop,syscall,forkexec sleepy.configs=none,sleepy-tick,sleepy-997,sleepy-9973,perf-997,perf-9973,perf-tuned-997,perf-tuned-9973,sleepy-pid-9973,perf-pid-9973"
	wait $callgrind || { echo "bench: callgrind failed" >&2; exit 1; }

	# What one reader drains a second with every CPU busy: 8 vCPUs, a
	# backlog for sleepy's drainer and perf record's thread to drain.
	# One host thread per vCPU, in real time, not -icount: under -icount
	# QEMU runs the 8 vCPUs in turn, and perf's enabling IPI waited on one
	# that never ran until an RCU stall.  Under TCG with the QEMU of
	# scripts/fetch-qemu.sh: the system's 7.2 Oopses in one such boot of 8.
	echo "bench: 8-vCPU guest, the readers' capacity (${accel:-TCG, a thread per vCPU, real time, $("$qemu_mttcg" --version | head -n 1)})"
	QEMU=${qemu_mttcg:-} QEMU_SMP=8 QEMU_ACCEL=${accel:-tcg,thread=multi} QEMU_EXTRA="${accel:+-cpu host}" \
		bench_boot "8-vCPU guest" bench-capacity-console.log 1800 \
		"sleepy.reps=$reps sleepy.out=bench/capacity sleepy.parts=capacity"

	# Recordings of one workload by each tool, for parse-speed, and the
	# accuracy runs that need time to differ from instructions; plain TCG
	# (no -icount): only what is recorded matters, not the guest's time.
	echo "bench: recording guest (sleepy, then perf, for parse-speed)"
	QEMU_EXTRA="${accel:+-cpu host}" bench_boot "recording guest" bench-parse-console.log 1800 \
		"sleepy.reps=$reps sleepy.parts=recordings,tcg-accuracy sleepy.out=bench-parse"

	BENCH_STAMP=$(cat "$raw/stamp.json") GUEST_RECORDINGS=$top/out/bench-parse/parse \
		bash bench/parse-speed.sh
fi
/usr/bin/python3 bench/report.py --raw "$raw" --raw-tcg "$top/out/bench-parse/tcg-accuracy" \
	--results bench/results --icount-shift $shift_ --stamp "$(cat "$raw/stamp.json")" \
	--binaries build/userland/bench
