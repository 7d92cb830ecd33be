#!/bin/sh
# test-packages.sh, in the Debian image make image builds: systemd brings
# the system up on the packaged kernel, sleepy-tools as apt installed it
# profiles a dynamically linked Debian program (xz, stripped, with its
# liblzma) and names functions of liblzma and libc from their .dynsym, and
# dpkg -r leaves none of the package's files behind.
. /mnt/tests/guest/lib.sh
cd /tmp
plan 8

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

files=$(dpkg -L sleepy-tools | while read -r f; do [ -f "$f" ] && echo "$f"; done)
dpkg -r sleepy-tools > /tmp/remove.out 2>&1
left=$(for f in $files; do [ -e "$f" ] && echo "$f"; done)
check "dpkg -r sleepy-tools leaves none of its $(echo "$files" | wc -w) files (status: $(status sleepy-tools)${left:+; left: $left})" \
	eval '[ -n "$files" ] && [ -z "$left" ] && [ "$(status sleepy-tools)" != "install ok installed" ]'
