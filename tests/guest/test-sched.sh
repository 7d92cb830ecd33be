#!/bin/sh
# test-sched.sh: the --sched reports against workloads with known waits
# (sleepy_sched_load): a sleeper, a pipe fed every 20 ms, two CPU hogs on
# one CPU.  test-sched.sh storm ROUNDS: --sched sessions start and stop at
# 10 kHz into small buffers under a context-switch storm (futex and pipe
# ping-pong) and a fork/exec storm while CPU 1 goes offline and back.
. /sleepy/guest/lib.sh
cd /tmp
export PATH=/sleepy/bin:$PATH
bin=/tmp/sched-bin
mkdir -p $bin
# A copy whose pages are in memory before it runs: run from a share or a
# disk, a page one program faults in wakes the other waiting for the same
# page (on the Debian image, with the tests over 9p: 10 to 19 wakeups
# writer -> reader from the page cache besides the pipe's 100).
cp /sleepy/bin/sleepy_sched_load $bin/sleepy_sched_load
cat $bin/sleepy_sched_load > /dev/null
for name in sleeper writer reader hog pingpong; do
	ln -sf sleepy_sched_load $bin/$name
done

# row FILE REPORT PATTERN...: the JSON rows of REPORT matching every PATTERN.
row() {
	file=$1 report=$2; shift 2
	sed -n "/^  \"$report\": \[/,/^  \]/p" "$file" > /tmp/rows
	for pattern; do
		grep -F -- "$pattern" /tmp/rows > /tmp/rows.1
		mv /tmp/rows.1 /tmp/rows
	done
	head -n1 /tmp/rows
}
# field ROW KEY: a number or string of one JSON row.
field() {
	echo "$1" | sed -n "s/.*\"$2\": \"*\([^,\"}]*\)\"*[,}].*/\1/p"
}
# between VALUE LOW HIGH: LOW <= VALUE <= HIGH, VALUE a number.
between() {
	[ -n "$1" ] && awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}
# The kallsyms function an address falls in.  Addresses there are 16 hex
# digits, so as strings of that width they compare as numbers.
kernel_function() {
	want=$(printf '%016s' "${1#0x}" | tr ' ' 0)
	awk -v want="$want" '($2 == "t" || $2 == "T") && $1 <= want && $1 > best { best = $1; name = $3 }
		END { print name }' /proc/kallsyms
}

# Every round records switches and times interrupts through the probes;
# each must have hard interrupt histograms.
storm() {
	rounds=$1 irq_hists=0
	plan 3
	rm -f /tmp/stop-storm /tmp/storm.err
	forks() { while [ ! -e /tmp/stop-storm ]; do /bin/true; sh -c ':' & wait; done; }
	pings() { while [ ! -e /tmp/stop-storm ]; do $bin/pingpong 2000; done; }
	forks & f=$!
	pings & p=$!
	renice -n 19 -p $f $p >/dev/null	# as test-storm.sh's storm
	failed=0 inconsistent=0 switches=0 dropped_total=0
	i=0
	while [ $i -lt $rounds ]; do
		sleepy-start --sched --irq --irq-interval 0.1 -k -F 10000 -b 8K -o /tmp/st.data > /dev/null 2>> /tmp/storm.err ||
			{ failed=$((failed + 1)); echo "round $i: sleepy-start failed" >> /tmp/storm.err; }
		if [ -e /sys/devices/system/cpu/cpu1/online ]; then
			echo 0 > /sys/devices/system/cpu/cpu1/online
			sleep 0.3
			echo 1 > /sys/devices/system/cpu/cpu1/online
		fi
		sleep 0.7
		sleepy-stop > /dev/null 2>> /tmp/storm.err ||
			{ failed=$((failed + 1)); echo "round $i: sleepy-stop failed" >> /tmp/storm.err; }
		if sleepy-parse --format json --top 1 /tmp/st.data > /tmp/st.json 2>> /tmp/storm.err; then
			dropped=$(json_num /tmp/st.json dropped)
			lost=$(json_num /tmp/st.json lost_in_stream)
			n=$(json_num /tmp/st.json switches)
			switches=$((switches + ${n:-0}))
			dropped_total=$((dropped_total + ${dropped:-0}))
			sed -n '/^  "hardirqs": \[/,/^  \]/p' /tmp/st.json | grep -q '"count": [1-9]' &&
				irq_hists=$((irq_hists + 1))
			# Every loss counted; a LOST record may not fit after the last drop.
			if [ -z "$n" ] || [ "$n" = 0 ] || [ -z "$lost" ] || [ "$lost" -gt "$dropped" ] ||
			   { [ "$dropped" = 0 ] && [ "$lost" != 0 ]; }; then
				inconsistent=$((inconsistent + 1))
				echo "round $i: switches $n, dropped $dropped, lost in stream $lost" >> /tmp/storm.err
			fi
		else
			failed=$((failed + 1)); echo "round $i: sleepy-parse failed" >> /tmp/storm.err
		fi
		i=$((i + 1))
	done
	touch /tmp/stop-storm
	wait $f $p
	[ -s /tmp/storm.err ] && sed 's/^/# storm: /' /tmp/storm.err | head -n 40
	check "sched storm: $rounds --sched --irq sessions at 10 kHz with CPU 1 offline and back, $failed failures" [ $failed = 0 ]
	check "sched storm: $switches switches recorded, $dropped_total dropped, every round's drops counted in the stream" \
		[ $inconsistent = 0 ]
	check "sched storm: $irq_hists of the $rounds rounds have hard interrupt histograms" \
		[ $irq_hists = $rounds ]
}

