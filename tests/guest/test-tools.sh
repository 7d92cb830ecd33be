#!/bin/sh
# The tools' command lines, errors and exit codes.
. /sleepy/guest/lib.sh
cd /tmp

for t in sleepy-start sleepy-stop sleepy-record sleepy-parse; do
	check "$t --help prints USAGE and EXAMPLES" \
		sh -c "$t --help | grep -q '^USAGE:' && $t --help | grep -q '^EXAMPLES:'"
	check "$t --version" sh -c "$t --version | grep -q 'file format 1'"
	$t --no-such-option >/dev/null 2>&1
	check "$t: unknown option exits 2" [ $? = 2 ]
done

out=$(sleepy-stop 2>&1); status=$?
check "sleepy-stop without a session: exit 1, one line" \
	[ $status = 1 -a "$(echo "$out" | wc -l)" = 1 ]
out=$(sleepy-start -F 0 2>&1); status=$?
check "sleepy-start -F 0: exit 2 ($out)" [ $status = 2 ]
out=$(sleepy-start -b 5000 2>&1); status=$?
check "sleepy-start -b 5000: exit 2 ($out)" [ $status = 2 ]
out=$(sleepy-start -p 99999 -o /tmp/x.data 2>&1); status=$?
check "sleepy-start -p of a missing pid: exit 1, says so ($out)" \
	sh -c "[ $status = 1 ] && echo '$out' | grep -q 'no process'"
check "failed start leaves no file" [ ! -e /tmp/x.data ]
out=$(su -s /bin/sh nobody -c 'sleepy-start -o /tmp/u.data' 2>&1); status=$?
check "sleepy-start unprivileged: exit 1, EPERM explained ($out)" \
	sh -c "[ $status = 1 ] && echo '$out' | grep -q CAP_PERFMON"

sleepy-start -o /tmp/a.data >/dev/null
out=$(sleepy-start -o /tmp/b.data 2>&1); status=$?
check "second sleepy-start: exit 1, busy explained ($out)" \
	sh -c "[ $status = 1 ] && echo '$out' | grep -q 'already running'"
check "sleepy-stop after start: exit 0" sleepy-stop
check "recording parses cleanly" sh -c 'sleepy-parse /tmp/a.data >/dev/null'

# A kernel with another sleepy ABI, or none: one line saying so, exit 1,
# and no system call made (it could be another one on such a kernel).
echo 9 > /tmp/abi9
mount --bind /tmp/abi9 /proc/sys/kernel/sleepy_abi_version
out=$(sleepy-start -o /tmp/v.data 2>&1); status=$?
umount /proc/sys/kernel/sleepy_abi_version
lines=$(echo "$out" | wc -l)
case $out in *"ABI is version 9"*) said=yes ;; *) said=no ;; esac
check "sleepy-start on a kernel with ABI version 9: exit 1, one line ($out)" \
	[ $status = 1 -a "$lines" = 1 -a $said = yes ]
mount -t tmpfs none /proc/sys/kernel
out=$(sleepy-start -o /tmp/v.data 2>&1); status=$?
umount /proc/sys/kernel
case $out in *"has no sleepy"*) said=yes ;; *) said=no ;; esac
check "sleepy-start on a kernel without sleepy: exit 1, says so ($out)" \
	[ $status = 1 -a $said = yes ]

sleepy-record -o /tmp/r.data -- sh -c 'exit 3' >/dev/null 2>&1
check "sleepy-record returns the command's exit status" [ $? = 3 ]
sleepy-record -o /tmp/r.data -- /no/such/program >/dev/null 2>&1
check "sleepy-record of a missing program: exit 127" [ $? = 127 ]
out=$(sleepy-record -o /tmp/r.data 2>&1); status=$?
check "sleepy-record without a command: exit 2" [ $status = 2 ]

# Damaged recordings: reported with the offset, what was read still shown.
sleepy-record -o /tmp/l.data -- /sleepy/bench/loop 20000000 >/dev/null
size=$(wc -c < /tmp/l.data)
head -c $((size - 100)) /tmp/l.data > /tmp/cut.data
out=$(sleepy-parse /tmp/cut.data 2>&1 >/tmp/cut.txt); status=$?
check "truncated recording: exit 1, offset given ($out)" \
	sh -c "[ $status = 1 ] && echo '$out' | grep -q 'at byte'"
check "truncated recording: report still printed" grep -q 'loop#' /tmp/cut.txt
head -c 30 /tmp/l.data > /tmp/short.data
sleepy-parse /tmp/short.data >/dev/null 2>&1
check "header cut short: exit 1" [ $? = 1 ]
: > /tmp/empty.data
out=$(sleepy-parse /tmp/empty.data 2>&1); status=$?
check "empty file: exit 1, one line ($out)" [ $status = 1 -a "$(echo "$out" | wc -l)" = 1 ]
sleepy-parse /no/such/file >/dev/null 2>&1
check "missing file: exit 1" [ $? = 1 ]
check "json output has both reports" \
	sh -c 'sleepy-parse --format json /tmp/l.data | grep -q by_app_ip'
check "csv output has a header and rows" \
	sh -c 'sleepy-parse --format csv /tmp/l.data | head -n1 | grep -q ^report,app'
check "--app loop#1 keeps only loop" \
	sh -c '! sleepy-parse --format csv --app loop /tmp/l.data | tail -n +2 | grep -v ",loop#"'
