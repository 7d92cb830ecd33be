#!/bin/bash
# make test-image: the kernel built from Debian's own configuration (make
# deb-debian) in the full image, apt-installed with sleepy-tools; the
# guest runs the kselftest suite and make test's guest scenarios
# (run-selftests.sh).  Prints each group's result and ends with
# "N passed, N failed"; exits 1 if anything failed or did not run.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
results=out/test/results/test-image
IMAGE_KERNEL=debian bash scripts/make-image.sh full || exit 1

stage=out/test-image/sleepy
rm -rf out/test-image "$results"
mkdir -p "$stage/bin" "$stage/bench" "$stage/guest"
for t in sleepy_test sleepy_process_test sleepy_sample_test sleepy_sched_test; do
	cp build/userland/$t build/userland/${t}32 "$stage/bin/"
done
cp build/userland/sleepy_abi_attack build/userland/sleepy_sched_load \
	build/userland/sleepy_calltree build/userland/sleepy_clock "$stage/bin/"
cp build/userland/bench/* "$stage/bench/"
cp qemu/guest/*.sh tests/guest/*.sh "$stage/guest/"

t0=$(date +%s)
# test-irq.sh's shared line.  In make test's guests (no MSI) the aux
# share sits on the out share's legacy line; Debian's kernel gives each
# virtio device MSI-X vectors, so here the aux share and an unused second
# one take legacy interrupts (vectors=0) in slots 8 and 12, which the
# PC's PCI routing puts on the same line.
QEMU_EXTRA="-fsdev local,id=aux,path=$top/qemu,security_model=none,readonly=on
	-device virtio-9p-pci,fsdev=aux,mount_tag=aux,addr=08,vectors=0
	-fsdev local,id=aux2,path=$top/qemu,security_model=none,readonly=on
	-device virtio-9p-pci,fsdev=aux2,mount_tag=aux2,addr=0c,vectors=0" \
QEMU_IMAGE=build/image/full-debian.img QEMU_MEM=2048 bash qemu/boot.sh \
	build/image/full-debian.vmlinuz build/image/full-debian.initrd selftests \
	out/test-image.log 3600 "sleepy.results=test-image" > /dev/null
boot_status=$?
echo "test-image: the guest ran $(( $(date +%s) - t0 )) s (status $boot_status; console in out/test-image.log)"

passed=0 failed=0
groups="kselftest kselftest-process kselftest-sample kselftest-sched
	kselftest-i386 kselftest-i386-process kselftest-i386-sample kselftest-i386-sched
	tools agent accuracy idle drain sched irq stacks"
for g in $groups; do
	tap=$results/$g.tap
	plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$tap" 2>/dev/null | head -n1)
	ok=$(grep -c '^ok ' "$tap" 2>/dev/null)
	not_ok=$(grep -c '^not ok ' "$tap" 2>/dev/null)
	status=$(cat "$results/$g.exit" 2>/dev/null)
	grep '^not ok ' "$tap" 2>/dev/null | sed "s/^/test-image: $g: /"
	if [ -n "$plan" ] && [ "$plan" -gt 0 ] && [ "$((ok + not_ok))" = "$plan" ] &&
	   [ "$not_ok" = 0 ] && [ "$status" = 0 ]; then
		echo "ok - $g ($ok of $plan)"
		passed=$((passed + 1))
	else
		echo "not ok - $g (plan ${plan:-none}, $ok ok, $not_ok not ok, exit ${status:-none})"
		failed=$((failed + 1))
	fi
done
tainted=$(cat "$results/tainted" 2>/dev/null)
if [ "$tainted" = 0 ]; then
	echo "ok - kernel not tainted"; passed=$((passed + 1))
else
	echo "not ok - kernel tainted: ${tainted:-unknown}"; failed=$((failed + 1))
fi
if why=$(bash tests/console-reports.sh out/test-image.log); then
	echo "ok - no kernel report in the console"; passed=$((passed + 1))
else
	echo "not ok - $why"; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
