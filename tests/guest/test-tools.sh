#!/bin/sh
# The tools' command lines, errors and exit codes.
. /sleepy/guest/lib.sh
cd /tmp
plan 52

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
out=$(sleepy-stop -t 0 2>&1); status=$?
check "sleepy-stop -t 0: exit 2, one line ($out)" \
	[ $status = 2 -a "$(echo "$out" | wc -l)" = 1 ]
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
parse /tmp/a.json --format json /tmp/a.data
check "recording parses cleanly: exit $parse_status, complete, a report by application" \
	eval 'grep -q "\"complete\": true" /tmp/a.json && grep -q "\"by_app\": \[" /tmp/a.json'

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
parse /tmp/l.json --format json /tmp/l.data
check "json output has both reports" \
	sh -c 'grep -q "\"by_app\": \[" /tmp/l.json && grep -q "\"by_app_ip\": \[" /tmp/l.json'
# CSV: the header, then rows of as many fields, whose samples by
# application add up to the recording's.
parse /tmp/l.csv --format csv /tmp/l.data
read -r header rows bad apps ips <<EOF
$(awk -F, 'NR == 1 { header = $0 == "report,app,pid,ip,mode,function,samples,percent,dso"; nf = NF; next }
	NF != nf { bad++ } $1 == "by_app" { apps += $7 } $1 == "by_app_ip" { ips++ }
	END { print header + 0, NR - 1, bad + 0, apps + 0, ips + 0 }' /tmp/l.csv)
EOF
check "csv output: header $header, $rows rows, $bad of another width, $apps samples by application of $(json_num /tmp/l.json samples), $ips by IP" \
	eval '[ "$header" = 1 ] && [ "$bad" = 0 ] && [ "$apps" = "$(json_num /tmp/l.json samples)" ] && [ "$apps" -gt 0 ] && [ "$ips" -gt 0 ]'
parse /tmp/app.csv --format csv --app loop /tmp/l.data
sed -i 1d /tmp/app.csv
check "--app loop keeps only loop, and loop is there ($(wc -l < /tmp/app.csv) rows)" \
	sh -c '[ -s /tmp/app.csv ] && ! grep -v ",loop#1," /tmp/app.csv'
ip_rows=$(grep -c '^by_app_ip,' /tmp/l.csv)
top_rows=$(sleepy-parse --format csv --top 2 /tmp/l.data | grep -c '^by_app_ip,')
check "--top 2: two of the $ip_rows rows by IP" [ "$ip_rows" -gt 2 -a "$top_rows" = 2 ]
# --times: the same report, then one line of CPU times that add up; not
# for a directory of interval profiles.
sleepy-parse --times /tmp/l.data > /tmp/times.txt 2> /tmp/times.err
times_status=$?
sleepy-parse /tmp/l.data > /tmp/notimes.txt 2>/dev/null
times_line=$(tail -n 1 /tmp/times.err)
mkdir -p /tmp/times.dir
sleepy-parse --times /tmp/times.dir > /dev/null 2>&1
times_dir=$?
check "--times: report unchanged, '$times_line', a directory refused (exit $times_dir)" \
	sh -c "[ $times_status = 0 ] && cmp -s /tmp/times.txt /tmp/notimes.txt &&
	       [ $times_dir = 2 ] && echo '$times_line' | awk '
		/^sleepy-parse: CPU time [0-9.]+ s: reading the recording [0-9.]+ s, reading [0-9]+ symbol files [0-9.]+ s, the rest [0-9.]+ s\$/ {
			all = \$4; read = \$9; files = \$15; rest = \$19
			d = all - (read + files + rest)
			ok = all > 0 && d < 0.002 && d > -0.002
		} END { exit !ok }'"

# rows FILE: "app pid mode ip samples" for each by-IP row of a recording.
rows() {
	sleepy-parse --format csv "$1" |
		awk -F, '$1 == "by_app_ip" { print $2, $3, $5, $4, $7 }'
}

# -p PID: that process only, whatever else runs.
/sleepy/bench/loop 100000000000 >/dev/null & l1=$!
/sleepy/bench/loop 100000000000 >/dev/null & l2=$!
sleepy-start -F 1000 -p $l1 -o /tmp/p.data >/dev/null
sleep 1
sleepy-stop >/dev/null
kill $l1 $l2; wait $l1 $l2 2>/dev/null
rows /tmp/p.data > /tmp/p.rows
others=$(awk -v p=$l1 '$2 != p' /tmp/p.rows | wc -l)
check "-p: samples of that pid only ($(wc -l < /tmp/p.rows) rows, $others of other pids)" \
	[ -s /tmp/p.rows -a "$others" = 0 ]

# --follow: children forked after the start are sampled too; without it
# they are not.  The parent waits for the session, then runs loop in a
# child.
follow_rows() {	# follow_rows [--follow]: loop's rows in the recording
	rm -f /tmp/follow-go
	sh -c 'until [ -e /tmp/follow-go ]; do sleep 0.01; done
		/sleepy/bench/loop 30000000 >/dev/null; true' & parent=$!
	sleepy-start -F 1000 -p $parent "$@" -o /tmp/f.data >/dev/null
	touch /tmp/follow-go
	wait $parent
	sleepy-stop >/dev/null
	rows /tmp/f.data | grep -c '^loop#'
}
with=$(follow_rows --follow)
without=$(follow_rows)
check "-p --follow samples a child forked later ($with rows), -p alone does not ($without)" \
	[ "$with" -gt 0 -a "$without" = 0 ]

# sleepy-record samples its command only; with -a, everything.
sh -c 'while :; do :; done' & spinner=$!
sleepy-record -F 1000 -o /tmp/only.data -- /sleepy/bench/loop 30000000 >/dev/null
sleepy-record -F 1000 -a -o /tmp/all.data -- /sleepy/bench/loop 30000000 >/dev/null
kill $spinner; wait $spinner 2>/dev/null
only_loop=$(rows /tmp/only.data | grep -c '^loop#')
only_sh=$(rows /tmp/only.data | grep -c '^sh#')
all_sh=$(rows /tmp/all.data | grep -c '^sh#')
check "sleepy-record: the command only ($only_loop loop rows, $only_sh of a busy shell); -a: everything ($all_sh shell rows)" \
	[ "$only_loop" -gt 0 -a "$only_sh" = 0 -a "$all_sh" -gt 0 ]

# -k: kernel-mode samples carry kernel IPs; without it, the user IP the
# task entered the kernel from.
sleepy-record -F 2000 -k -o /tmp/k.data -- /sleepy/bench/syscall 100000 >/dev/null
sleepy-record -F 2000 -o /tmp/nok.data -- /sleepy/bench/syscall 100000 >/dev/null
k_kernel=$(rows /tmp/k.data | awk '$1 ~ /^syscall#/ && $3 == "kernel" && $4 ~ /^0xffffffff/' | wc -l)
nok_kernel=$(rows /tmp/nok.data | awk '$1 ~ /^syscall#/ && $3 == "kernel"' | wc -l)
nok_kernel_ip=$(rows /tmp/nok.data | awk '$4 ~ /^0xffffffff/' | wc -l)
check "-k: kernel IPs in kernel-mode rows ($k_kernel); without -k none ($nok_kernel_ip of $nok_kernel kernel-mode rows)" \
	[ "$k_kernel" -gt 0 -a "$nok_kernel" -gt 0 -a "$nok_kernel_ip" = 0 ]

# -k recordings name kernel functions from the symbols the drainer kept
# (root reads /proc/kallsyms): nearly every kernel-mode sample of the
# syscall loop, each name a text symbol of this kernel, the kernel's own
# entry path among them.
sleepy-parse --folded cpu /tmp/k.data > /tmp/k.folded
kframes() { sed -n 's/^syscall;\(.*\)_\[k\] \([0-9]*\)$/\1 \2/p' /tmp/k.folded; }
named=$(kframes | awk '$1 !~ /^0x/ && $1 != "[kernel]" { n += $2 } END { print n + 0 }')
all_k=$(kframes | awk '{ n += $2 } END { print n + 0 }')
bogus=$(kframes | awk '$1 !~ /^0x/ && $1 != "[kernel]" { print $1 }' | while read -r f; do
	grep -qE " [tTwW] $f(	\[[^]]*\])?\$" /proc/kallsyms || echo "$f"; done | wc -l)
check "-k: kernel functions named ($named of $all_k kernel-mode samples), all in /proc/kallsyms ($bogus not)" \
	[ "$named" -gt 0 -a $((named * 10)) -ge $((all_k * 9)) -a "$bogus" = 0 ]
entry=$(kframes | awk '$1 ~ /sys|syscall|entry/ { n += $2 } END { print n + 0 }')
csv_named=$(sleepy-parse --format csv /tmp/k.data | grep -c '^by_function,syscall#[0-9]*,.*\[kernel.kallsyms\]')
check "-k: the syscall entry path among them ($entry samples), [kernel.kallsyms] in the function report ($csv_named rows)" \
	[ "$entry" -gt 0 -a "$csv_named" -gt 0 ]

# Short-lived processes and reused pids, named from the recording alone
# (no -s): with pid_max 400 (pids 300-399 after the first wrap), 400 runs
# of loop, each some ms, reuse pids; every user-mode sample of every
# loop#N is named, most in main: 3,000,000 iterations, as on the Debian
# image (make test-image) its static libc's start and exit took more
# samples than 300,000 did.
old_pid_max=$(cat /proc/sys/kernel/pid_max)
echo 400 > /proc/sys/kernel/pid_max
sleepy-record -F 10000 -o /tmp/reuse.data -- sh -c \
	'i=0; while [ $i -lt 400 ]; do /sleepy/bench/loop 3000000 > /dev/null; i=$((i + 1)); done'
echo "$old_pid_max" > /proc/sys/kernel/pid_max
sleepy-parse --format csv /tmp/reuse.data > /tmp/reuse.csv
instances=$(awk -F, '$1 == "by_app" && $2 ~ /^loop#/' /tmp/reuse.csv | wc -l)
pids=$(awk -F, '$1 == "by_app" && $2 ~ /^loop#/ { print $3 }' /tmp/reuse.csv | sort -u | wc -l)
check "pid reuse: $instances loop instances with samples on $pids distinct pids" \
	[ "$instances" -gt 100 -a "$pids" -lt "$instances" ]
awk -F, '$1 == "by_app_ip" && $2 ~ /^loop#/ && $5 == "user" {
	all += $7; if ($6 == "") unnamed += $7; if ($6 == "main") main += $7 }
	END { print all + 0, unnamed + 0, main + 0 }' /tmp/reuse.csv > /tmp/reuse.sum
