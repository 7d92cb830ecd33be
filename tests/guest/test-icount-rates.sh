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
plan 15
seconds=${SLEEPY_ICOUNT_SECONDS:-10}
# cpu_ticks PID: its user + system time in clock ticks (USER_HZ 100).
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
for hz in 15000 20000 50000; do
	/sleepy/bench/loop 100000000000 > /tmp/l1.out & l1=$!
	/sleepy/bench/loop 100000000000 > /tmp/l2.out & l2=$!
	# Independent clocks around the session: the guest's uptime, and the
	# CPU time each loop got.
	read -r up0 _ < /proc/uptime
	sleepy-start -F $hz -o /tmp/r$hz.data > /dev/null
	c1a=$(cpu_ticks $l1) c2a=$(cpu_ticks $l2)
	sleep $seconds
	c1b=$(cpu_ticks $l1) c2b=$(cpu_ticks $l2)
	summary=$(sleepy-stop); status=$?
	read -r up1 _ < /proc/uptime
	kill $l1 $l2; wait $l1 $l2 2>/dev/null
	echo "# icount $hz Hz: $summary; loop CPU ticks $((c1b - c1a)) and $((c2b - c2a)), uptime $up0 to $up1"
	check "icount: $hz Hz on two busy vCPUs: the session stops and the recording is whole" \
		[ $status = 0 ]
	# CPU time each loop got in the sleep, in clock ticks: at least 90%.
	check "icount: $hz Hz: both loops kept running ($((c1b - c1a)) and $((c2b - c2a)) ticks of $((seconds * 100)))" \
		[ $((c1b - c1a)) -ge $((seconds * 90)) -a $((c2b - c2a)) -ge $((seconds * 90)) ]
	dropped=$(echo "$summary" | sed -n 's/.* samples, \([0-9]*\) dropped,.*/\1/p')
	check "icount: $hz Hz: the drainer kept up (${dropped:-no summary} dropped)" \
		[ "${dropped:-x}" = 0 ]
	# The grid: hz periods a second on each CPU, for at least the sleep
	# and at most the uptime around the session.  Every period is a
	# sample or counted missed (a vCPU QEMU did not run at its timer's
	# deadline), and samples are at least 95% of them.
	parse /tmp/r$hz.json --format json /tmp/r$hz.data
	samples=$(json_num /tmp/r$hz.json samples) missed=$(json_num /tmp/r$hz.json missed)
	check "icount: $hz Hz: ${samples:-no} samples + ${missed:-?} missed periods, of $((hz * 2 * seconds)) to $hz x 2 x uptime's $up0-$up1 s periods, samples >= 95%" \
		awk -v s="${samples:-0}" -v m="${missed:-0}" -v hz=$hz -v t=$seconds -v a="$up0" -v b="$up1" \
		'BEGIN { lo = hz * 2 * t; hi = hz * 2 * (b - a)
			 exit !(s > 0 && s + m >= 0.99 * lo && s + m <= 1.01 * hi && s >= 0.95 * lo) }'
	# Each loop's samples against hz times the CPU time it got during the
	# sleep inside the session (a little shorter than the session: its
	# start and stop).  The missed periods fall unevenly on the vCPUs
	# (QEMU's round robin: 10,287 at 20 kHz, nearly all on one loop's), so
	# one loop may have 5% fewer samples; its samples and the missed
	# periods together are every period of the two.
	s1=$(app_samples /tmp/r$hz.json $l1) s2=$(app_samples /tmp/r$hz.json $l2)
	check "icount: $hz Hz: the loops' samples (${s1:-none}, ${s2:-none}; 92-105%) and with the missed periods (98-105%) against hz x their CPU time in the sleep ($((c1b - c1a)), $((c2b - c2a)) ticks)" \
		awk -v s1="${s1:-0}" -v s2="${s2:-0}" -v m="${missed:-0}" -v c1=$((c1b - c1a)) -v c2=$((c2b - c2a)) -v hz=$hz \
		'BEGIN { e1 = hz * c1 / 100; e2 = hz * c2 / 100
			 exit !(e1 > 0 && e2 > 0 && s1 >= 0.92 * e1 && s1 <= 1.05 * e1 && s2 >= 0.92 * e2 && s2 <= 1.05 * e2 &&
				s1 + s2 + m >= 0.98 * (e1 + e2) && s1 + s2 + m <= 1.05 * (e1 + e2)) }'
	rm -f /tmp/r$hz.data /tmp/r$hz.json
done
