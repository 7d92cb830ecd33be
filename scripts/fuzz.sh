#!/bin/bash
# make fuzz: builds the recording fuzzer (userland/fuzz/) and runs it for
# SECONDS on JOBS processes (libFuzzer's -fork for more than one), seeded
# with the committed corpus and regressions; what it learns is kept in
# build/fuzz/corpus for the next run.  Prints one result line and exits 1,
# naming the input, if libFuzzer found a crash, leak, timeout or OOM.
#   scripts/fuzz.sh [SECONDS [JOBS]]
set -uo pipefail
seconds=${1:-300} jobs=${2:-1}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/fuzz
src=$top/userland/fuzz
log=$out/fuzz.log

make -s -C "$src" O="$out" HDR="$top/build/headers/include" || exit 1
mkdir -p "$out/corpus" "$out/crashes"
fork=()
[ "$jobs" -gt 1 ] && fork=(-fork="$jobs")
# -max_len: room for a few hundred records, enough to grow the tables.
"$out/fuzz_recording" "${fork[@]}" -max_total_time="$seconds" \
	-max_len=65536 -timeout=10 -dict="$src/sleepy.dict" \
	-artifact_prefix="$out/crashes/" -print_final_stats=1 \
	"$out/corpus" "$src/corpus" "$src/regressions" > "$log" 2>&1
status=$?

# Last status line: "#RUNS DONE cov: N ft: N corp: N/..." (or "#RUNS: ..."
# with -fork, whose cov counts features differently).
stats=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -n 1)
runs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$stats")
cov=$(sed -E 's/.* cov: ([0-9]+).*/\1/' <<<"$stats")
ft=$(sed -E 's/.* ft: ([0-9]+).*/\1/' <<<"$stats")
corp=$(sed -E 's/.* corp: ([0-9]+).*/\1/' <<<"$stats")
summary="${runs:-0} runs on $jobs job(s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
crash=$(sed -n -E 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -n 1)
if [ -n "$crash" ]; then
	echo "fuzz: FAILED ($summary): $(grep -m1 -E '^SUMMARY|ERROR: libFuzzer' "$log")"
	echo "fuzz: input: ${crash#$top/} (log: ${log#$top/}); add it to userland/fuzz/regressions/"
	exit 1
fi
if [ "$status" != 0 ]; then
	echo "fuzz: FAILED (exit status $status; $summary); see ${log#$top/}"
	exit 1
fi
echo "fuzz: $seconds s, $summary; no crash"
