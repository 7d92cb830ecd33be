#!/bin/sh
# test-trinity.sh [SECONDS] [SYSCALLS]: the trinity system call fuzzer, as
# user nobody, for SECONDS while a session samples every CPU at 10 kHz
# (kernel IPs too); then the kernel must be untainted, the session must
# stop cleanly with a readable recording, and a new session must work.
# Trinity must make progress the whole time; how many calls it makes is
# no test: it measures the machine (2,378 in 150 s on one 2-core host,
# 38,540 on another) and trinity's start-up (once none in its first 35 s
# on the debug guest).
. /sleepy/guest/lib.sh
cd /tmp
plan 6
export PATH=/sleepy/bin:$PATH
seconds=${1:-150}
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

# trinity_for SECONDS LABEL: trinity as nobody until SECONDS have passed;
# sets ran (system calls), runs and took (seconds).  Bounded memory: no
# file over 16 MiB (fallocate on memfds), 512 MiB of address space per
# process, and /tmp closed, or the OOM killer's reports would drown what
# matters.  Its output goes to a file: the console is no fd of its to
# play with.  Socket fds off: trinity crashes setting them up on this
# small kernel.  On the slow debug guest this trinity (2023.01) often
# gives up early on "some kind of locking catastrophe" (its 1 s syscall
# alarm firing while it holds its own lock); then it starts again until
# the time is up.  A run with no system call ends the loop.
trinity_for() {
	local start left n status
	start=$(date +%s) ran=0 runs=0 left=$1
	chmod 755 /tmp
	while [ "$left" -ge 10 ]; do
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
		grep -E 'Ran [0-9]+ syscalls|Bailing' /tmp/trinity.out | sed "s/^/trinity: $2: run $runs: /"
		echo "trinity: $2: run $runs: exit status $status"
		if [ "${n:-0}" = 0 ]; then	# not a flaky bail-out: do not spin
			# Its last words, colons blanked: no kernel report pattern.
			tail -n 5 /tmp/trinity.out | tr ':' ' ' | sed "s/^/trinity: $2: run $runs said: /"
			break
		fi
		left=$(($1 - ($(date +%s) - start)))
	done
	chmod 1777 /tmp
	took=$(($(date +%s) - start))
	echo "trinity: $2: $runs runs, $ran system calls in $took s"
}

check "trinity: a session at 10 kHz starts" \
	sh -c 'sleepy-start -F 10000 -k -o /tmp/trinity.data >/dev/null'
trinity_for "$seconds" "with a session"
check "trinity with a session: $ran system calls in $took s, calls in each of its $runs runs until the end" \
	[ "$ran" -gt 0 -a "$took" -ge $((seconds - 10)) ]

tainted=$(cat /proc/sys/kernel/tainted)
check "trinity: no new kernel taint (tainted=$tainted, $tainted_before before)" \
	[ "$tainted" = "$tainted_before" ]
out=$(sleepy-stop 2>&1); status=$?
check "trinity: the session stops cleanly ($out)" [ $status = 0 ]
sleepy-parse --format json /tmp/trinity.data > /tmp/trinity.json; status=$?
samples=$(json_num /tmp/trinity.json samples)
kernel_samples=$(json_num /tmp/trinity.json kernel_samples)
missed=$(json_num /tmp/trinity.json missed)
echo "# trinity: the session's recording: $samples samples ($kernel_samples in kernel mode), $missed missed periods"
# A fuzzer lives in system calls: -k must have caught it in the kernel.
check "trinity: the recording parses, complete, with samples ($samples, $kernel_samples in kernel mode; exit $status)" \
	sh -c "[ $status = 0 ] && [ \"${samples:-0}\" -gt 0 ] && [ \"${kernel_samples:-0}\" -gt 0 ] &&
	       grep -q '\"complete\": true' /tmp/trinity.json"
rm -f /tmp/trinity.data /tmp/after-trinity.data
sleepy-start -o /tmp/after-trinity.data >/dev/null &&
	/sleepy/bench/loop 20000000 >/dev/null &&
	sleepy-stop >/dev/null &&
	sleepy-parse /tmp/after-trinity.data > /tmp/after-trinity.txt
check "trinity: a new session afterwards records and parses" \
	grep -q 'loop#1' /tmp/after-trinity.txt
umount /tmp/trinity 2>/dev/null
