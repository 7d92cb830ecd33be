#!/bin/bash
# run-image.sh [normal|debian]: make run IMAGE=debian.  Boots the full
# Debian image (make image; with debian, the one with Debian's kernel
# configuration) to run tests/image/run-workloads.sh: Debian's python3,
# xz, sqlite3 and make -j2 profiled, their reports and flame graphs in
# out/workloads/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
name=full
[ "${1:-normal}" = debian ] && name=full-debian
img=$top/build/image/$name
[ -f "$img.img" ] || { echo "run-image: no build/image/$name.img (make image)" >&2; exit 1; }
mkdir -p "$top/out"
t0=$(date +%s)
QEMU_IMAGE=$img.img QEMU_MEM=2048 bash "$top/qemu/boot.sh" "$img.vmlinuz" "$img.initrd" \
	workloads "$top/out/workloads.log" 3600 "sleepy.results=workloads" > /dev/null
grep -a 'sleepy-guest\[' "$top/out/workloads.log" | sed 's/.*sleepy-guest\[[0-9]*\]: //; s/\r$//'
echo "run-image: $(( $(date +%s) - t0 )) s; reports and flame graphs in out/workloads/*/ (report.txt, flamegraph.svg); the console in out/workloads.log"