if [ "${1-}" = storm ]; then
	storm "${2:-10}"
	exit 0
fi

plan 17

# A sleeper: 200 sleeps of 10 ms, all at one site, reason sleep.
# Each sleep lasts 10 ms and what the emulator adds before the task runs
# again, which the sleeper measures itself: the off-CPU time must be at
# least the 2 s asked for, and at most its own sum; with the run-queue
# wait after each wakeup (the host's load stretches it: 67 ms over 200
# sleeps beside the debug kernel's build), within 3% of it.
sleepy-record --sched -k -o /tmp/sleeper.data -- $bin/sleeper 200 10 > /tmp/sleeper.out
slept=$(grep -xE "[0-9]+" /tmp/sleeper.out)	# its line, beside the summary
parse /tmp/sleeper.json --format json /tmp/sleeper.data
r=$(row /tmp/sleeper.json offcpu '"app": "sleeper#1"' '"reason": "sleep"')
echo "# sleeper: $r"
total=$(field "$r" total_ns)
wr=$(row /tmp/sleeper.json wall '"app": "sleeper#1"')
queued=$(field "$wr" runqueue_ns)
check "sleeper: off-CPU time at its sleep site ${total:-?} ns, at least 2 s, no more than the ${slept:-?} ns its own clock saw, and with its ${queued:-?} ns of run-queue wait within 3% of it" \
	awk -v t="${total:-0}" -v q="${queued:--1}" -v s="${slept:-0}" \
	'BEGIN { exit !(t >= 2e9 && t <= s && q >= 0 && t + q >= 0.97 * s && t + q <= 1.03 * s) }'
check "sleeper: $(field "$r" count) off-CPU intervals there for 200 sleeps" \
	between "$(field "$r" count)" 200 201
w=$(row /tmp/sleeper.json wakeups '"wakee": "sleeper#1"')
echo "# sleeper woken by: $w"
check "sleeper: woken $(field "$w" count) times by $(field "$w" waker), the local timer interrupt" \
	eval '[ "$(field "$w" waker)" = "[hardirq LOC]" ] && between "$(field "$w" count)" 200 201'
function=$(kernel_function "$(field "$r" kernel_ip)")
check "sleeper: the kernel site $(field "$r" kernel_ip) is in ${function:-nothing}, a nanosleep function" \
	eval 'case "$function" in *nanosleep*) true ;; *) false ;; esac'
