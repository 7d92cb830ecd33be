#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-peers: sleepy beside perf, bpftrace and BCC on the kernel
# built from Debian's configuration (make deb-debian), in the full Debian
# image that holds them, in one boot under QEMU -icount shift=1,sleep=off
# (guest time is instructions, 2 ns each, whatever the host does).  The
# guest side is tests/image/run-peers.sh; bench/peers-report.py turns its
# raw lines into bench/results/peers.md and peers.json.
#
#   make bench-peers [BENCH_BOOTS=2] [BENCH_REPS=5] [BENCH_RATE=9973]
#                    [BENCH_CONFIGS=a,b] [BENCH_PARTS=sample,sched,irq,idle,task]
#                    [BENCH_IDLE_CONFIGS=none,sleepy,perf]
#                    [BENCH_TASK_CONFIGS=none,sleepy-pid,perf-pid,perf-pid-tuned]
#                    [BENCH_SCHED_CONFIGS=a,b] [BENCH_IRQ_CONFIGS=a,b]
#                    [BENCH_BCC=0] [BENCH_BCC_REPS=N]   (0: without BCC's Python tools)
#   bash bench/peers.sh --report     # the table again from the last run
#
# A run of some parts (BENCH_PARTS) writes results of its own,
# bench/results/peers-PARTS.{json,md}, beside those of the last full run;
# a full run writes peers.{json,md} and removes them.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
out=out/bench-peers
results=bench/results/peers
[ -n "${BENCH_PARTS:-}" ] && results=$results-${BENCH_PARTS//,/-}
report() {
	[ -n "${BENCH_PARTS:-}" ] || rm -f bench/results/peers-*.json bench/results/peers-*.md
	python3 bench/peers-report.py "$out/raw.tsv" "$results.json" "$results.md" \
		--stamp "$(cat "$out/stamp.json")" \
		--kernel "$(cat "$out/kernel" 2>/dev/null || echo unknown)" \
		--config build/kernel-debian/.config
}
if [ "${1-}" = --report ]; then
	report
	exit
fi
IMAGE_KERNEL=debian bash scripts/make-image.sh full
rm -rf "$out"
mkdir -p "$out/sleepy/bin" "$out/sleepy/bench"
# What made these results, taken now: the tree may change meanwhile.
python3 bench/stamp.py build/kernel-debian/.config > "$out/stamp.json"
cp build/userland/sleepy-start build/userland/sleepy-stop build/userland/sleepy-record \
	build/userland/sleepy-parse build/userland/sleepy_sched_load "$out/sleepy/bin/"
cp build/userland/bench/loop build/userland/bench/elapsed "$out/sleepy/bench/"
extra="sleepy.reps=${BENCH_REPS:-5} sleepy.rate=${BENCH_RATE:-9973}"
[ -n "${BENCH_CONFIGS:-}" ] && extra="$extra sleepy.configs=$BENCH_CONFIGS"
[ -n "${BENCH_PARTS:-}" ] && extra="$extra sleepy.parts=$BENCH_PARTS"
[ -n "${BENCH_IDLE_CONFIGS:-}" ] && extra="$extra sleepy.idle_configs=$BENCH_IDLE_CONFIGS"
[ -n "${BENCH_TASK_CONFIGS:-}" ] && extra="$extra sleepy.task_configs=$BENCH_TASK_CONFIGS"
[ -n "${BENCH_SCHED_CONFIGS:-}" ] && extra="$extra sleepy.sched_configs=$BENCH_SCHED_CONFIGS"
[ -n "${BENCH_IRQ_CONFIGS:-}" ] && extra="$extra sleepy.irq_configs=$BENCH_IRQ_CONFIGS"
[ -n "${BENCH_BCC:-}" ] && extra="$extra sleepy.bcc=$BENCH_BCC"
[ -n "${BENCH_BCC_REPS:-}" ] && extra="$extra sleepy.bcc_reps=$BENCH_BCC_REPS"
# BENCH_BOOTS boots, each running every repetition: a figure that moves
# with the boot (where memory landed, which CPU's timer came first) shows
# in the spread.  Repetitions are numbered on across the boots.
boots=${BENCH_BOOTS:-2} reps=${BENCH_REPS:-5}
# A guest whose console is silent for 15 minutes is stopped, and where
# its vCPUs were said: without KASLR, so that System.map names the
# addresses.
silence=15
: > "$out/raw-all.tsv"
for ((boot = 1; boot <= boots; boot++)); do
	t0=$(date +%s)
	console=$out/console-$boot.log
	QEMU_EXTRA="-icount shift=1,sleep=off" QEMU_IMAGE=build/image/full-debian.img QEMU_MEM=2048 \
	QEMU_SILENCE=$silence QEMU_SYSTEM_MAP=build/kernel-debian/System.map \
		bash qemu/boot.sh build/image/full-debian.vmlinuz build/image/full-debian.initrd peers \
		"$console" 10800 "nokaslr $extra" > /dev/null ||
		{ echo "bench-peers: guest $boot failed (see $console)"; grep '^stall-watch' "$console"; exit 1; }
	echo "bench-peers: guest $boot of $boots ran $(( $(date +%s) - t0 )) s"
	# A kernel report (an RCU stall, a warning) fails the run, as in make
	# test; so does a console that could not be scanned.
	why=$(bash tests/console-reports.sh "$console") || { echo "bench-peers: guest $boot: $why"; exit 1; }
	grep -q 'sleepy-guest\[[0-9]*\]: peers: done' "$console" ||
		{ echo "bench-peers: guest $boot did not finish its runs (see $console)"; exit 1; }
	# The repetition is the third field of every raw line but the event
	# part's, where it is the fourth.
	awk -v offset=$(( (boot - 1) * reps )) 'BEGIN { FS = OFS = "\t" }
		$1 == "event" { $4 += offset; print; next } { $3 += offset; print }' \
		"$out/raw.tsv" >> "$out/raw-all.tsv"
done
mv "$out/raw-all.tsv" "$out/raw.tsv"
report