read -r user unnamed in_main < /tmp/reuse.sum
check "short-lived, reused pids: $unnamed of $user user-mode loop samples unnamed, $in_main in main" \
	[ "$user" -gt 0 -a "$unnamed" = 0 -a $((in_main * 2)) -gt "$user" ]

# The vDSO: a program reading the clock in a loop spends a good part of
# its time there (clock_gettime() without a system call, or with one from
# the vDSO when the clocksource has no vDSO mode: kernel-mode samples
# whose user IP is in it; the rest is libc's wrapper and the loop).  Those
# rows are named from the recording's image of the vDSO, in [vdso], as
# perf names them; no row of the program is left without a name.
sleepy-record -F 1000 -o /tmp/clock.data -- /sleepy/bin/sleepy_clock 1500 > /dev/null
sleepy-parse --format csv /tmp/clock.data > /tmp/clock.csv; status=$?
awk -F, '$1 == "by_app_ip" && $2 ~ /^sleepy_clock#/ {
	all += $7; if ($9 == "[vdso]" && $6 ~ /clock_gettime/) vdso += $7
	if ($6 == "") unnamed += $7 }
	END { print all + 0, vdso + 0, unnamed + 0 }' /tmp/clock.csv > /tmp/clock.sum
read -r all in_vdso unnamed < /tmp/clock.sum
check "[vdso]: $in_vdso of $all samples of a clock_gettime() loop named in [vdso], $unnamed unnamed ($(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) clocksource)" \
	[ "$status" = 0 -a "$all" -gt 100 -a $((in_vdso * 5)) -gt "$all" -a "$unnamed" = 0 ]

