#!/bin/bash
# boot.sh KERNEL INITRD MODE LOG [TIMEOUT] [EXTRA_CMDLINE]
# Boots the guest under QEMU (TCG, 2 vCPUs) with the host's out/ shared
# over 9p.  Single-threaded TCG: with one host thread per vCPU, Debian 12's
# QEMU 7.2 can run stale translated code on one vCPU while another patches
# kernel text (an int3 Oops during static-key flips; see
# scripts/fetch-qemu.sh).  MODE shell is interactive; other modes write the
# console to LOG (and to stdout) and end when the guest powers off or
# TIMEOUT passes.
# QEMU_EXTRA adds QEMU options (the benchmark's -icount); QEMU_MEM sets the
# guest's memory in MiB (default 1536), QEMU_SMP its vCPUs (default 2),
# QEMU_ACCEL the accelerator (default tcg,thread=single; kvm for make bench
# with BENCH_ACCEL=kvm), QEMU the emulator (default the system's
# qemu-system-x86_64; make bench's 8-vCPU guest runs fetch-qemu.sh's).
# QEMU_IMAGE boots a disk image's system instead of the initramfs (make
# image: root the disk labelled sleepy-root, KERNEL and INITRD its own, the
# repository's tests/ shared too); mode shell then gives its login.
# KERNEL "disk" boots the image's own boot loader instead (make
# test-grub's partitioned disk): no -kernel, INITRD, MODE and the command
# line are GRUB's.  QEMU_SILENCE=MINUTES ends a guest whose console has
# been silent that long, saying where its vCPUs were (qemu/stall-watch.py;
# the kernel's symbols from QEMU_SYSTEM_MAP, if given: boot with nokaslr).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$1 initrd=$2 mode=$3 log=$4 timeout=${5:-900} extra=${6:-}
mkdir -p "$top/out"
cmdline="console=ttyS0 panic=-1 oops=panic sleepy.mode=$mode $extra"
disk=()
if [ -n "${QEMU_IMAGE:-}" ]; then
	cmdline="root=LABEL=sleepy-root rw console=ttyS0 panic=-1 oops=panic${mode:+ sleepy.mode=$mode} $extra"
	[ "$mode" = shell ] && cmdline=${cmdline/ sleepy.mode=shell/}
	disk=(-drive "file=$QEMU_IMAGE,format=raw,if=virtio"
	      -virtfs "local,path=$top/tests,mount_tag=tests,security_model=none,readonly=on,id=tests")
fi
boot=(-kernel "$kernel" -initrd "$initrd" -append "$cmdline")
[ "$kernel" = disk ] && boot=()
args=(-machine pc -accel "${QEMU_ACCEL:-tcg,thread=single}" -smp "${QEMU_SMP:-2}" -m "${QEMU_MEM:-1536}" "${boot[@]}"
      -nographic -no-reboot
      -virtfs "local,path=$top/out,mount_tag=out,security_model=none,id=out"
      "${disk[@]}" ${QEMU_EXTRA:-})
if [ "$mode" = shell ]; then
	exec "${QEMU:-qemu-system-x86_64}" "${args[@]}"
fi
watcher=
if [ -n "${QEMU_SILENCE:-}" ]; then
	# Under /tmp: a socket's path holds at most 107 bytes.
	qmp=$(mktemp -u /tmp/sleepy-qmp.XXXXXX)
	rm -f "$log.stall"
	args+=(-qmp "unix:$qmp,server=on,wait=off")
	python3 "$top/qemu/stall-watch.py" "$log" "$qmp" "$QEMU_SILENCE" ${QEMU_SYSTEM_MAP:-} &
	watcher=$!
fi
set +e
timeout --foreground -k 10 "$timeout" "${QEMU:-qemu-system-x86_64}" "${args[@]}" </dev/null 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ -n "$watcher" ]; then
	wait "$watcher"
	rm -f "$qmp"
	if [ -s "$log.stall" ]; then
		cat "$log.stall" >> "$log"
		rm -f "$log.stall"
		echo "boot.sh: guest silent for $QEMU_SILENCE min, stopped; where its vCPUs were is at the end of $log"
		exit 1
	fi
fi
set -e
if [ "$status" = 124 ]; then
	echo "boot.sh: guest did not finish within $timeout s" | tee -a "$log"
	exit 1
fi
grep -q "sleepy-guest: done" "$log" || { echo "boot.sh: guest did not finish its task" | tee -a "$log"; exit 1; }
