#!/bin/bash
# make test-grub: the README's install steps on a Debian VM that boots
# through GRUB, with the packages of make deb-debian.  Three boots of one
# partitioned disk (make-image.sh grub: bookworm with Debian's own kernel
# and GRUB): the first, on Debian's kernel, puts GRUB on the disk and apt
# installs the packages (run-grub-setup.sh); then GRUB boots the sleepy
# kernel, its default now, and grub-reboot chooses Debian's for one boot;
# then GRUB boots Debian's, and apt remove takes the packages away
# (run-grub.sh).  Prints each result and the time of each step, and ends
# with "N passed, N failed"; exits 1 if anything failed or did not run.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
logs=$top/out/test-grub
results=out/test/results/grub
pass=0 fail=0 skipped=0
. tests/runner/lib.sh

t0=$(date +%s)
bash scripts/make-image.sh grub || exit 1
echo "# make image grub: $(( $(date +%s) - t0 )) s"
rm -rf "$logs" "$results"
mkdir -p "$logs" "$results"

# The results are on the disk (Debian's kernel has no 9p): debugfs reads
# them from its partition, and removes the last boot's end marks first.
disk="build/image/grub.img?offset=1048576"
on_disk=/var/lib/sleepy-test/grub
# Each boot's time limit is three times what it took here beside other
# work (install: apt unpacks, makes the initrd and runs update-grub, all
# emulated: 10 minutes).
boot() {	# boot NAME GROUP TIMEOUT KERNEL INITRD MODE: one boot, its group checked
	local name=$1 group=$2 timeout=$3 t=$(date +%s) status
	shift 3
	debugfs -w -R "rm $on_disk/done" "$disk" > /dev/null 2>&1
	debugfs -w -R "rm $on_disk/tainted" "$disk" > /dev/null 2>&1
	QEMU_IMAGE=build/image/grub.img QEMU_MEM=2048 bash qemu/boot.sh "$1" "$2" "$3" \
		"$logs/$name.log" "$timeout" "sleepy.results=grub" > /dev/null
	status=$?
	rm -rf "$results"
	debugfs -R "rdump $on_disk ${results%/*}" "$disk" > "$logs/debugfs.log" 2>&1
	result "$([ "$status" = 0 ] && echo ok || echo fail)" \
		"$name: the guest boots and finishes in $(( $(date +%s) - t )) s of host time ($(tail -n 1 "$logs/$name.log" | tr -d '\r'))"
	tap_group "$name" "$results/$group.tap" "$(cat "$results/$group.exit" 2> /dev/null)"
	if [ "$(cat "$results/tainted" 2> /dev/null)" = 0 ]; then
		result ok "$name: the kernel is not tainted"
	else
		result fail "$name: the kernel is tainted or the run did not end (tainted: $(cat "$results/tainted" 2> /dev/null))"
	fi
	scan_kernel_reports "$logs/$name.log" "$name"
	[ "$status" = 0 ]
}
# A boot that did not finish leaves the disk half-changed: the next are
# not run, and count as failed.
boot "install (Debian's kernel, started by QEMU)" grub-setup 1800 \
	build/image/grub.vmlinuz build/image/grub.initrd grub-setup &&
	boot "GRUB's default: the sleepy kernel" grub-sleepy 900 disk "" "" &&
	{ boot "GRUB's choice for one boot: Debian's kernel" grub-stock 900 disk "" ""; true; } ||
	result fail "the boots after a boot that did not finish: not run"
echo "# make test-grub: $(( $(date +%s) - t0 )) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
