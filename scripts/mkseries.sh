#!/bin/bash
# make series: exports kernel-overlay/ + patches/ as a git format-patch
# series with a cover letter, on top of the pristine Debian source, into
# out/series.  With --check, also builds the kernel after every patch and
# runs checkpatch --strict on each, printing "ok - ..." lines.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
check=${1:-}
work=$top/build/series
tree=$work/linux
out=$top/out/series
tarball=$(ls /usr/src/linux-source-6.12.tar.* | head -n1)
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
git_() { git -C "$tree" -c user.name="sleepy developers" -c user.email="sleepy@localhost" "$@"; }

# One commit per logical change: "subject|overlay paths|patch file".
commits=(
"|"'|0001-relay-channels-without-files.patch'
"sleepy: add a sampling profiler with per-application ids|include/uapi/linux/sleepy.h include/linux/sleepy.h kernel/sleepy|0002-sleepy-build.patch"
"|"'|0003-sleepy-syscalls.patch'
"|"'|0004-sleepy-hooks.patch'
"selftests/sleepy: test the system call ABI and the record stream|tools/testing/selftests/sleepy|"
"|"'|0005-selftests-sleepy.patch'
"|Documentation/userspace-api/sleepy.rst|0006-sleepy-docs.patch"
)
core_body="sleepy samples the interrupted context of every CPU from the timer
tick, or from a per-CPU hard-irq hrtimer at a chosen frequency, and
writes the samples with an application id (program name + instance,
unique for the session even across pid reuse) into per-CPU relay
buffers, read through file descriptors the session hands out.  The appid tables are read under
RCU from the interrupt and changed only in process context; the
buffers are written with interrupts off by their own CPU, so neither
needs a lock on the sampling path.  KUnit tests cover both."
selftest_body="kselftest harness tests of every documented error of sleepy_start()
and sleepy_stop(), of start/stop cycles, of new appids on fork, exec
and pid reuse, and of the accounting of samples and drops."

if [ ! -d "$tree/.git" ]; then
	echo "mkseries: making a git tree of the pristine source (once)"
	rm -rf "$work"; mkdir -p "$work"
	tar -C "$work" -xf "$tarball"
	mv "$work/linux-source-6.12" "$tree"
	git_ init -q
	git_ add -A -f
	git_ commit -qm "Linux $(make -s -C "$tree" kernelversion) (Debian linux-source-6.12)"
	git_ tag base
fi
git_ checkout -qf base
git_ clean -fdqx
git_ checkout -qB sleepy

for entry in "${commits[@]}"; do
	IFS='|' read -r subject paths patch <<< "$entry"
	for p in $paths; do
		mkdir -p "$tree/$(dirname "$p")"
		cp -r "$top/kernel-overlay/$p" "$tree/$(dirname "$p")/"
	done
	msg=$(mktemp)
	if [ -n "$patch" ]; then
		git_ apply --index "$top/patches/$patch"
		[ -n "$subject" ] || { sed '/^---$/,$d' "$top/patches/$patch" > "$msg"; }
	fi
	if [ -n "$subject" ]; then
		case $subject in
		sleepy:*) body=$core_body ;;
		selftests*) body=$selftest_body ;;
		esac
		printf '%s\n\n%s\n\nSigned-off-by: sleepy developers <sleepy@localhost>\n' "$subject" "$body" > "$msg"
	fi
	git_ add -A -f
	git_ commit -q -F "$msg"
	rm -f "$msg"
done

rm -rf "$out"; mkdir -p "$out"
git_ format-patch -q --cover-letter -o "$out" base..sleepy
cover=$(ls "$out"/0000-*)
python3 - "$cover" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("*** SUBJECT HERE ***", "sleepy: a built-in sampling profiler per application")
s = s.replace("*** BLURB HERE ***", """This series adds sleepy, a sampling profiler after SLEEPY (2005) rebuilt
for SMP: the timer tick (or a per-CPU hrtimer) records the interrupted
instruction pointers with an application id (program name + instance,
unique for the whole session even when pids are reused), into lock-free
per-CPU relay buffers; sleepy_start() returns a file descriptor that
owns the session and hands out the buffers, sleepy_stop() ends it.  With no session running each hook is one static branch.

The user-space tools (sleepy-start, sleepy-stop, sleepy-record,
sleepy-parse) live in the sleepy project, with a QEMU setup that builds,
boots and tests this series.""")
open(p, "w").write(s)
PY
echo "mkseries: $(ls "$out" | wc -l) files in ${out#$top/} (base: $(git_ log -1 --format=%s base))"

[ "$check" = --check ] || exit 0
status=0
n=0
for patch in "$out"/0*.patch; do
	case $patch in */0000-*) continue ;; esac
	n=$((n + 1))
	# spdxcheck.py needs Debian's python3 (python3-ply, python3-git).
	report=$(PATH=/usr/bin:/bin:$PATH perl "$tree/scripts/checkpatch.pl" --strict -q "$patch" 2>&1 || true)
	errors=$(grep -c '^ERROR:' <<< "$report" || true)
	warnings=$(grep -c '^WARNING:\|^CHECK:' <<< "$report" || true)
	if [ "$errors" = 0 ]; then
		echo "ok - checkpatch --strict: patch $n: no errors ($warnings warnings/checks)"
	else
		echo "not ok - checkpatch --strict: patch $n: $errors errors"; echo "$report" | head -n 20
		status=1
	fi
done
# Every patch builds: the normal config, applied commit by commit.
kout=$top/build/kernel-series
mkdir -p "$kout"
n=0
for commit in $(git_ rev-list --reverse base..sleepy); do
	n=$((n + 1))
	git_ checkout -q "$commit"
	cp "$top/build/kernel-normal/.config" "$kout/.config"
	if make -s -C "$tree" O="$kout" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)" olddefconfig bzImage > "$kout/build-$n.log" 2>&1; then
		echo "ok - series: the kernel builds after patch $n ($(git_ log -1 --format=%s))"
	else
		echo "not ok - series: the kernel does not build after patch $n"; tail -n 20 "$kout/build-$n.log"
		status=1
	fi
done
git_ checkout -q sleepy
exit $status
