#!/bin/sh
# Booted under QEMU -icount (guest time is instructions executed, so an
# interrupt costs the same guest time however slow the host is): sessions
# at 15, 20 and 50 kHz (the most sleepy_start() accepts) on two busy
# vCPUs.  Sampling must never starve a CPU: each session ends, the loops
# keep making progress, and the host fails the run on any RCU stall or
# other report in the console.
. /sleepy/guest/lib.sh
cd /tmp
plan 6
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
	# User time each loop got, in clock ticks (USER_HZ 100): at least a
	# quarter of the session's length.
	check "icount: $hz Hz: both loops kept running ($((t1b - t1a)) and $((t2b - t2a)) ticks of $((seconds * 100)))" \
		[ $((t1b - t1a)) -ge $((seconds * 25)) -a $((t2b - t2a)) -ge $((seconds * 25)) ]
	rm -f /tmp/r$hz.data
done
