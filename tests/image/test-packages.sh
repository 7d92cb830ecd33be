#!/bin/sh
# test-packages.sh, in the Debian image make image builds: systemd brings
# the system up on the packaged kernel, sleepy-tools as apt installed it
# profiles a dynamically linked Debian program (xz, stripped, with its
# liblzma) and names functions of liblzma and libc from their .dynsym, and
# dpkg -r leaves none of the package's files behind.
. /mnt/tests/guest/lib.sh
cd /tmp
plan 15

state=$(systemctl is-system-running --wait 2> /dev/null)
failed=$(systemctl --failed --no-legend --plain 2> /dev/null | cut -d' ' -f1 | tr '\n' ' ')
check "systemd brought the system up ($state${failed:+; failed: $failed})" [ "$state" = running ]
status() { dpkg-query -W -f='${Status}' "$1" 2> /dev/null; }
check "the packaged kernel runs ($(uname -r), linux-image-$(uname -r): $(status "linux-image-$(uname -r)"))" \
	eval '[ "$(status "linux-image-$(uname -r)")" = "install ok installed" ]'
check "sleepy-tools installed ($(dpkg-query -W -f='${Version}' sleepy-tools 2> /dev/null): $(status sleepy-tools))" \
	eval '[ "$(status sleepy-tools)" = "install ok installed" ]'

