#!/bin/sh
# make test inside the guest: the KUnit suites that ran at boot, the
# kselftest ABI suite, then the tools end to end.  Each group's TAP and
# exit status go to the host as files (lib.sh: group).
cd /tmp
export PATH=/sleepy/bin:$PATH
. /sleepy/guest/lib.sh

kunit_groups sleepy_apps sleepy_buffer sleepy_irq
kselftest_groups ""
# The same suites built for i386: the 32-bit system call entries.  Under
# QEMU's TCG a 32-bit busy loop gets almost no timer interrupts (local
# timer interrupts on its CPU: 33 in 3 s, against 446 in 0.43 s for a
# 64-bit one, QEMU 7.2, with and without MTTCG, no session running), so
# the two tests that sample a spinning CPU skip there.
export SLEEPY_TEST_NO_HOG="a 32-bit busy loop gets almost no timer interrupts under QEMU TCG"
kselftest_groups 32
unset SLEEPY_TEST_NO_HOG
group tools /sleepy/guest/test-tools.sh
group agent /sleepy/guest/test-agent.sh
group accuracy /sleepy/guest/test-accuracy.sh
group idle /sleepy/guest/test-idle.sh
group drain /sleepy/guest/test-drain.sh
group sched /sleepy/guest/test-sched.sh
group irq /sleepy/guest/test-irq.sh
group stacks /sleepy/guest/test-stacks.sh
group abi-attack /sleepy/guest/test-abi-attack.sh 10000 600
end_results