# A drainer killed mid-session (kill -9): its descriptor closes, which ends
# the kernel's session; sleepy-stop says so in one line and exits 1, the
# recording parses up to the last sub-buffer written (exit 1, a report,
# complete: false), and a new session starts.
# The loop runs until the drainer has written a sub-buffer of samples
# (the file grew past what the start wrote): how many samples fill one
# depends on the machine's speed.
sleepy-start -F 10000 -o /tmp/k9.data > /tmp/k9-start.out
drainer=$(sed -n 's/.*drainer pid \([0-9]*\).*/\1/p' /tmp/k9-start.out)
started_size=$(wc -c < /tmp/k9.data)
for loops in $(seq 30); do
	/sleepy/bench/loop 100000000 > /dev/null
	[ "$(wc -c < /tmp/k9.data)" -gt "$started_size" ] && break
done
echo "# kill -9: $loops loops until the drainer wrote ($started_size bytes at the start, $(wc -c < /tmp/k9.data) now)"
kill -9 "${drainer:-none}"
sleep 0.2
out=$(sleepy-stop 2>&1); status=$?
check "kill -9 of the drainer (pid ${drainer:-?}): sleepy-stop exits $status, one line: $out" \
	eval '[ "$status" = 1 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "drainer .* died"'
sleepy-parse --format json /tmp/k9.data > /tmp/k9.json 2> /tmp/k9.err; status=$?
check "its recording parses up to the cut: exit $status, $(json_num /tmp/k9.json samples) samples, complete false ($(head -n 1 /tmp/k9.err))" \
	eval '[ "$status" = 1 ] && [ "$(json_num /tmp/k9.json samples)" -gt 0 ] && grep -q "\"complete\": false" /tmp/k9.json'
