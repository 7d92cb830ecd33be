#!/bin/sh
# Booted under QEMU -icount (guest time is instructions executed, so an
# interrupt costs the same guest time however slow the host is): sessions
# at 15, 20 and 50 kHz (the most sleepy_start() accepts) on two busy
# vCPUs.  Sampling must never starve a CPU: each session ends, the loops
# keep making progress, and the host fails the run on any RCU stall or
# other report in the console.  QEMU switches vCPUs at timer deadlines
# here, so CPUs whose timers were close shared the time
# unevenly: at 50 kHz, one vCPU got as little as a few microseconds a
# period (a hang, or 81-92% of the time for the loops and records
# dropped); with the grids a half period apart the loops get 98-100%
# and nothing is dropped.
. /sleepy/guest/lib.sh
cd /tmp
plan 9
seconds=${SLEEPY_ICOUNT_SECONDS:-10}
for hz in 15000 20000 50000; do
	/sleepy/bench/loop 100000000000 > /tmp/l1.out & l1=$!
	/sleepy/bench/loop 100000000000 > /tmp/l2.out & l2=$!
	# The loops' progress: CPU time they got during the session.
	sleepy-start -F $hz -o /tmp/r$hz.data > /dev/null
	t1a=$(awk '{ print $14 }' /proc/$l1/stat); t2a=$(awk '{ print $14 }' /proc/$l2/stat)
	sleep $seconds
	t1b=$(awk '{ print $14 }' /proc/$l1/stat); t2b=$(awk '{ print $14 }' /proc/$l2/stat)
	summary=$(sleepy-stop); status=$?
	kill $l1 $l2; wait $l1 $l2 2>/dev/null
	echo "icount $hz Hz: $summary; loop user ticks $((t1b - t1a)) and $((t2b - t2a)) in $seconds s"
	check "icount: $hz Hz on two busy vCPUs: the session stops and the recording is whole" \
		[ $status = 0 ]
	# User time each loop got, in clock ticks (USER_HZ 100): at least
	# 90% of the session's length.
	check "icount: $hz Hz: both loops kept running ($((t1b - t1a)) and $((t2b - t2a)) ticks of $((seconds * 100)))" \
		[ $((t1b - t1a)) -ge $((seconds * 90)) -a $((t2b - t2a)) -ge $((seconds * 90)) ]
	dropped=$(echo "$summary" | sed -n 's/.* samples, \([0-9]*\) dropped,.*/\1/p')
	check "icount: $hz Hz: the drainer kept up (${dropped:-no summary} dropped)" \
		[ "${dropped:-x}" = 0 ]
	rm -f /tmp/r$hz.data
done
