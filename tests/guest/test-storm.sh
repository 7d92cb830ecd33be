#!/bin/sh
# test-storm.sh [ROUNDS]: sessions start and stop at 10 kHz while
# processes fork, exec and exit as fast as they can; every other one
# records call stacks, user and kernel (-g -k: user memory read from the
# sampling interrupt of tasks that exec and exit).
. /sleepy/guest/lib.sh
cd /tmp
rounds=${1:-20}
plan 1

storm() {
	while [ ! -e /tmp/stop-storm ]; do
		/bin/true; sh -c ':' & wait
	done
}
rm -f /tmp/stop-storm /tmp/stress.err
# The storm takes whatever CPU time the sessions leave (nice 19): it
# still forks and execs on one CPU while a start or stop runs on the
# other, and the tools no longer wait behind it (27 s a round at nice 0
# on the debug kernel, for 1 s of session).
storm & s1=$!
storm & s2=$!
renice -n 19 -p $s1 $s2 >/dev/null
failed=0
i=0
while [ $i -lt $rounds ]; do
	stacks=; [ $((i % 2)) = 1 ] && stacks="-g -k"
	# shellcheck disable=SC2086
	sleepy-start -F 10000 $stacks -b 64K -o /tmp/s.data >/dev/null 2>>/tmp/stress.err ||
		{ failed=$((failed + 1)); echo "round $i: sleepy-start failed" >> /tmp/stress.err; }
	sleep 1
	sleepy-stop >/dev/null 2>>/tmp/stress.err ||
		{ failed=$((failed + 1)); echo "round $i: sleepy-stop failed" >> /tmp/stress.err; }
	# Sampling happened: samples, and stack samples on a -g round.
	if parse /tmp/s.json --format json /tmp/s.data > /dev/null; then
		samples=$(json_num /tmp/s.json samples) stack_samples=$(json_num /tmp/s.json stack_samples)
		if [ "${samples:-0}" = 0 ] || { [ -n "$stacks" ] && [ "${stack_samples:-0}" = 0 ]; }; then
			failed=$((failed + 1))
			echo "round $i: ${samples:-no} samples, ${stack_samples:-no} with stacks (${stacks:-no -g})" >> /tmp/stress.err
		fi
	else
		failed=$((failed + 1)); echo "round $i: $(cat /tmp/s.json)" >> /tmp/stress.err
	fi
	i=$((i + 1))
done
touch /tmp/stop-storm
wait $s1 $s2
[ -s /tmp/stress.err ] && sed 's/^/# stress: /' /tmp/stress.err | head -n 40
check "stress: $rounds sessions at 10 kHz (half with -g -k) under a fork/exec storm, each with samples (stacks on -g), $failed failures" [ $failed = 0 ]