# One CPU: the stop's SIGUSR1 wakes the drainer, which finishes the
# recording and exits; once it has been reaped before sleepy-stop watches
# it (pidfd_open fails with ESRCH), sleepy-stop exited 1 without a word or
# a summary and kept the session's state.  With CPU 1 offline and the stop
# at nice 19 the drainer often runs first; every stop must exit 0 and sum
# up its recording.
cycles=100 failed=0 first_failure=
if echo 0 > /sys/devices/system/cpu/cpu1/online; then
	online=$(cat /sys/devices/system/cpu/online)
	for i in $(seq $cycles); do
		sleepy-start -o /tmp/one-cpu.data > /dev/null
		/sleepy/bench/loop 2000000 > /dev/null
		out=$(/usr/bin/nice -n 19 sleepy-stop 2>&1); status=$?
		if [ "$status" != 0 ] || ! echo "$out" | grep -q '^sleepy: [0-9]* samples'; then
			failed=$((failed + 1))
			[ -n "$first_failure" ] || first_failure="cycle $i: exit $status: $(echo $out)"
			sleepy-stop > /dev/null 2>&1	# what it left: the next start needs none
		fi
	done
	echo 1 > /sys/devices/system/cpu/cpu1/online
else
	online="CPU 1 would not go offline" failed=$cycles
fi
check "one CPU online ($online): $((cycles - failed)) of $cycles stops at nice 19 exit 0 with a summary${first_failure:+; $first_failure}" \
	[ "$online" = 0 -a "$failed" = 0 -a "$(cat /sys/devices/system/cpu/online)" = 0-1 ]
# A drainer that does nothing (stopped here; a hung network file system in
# real life): sleepy-stop -t gives up on it after that many seconds in one
# line and keeps the session's state; once the drainer runs again, a second
# sleepy-stop waits for it, and the recording is complete.
sleepy-start -F 1000 -o /tmp/stall.data > /tmp/stall-start.out
drainer=$(sed -n 's/.*drainer pid \([0-9]*\).*/\1/p' /tmp/stall-start.out)
kill -STOP "${drainer:-none}"
began=$(date +%s)
out=$(sleepy-stop -t 2 2>&1); status=$?
took=$(($(date +%s) - began))
check "a stopped drainer (pid ${drainer:-?}): sleepy-stop -t 2 exits $status after $took s, one line: $out" \
	eval '[ "$status" = 1 ] && [ "$took" -ge 2 ] && [ "$took" -lt 30 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "did nothing for 2 s (state T)"'
