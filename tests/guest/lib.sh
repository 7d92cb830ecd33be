# Helpers for the guest test scripts (sourced).  Every script prints TAP:
# its plan "1..N" first, then "ok N - NAME" or "not ok N - NAME" per
# check.  The host fails a group whose number of results differs from its
# plan, up or down.
tap_count=0
plan() { echo "1..$1"; }
ok() { tap_count=$((tap_count + 1)); echo "ok $tap_count - $*"; }
not_ok() { tap_count=$((tap_count + 1)); echo "not ok $tap_count - $*"; }
# check NAME COMMAND...: ok if COMMAND succeeds.
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
# parse OUT ARGS...: sleepy-parse ARGS into OUT.  If it exits non-zero,
# or its JSON says the recording did not end ("complete": false), OUT
# holds one line saying so instead of the report, so that no check on the
# report passes on it (checks that something is absent must also see a
# report: parse's status).  Returns 0, or the failing exit status (1 when
# only incomplete).
parse() {
	parse_out=$1; shift
	sleepy-parse "$@" > "$parse_out" 2> "$parse_out.err"
	parse_status=$?
	[ "$parse_status" = 0 ] && grep -q '"complete": false' "$parse_out" && parse_status=1
	[ "$parse_status" = 0 ] && return 0
	echo "sleepy-parse $* failed (exit $parse_status): $(head -n 1 "$parse_out.err")" |
		tee "$parse_out" | sed 's/^/# /'
	return "$parse_status"
}
# uptime_s: seconds since boot, whole.
uptime_s() { read -r s _ < /proc/uptime; echo "${s%.*}"; }
# grub_default_kernel: the kernel GRUB's default entry boots (make test-grub).
grub_default_kernel() {
	grep -m1 '^[[:space:]]*linux[[:space:]]' /boot/grub/grub.cfg | awk '{ print $2 }'
}
# json_num FILE KEY: a top-level number from sleepy-parse --format json.
json_num() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n1
}

# app_samples JSON PID: that process's samples in the report by
# application of sleepy-parse --format json.
app_samples() {
	sed -n '/^  "by_app": \[/,/^  \]/p' "$1" | grep -F "\"pid\": $2," |
		sed -n 's/.*"samples": \([0-9]*\).*/\1/p' | head -n1
}

# Results reach the host as files on the 9p share (out/test/results/LABEL,
# LABEL from sleepy.results= on the kernel command line): a kernel message
# on the serial console can split a result line there, not in a file.
results=${SLEEPY_RESULTS:-/tmp/results}
# group NAME COMMAND...: COMMAND's output (TAP) in $results/NAME.tap and
# on the console as it runs; its exit status in $results/NAME.exit.
group() {
	group_name=$1; shift
	read -r group_t0 _ < /proc/uptime
	echo "== $group_name"
	{ "$@" 2>&1; echo $? > "$results/$group_name.exit"; } |
		tee "$results/$group_name.tap"
	read -r group_t1 _ < /proc/uptime
	echo "== $group_name took $(awk -v a="$group_t0" -v b="$group_t1" 'BEGIN { printf "%.0f", b - a }') s"
}
# The KUnit suites that ran at boot, one group each, from debugfs: the
# suite's own plan and results, without the suite's indentation.
kunit_groups() {	# kunit_groups SUITE...
	for suite; do
		f=/sys/kernel/debug/kunit/$suite/results
		if [ -r "$f" ]; then
			sed -n 's/^    //p' "$f" > "$results/kunit-$suite.tap"
			echo 0 > "$results/kunit-$suite.exit"
		else
			echo "not ok 1 - KUnit suite $suite did not run ($f missing)" \
				> "$results/kunit-$suite.tap"
			echo 1 > "$results/kunit-$suite.exit"
		fi
		sed "s/^/kunit-$suite: /" "$results/kunit-$suite.tap"
	done
}
# kselftest_groups SUFFIX: the kselftest programs, one group each
# (kselftest, kselftest-process, ...; with SUFFIX 32, kselftest-i386...).
kselftest_groups() {
	for t in "" process sample sched; do
		prog=sleepy${t:+_$t}_test$1
		group "kselftest${1:+-i386}${t:+-$t}" "$prog"
	done
}
# The end of a run: the kernel's taint flags, and a mark that it finished.
end_results() {
	cat /proc/sys/kernel/tainted > "$results/tainted"
	echo done > "$results/done"
}
