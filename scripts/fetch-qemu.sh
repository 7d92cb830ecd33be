#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-qemu.sh: prints the path of a QEMU whose multi-threaded TCG (a
# host thread per vCPU) keeps up with a guest kernel patching its own
# text, for make bench's 8-vCPU guest; fetched on first use from Debian's
# bookworm-backports (QEMU 10.0) and unpacked, not installed, into
# build/qemu/.  Debian 12's QEMU 7.2 sometimes runs, on one vCPU, the
# int3 that text_poke_bp() put into a static branch on another after the
# kernel has taken it out again: an "Oops: int3" at the branch (5 of 40
# boots of 8 vCPUs with a guest beside them, and 0 of 40 with 10.0 on the
# same host under the same load).  Every other guest runs one thread for
# all its vCPUs (qemu/boot.sh), which does not race, on the system's QEMU.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/qemu
suite=bookworm-backports
qemu=$dir/root/usr/bin/qemu-system-x86_64
if [ ! -x "$qemu" ]; then
	echo "fetch-qemu: qemu-system-x86 from $suite into build/qemu" >&2
	rm -rf "$dir"
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	echo "deb http://deb.debian.org/debian $suite main" > "$dir/sources.list"
	# Its own lists and cache: the system's apt sources stay as they are.
	apt=(apt-get -qq -o Dir::Etc::SourceList="$dir/sources.list"
	     -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists="$dir/lists"
	     -o Dir::Cache="$dir/cache" -o APT::Sandbox::User=root)
	"${apt[@]}" update >&2
	(cd "$dir" && "${apt[@]}" download "qemu-system-x86/$suite" >&2)
	dpkg-deb -x "$dir"/qemu-system-x86_*.deb "$dir/root"
	rm -rf "$dir/lists" "$dir/cache" "$dir"/qemu-system-x86_*.deb
fi
"$qemu" --version | head -n 1 | grep -q '^QEMU emulator version' ||
	{ echo "fetch-qemu: $qemu does not run" >&2; exit 1; }
echo "$qemu"
