#!/bin/sh
# make test-image, in the full image on the kernel of make deb-debian
# (sleepy.mode=selftests): the kselftest suite and the guest scenarios of
# make test, on a system with systemd and its services running, with the
# tools as the sleepy-tools package installed them.  The test programs
# and scripts come from out/test-image/sleepy (tests/image/test-image.sh).
ln -sfn /mnt/out/test-image/sleepy /sleepy
export PATH=/sleepy/bin:$PATH
cd /tmp
. /sleepy/guest/lib.sh
kselftest_groups ""
export SLEEPY_TEST_NO_HOG="a 32-bit busy loop gets almost no timer interrupts under QEMU TCG"
kselftest_groups 32
unset SLEEPY_TEST_NO_HOG
for scenario in tools agent accuracy idle drain sched irq stacks; do
	group "$scenario" sh /sleepy/guest/test-$scenario.sh
done
end_results
