#!/bin/bash
# make test: builds everything, runs every test and ends with one summary
# line "N passed, N failed, N skipped"; exits non-zero if anything failed.
#   host:   make test's own rules (tests/runner), unit tests of the
#           userland library, fuzz corpus replay and a
#           short fuzz run, docs/performance.md's figures against bench/results,
#           the patch series (checkpatch, per-patch builds, sparse,
#           CONFIG_SLEEPY=n)
#   guest:  KUnit at boot, the kselftest ABI suite (x86-64 and i386), the
#           tools end to end; then under -icount, 15 to 50 kHz sessions;
#           make run with a user's PIE program
#   debug:  a lockdep/KASAN/RCU kernel: KUnit, a fork/exec + session
#           storm, kselftest, hostile system calls, trinity
# Fails closed: every group of results is TAP with a plan and must print
# exactly that many results; every program's exit status is checked; the
# guests' results come back as files over 9p; a group that did not run is
# a failure.  One deadline bounds the whole run (SLEEPY_TEST_MINUTES,
# default 85, under CI's 90): a guest gets at most what is left, and the
# summary is printed whatever hangs.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
logs=$top/out/test
results=$logs/results
mkdir -p "$logs"
t0=$(date +%s)
deadline=$((t0 + ${SLEEPY_TEST_MINUTES:-85} * 60))
pass=0 fail=0 skipped=0
. "$top/tests/runner/lib.sh"
stage_name= stage_t0= stage_times=()

clock() { local s=$(( $(date +%s) - t0 )); printf '%d:%02d' $((s / 60)) $((s % 60)); }
# Each stage's time in the last run on this machine (build/ is kept), for
# the progress lines; a new machine has none, and no estimate is given.
last_times=$top/build/test-stage-times
[ -f "$last_times" ] && cp "$last_times" "$logs/last-stage-times" || : > "$logs/last-stage-times"
end_stage() {
	[ -n "$stage_name" ] && stage_times+=("$(( $(date +%s) - stage_t0 )) s  $stage_name")
	stage_name=
}
stage() {	# stage NAME: the next part of the run, timed for the summary
	local last
	end_stage
	stage_name=$1 stage_t0=$(date +%s)
	last=$(awk -v n="$1" 'substr($0, index($0, "  ") + 2) == n { print $1 }' "$logs/last-stage-times")
	echo "== [$(clock)] $1${last:+ (last run on this machine: $last s)}"
}
finish() {
	end_stage
	echo "== stage times (total $(clock)):"
	printf '   %s\n' "${stage_times[@]}"
	mkdir -p "$top/build" && printf '%s\n' "${stage_times[@]}" > "$last_times"
	echo "$pass passed, $fail failed, $skipped skipped"
	[ "$fail" = 0 ]
	exit $?
}
trap 'echo "make test: interrupted"; fail=$((fail + 1)); finish' INT TERM

