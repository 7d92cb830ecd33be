#!/bin/bash
# Installs the Debian packages the project needs, when any is missing.
set -euo pipefail
packages="linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	libdw-dev libiberty-dev libzstd-dev zlib1g-dev liblzma-dev libbz2-dev cpio xz-utils kmod rsync ccache perl sparse
	python3 python3-ply python3-git busybox-static qemu-system-x86 git trinity"
# the i386 build of the kselftest suite (32-bit system call entries)
packages+=" gcc-multilib"
# sleepy-parse --pprof (protobuf-c), and go tool pprof to read it in the tests
packages+=" protobuf-c-compiler libprotobuf-c-dev golang-go"
# xmllint for the flame graph's SVG, Chromium and Node.js to click on it
packages+=" libxml2-utils chromium"
command -v npm >/dev/null || packages+=" nodejs npm"
# make bench: perf for the guest, the plot; callgrind (make test too)
packages+=" linux-perf valgrind gnuplot-nox"
# make fuzz (userland/fuzz/): clang with libFuzzer and the sanitizers
packages+=" clang libclang-rt-14-dev"
# make deb and make image: the packages, lintian, the Debian image (and
# sfdisk, its partitioned variant for make test-grub); for make
# deb-debian, Debian's configuration and pahole (its BTF)
packages+=" debhelper lintian mmdebstrap linux-config-6.12 dwarves fdisk"
missing=$(for p in $packages; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
	echo "deps: installing" $missing
	if [ "$(id -u)" != 0 ]; then
		echo "deps: run as root (or install: $missing)" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# Playwright's driver (no browser download: it drives Debian's Chromium),
# for the flame graph's browser test, and the speedscope viewer (its
# release files, served locally) for the speedscope file's, from the npm
# registry into build/.
npm_dir=$(cd "$(dirname "$0")/.." && pwd)/build/npm
if [ ! -f "$npm_dir/node_modules/playwright-core/package.json" ] ||
   [ ! -f "$npm_dir/node_modules/speedscope/package.json" ]; then
	echo "deps: npm install playwright-core and speedscope into build/npm"
	npm install --prefix "$npm_dir" --no-audit --no-fund --silent \
		playwright-core@1.65.1 speedscope@1.25.0 >/dev/null
fi
