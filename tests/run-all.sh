#!/bin/bash
# make test: builds everything, runs every test and prints one summary
# line "N passed, N failed"; exits non-zero if anything failed.
#   host:   unit tests of the userland library, series + checkpatch
#   guest:  KUnit at boot, the kselftest ABI suite, the tools end to end
#   debug:  a lockdep/KASAN/RCU kernel under a fork/exec + session storm
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
logs=$top/out/test
mkdir -p "$logs"
pass=0 fail=0
result() {	# result ok|fail NAME
	if [ "$1" = ok ]; then pass=$((pass + 1)); echo "ok - $2"
	else fail=$((fail + 1)); echo "not ok - $2"; fi
}
step() {	# step NAME LOG COMMAND...: a build step that must work
	local name=$1 log=$2; shift 2
	local t0=$(date +%s)
	if "$@" > "$log" 2>&1; then
		result ok "$name ($(( $(date +%s) - t0 )) s)"
	else
		result fail "$name (see ${log#$top/})"; tail -n 20 "$log"
		return 1
	fi
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit $?
}
# Results a guest printed as "PREFIX(not )ok ..." lines, counted.
collect() {	# collect LOG PREFIX LABEL EXPECTED AFTER: AFTER follows "ok "
	local log=$1 prefix=$2 label=$3 expected=$4 after=$5 n=0 line
	while IFS= read -r line; do
		n=$((n + 1))
		case $line in
		"${prefix}not ok"*) line=${line#${prefix}not ok }; result fail "$label: ${line#- }" ;;
		*) line=${line#${prefix}ok }; result ok "$label: ${line#- }" ;;
		esac
	done < <(sed -e 's/\r$//' -e 's/^\[ *[0-9.]*\] //' "$log" | grep -E "^${prefix}(not )?ok ${after}")
	[ "$n" -ge "$expected" ] || result fail "$label: only $n results, expected $expected (crash or hang?)"
}
# The results of one guest run: KUnit at boot, kselftest, the scripts.
guest_results() {	# guest_results LOG LABEL SCRIPT_RESULTS KSELFTESTS
	collect "$1" "    " "$2 kunit" 8 "[0-9]+ sleepy_test_"
	collect "$1" "selftest: " "$2 kselftest" "$4" "[0-9]+ "
	collect "$1" "" "$2" "$3" "- "
	scan_kernel_reports "$1" "$2"
}
# Any kernel report in a console log fails the run.
scan_kernel_reports() {	# scan_kernel_reports LOG LABEL
	local hits
	hits=$(grep -aE 'WARNING:|BUG:|Oops|Call Trace:|rcu: INFO:|self-detected stall|INFO: task .* blocked|segfault at|UBSAN:|possible recursive locking|possible circular locking|inconsistent lock state|INFO: lockdep|DEBUG_LOCKS_WARN_ON|KASAN:|suspicious RCU usage|sleeping function called from invalid context|list_add corruption|list_del corruption|Kernel panic' "$1" | head -n 5)
	if [ -z "$hits" ]; then result ok "$2: no kernel warning in the console"
	else result fail "$2: kernel reports in the console: $hits"; fi
}

