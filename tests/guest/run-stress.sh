#!/bin/sh
# Debug kernel: sessions start and stop at 10 kHz while processes fork,
# exec and exit as fast as they can; then hostile input for the system
# calls and trinity with a session running.  The host fails the run on
# any WARNING/BUG/lockdep/KASAN/RCU report in the console.
. /sleepy/guest/lib.sh
cd /tmp
export PATH=/sleepy/bin:$PATH
rounds=${SLEEPY_STRESS_ROUNDS:-20}

storm() {
	while [ ! -e /tmp/stop-storm ]; do
		/bin/true; sh -c ':' & wait
	done
}
storm & s1=$!
storm & s2=$!
failed=0
i=0
while [ $i -lt $rounds ]; do
	sleepy-start -F 10000 -b 64K -o /tmp/s.data >/dev/null 2>>/tmp/stress.err ||
		{ failed=$((failed + 1)); echo "round $i: sleepy-start failed" >> /tmp/stress.err; }
	sleep 1
	sleepy-stop >/dev/null 2>>/tmp/stress.err ||
		{ failed=$((failed + 1)); echo "round $i: sleepy-stop failed" >> /tmp/stress.err; }
	sleepy-parse /tmp/s.data >/dev/null 2>>/tmp/stress.err ||
		{ failed=$((failed + 1)); echo "round $i: sleepy-parse failed" >> /tmp/stress.err; }
	i=$((i + 1))
done
touch /tmp/stop-storm
wait $s1 $s2
[ -s /tmp/stress.err ] && sed 's/^/stress: /' /tmp/stress.err | head -n 40
check "stress: $rounds sessions at 10 kHz under a fork/exec storm, $failed failures" [ $failed = 0 ]
echo "== kselftest on the debug kernel"
sleepy_test 2>&1 | sed 's/^/selftest: /'

echo "== hostile input: 100000 random sleepy_start/sleepy_stop calls"
/sleepy/guest/test-abi-attack.sh "${SLEEPY_ABI_CALLS:-100000}" 1200
echo "== trinity as nobody with a session at 10 kHz"
/sleepy/guest/test-trinity.sh "${SLEEPY_TRINITY_SECONDS:-150}"
