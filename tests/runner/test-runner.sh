#!/bin/bash
# make test's own rules, each broken on purpose (TAP): a group whose exit
# status never came back, a plan of nothing, a short group, a skip nobody
# expects, a console with a kernel report (a kernel notice beside one
# too), without the kernel's banner or that grep cannot scan, a command
# that runs past the deadline and a guest whose console falls silent all
# fail; a clean group, an expected skip and a console clean but for a
# kernel notice do not.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() {	# check NAME COMMAND...
	n=$((n + 1))
	if "${@:2}"; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}
# counts CODE: runs CODE with lib.sh's counters fresh, prints
# "PASS FAIL SKIPPED" on the last line, CODE's output before it.
counts() {
	(
		logs=$tmp deadline=$(( $(date +%s) + ${DEADLINE_IN:-3600} ))
		pass=0 fail=0 skipped=0
		. "$top/tests/runner/lib.sh"
		eval "$1"
		echo "$pass $fail $skipped"
	) 2>&1
}
is() {	# is "PASS FAIL SKIPPED" CODE
	[ "$(counts "$2" | tail -n 1)" = "$1" ]
}
echo "1..16"

printf '1..2\nok 1 - a\nok 2 - b\n' > "$tmp/good.tap"
check "a complete group with exit status 0 passes" is "2 0 0" 'tap_group g "$tmp/good.tap" 0'
check "the same group whose exit status did not come back fails" is "2 1 0" 'tap_group g "$tmp/good.tap" ""'
check "the same group exiting 139 (a crash) fails" is "2 1 0" 'tap_group g "$tmp/good.tap" 139'
printf '1..3\nok 1 - a\nok 2 - b\n' > "$tmp/short.tap"
check "a group with 2 results for a plan of 3 fails" is "2 1 0" 'tap_group g "$tmp/short.tap" 0'
printf '1..2\n# RUN a\nok 1 - a\n# RUN b\n# b.c:9:b:Expected 1 (1) == c.exits (0)\nnot ok 2 - b\n' > "$tmp/bad.tap"
check "a failed result shows its own diagnostics, not the one's before" eval \
	'out=$(counts "tap_group g \"$tmp/bad.tap\" 1"); [ "$(tail -n 1 <<< "$out")" = "1 1 0" ] &&
	 grep -qx "    # b.c:9:b:Expected 1 (1) == c.exits (0)" <<< "$out" && ! grep -q "RUN a" <<< "$out"'
printf '1..0\n' > "$tmp/empty.tap"
check "a plan of no results (1..0) fails" is "0 1 0" 'tap_group g "$tmp/empty.tap" 0'
printf '1..2\nok 1 - a\nok 2 - sleepy.cpu_hotplug # SKIP no second CPU\n' > "$tmp/skip.tap"
check "a skip tests/expected-skips does not list fails" is "1 1 0" 'tap_group "guest kselftest-sample" "$tmp/skip.tap" 0'
check "the skip it lists (i386 hog) is a skip" is "1 0 1" 'tap_group "guest kselftest-i386-sample" "$tmp/skip.tap" 0'

printf 'Linux version 6.12\nsleepy: ok\n' > "$tmp/clean.log"
printf 'Linux version 6.12\nWARNING: CPU: 1 PID: 7 at kernel/sleepy/buffer.c:10\n' > "$tmp/warn.log"
printf 'sleepy: ok\n' > "$tmp/nobanner.log"
check "a clean console passes" is "1 0 0" 'scan_kernel_reports "$tmp/clean.log" c'
check "a console with a WARNING fails" is "0 1 0" 'scan_kernel_reports "$tmp/warn.log" c'
mand='[  404.201783] WARNING: The mand mount option has been deprecated and'
printf 'Linux version 6.12\n%s\r\n' "$mand" > "$tmp/notice.log"
cat "$tmp/notice.log" "$tmp/warn.log" > "$tmp/notice-warn.log"
check "a console whose only hit is a kernel notice (the mand option) passes" is "1 0 0" \
	'scan_kernel_reports "$tmp/notice.log" c'
check "the notice beside a WARNING fails" is "0 1 0" 'scan_kernel_reports "$tmp/notice-warn.log" c'
check "a console without the kernel's banner fails" is "0 1 0" 'scan_kernel_reports "$tmp/nobanner.log" c'
check "a scan that cannot run (no pattern file) fails" is "0 1 0" \
	'top=$tmp/nowhere; scan_kernel_reports "$tmp/clean.log" c'

# The deadline 61 s away leaves 1 s: a 30 s sleep is killed within seconds.
start=$(date +%s)
out=$(DEADLINE_IN=61 counts 'watch "$tmp/sleep.log" "" sleep 30; echo "status $?"')
took=$(( $(date +%s) - start ))
check "a command past the deadline is killed in $took s, status 124 ($(echo $out | tr '\n' ' '))" \
	eval '[ "$took" -lt 20 ] && grep -q "^status 124$" <<< "$out" && grep -q "deadline" "$tmp/sleep.log"'
# A guest that hangs after boot (init only sleeps) is stopped once its
# console has been silent for 15 s (QEMU_SILENCE), well before its
# timeout, and where its vCPUs were is named from System.map.
start=$(date +%s)
QEMU_SILENCE=0.25 QEMU_SYSTEM_MAP=$top/build/kernel-normal/System.map bash "$top/qemu/boot.sh" \
	"$top/build/kernel-normal/arch/x86/boot/bzImage" "$top/build/initramfs.cpio.gz" boot \
	"$tmp/silent.log" 600 "kunit.enable=0 rdinit=/bin/busybox -- sleep 3600" > "$tmp/silent.out" 2>&1
status=$? took=$(( $(date +%s) - start ))
check "a silent guest is stopped in $took s, exit $status: $(tail -n 1 "$tmp/silent.out")" \
	eval '[ "$status" = 1 ] && [ "$took" -lt 300 ] &&
	 grep -Eq "^stall-watch: sample 5: vCPU 0: [A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+ \(CPL 0" "$tmp/silent.log"'
grep '^stall-watch' "$tmp/silent.log" | sed 's/^/# /'
[ "$failed" = 0 ]
