#!/bin/bash
# mkinitramfs.sh OUT.cpio.gz [PROGRAM [ARGS]]
# Packs busybox, the sleepy tools, benchmarks, tests and guest scripts, and
# optionally the user's PROGRAM (run with the shell words ARGS) with the
# shared libraries it needs.  Host programs named in $GUEST_HOST_PROGRAMS
# (e.g. /usr/bin/perf for the benchmark) go in at their host paths, with
# their libraries.  $SLEEPY_OPTS are the options make run's profiler gets.
set -eEuo pipefail
# Whatever fails says so, in one line: make run has nothing else to show.
trap 'echo "mkinitramfs: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
program=${2:-}
program_args=${3:-}
root=$(mktemp -d)
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,dev,proc,sys,tmp,run,etc,root,sleepy/bin,sleepy/bench,sleepy/guest,sleepy/prog}
cp /bin/busybox "$root/bin/busybox"
cp "$top/qemu/init" "$root/init"
for t in sleepy-start sleepy-stop sleepy-record sleepy-parse sleepy-agent \
	 sleepy_abi_attack sleepy_sched_load sleepy_calltree sleepy_mm_lock sleepy_clock \
	 sleepy_test sleepy_process_test sleepy_sample_test sleepy_sched_test \
	 sleepy_test32 sleepy_process_test32 sleepy_sample_test32 sleepy_sched_test32; do
	cp "$top/build/userland/$t" "$root/sleepy/bin/"
done
cp "$top"/build/userland/bench/* "$root/sleepy/bench/"
cp "$top"/qemu/guest/*.sh "$top"/tests/guest/*.sh "$root/sleepy/guest/"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
ln -s /bin/busybox "$root/bin/sh"
ln -s /bin/busybox "$root/bin/true"

# The loader and libraries of a dynamic program, at the paths it looks in.
copy_libraries() {	# copy_libraries PROGRAM
	ldd "$1" >/dev/null 2>&1 || return 0
	# A file with no libraries ("statically linked") has no path to copy.
	ldd "$1" | { grep -o '/[^ ]*' || true; } | sort -u | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
# trinity (scripts/deps.sh installs it) for the debug kernel's stress run;
# without it the guest reports it missing.  coreutils' nice: Debian's
# busybox has none (test-tools.sh's one-CPU stop).
trinity=
[ -x /usr/bin/trinity ] && trinity=/usr/bin/trinity
for host_program in $trinity /usr/bin/nice ${GUEST_HOST_PROGRAMS:-}; do
	mkdir -p "$root$(dirname "$host_program")"
	cp -L "$host_program" "$root$host_program"
	copy_libraries "$host_program"
done

if [ -n "$program" ]; then
	[ -f "$program" ] && [ -x "$program" ] || { echo "mkinitramfs: PROGRAM '$program' is not an executable file" >&2; exit 1; }
	cp "$program" "$root/sleepy/prog/"
	basename "$program" > "$root/sleepy/prog/name"
	printf '%s\n' "$program_args" > "$root/sleepy/prog/args"
	copy_libraries "$program"
fi
printf '%s\n' "${SLEEPY_OPTS:-}" > "$root/sleepy/prog/opts"
chmod +x "$root/init" "$root"/sleepy/guest/*.sh
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
