#!/bin/sh
# test-trinity.sh [SECONDS] [SYSCALLS]: the trinity system call fuzzer, as
# user nobody, while a session samples every CPU at 10 kHz (kernel IPs
# too); then the kernel must be untainted, the session must stop cleanly
# with a readable recording, and a new session must work.
. /sleepy/guest/lib.sh
cd /tmp
plan 6
export PATH=/sleepy/bin:$PATH
seconds=${1:-180}
syscalls=${2:-1000000}

if [ ! -x /usr/bin/trinity ]; then
	not_ok "trinity: /usr/bin/trinity is not in the guest (scripts/deps.sh installs it)"
	exit 0
fi
# A small writable directory of its own, so it cannot fill the memory.
mkdir -p /tmp/trinity
mount -t tmpfs -o size=32m,mode=0777 tmpfs /tmp/trinity
rm -f /tmp/trinity.data
tainted_before=$(cat /proc/sys/kernel/tainted)	# KUnit taints (N)
check "trinity: a session at 10 kHz starts" \
	sh -c 'sleepy-start -F 10000 -k -o /tmp/trinity.data >/dev/null'

start=$(date +%s)
# Bounded memory: no file over 16 MiB (fallocate on memfds), 512 MiB of
# address space per process, and /tmp closed, or the OOM killer's
# reports would drown what matters.  Its output goes to a file: the
# console is no fd of its to play with.  Socket fds off: trinity crashes
# setting them up on this small kernel.  On the slow debug guest this
# trinity (2023.01) often gives up early on "some kind of locking
# catastrophe" (its 1 s syscall alarm firing while it holds its own
# lock); then it starts again until the time is up.
chmod 755 /tmp
ran=0 runs=0 left=$seconds
while [ "$left" -ge 30 ]; do
	su -s /bin/sh nobody -c "cd /tmp/trinity && ulimit -f 32768 -v 524288 &&
		exec timeout -s INT -k 30 $left /usr/bin/trinity -q -l off -C 2 \
		-N $syscalls --disable-fds=sockets" </dev/null >/tmp/trinity.out 2>&1
	status=$?
	# Whatever it left behind.
	su -s /bin/sh nobody -c 'kill -9 -1' 2>/dev/null
	runs=$((runs + 1))
	n=$(sed -n 's/.*Ran \([0-9]*\) syscalls.*/\1/p' /tmp/trinity.out | tail -n 1)
	ran=$((ran + ${n:-0}))
	# Its summary only: its own messages must not pass for kernel reports.
	grep -E 'Ran [0-9]+ syscalls|Bailing' /tmp/trinity.out | sed "s/^/trinity: run $runs: /"
	echo "trinity: run $runs: exit status $status"
	[ "${n:-0}" -gt 0 ] || break	# not a flaky bail-out: do not spin
	left=$((seconds - ($(date +%s) - start)))
done
chmod 1777 /tmp
echo "trinity: $runs runs, $ran system calls in $(($(date +%s) - start)) s"
# A floor, so that a trinity that gives up at once cannot pass.
check "trinity: at least 5000 system calls as nobody in $seconds s ($ran in $runs runs)" \
	[ "$ran" -ge 5000 ]

tainted=$(cat /proc/sys/kernel/tainted)
check "trinity: no new kernel taint (tainted=$tainted, $tainted_before before)" \
	[ "$tainted" = "$tainted_before" ]
out=$(sleepy-stop 2>&1); status=$?
check "trinity: the session stops cleanly ($out)" [ $status = 0 ]
check "trinity: the recording parses" \
	sh -c 'sleepy-parse /tmp/trinity.data > /tmp/trinity.txt'
rm -f /tmp/trinity.data /tmp/after-trinity.data
sleepy-start -o /tmp/after-trinity.data >/dev/null &&
	/sleepy/bench/loop 20000000 >/dev/null &&
	sleepy-stop >/dev/null &&
	sleepy-parse /tmp/after-trinity.data > /tmp/after-trinity.txt
check "trinity: a new session afterwards records and parses" \
	grep -q 'loop#1' /tmp/after-trinity.txt
umount /tmp/trinity 2>/dev/null