# 16 MB of the system's own binaries: xz -9 spends its time in liblzma.
cat /usr/bin/* /usr/lib/x86_64-linux-gnu/*.so* 2> /dev/null | head -c 16000000 > /tmp/input
sleepy-record -F 1000 -o /tmp/xz.data -- xz -9 -k -f -T1 /tmp/input > /tmp/record.out 2>&1
check "sleepy-record profiles xz -9 ($(tail -n1 /tmp/record.out))" \
	grep -q '^sleepy: [1-9][0-9]* samples, 0 dropped' /tmp/record.out
sleepy-parse --app xz /tmp/xz.data > /tmp/xz.txt 2> /tmp/xz.err
sed -n '/By application and function/,$p' /tmp/xz.txt | head -n 12 | sed 's/^/# /'
check "xz's samples named in liblzma ($(grep -m1 '(liblzma' /tmp/xz.txt | sed 's/  */ /g'))" \
	grep -q '[a-z_][a-z0-9_]* (liblzma\.so' /tmp/xz.txt
check "and in libc ($(grep -m1 '(libc\.so' /tmp/xz.txt | sed 's/  */ /g'))" \
	grep -q '[a-z_][a-z0-9_]* (libc\.so' /tmp/xz.txt
# Its hot functions are liblzma's internal ones, in no symbol table of a
# stripped library: their samples are still liblzma's ("[unknown] (file)").
share=$(sed -n '/By application and function/,/^$/p' /tmp/xz.txt |
	awk '$3 ~ /^xz#/ { all += $1; if (/\(liblzma/) lzma += $1 }
	     END { if (all) printf "%d", 100 * lzma / all; else print 0 }')
check "most of xz's samples are liblzma's, named or not (${share}%)" [ "${share:-0}" -ge 50 ]

# sleepy.service: off until enabled; with 5 s intervals it writes pprof
# profiles of the whole system (xz among what runs) into /var/lib/sleepy,
# which the host reads with go tool pprof (run-all.sh).
check "sleepy.service disabled by default ($(systemctl is-enabled sleepy 2>&1))" \
	eval '[ "$(systemctl is-enabled sleepy 2>&1)" = disabled ]'
sed -i 's/^SLEEPY_AGENT_OPTIONS=.*/SLEEPY_AGENT_OPTIONS="-F 49 -k -g -i 5 -d \/var\/lib\/sleepy -s 100M"/' \
	/etc/default/sleepy
systemctl start sleepy
xz -9 -k -f -T1 /tmp/input &
xz_pid=$!
n=0
while [ "$(ls /var/lib/sleepy 2> /dev/null | grep -c '\.pb\.gz$')" -lt 2 ] && [ $n -lt 120 ]; do
	sleep 1; n=$((n + 1))
done
wait $xz_pid
check "systemctl start sleepy: active, profiles in /var/lib/sleepy after ${n} s ($(ls /var/lib/sleepy | tr '\n' ' '))" \
	eval '[ "$(systemctl is-active sleepy)" = active ] && [ $n -lt 120 ]'
systemctl stop sleepy
journalctl -u sleepy --no-pager -o cat > /tmp/sleepy.journal
sed 's/^/# journal: /' /tmp/sleepy.journal
walk=$(sed -n 's/.*start walk announced \([0-9]*\) processes and \([0-9]*\) mappings.*/\1 \2/p' /tmp/sleepy.journal)
check "the start walk on a running systemd system: $(echo $walk | sed 's/ / processes, /') mappings announced" \
	eval '[ -n "$walk" ] && set -- $walk && [ $1 -gt 10 -a $2 -gt 10 ]'
sed -n 's/.* \([0-9]*\) profiles with \([0-9]*\) samples, \([0-9]*\) samples counted by the kernel, \([0-9]*\) dropped.*/\2 \3 \4/p' \
	/tmp/sleepy.journal > /tmp/agent.sum
read -r written counted dropped < /tmp/agent.sum
check "systemctl stop sleepy: inactive ($(systemctl is-active sleepy)), every sample in a profile: $written written, $counted counted, $dropped dropped" \
	eval '[ "$(systemctl is-active sleepy)" = inactive ] && [ "${written:-0}" -gt 0 ] && [ "$written" = "$counted" ] && [ "$dropped" = 0 ]'
# At 49 Hz liblzma's few exported functions may get no sample: what is
# checked is that xz's samples are liblzma's, by name or as its [unknown].
sleepy-parse --app xz /var/lib/sleepy > /tmp/service.txt 2> /tmp/service.err
status=$?
share=$(sed -n '/By application and function/,/^$/p' /tmp/service.txt |
	awk '$3 ~ /^xz#/ { all += $1; if (/\(liblzma/) lzma += $1 }
	     END { if (all) printf "%d", 100 * lzma / all; else print 0 }')
check "sleepy-parse /var/lib/sleepy: most of xz's samples in liblzma (${share}%: $(grep -m1 '(liblzma' /tmp/service.txt | sed 's/  */ /g'))" \
	[ "$status" = 0 -a "${share:-0}" -ge 50 ]
mkdir -p "$SLEEPY_RESULTS/profiles"
cp /var/lib/sleepy/*.pb.gz "$SLEEPY_RESULTS/profiles/"
check "no session left running: a new one starts and stops" \
	sh -c 'sleepy-start -o /tmp/after.data > /dev/null && sleepy-stop > /dev/null'

files=$(dpkg -L sleepy-tools | while read -r f; do [ -f "$f" ] && echo "$f"; done)
conffiles=$(dpkg-query -W -f='${Conffiles}' sleepy-tools | awk '{ print $1 }')
dpkg -r sleepy-tools > /tmp/remove.out 2>&1
left=$(for f in $files; do [ -e "$f" ] && ! echo "$conffiles" | grep -qx "$f" && echo "$f"; done)
check "dpkg -r sleepy-tools leaves none of its $(echo "$files" | wc -w) files but its conffiles ($conffiles; status: $(status sleepy-tools)${left:+; left: $left})" \
	eval '[ -n "$files" ] && [ -z "$left" ] && [ "$(status sleepy-tools)" != "install ok installed" ]'
dpkg -P sleepy-tools > /tmp/purge.out 2>&1
left=$(for f in $conffiles /var/lib/sleepy; do [ -e "$f" ] && echo "$f"; done)
check "dpkg -P sleepy-tools: conffiles and the profiles gone too${left:+ (left: $left)}" \
	eval '[ -z "$left" ] && [ -z "$(status sleepy-tools)" -o "$(status sleepy-tools)" = "unknown ok not-installed" ]'