step() {	# step NAME LOG PROGRESS COMMAND...: a build step that must work
	local name=$1 log=$2 progress=$3 t=$(date +%s)
	shift 3
	if watch "$log" "$progress" "$@"; then
		result ok "$name ($(( $(date +%s) - t )) s)"
	else
		result fail "$name (see ${log#$top/})"; tail -n 20 "$log"
		return 1
	fi
}
build_kernel() {	# build_kernel FLAVOR [NICENESS]
	nice -n "${2:-0}" bash scripts/build-kernel.sh "$1"
}
last_line() { tail -n 1 "$1" | cut -c1-150; }
# Progress of a guest: results so far, and the group running.
guest_progress() {	# guest_progress LABEL
	local dir=$results/$1 last
	last=$(ls -t "$dir"/*.tap 2>/dev/null | head -n 1)
	echo "$(cat "$dir"/*.tap 2>/dev/null | grep -cE '^(not )?ok ') results${last:+, in $(basename "$last" .tap)}"
}
tap_results() { echo "$(grep -cE '^(not )?ok ' "$1") results"; }

# A second 9p device (the repository's qemu/, read-only; test-irq mounts
# it) in slot 8, whose INTx the pc machine routes to IRQ 11 as the
# share's: a shared line, for the histograms per action.
shared_irq_device="-fsdev local,id=aux,path=$top/qemu,security_model=none,readonly=on
	-device virtio-9p-pci,fsdev=aux,mount_tag=aux,addr=08"
# guest_boot LABEL MODE KERNEL TIMEOUT EXTRA_CMDLINE: boots a guest (QEMU_EXTRA
# and QEMU_MEM reach boot.sh) whose results land in out/test/results/LABEL,
# one TAP file and one exit status per group; TIMEOUT is cut to what the
# run's deadline leaves.
guest_boot() {
	local label=$1 mode=$2 kernel=$3 timeout=$4 extra=$5 dir=$results/$1 left
	rm -rf "$dir"
	mkdir -p "$dir"
	left=$((deadline - $(date +%s) - 60))
	[ "$left" -lt "$timeout" ] && timeout=$left
	if [ "$timeout" -lt 120 ]; then
		echo "boot.sh: not started: the run's deadline has passed" > "$logs/$label.log"
		return 1
	fi
	# A console silent for 20 minutes (no check runs that long) ends the
	# guest before its timeout, naming where its vCPUs were.
	QEMU_SILENCE=20 QEMU_SYSTEM_MAP=${kernel%/arch/x86/boot/bzImage}/System.map \
		bash qemu/boot.sh "$kernel" "${GUEST_INITRD:-build/initramfs.cpio.gz}" "$mode" "$logs/$label.log" \
		"$timeout" "sleepy.results=$label $extra"
}
# guest_start LABEL ...: guest_boot in the background; its exit status
# goes to a file too: bash forgets a background job's status once enough
# later jobs have ended (the debug guest, finished before its stage, was
# once "not a child of this shell" and counted as failed).
declare -A guest_pid guest_t0 guest_timeout guest_status
guest_start() {
	guest_t0[$1]=$(date +%s) guest_timeout[$1]=$4
	rm -f "$logs/$1.status"
	echo "   [$(clock)] $1 guest started"
	{ guest_boot "$@"; echo $? > "$logs/$1.status"; } > /dev/null 2>&1 &
	guest_pid[$1]=$!
}
guest_exit_status() {	# guest_exit_status LABEL: what its guest_boot returned
	cat "$logs/$1.status" 2>/dev/null || echo "no exit status"
}
# guest_finish LABEL GROUP...: waits for the guest, then checks each GROUP
# against its plan, that no other group ran, the kernel's taint flags and
# the console.
guest_finish() {
	local label=$1 dir=$results/$1 g f tainted status
	shift
	if [ -n "${guest_status[$label]-}" ]; then
		status=${guest_status[$label]}
	else
		watch_pid "${guest_pid[$label]}" "guest_progress $label"
		status=$(guest_exit_status "$label")
	fi
	result $([ "$status" = 0 ] && echo ok || echo fail) \
		"$label: the guest boots and finishes (${guest_timeout[$label]} s allowed; $(( $(date +%s) - guest_t0[$label] )) s since it was started) ($(tail -n 1 "$logs/$label.log" 2>/dev/null | tr -d '\r'))"
	for g; do
		tap_group "$label $g" "$dir/$g.tap" "$(cat "$dir/$g.exit" 2>/dev/null)"
	done
	for f in "$dir"/*.tap; do
		[ -e "$f" ] || continue
		g=$(basename "$f" .tap)
		[[ " $* " == *" $g "* ]] || result fail "$label: group $g ran but the runner does not check it"
	done
	# KUnit taints the kernel with TEST (bit 18) by design; nothing else may.
	tainted=$(cat "$dir/tainted" 2>/dev/null)
	if [ -z "$tainted" ] || [ ! -e "$dir/done" ]; then
		result fail "$label: the guest did not reach the end of its run"
	elif (( tainted & ~(1 << 18) )); then
		result fail "$label: the kernel is tainted (/proc/sys/kernel/tainted = $tainted)"
	else
		result ok "$label: the kernel is not tainted (tainted = $tainted; KUnit's TEST flag allowed)"
	fi
	scan_kernel_reports "$logs/$label.log" "$label"
}

stage "dependencies and the kernel tree"
step "install dependencies" "$logs/deps.log" "" bash scripts/deps.sh || finish
step "prepare the kernel tree (Debian linux-source-6.12 + series)" "$logs/tree.log" "" \
	bash scripts/prepare-kernel.sh || finish
echo "# $(tail -n1 "$logs/tree.log")"

stage "normal kernel, tools, initramfs"
step "build the kernel (CONFIG_WERROR: no compiler warning)" "$logs/kernel.log" \
	"last_line $logs/kernel.log" build_kernel normal || finish
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
step "sparse and W=1 (make C=2 W=1 kernel/sleepy/): no warnings" "$logs/sparse.log" "" sparse_check
step "build the userland tools and tests" "$logs/userland.log" "" make -s userland || finish
step "build the initramfs" "$logs/initramfs.log" "" make -s initramfs || finish

# The debug kernel builds (at nice 19 while the normal guests run, then
# at nice 0), then two guests boot on it in the background, one host core
# each (run-stress.sh: "sessions", and "attack" with the hostile system
# calls, about as long): the build and the longer guest are the longest
# chain of the run, so the rest runs one job at a time beside them, the
# normal guests beside the build, the series check's compiles beside the
# debug guests one at a time (a second starts only while the load average
# is below the cores + 0.5: once the debug guests have ended).
debug_parts="sessions attack"
debug_pipeline() {
	local part
	build_kernel debug 19 > "$logs/kernel-debug.log" 2>&1
	echo $? > "$logs/kernel-debug.status"
	[ "$(cat "$logs/kernel-debug.status")" = 0 ] || exit 1
	# KASAN takes memory: 2 GiB leaves the ABI test's two 256 MiB buffers
	# twice what they need (1087 MiB available with 1.5 GiB, 1024 needed).
	# tsc=reliable: beside the series build the clocksource watchdog's
	# reads took up to 0.85 ms and it switched the guest to the emulated
	# HPET (an MMIO exit per clock read), after which that run hung
	# silently in the sched storm; QEMU's TSC follows the host's clock.
	# KUnit runs in the sessions guest only.
	for part in $debug_parts; do
		{
			QEMU_MEM=2048 QEMU_EXTRA="$shared_irq_device" \
				guest_boot "debug-$part" "stress-$part" \
				build/kernel-debug/arch/x86/boot/bzImage 3600 \
				"tsc=reliable$([ "$part" = attack ] && echo " kunit.enable=0")"
			echo $? > "$logs/debug-$part.status"
		} &
	done
	wait
}
for part in $debug_parts; do
	rm -f "$logs/debug-$part.status"
	guest_t0[debug-$part]=$(date +%s) guest_timeout[debug-$part]=3600
done
rm -f "$logs/kernel-debug.status"
debug_pipeline > /dev/null 2>&1 &
debug_pid=$!
echo "   [$(clock)] debug kernel build and debug guests started in the background"

stage "guests: normal, -icount, a held mmap_lock (beside the debug kernel's build)"
# Timeouts: more than three times the run measured on a 2-core machine
# beside the debug kernel's build (normal 160 s, icount 40 s), so that a
# machine 2-3x slower passes; the run's deadline bounds them too.
QEMU_EXTRA="$shared_irq_device" \
	guest_start guest test build/kernel-normal/arch/x86/boot/bzImage 600 ""
guest_finish guest kunit-sleepy_apps kunit-sleepy_buffer kunit-sleepy_irq \
	kselftest kselftest-process kselftest-sample kselftest-sched \
	kselftest-i386 kselftest-i386-process kselftest-i386-sample kselftest-i386-sched \
	tools agent accuracy idle drain sched irq stacks abi-attack
# 15 to 50 kHz on two busy vCPUs: no stall, the loops keep running; and
# btree's samples, where time is instructions, against callgrind's count
# of them (run on the host meanwhile) and against nm.
. qemu/guest/bench-workloads.sh
bounded valgrind --tool=callgrind --callgrind-out-file="$logs/callgrind.btree" \
	build/userland/bench/btree $(workload_args btree) > "$logs/callgrind.log" 2>&1 &
callgrind_pid=$!
QEMU_EXTRA="-icount shift=1,sleep=off" guest_start icount icount \
	build/kernel-normal/arch/x86/boot/bzImage 180 "kunit.enable=0"
guest_finish icount icount icount-accuracy
if wait $callgrind_pid && callgrind_annotate --threshold=100 "$logs/callgrind.btree" > "$logs/callgrind-btree.txt"; then
	bounded python3 tests/accuracy/check-accuracy.py "$results/icount/btree.json" \
		build/userland/bench/btree "$logs/callgrind-btree.txt" > "$logs/accuracy-icount.log" 2>&1
	tap_group "icount accuracy" "$logs/accuracy-icount.log" $?
else
	result fail "callgrind on btree (see out/test/callgrind.log)"
fi
# A 9p share QEMU throttles to 2 KiB/s, whose page reads hold a process's
# mmap_lock for seconds (test-mm-lock.sh): about 20 s of the guest's run
# is that wait, in host time, whatever the machine's speed.
mkdir -p build/throttled
[ -s build/throttled/data ] || head -c 65536 /dev/zero > build/throttled/data
QEMU_EXTRA="-fsdev local,id=slow,path=$top/build/throttled,security_model=none,readonly=on,throttling.bps-read=2048
	-device virtio-9p-pci,fsdev=slow,mount_tag=slow" \
	guest_start mm-lock mm-lock build/kernel-normal/arch/x86/boot/bzImage 300 "kunit.enable=0"
guest_finish mm-lock mm-lock
# The normal guests are done: the debug kernel's build, at nice 19 beside
# them, takes an equal share from here.  With ccache cold it is the
# longest chain (a cold run: built in 22 minutes, at nice 19 all along).
renice_tree 0 "$debug_pid"

stage "host: unit tests and fuzzing"
# The runner's own rules, each broken on purpose once.
bounded bash tests/runner/test-runner.sh > "$logs/runner.log" 2>&1
tap_group runner "$logs/runner.log" $?
bounded build/userland/tests/test_recording build/userland > "$logs/host-unit.log" 2>&1
tap_group host "$logs/host-unit.log" $?
# userland/lib/'s layers: includes point down, no two files need each other.
bounded python3 userland/check-layers.py > "$logs/layers.log" 2>&1
tap_group "library layers" "$logs/layers.log" $?
bounded python3 userland/check-layers.py --self-test > "$logs/layers-test.log" 2>&1
tap_group "library layers check fails on a broken library" "$logs/layers-test.log" $?
# The host's kernel has no sleepy: the tools say so in one line, exit 1.
if grep -qw __x64_sys_sleepy_start /proc/kallsyms; then
	skip_or_fail "tools on a kernel without sleepy (this host runs one with it)"
else
	for tool in "sleepy-start -o $logs/nosleepy.data" sleepy-stop; do
		out=$(build/userland/$tool 2>&1); status=$?
		if [ $status = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		   grep -q 'no sleepy support' <<< "$out"; then
			result ok "${tool%% *} on a kernel without sleepy: exit 1, one line ($out)"
		else
			result fail "${tool%% *} on a kernel without sleepy: exit $status: $out"
		fi
	done
fi
step "build the fuzzer and the corpus replay (clang, ASan, UBSan)" "$logs/fuzz-build.log" "" \
	make -s -C userland/fuzz O="$top/build/fuzz" HDR="$top/build/headers/include"
bounded build/fuzz/replay_recording userland/fuzz/corpus userland/fuzz/regressions > "$logs/fuzz-replay.log" 2>&1
tap_group "fuzz replay" "$logs/fuzz-replay.log" $?
bounded build/fuzz/replay_elf userland/fuzz/corpus-elf userland/fuzz/regressions-elf > "$logs/fuzz-replay-elf.log" 2>&1
tap_group "fuzz replay (ELF)" "$logs/fuzz-replay-elf.log" $?
step "fuzz the recording reader and reports, and the ELF reading, for 60 s: no crash" \
	"$logs/fuzz.log" "" bash scripts/fuzz.sh 60 1
tail -n 2 "$logs/fuzz.log" | sed 's/^/# /'

bounded python3 bench/check-readme-test.py > "$logs/readme-check-test.log" 2>&1
tap_group "check-readme fails on a broken page" "$logs/readme-check-test.log" $?
bounded python3 bench/check-readme.py > "$logs/readme-figures.log" 2>&1
tap_group "docs/performance.md figures in bench/results" "$logs/readme-figures.log" $?
bounded python3 bench/check-readme.py patches/cover-letter.txt > "$logs/cover-figures.log" 2>&1
tap_group "the cover letter's figures in bench/results" "$logs/cover-figures.log" $?

stage "host: the patch series"
SERIES_JOBS=$(nproc) SERIES_LOAD=$(nproc).5 watch "$logs/series.log" "tap_results $logs/series.log" bash scripts/mkseries.sh --check
tap_group series "$logs/series.log" $?

stage "make run: a PIE program with its library under /tmp, SLEEPY_OPTS, a failing program"
bounded bash tests/run/test-make-run.sh > "$logs/make-run.log" 2>&1
tap_group "make run" "$logs/make-run.log" $?

stage "Debian: packages (make deb), a bookworm image with them (make image), systemd boots it"
# The test kernel's configuration, not Debian's (make deb-debian builds
# that one): bindeb-pkg relinks and packages the kernel already built.
lintian_check() {	# errors and warnings fail
	lintian --fail-on error,warning out/deb/sleepy-tools_*.deb
}
if step "make deb: linux-image, linux-headers and sleepy-tools" "$logs/deb.log" "" \
	bash scripts/make-deb.sh &&
   step "lintian out/deb/sleepy-tools_*.deb: no error, no warning" "$logs/lintian.log" "" lintian_check &&
   step "make image IMAGE_VARIANT=minimal: mmdebstrap, then apt installs the packages" \
	"$logs/image.log" "" bash scripts/make-image.sh minimal; then
	QEMU_IMAGE=build/image/minimal.img GUEST_INITRD=build/image/minimal.initrd \
		guest_start image packages build/image/minimal.vmlinuz 900 ""
	guest_finish image packages
	# sleepy.service's profiles, in a reader we did not write.
	profiles=$(ls "$results"/image/profiles/*.pb.gz 2>/dev/null)
	if [ -n "$profiles" ] &&
	   bounded timeout 300 go tool pprof -top -sample_index=samples $profiles > "$logs/service-pprof.log" 2>&1 &&
	   grep -q 'liblzma' "$logs/service-pprof.log"; then
		result ok "go tool pprof reads sleepy.service's $(wc -w <<< "$profiles") profiles, liblzma among their functions"
	else
		result fail "go tool pprof on sleepy.service's profiles (${profiles:-none}; see out/test/service-pprof.log)"
	fi
fi

stage "debug kernel (lockdep, KASAN, RCU, atomic-sleep): its guests' results"
watch_pid "$debug_pid" "guest_progress debug-sessions"
if [ "$(cat "$logs/kernel-debug.status" 2>/dev/null)" = 0 ]; then
	result ok "build the debug kernel ($(grep 'built in' "$logs/kernel-debug.log"))"
	for part in $debug_parts; do
		guest_status[debug-$part]=$(guest_exit_status "debug-$part")
	done
	guest_finish debug-sessions kunit-sleepy_apps kunit-sleepy_buffer kunit-sleepy_irq storm sched-storm \
		kselftest kselftest-process kselftest-sample kselftest-sched idle irq trinity
	guest_finish debug-attack abi-attack drain
else
	result fail "build the debug kernel (see out/test/kernel-debug.log)"; tail -n 20 "$logs/kernel-debug.log"
fi
finish
