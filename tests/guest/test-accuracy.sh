#!/bin/sh
# Section 3.2 of the paper: the samples land where the benchmarks spend
# their time, checked against the binaries' own symbol tables.
. /sleepy/guest/lib.sh
cd /tmp
plan 4

# share BENCH FUNCTION: FUNCTION's share (per mille) of BENCH's user samples.
share() {
	sleepy-record -o /tmp/$1.data -- /sleepy/bench/$1 >/dev/null
	parse /tmp/$1.csv --format csv --app "$1" -s /sleepy/bench/$1 /tmp/$1.data >&2
	awk -F, -v f="$2" '$1 == "by_function" && $6 != "[kernel]" {
		total += $7; if ($6 == f) hit += $7 }
		END { if (total < 100) print -1; else printf "%d\n", 1000 * hit / total }' /tmp/$1.csv
}

s=$(share loop main)
check "loop: >= 95% of user samples in main's loop (got $s per mille)" [ "$s" -ge 950 ]
s=$(share call loop)
check "call: >= 95% of user samples in loop() (got $s per mille)" [ "$s" -ge 950 ]

# btree's two hot functions, find_index and lookup, are close (callgrind:
# find_index first); under plain TCG instructions do not all take the same
# time, and at the tick rate (~500 samples) their order is noise.  At
# 10 kHz, find_index must be one of the two functions with most samples.
sleepy-record -F 10000 -o /tmp/btree.data -- /sleepy/bench/btree >/dev/null
parse /tmp/btree.csv --format csv --app btree -s /sleepy/bench/btree /tmp/btree.data
top2=$(awk -F, '$1 == "by_function" && $6 !~ /^\[/ { print $6; if (++n == 2) exit }' /tmp/btree.csv | tr '\n' ' ')
check "btree: find_index among the two functions with most samples (top: $top2)" \
	sh -c "echo '$top2' | grep -qw find_index"
# The same from the recording alone: btree named from its mapping record,
# no -s given.
parse /tmp/btree-alone.csv --format csv --app btree /tmp/btree.data
top2_alone=$(awk -F, '$1 == "by_function" && $6 !~ /^\[/ { print $6; if (++n == 2) exit }' /tmp/btree-alone.csv |
	tr '\n' ' ')
check "btree from the recording alone (no -s): the same two functions on top ($top2_alone)" \
	eval '[ -n "$top2" ] && [ "$top2_alone" = "$top2" ]'
sleepy-parse --top 8 --app btree -s /sleepy/bench/btree /tmp/btree.data | sed -n '/By application and function/,$p'