# The same as folded stacks: one line per stack, "FRAMES NS", heaviest
# first; the sleeper's sleep site is the report's.
parse /tmp/sleeper.folded --folded offcpu /tmp/sleeper.data
status=$?
folded=$(grep '^sleeper;\[sleep\];' /tmp/sleeper.folded | head -n1)
echo "# folded: $folded"
check "sleeper: --folded offcpu puts ${folded##* } ns on its sleep site, as in the report" \
	eval '[ -n "$total" ] && [ "${folded##* }" = "$total" ]'
lines=$(wc -l < /tmp/sleeper.folded)
bad=$(grep -cvE '^[^ ]+( [^ ]+)* [0-9]+$' /tmp/sleeper.folded)
check "sleeper: --folded offcpu exits $status with $lines lines, $bad of them not FRAMES WEIGHT" \
	eval '[ "$status" = 0 ] && [ "$lines" -gt 0 ] && [ "$bad" = 0 ]'

# A reader blocked on a pipe that a writer feeds every 20 ms, 100 times.
sleepy-record --sched -o /tmp/pipe.data -- sh -c "$bin/writer 100 20 | $bin/reader" > /tmp/reader.out
parse /tmp/pipe.json --format json --chain reader#1 /tmp/pipe.data
r=$(row /tmp/pipe.json wakeups '"waker": "writer#1"' '"wakee": "reader#1"')
echo "# pipe: $r"
check "pipe: the reader read $(head -n1 /tmp/reader.out) bytes of 100" [ "$(head -n1 /tmp/reader.out)" = 100 ]
# One wakeup a write (one fewer if a write finds the reader still awake);
# the writer exits right after its last write, and closing its end wakes
# the reader for the end of file, once more if the two meet on the pipe's
# mutex there (102 seen once in 12 runs).
check "pipe: writer#1 -> reader#1 $(field "$r" count) wakeups for 100 writes (99 to 102)" \
	between "$(field "$r" count)" 99 102
count=$(field "$r" count)
r=$(row /tmp/pipe.json wakeups_by_count '"waker": "writer#1"' '"wakee": "reader#1"')
order=$(sed -n '/^  "wakeups_by_count": \[/,/^  \]/p' /tmp/pipe.json |
	sed -n 's/.*"count": \([0-9]*\).*/\1/p' | tr '\n' ' ')
echo "# pipe by count: $order"
check "pipe: wakeups by count: writer#1 -> reader#1 with the same $(field "$r" count), counts in descending order ($order)" \
	eval '[ -n "$count" ] && [ "$(field "$r" count)" = "$count" ] &&
	      echo "$order" | awk "{ for (i = 2; i <= NF; i++) if (\$i > \$(i - 1)) exit 1 }"'
r=$(row /tmp/pipe.json chain '"depth": 1,' '"waker": "writer#1"' '"wakee": "reader#1"')
echo "# chain: $r"
check "pipe: --chain reader#1 puts $(field "$r" wakee_blocked_ns) ns of the reader's blocked time on writer#1 (of ~2 s)" \
	between "$(field "$r" wakee_blocked_ns)" 1900000000 2100000000

# A shell forking 10 children: each child's life begins at its new-task
# wakeup (sched_wakeup_new), so its first wait for a CPU is its run-queue
# time and its lifetime is accounted in full.
sleepy-record --sched -o /tmp/fork.data -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done' > /dev/null
parse /tmp/fork.json --format json /tmp/fork.data
sed -n '/^  "wall": \[/,/^  \]/p' /tmp/fork.json | grep '"app": "sh#' | grep -v '"app": "sh#1"' > /tmp/fork.rows
sed 's/^/# fork: /' /tmp/fork.rows
children=$(wc -l < /tmp/fork.rows)
waited=$(sed -n 's/.*"runqueue_ns": \([0-9]*\).*"accounted_percent": \([0-9.]*\).*/\1 \2/p' /tmp/fork.rows |
	awk '$1 > 0 && $2 >= 95 { n++ } END { print n + 0 }')
check "fork: $children children, $waited of them runnable from their new-task wakeup (run-queue time > 0) and >= 95% accounted" \
	eval '[ "$children" = 10 ] && [ "$waited" = 10 ]'