step "install dependencies" "$logs/deps.log" bash scripts/deps.sh || finish
step "prepare the kernel tree (Debian linux-source-6.12 + series)" "$logs/tree.log" bash scripts/prepare-kernel.sh || finish
echo "# $(tail -n1 "$logs/tree.log")"
step "build the kernel" "$logs/kernel.log" bash scripts/build-kernel.sh normal || finish
sparse_check() {	# sparse and W=1 over every file of kernel/sleepy: no warning
	local out files
	touch build/linux/kernel/sleepy/*.c
	files=$(ls build/linux/kernel/sleepy/*.c | wc -l)
	out=$(make -C build/linux O="$top/build/kernel-normal" CC="ccache gcc" C=2 W=1 kernel/sleepy/ 2>&1) ||
		{ echo "$out"; echo "make C=2 W=1 kernel/sleepy/ failed"; return 1; }
	echo "$out"
	[ "$(grep -c '^  CHECK .*/kernel/sleepy/' <<< "$out")" = "$files" ] ||
		{ echo "sparse did not check the $files files"; return 1; }
	[ "$(grep -c '^  CC *kernel/sleepy/.*\.o$' <<< "$out")" = "$files" ] ||
		{ echo "W=1 did not compile the $files files"; return 1; }
	! grep -E ': (warning|error):' <<< "$out"
}
step "sparse and W=1 (make C=2 W=1 kernel/sleepy/): no warnings" "$logs/sparse.log" sparse_check
step "build the userland tools and tests" "$logs/userland.log" make -s userland || finish
step "build the initramfs" "$logs/initramfs.log" make -s initramfs || finish

echo "== host: userland unit tests"
build/userland/tests/test_recording build/userland > "$logs/host-unit.log" 2>&1
collect "$logs/host-unit.log" "" "host" 30 "[0-9]+ - "

echo "== host: fuzzing the recording reader (userland/fuzz/)"
step "build the fuzzer and the corpus replay (clang, ASan, UBSan)" "$logs/fuzz-build.log" \
	make -s -C userland/fuzz O="$top/build/fuzz" HDR="$top/build/headers/include"
build/fuzz/replay_recording userland/fuzz/corpus userland/fuzz/regressions > "$logs/fuzz-replay.log" 2>&1
collect "$logs/fuzz-replay.log" "" "fuzz" \
	"$(find userland/fuzz/corpus userland/fuzz/regressions -type f ! -name '.*' | wc -l)" "[0-9]+ - "
step "fuzz the recording reader and reports for 60 s: no crash" "$logs/fuzz.log" bash scripts/fuzz.sh 60 1
echo "# $(tail -n 1 "$logs/fuzz.log")"

echo "== host: patch series"
bash scripts/mkseries.sh --check > "$logs/series.log" 2>&1
result $([ $? = 0 ] && echo ok || echo fail) "make series: format-patch series with cover letter in out/series"
collect "$logs/series.log" "" "series" 24 "- "

echo "== guest: normal kernel (KUnit at boot, kselftest, tools)"
bash qemu/boot.sh build/kernel-normal/arch/x86/boot/bzImage build/initramfs.cpio.gz test \
	"$logs/guest.log" 1500 > /dev/null 2>&1
result $([ $? = 0 ] && echo ok || echo fail) "guest boots and finishes the test run"
# 49 from the tools' scripts, 12 from test-abi-attack.sh
guest_results "$logs/guest.log" guest 61 22

echo "== guest under -icount: 15 to 50 kHz on two busy vCPUs, no stall"
QEMU_EXTRA="-icount shift=1,sleep=off" bash qemu/boot.sh build/kernel-normal/arch/x86/boot/bzImage \
	build/initramfs.cpio.gz icount "$logs/icount.log" 900 "kunit.enable=0" > /dev/null 2>&1
result $([ $? = 0 ] && echo ok || echo fail) "icount guest boots and finishes its sessions"
# 2 results per frequency, 3 frequencies
collect "$logs/icount.log" "" "icount" 6 "- "
scan_kernel_reports "$logs/icount.log" icount

echo "== debug kernel (lockdep, KASAN, RCU, atomic-sleep): stress"
step "build the debug kernel" "$logs/kernel-debug.log" bash scripts/build-kernel.sh debug &&
{
	bash qemu/boot.sh build/kernel-debug/arch/x86/boot/bzImage build/initramfs.cpio.gz stress \
		"$logs/debug.log" 2400 > /dev/null 2>&1
	result $([ $? = 0 ] && echo ok || echo fail) "debug guest boots and finishes the stress run"
	# 1 from the storm, 12 from test-abi-attack.sh, 6 from test-trinity.sh
	guest_results "$logs/debug.log" debug 19 22
}
finish
