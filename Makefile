# sleepy: a kernel patch series with a built-in sampling profiler, its
# tools, and everything to build, boot and test it under QEMU.
#
#   make run [PROGRAM=path ARGS='...']   profile the benchmarks (or PROGRAM)
#   make shell                           interactive guest with the tools
#   make test                            every test; ends "N passed, N failed, N skipped"
#   make series                          git format-patch series in out/series
#   make fuzz [FUZZ_SECONDS=N]           fuzz the recording reader (300 s)
#   make bench [BENCH_REPS=5] [BENCH_BOOTS=2]  sleepy vs perf: overhead,
#                                        accuracy, drain, parse speed, then
#                                        bench-peers (bench/results)
#   make deb                             kernel and tools packages in out/deb
#   make image [IMAGE_VARIANT=minimal]   a Debian bookworm image with them
#   make shell IMAGE=debian              a root shell in that image
#   make run IMAGE=debian                Debian's python3, xz, sqlite3 and
#                                        make -j2 profiled in it (out/workloads)
#   make deb-debian                      the packages from Debian's own kernel
#                                        configuration (out/deb-debian)
#   make test-image                      kselftests and guest scenarios on
#                                        that kernel in the full image
#   make test-grub                       its install through GRUB on a
#                                        Debian VM, and back
.DEFAULT_GOAL := run
TOP := $(CURDIR)
B := $(TOP)/build
KERNEL := $(B)/kernel-normal/arch/x86/boot/bzImage
KERNEL_DEBUG := $(B)/kernel-debug/arch/x86/boot/bzImage
HDR := $(B)/headers
U := $(B)/userland
# The kselftest programs (tools/testing/selftests/sleepy), each also for i386.
KSELFTESTS := sleepy_test sleepy_process_test sleepy_sample_test sleepy_sched_test
PROGRAM ?=
ARGS ?=
SLEEPY_OPTS ?=
export PROGRAM ARGS SLEEPY_OPTS
export CCACHE_DIR ?= $(HOME)/.cache/ccache

IMAGE ?=
IMAGE_VARIANT ?= full
IMG := $(B)/image/$(IMAGE_VARIANT)

.PHONY: deps tree kernel kernel-debug kernel-bench headers userland initramfs run shell test series fuzz bench bench-peers deb deb-debian image test-image test-grub clean FORCE

deps:
	@bash scripts/deps.sh

tree: deps
	@bash scripts/prepare-kernel.sh

# Kbuild decides what is stale; these always ask it.
kernel: tree
	@bash scripts/build-kernel.sh normal
kernel-debug: tree
	@bash scripts/build-kernel.sh debug
kernel-bench: tree
	@bash scripts/build-kernel.sh bench

headers: tree
	@$(MAKE) -s -C $(B)/linux O=$(B)/kernel-headers headers_install INSTALL_HDR_PATH=$(HDR) >/dev/null

userland: headers
	@$(MAKE) -s -C userland O=$(U) HDR=$(HDR)/include
	@for t in $(KSELFTESTS); do \
		gcc -static -O2 -fno-omit-frame-pointer -Wall -Werror -isystem $(HDR)/include \
			-o $(U)/$$t $(B)/linux/tools/testing/selftests/sleepy/$$t.c && \
		gcc -m32 -static -O2 -fno-omit-frame-pointer -Wall -Werror -isystem $(HDR)/include \
			-o $(U)/$${t}32 $(B)/linux/tools/testing/selftests/sleepy/$$t.c || exit 1; \
	done
	@gcc -static -O2 -Wall -Wextra -Wno-unused-parameter -Werror -pthread -isystem $(HDR)/include \
		-o $(U)/sleepy_abi_attack tests/guest/sleepy_abi_attack.c
	@gcc -static -O2 -Wall -Wextra -Werror -pthread \
		-o $(U)/sleepy_sched_load tests/guest/sleepy_sched_load.c
	@gcc -static -O0 -fno-omit-frame-pointer -Wall -Wextra -Werror \
		-o $(U)/sleepy_calltree tests/guest/sleepy_calltree.c
	@gcc -static -O2 -Wall -Wextra -Werror -pthread \
		-o $(U)/sleepy_mm_lock tests/guest/sleepy_mm_lock.c
	@gcc -static -O2 -Wall -Wextra -Werror \
		-o $(U)/sleepy_clock tests/guest/sleepy_clock.c

initramfs: userland
	@bash qemu/mkinitramfs.sh $(B)/initramfs.cpio.gz

ifeq ($(IMAGE),debian)
# Debian's own programs profiled in the full image (tests/image/run-workloads.sh).
run: image
	@bash qemu/run-image.sh
shell:
	@test -f $(IMG).img || { echo "make shell: no $(IMG).img; build it with make image"; exit 1; }
	@QEMU_IMAGE=$(IMG).img QEMU_MEM=2048 bash qemu/boot.sh $(IMG).vmlinuz $(IMG).initrd shell /dev/null 0
else
run: kernel userland
	@bash qemu/run.sh
shell: kernel initramfs
	@bash qemu/boot.sh $(KERNEL) $(B)/initramfs.cpio.gz shell /dev/null 0 "kunit.enable=0"
endif

deb: kernel headers
	@bash scripts/make-deb.sh

# The same packages with Debian's own configuration (cloud-amd64), in
# out/deb-debian: a long build, not part of make test.
deb-debian: tree headers
	@bash scripts/build-kernel.sh debian
	@bash scripts/make-deb.sh debian

test-image: deb-debian userland
	@bash tests/image/test-image.sh

# The README's install steps through GRUB on a Debian VM with Debian's
# kernel: apt install, the sleepy kernel by default, grub-reboot back to
# Debian's, apt remove.
test-grub: deb-debian
	@bash tests/image/test-grub.sh

image: deb
	@bash scripts/make-image.sh $(IMAGE_VARIANT)

test:
	@bash tests/run-all.sh

series: tree
	@bash scripts/mkseries.sh

# The recording reader and sleepy-parse's reports under libFuzzer
# (userland/fuzz/); FUZZ_JOBS=2 takes both cores.
FUZZ_SECONDS ?= 300
FUZZ_JOBS ?= 1
# Everything measured, in two parts (not tests): sleepy against perf
# record on the bench kernel (bench/run.sh), then beside perf, bpftrace and
# BCC on Debian's configuration in the full image (bench/peers.sh), which
# bench-peers runs alone.
bench: kernel-bench userland deb-debian
	@bash bench/run.sh
	@bash bench/peers.sh

bench-peers: deb-debian userland
	@bash bench/peers.sh

fuzz: headers
	@bash scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_JOBS)

clean:
	rm -rf $(B)/userland $(B)/fuzz $(B)/headers $(B)/*.cpio.gz out