# Two hogs pinned to CPU 1 for 2 s: each preempts the other.
# Each prints its CPU time as the scheduler counts it and its time from
# main to exit: sleepy's on-CPU time and lifetime, from its own switch
# and process records, must agree with them.
sleepy-record --sched -o /tmp/hogs.data -- sh -c "$bin/hog 1 2 & $bin/hog 1 2; wait" > /tmp/hogs.out
parse /tmp/hogs.json --format json /tmp/hogs.data
accounted=0 shares=0 on_cpu=0 lifetimes=0 hog_n=0
for hog in hog#1 hog#2; do
	r=$(row /tmp/hogs.json wall "\"app\": \"$hog\"")
	echo "# $hog: $r"
	pid=$(field "$(row /tmp/hogs.json by_app "\"app\": \"$hog\"")" pid)
	set -- $(grep "^hog ${pid:-none} " /tmp/hogs.out)
	echo "# $hog: pid ${pid:-?}, its own CPU time ${3:-?} ns, main to exit ${4:-?} ns"
	if [ -n "$4" ]; then
		between "$(field "$r" on_cpu_ns)" $(($3 * 95 / 100)) $(($3 * 105 / 100)) &&
			on_cpu=$((on_cpu + 1))
		between "$(field "$r" lifetime_ns)" $4 $(($4 * 105 / 100)) &&
			lifetimes=$((lifetimes + 1))
	fi
	life=$(field "$r" lifetime_ns)
	preempted=$(field "$r" preempted_ns) queued=$(field "$r" runqueue_ns) ran=$(field "$r" on_cpu_ns)
	eval "wait_$hog_n=$(( ${preempted:-0} + ${queued:-0} )) cpu_$hog_n=${ran:-0}"
	hog_n=$((hog_n + 1))
	between "$(field "$r" accounted_percent)" 95 100 && accounted=$((accounted + 1))
	between "$(field "$r" on_cpu_ns)" "$((${life:-0} * 35 / 100))" "$((${life:-0} * 65 / 100))" &&
		shares=$((shares + 1))
done
# Sharing one CPU, each waits (preempted or on the run queue) while the
# other runs.
check "hogs: each waited for the CPU as long as the other ran, within 20% (${wait_0:-?} vs ${cpu_1:-?}, ${wait_1:-?} vs ${cpu_0:-?} ns)" \
	eval 'between "${wait_0:-0}" $((${cpu_1:-0} * 8 / 10)) $((${cpu_1:-0} * 12 / 10)) && [ "${cpu_1:-0}" -gt 0 ] &&
	      between "${wait_1:-0}" $((${cpu_0:-0} * 8 / 10)) $((${cpu_0:-0} * 12 / 10)) && [ "${cpu_0:-0}" -gt 0 ]'
check "hogs: on + off + wait = lifetime within 5% for both: $accounted of 2" [ $accounted = 2 ]
check "hogs: each ran 35-65% of its lifetime: $shares of 2" [ $shares = 2 ]
check "hogs: on-CPU time within 5% of the CPU time the scheduler counted: $on_cpu of 2" [ $on_cpu = 2 ]
check "hogs: lifetime from main to exit + at most 5%: $lifetimes of 2" [ $lifetimes = 2 ]

# diff: the same sleeper sleeping 2 ms, then 20 ms; its sleeps must rank
# first, about log2(10) = 3.3 buckets apart.
sleepy-record --sched -o /tmp/short.data -- $bin/sleeper 50 2 > /dev/null
sleepy-record --sched -o /tmp/long.data -- $bin/sleeper 50 20 > /dev/null
parse /tmp/diff.json diff --format json /tmp/short.data /tmp/long.data
r=$(sed -n '/"rank": 1,/p' /tmp/diff.json)
echo "# diff: $r"
check "diff: the sleeper's sleeps rank first ($(field "$r" operation), EMD $(field "$r" emd), 3.3 expected)" \
	eval '[ "$(field "$r" operation)" = "sleep sleeper" ] && between "$(field "$r" emd)" 2.5 4.5'
