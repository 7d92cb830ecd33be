#!/bin/bash
# make run: boot the guest, profile the benchmarks or $PROGRAM $ARGS (with
# the profiler options $SLEEPY_OPTS), print the reports; the recording, a
# flame graph, the pprof profile and the console log land in out/.  Fails if the program did.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
initrd=$top/build/initramfs-run.cpio.gz
bash "$top/qemu/mkinitramfs.sh" "$initrd" "${PROGRAM:-}" "${ARGS:-}"
mkdir -p "$top/out"
rm -f "$top/out/sleepy.data" "$top/out/profile.pb.gz" "$top/out/flamegraph.svg" \
	"$top/out/run-status"
echo "run: Linux $(make -s -C "$top/build/linux" kernelversion) + sleepy, QEMU TCG, 2 vCPUs${PROGRAM:+, profiling $PROGRAM ${ARGS:-}}${SLEEPY_OPTS:+, options $SLEEPY_OPTS}"
# The whole console goes to out/console.log; show what the guest says.
# loglevel=6: the banner, warnings and errors reach the console (make
# test scans it), the boot's informational lines do not.
bash "$top/qemu/boot.sh" "$top/build/kernel-normal/arch/x86/boot/bzImage" "$initrd" run \
	"$top/out/console.log" 900 "kunit.enable=0 loglevel=6" |
	awk '/sleepy-guest: Linux/ { on = 1; sub(/.*sleepy-guest/, "sleepy-guest") } on'
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
status=$(cat "$top/out/run-status" 2>/dev/null || echo "no status")
case $status in
0) ;;
[0-9]*) echo "run: ${PROGRAM:-a benchmark} exited with status $status" >&2; exit 1 ;;
*) echo "run: the guest reports: $status" >&2; exit 1 ;;
esac
[ -s "$top/out/sleepy.data" ] || { echo "run: no recording came back from the guest" >&2; exit 1; }
for f in profile.pb.gz flamegraph.svg; do
	[ -s "$top/out/$f" ] || { echo "run: no out/$f came back from the guest" >&2; exit 1; }
done
echo "run: recording in out/sleepy.data, console in out/console.log; report again with: build/userland/sleepy-parse out/sleepy.data"
echo "run: flame graph in out/flamegraph.svg (open it in a browser); pprof profile in out/profile.pb.gz (go tool pprof -top out/profile.pb.gz, or -http=:)"
