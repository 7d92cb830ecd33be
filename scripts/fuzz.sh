#!/bin/bash
# make fuzz: builds the fuzzers (userland/fuzz/) and runs them for SECONDS
# in all on JOBS processes (libFuzzer's -fork for more than one): the
# recording reader for three quarters of the time, the ELF reading
# (symbols, build-ids, line tables) for the rest, each seeded with its
# committed corpus and regressions; what they learn is kept in
# build/fuzz/corpus{,-elf} for the next run.  Prints one result line per
# fuzzer and exits 1, naming the input, if libFuzzer found a crash, leak,
# timeout or OOM.
#   scripts/fuzz.sh [SECONDS [JOBS]]
set -uo pipefail
seconds=${1:-300} jobs=${2:-1}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/fuzz
src=$top/userland/fuzz

make -s -C "$src" O="$out" HDR="$top/build/headers/include" || exit 1
mkdir -p "$out/corpus" "$out/corpus-elf" "$out/crashes"
fork=()
[ "$jobs" -gt 1 ] && fork=(-fork="$jobs")

# fuzz NAME SECONDS REGRESSIONS LIBFUZZER-ARGS...: runs build/fuzz/fuzz_NAME
# and prints its result line; status 1 on a finding.
fuzz() {
	local name=$1 time=$2 regressions=$3 log=$out/fuzz-$1.log status
	shift 3
	"$out/fuzz_$name" "${fork[@]}" -max_total_time="$time" -timeout=10 \
		-artifact_prefix="$out/crashes/" -print_final_stats=1 "$@" > "$log" 2>&1
	status=$?
	# Last status line: "#RUNS DONE cov: N ft: N corp: N/..." (or
	# "#RUNS: ..." with -fork, whose cov counts features differently).
	local stats runs cov ft corp summary crash
	stats=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -n 1)
	runs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$stats")
	cov=$(sed -E 's/.* cov: ([0-9]+).*/\1/' <<<"$stats")
	ft=$(sed -E 's/.* ft: ([0-9]+).*/\1/' <<<"$stats")
	corp=$(sed -E 's/.* corp: ([0-9]+).*/\1/' <<<"$stats")
	summary="${runs:-0} runs on $jobs job(s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
	crash=$(sed -n -E 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -n 1)
	if [ -n "$crash" ]; then
		echo "fuzz $name: FAILED ($summary): $(grep -m1 -E '^SUMMARY|ERROR: libFuzzer' "$log")"
		echo "fuzz $name: input: ${crash#$top/} (log: ${log#$top/}); add it to ${regressions#$top/}/"
		return 1
	fi
	if [ "$status" != 0 ] || [ -z "$runs" ]; then
		echo "fuzz $name: FAILED (exit status $status; $summary); see ${log#$top/}"
		return 1
	fi
	echo "fuzz $name: $time s, $summary; no crash"
}

elf_seconds=$((seconds / 4 > 5 ? seconds / 4 : 5))
recording_seconds=$((seconds - elf_seconds > 1 ? seconds - elf_seconds : 1))
# -max_len: room for a few hundred records, enough to grow the tables;
# for ELF files, a small shared library.
fuzz recording "$recording_seconds" "$src/regressions" -max_len=65536 \
	-dict="$src/sleepy.dict" "$out/corpus" "$src/corpus" "$src/regressions"
recording=$?
fuzz elf "$elf_seconds" "$src/regressions-elf" -max_len=65536 \
	"$out/corpus-elf" "$src/corpus-elf" "$src/regressions-elf"
elf=$?
exit $((recording | elf))
