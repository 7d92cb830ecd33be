# make test's bookkeeping (sourced by tests/run-all.sh, and by
# tests/runner/test-runner.sh, which breaks each rule on purpose): results
# counted, TAP groups held to their plans and exit statuses, skips held to
# tests/expected-skips, consoles scanned for kernel reports, and commands
# bounded by the run's deadline.  The caller sets top, logs and deadline
# (seconds since the epoch) and pass=0 fail=0 skipped=0.

result() {	# result ok|fail|skip NAME
	case $1 in
	ok) pass=$((pass + 1)); echo "ok - $2" ;;
	skip) skipped=$((skipped + 1)); echo "skip - $2" ;;
	*) fail=$((fail + 1)); echo "not ok - $2" ;;
	esac
}

# A skip is a result only where tests/expected-skips allows it (a line per
# skip: "LABEL: NAME", shell patterns, NAME without TAP's "# SKIP REASON");
# any other skip fails the run.
skip_or_fail() {	# skip_or_fail NAME
	local pattern
	while IFS= read -r pattern; do
		case $pattern in '#'* | '') continue ;; esac
		# shellcheck disable=SC2254
		case ${1%% # SKIP*} in $pattern) result skip "$1"; return ;; esac
	done < "$top/tests/expected-skips"
	result fail "$1 (skipped, and tests/expected-skips does not expect it)"
}

# seconds_left: what the run's deadline leaves, a minute kept for the
# summary.
seconds_left() { echo $((deadline - $(date +%s) - 60)); }

# bounded COMMAND...: COMMAND (a program, not a function) killed at the
# deadline; exit status 124 then, as timeout(1) gives.
bounded() {
	local left
	left=$(seconds_left)
	if [ "$left" -le 0 ]; then
		echo "not started: the run's deadline has passed" >&2
		return 124
	fi
	timeout -k 10 "$left" "$@"
}

kill_tree() {	# kill_tree PID: PID stopped, its descendants killed, then PID
	local child
	kill -STOP "$1" 2>/dev/null
	for child in $(ps -o pid= --ppid "$1"); do
		kill_tree "$child"
	done
	kill -KILL "$1" 2>/dev/null
}

# renice_tree NICENESS PID: PID and its descendants at NICENESS (the
# processes they start from then on inherit it).
renice_tree() {
	local child
	renice -n "$1" -p "$2" > /dev/null 2>&1
	for child in $(ps -o pid= --ppid "$2"); do
		renice_tree "$1" "$child"
	done
}

# watch LOG PROGRESS COMMAND...: runs COMMAND (a program or a function)
# with its output in LOG and, every minute, says how long it has run and
# what PROGRESS (a command) prints.  Returns COMMAND's exit status, 124 if
# the deadline killed it.
watch() {
	local log=$1 progress=$2
	shift 2
	"$@" > "$log" 2>&1 &
	watch_pid $! "$progress" "$log"
}
watch_pid() {	# watch_pid PID PROGRESS [LOG]: waits for a child of this shell
	local pid=$1 progress=$2 log=${3:-/dev/null} start now last
	start=$(date +%s) last=$start
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		now=$(date +%s)
		if [ "$(seconds_left)" -le 0 ]; then
			kill_tree "$pid"
			wait "$pid" 2>/dev/null
			echo "killed after $((now - start)) s: the run's deadline has passed" | tee -a "$log"
			return 124
		fi
		if [ $((now - last)) -ge 60 ]; then
			last=$now
			echo "   ... $((now - start)) s${progress:+: $($progress 2>/dev/null)}"
		fi
	done
	wait "$pid"
}

# tap_group LABEL FILE [STATUS]: one group's TAP against its plan.  With a
# third argument, STATUS is the program's exit status: non-zero fails the
# group unless a result already failed (then 1..127 is expected); empty
# (no status came back), or >= 128, always does.  A plan of 0 fails: a
# group that checks nothing did not run.  A failed result is followed by
# the diagnostics ("# ..." lines) printed since the result before it, its
# last 12, so that a run's output says why.
tap_group() {
	local label=$1 file=$2 plan= n=0 failed=0 line name diagnostics=()
	if [ ! -s "$file" ]; then
		result fail "$label: no results (${file#"$top"/} missing or empty)"
		return
	fi
	while IFS= read -r line; do
		line=${line%$'\r'}
		[[ $line =~ ^(not )?ok( [0-9]+)?( - | )?(.*) ]] && name=${BASH_REMATCH[4]}
		case $line in
		1..*) [ -z "$plan" ] && plan=${line#1..} ;;
		"#"*) diagnostics+=("$line"); continue ;;
		"not ok"*) n=$((n + 1)); failed=$((failed + 1)); result fail "$label: $name"
			[ ${#diagnostics[@]} -gt 12 ] && diagnostics=("${diagnostics[@]: -12}")
			[ ${#diagnostics[@]} = 0 ] || printf '    %s\n' "${diagnostics[@]}" ;;
		"ok"*" # SKIP"*) n=$((n + 1)); skip_or_fail "$label: $name" ;;
		"ok "*) n=$((n + 1)); result ok "$label: $name" ;;
		esac
		diagnostics=()
	done < "$file"
	if [ -z "$plan" ]; then
		result fail "$label: no TAP plan (1..N): it did not start or died early"
	elif [ "$plan" = 0 ]; then
		result fail "$label: a plan of no results (1..0): nothing was checked"
	elif [ "$n" != "$plan" ]; then
		result fail "$label: $n results where the plan says $plan (a crash, a hang or a miscount)"
	fi
	[ $# -lt 3 ] && return
	if [ "$3" = 0 ] || { [ "$failed" -gt 0 ] && [ "$3" -gt 0 ] 2>/dev/null && [ "$3" -lt 128 ]; }; then
		return
	fi
	result fail "$label: exit status ${3:-missing}"
}

# A console log that tests/console-reports.sh finds unclean (no kernel
# banner, a kernel report, a scan that could not run) fails the run.
scan_kernel_reports() {	# scan_kernel_reports LOG LABEL
	local why

	if why=$(bash "$top/tests/console-reports.sh" "$1"); then
		result ok "$2: no kernel report or user-space crash in the console"
	else
		result fail "$2: ${why:-the console could not be scanned}"
	fi
}