kill -CONT "${drainer:-none}"
out=$(sleepy-stop 2>&1); status=$?
sleepy-parse --format json /tmp/stall.data > /tmp/stall.json 2> /dev/null; parse_status=$?
check "once it runs again, sleepy-stop exits $status ($out), its recording parses (exit $parse_status) complete" \
	eval '[ "$status" = 0 ] && [ "$parse_status" = 0 ] && grep -q "\"complete\": true" /tmp/stall.json'
# A drainer that works slowly (a stand-in writing a line a second for 11 s,
# under a state directory of its own; it ignores the stop's SIGUSR1):
# sleepy-stop -t 2 waits for it past the 2 s, says after 10 s what it
# waits for, and sums up the recording once it has exited.
printf '#!/bin/sh\ntrap "" USR1\nfor i in 1 2 3 4 5 6 7 8 9 10 11; do echo x >> /tmp/slow.out; sleep 1; done\n' \
	> /tmp/sleepy-slow
chmod +x /tmp/sleepy-slow
/tmp/sleepy-slow & slow=$!
for i in 1 2 3 4 5 6 7 8 9 10; do	# until it runs under its name
	[ "$(cat /proc/$slow/comm 2> /dev/null)" = sleepy-slow ] && break
	sleep 0.1
done
mkdir -p /tmp/slow-state
printf '%s\n%s\n' "$slow" /tmp/stall.data > /tmp/slow-state/session
began=$(date +%s)
out=$(SLEEPY_STATE_DIR=/tmp/slow-state sleepy-stop -t 2 2>&1); status=$?
took=$(($(date +%s) - began))
wait "$slow"
check "a drainer writing a line a second for 11 s: sleepy-stop -t 2 waits $took s, exits $status: $(echo $out)" \
	eval '[ "$status" = 0 ] && [ "$took" -ge 10 ] && echo "$out" | grep -q "waiting for the drainer (pid $slow)" && echo "$out" | grep -q "^sleepy: [0-9]* samples"'
# sleepy-record killed (kill -9) while its program runs: its drainer sees
# it gone, stops the session and finishes the recording; the program
# runs on; there is nothing left for sleepy-stop to stop.
sleepy-record -F 10000 -o /tmp/r9.data -- /sleepy/bench/loop 100000000000 > /dev/null 2>&1 & record=$!
sleep 2
loop=$(for stat in /proc/[0-9]*/stat; do
	read -r pid comm _ ppid _ < "$stat" 2>/dev/null &&
		[ "$comm" = "(loop)" ] && [ "$ppid" = "$record" ] && echo "$pid"
done)
kill -9 $record; wait $record 2>/dev/null
sleep 1
parse /tmp/r9.json --format json /tmp/r9.data
loop_samples=$(app_samples /tmp/r9.json "${loop:-none}")
out=$(sleepy-stop 2>&1); stop_status=$?
running=$(kill -0 "${loop:-none}" 2>/dev/null && echo running || echo gone)
kill "${loop:-none}" 2>/dev/null
check "kill -9 of sleepy-record: the recording finished by its drainer (parse exit $parse_status, loop ${loop:-?} with ${loop_samples:-no} samples), the program $running, sleepy-stop exit $stop_status: $out" \
	eval '[ "${loop_samples:-0}" -gt 0 ] && [ "$running" = running ] && [ "$stop_status" = 1 ] && echo "$out" | grep -q "no session"'
sleepy-start -o /tmp/after-k9.data > /dev/null; start_status=$?
out=$(sleepy-stop 2>&1); status=$?
check "a new session starts (exit $start_status) and stops (exit $status) after both kills" \
	eval '[ "$start_status" = 0 ] && [ "$status" = 0 ]'
