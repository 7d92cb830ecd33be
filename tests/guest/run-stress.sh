#!/bin/sh
# run-stress.sh [sessions|attack|all]
# Debug kernel: the KUnit suites, sessions that start and stop at 10 kHz
# while processes fork, exec and exit as fast as they can (and,
# recording the scheduler, under a context-switch storm with CPU 1 going
# offline and back), the kselftest suite, the interrupt histograms
# through tracepoint probes, hostile input for the system calls and
# trinity with a session running.  The host fails the run on any
# WARNING/BUG/lockdep/KASAN/RCU report in the console.
cd /tmp
export PATH=/sleepy/bin:$PATH
. /sleepy/guest/lib.sh
# Two guests share the work (make test boots both at once, one host core
# each), balanced by their groups' times beside make test's other work
# (about 12 minutes each): "sessions", and "attack" (the hostile system
# calls: 40,000 calls took 7 minutes of the 20 they are allowed, and the
# drainer's rates); "all" runs both in one.
part=${1:-all}

case $part in sessions|all)
	kunit_groups sleepy_apps sleepy_buffer sleepy_irq
	group storm /sleepy/guest/test-storm.sh "${SLEEPY_STRESS_ROUNDS:-20}"
	group sched-storm /sleepy/guest/test-sched.sh storm "${SLEEPY_SCHED_STORM_ROUNDS:-6}"
	kselftest_groups ""
	group idle /sleepy/guest/test-idle.sh
	group irq /sleepy/guest/test-irq.sh
	group trinity /sleepy/guest/test-trinity.sh "${SLEEPY_TRINITY_SECONDS:-150}"
esac
case $part in attack|all)
	group abi-attack /sleepy/guest/test-abi-attack.sh "${SLEEPY_ABI_CALLS:-40000}" 1200
	group drain /sleepy/guest/test-drain.sh
esac
end_results
