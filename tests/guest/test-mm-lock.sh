#!/bin/sh
# test-mm-lock.sh: a session started while a process's mmap_lock is held
# for seconds, as behind a hung NFS or FUSE mount.  sleepy_mm_lock holds
# its own (a page of a file on a 9p share QEMU throttles to 2 KiB/s, read
# with the lock held behind ten other readers' 4 KiB, about 20 s, and a
# writer queued behind it, so that a trylock fails too).
# The start walk waits for that process without blocking anything: the
# starter, killed while it waits, ends, its drainer stops the session and
# finishes the recording while the lock is still held, and the next
# session works.  The console is scanned for hung tasks as in every guest.
. /sleepy/guest/lib.sh
cd /tmp
export PATH=/sleepy/bin:$PATH
plan 7
mkdir -p /mnt/slow
mount -t 9p -o trans=virtio,ro slow /mnt/slow ||
	echo "# test-mm-lock: no throttled 9p share (tag slow)"

# wait_for TENTHS COMMAND...: until COMMAND succeeds, at most TENTHS / 10 s.
wait_for() {
	n=$1
	shift
	while ! "$@" && [ "$n" -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	"$@"
}
# Exited: no such process, or a zombie nobody reaps.
gone() { [ ! -e "/proc/$1" ] || grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat"; }
released() { grep -q '^released' /tmp/holder.out; }
still_held() { ! released; }

readers=
for i in 1 2 3 4 5 6 7 8 9 10; do
	dd if=/mnt/slow/data of=/dev/null bs=4k 2> /dev/null &
	readers="$readers $!"
done
sleep 1
sleepy_mm_lock /mnt/slow/data > /tmp/holder.out 2>&1 &
holder=$!
wait_for 300 grep -q '^held' /tmp/holder.out
check "a process holds its mmap_lock, a writer queued ($(tr '\n' ' ' < /tmp/holder.out))" \
	eval 'grep -q "^held" /tmp/holder.out && still_held'

sleepy-start -F 100 -o /tmp/held.data > /tmp/start.out 2>&1 &
starter=$!
sleep 2
check "the start waits for its walk, which waits for that process's lock" \
	eval '! gone $starter && still_held'
# The starter's child, from /proc/PID/stat: pidof and ps read every
# process's cmdline, which waits for the held lock like the walk.
drainer=$(cat /proc/[0-9]*/stat 2> /dev/null |
	awk -v starter="$starter" '$2 == "(sleepy-start)" && $4 == starter { print $1; exit }')
check "the start's drainer runs (pid ${drainer:-none})" [ -n "$drainer" ]

kill -9 "$starter"
wait "$starter" 2> /dev/null
sed 's/^/# start: /' /tmp/start.out
t0=$(cut -d' ' -f1 /proc/uptime)
wait_for 200 gone "${drainer:-0}"
t1=$(cut -d' ' -f1 /proc/uptime)
check "starter killed: its drainer stops the session and ends (in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s) while the lock is still held" \
	eval 'gone "${drainer:-0}" && still_held'
check "the killed start's recording is whole ($(sleepy-parse /tmp/held.data 2>&1 > /dev/null | head -n1))" \
	eval 'sleepy-parse /tmp/held.data > /dev/null'

wait_for 600 released
check "the lock is released ($(tr '\n' ' ' < /tmp/holder.out))" released
kill $readers 2> /dev/null
wait
sleepy-start -F 100 -o /tmp/next.data > /dev/null &&
	sleep 1 && sleepy-stop > /tmp/stop.out
check "the next session works ($(cat /tmp/stop.out))" \
	grep -q '^sleepy: [1-9][0-9]* samples, 0 dropped' /tmp/stop.out
