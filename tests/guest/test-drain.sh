#!/bin/sh
# The drainer keeps up: zero drops over 30 s at 1 kHz and 10 kHz with
# both CPUs busy, and every sample the kernel counted is in the file.
. /sleepy/guest/lib.sh
cd /tmp
seconds=${SLEEPY_DRAIN_SECONDS:-30}

for hz in 1000 10000; do
	/sleepy/bench/loop 100000000000 >/dev/null & l1=$!
	/sleepy/bench/loop 100000000000 >/dev/null & l2=$!
	sleepy-start -F $hz -o /tmp/d$hz.data >/dev/null
	sleep $seconds
	summary=$(sleepy-stop)
	kill $l1 $l2; wait $l1 $l2 2>/dev/null
	echo "$summary"
	sleepy-parse --format json /tmp/d$hz.data > /tmp/d$hz.json
	in_file=$(json_num /tmp/d$hz.json samples)
	counted=$(json_num /tmp/d$hz.json counted_samples)
	dropped=$(json_num /tmp/d$hz.json dropped)
	check "$hz Hz for $seconds s: no drops (dropped=$dropped)" [ "$dropped" = 0 ]
	check "$hz Hz: samples in file == samples the kernel counted ($in_file == $counted)" \
		[ -n "$in_file" -a "$in_file" = "$counted" ]
	eval "samples_$hz=$in_file"
done
# Under emulation the guest cannot take 10000 interrupts per second on
# every CPU, but the hrtimer must still raise the rate well above 1 kHz.
check "10 kHz takes at least twice the samples of 1 kHz ($samples_10000 vs $samples_1000)" \
	[ "$samples_10000" -ge $((2 * samples_1000)) ]
