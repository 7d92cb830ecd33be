#!/bin/bash
# compare-parse.sh OLD NEW [--symfs DIR] RECORDING...: two builds of
# sleepy-parse give the same bytes (stdout, stderr, exit status) for every
# report and format, and the same pprof file, on each recording: the proof
# a refactoring of userland/lib/ changed no output.  --symfs DIR reads the
# recordings after it with their files under DIR (a guest's, as
# bench/parse-speed.sh does).  Prints each difference and "N comparisons,
# N differ"; exits 1 if any differ.
#   bash bench/compare-parse.sh old/sleepy-parse build/userland/sleepy-parse \
#       out/*.data userland/fuzz/corpus/*.rec userland/fuzz/regressions/*.rec \
#       --symfs build/bench/parse-speed/guest/root build/bench/parse-speed/guest/sleepy.data
set -u
[ $# -ge 3 ] || { echo "usage: compare-parse.sh OLD NEW [--symfs DIR] RECORDING..." >&2; exit 2; }
old=$1 new=$2
shift 2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
n=0 diffs=0
symfs=()
options=("" "--format csv" "--format json" "--sort app,sym" "--sort pid,sym" "--sort app,dso,sym" "--sort comm,dso,sym"
	"--sort dso,sym" "--sort sym" "--sort comm,sym,dso" "--sort comm,pid" "--sort pid,tid,ip"
	"--sort cpu" "--sort sym,srcline" "--children" "--callers main" "--callees main"
	"--folded cpu" "--folded offcpu" "--flamegraph cpu" "--speedscope cpu" "--irq-by-app"
	"--irq-per-cpu" "--irq-intervals" "--format json --irq-by-app" "--top 3"
	"--format json --sort app,sym,dso" "--chain make#1" "--format json --chain reader#1")
while [ $# -gt 0 ]; do
	rec=$1
	shift
	if [ "$rec" = --symfs ]; then
		[ $# -gt 0 ] || { echo "compare-parse: --symfs needs a directory" >&2; exit 2; }
		symfs=(--symfs "$1")
		shift
		continue
	fi
	for o in "${options[@]}"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$old" "${symfs[@]}" $o "$rec" > "$t/a" 2> "$t/a.err"; a=$?
		# shellcheck disable=SC2086
		"$new" "${symfs[@]}" $o "$rec" > "$t/b" 2> "$t/b.err"; b=$?
		if [ $a != $b ] || ! cmp -s "$t/a" "$t/b" || ! cmp -s "$t/a.err" "$t/b.err"; then
			diffs=$((diffs + 1))
			echo "differs: sleepy-parse $o $rec (exit $a vs $b)"
		fi
	done
	n=$((n + 1))
	"$old" "${symfs[@]}" --pprof "$t/a.pb.gz" "$rec" > /dev/null 2>&1
	"$new" "${symfs[@]}" --pprof "$t/b.pb.gz" "$rec" > /dev/null 2>&1
	cmp -s "$t/a.pb.gz" "$t/b.pb.gz" || { diffs=$((diffs + 1)); echo "differs: sleepy-parse --pprof $rec"; }
done
echo "$n comparisons, $diffs differ"
[ $diffs = 0 ]
