#!/bin/bash
# Builds the guest kernel: build-kernel.sh normal|debug|bench|debian
#   normal: tinyconfig + configs/guest.config + configs/sleepy.config
#   debug:  the same + configs/debug.config (lockdep, KASAN, ...)
#   bench:  the same as normal + configs/bench.config (tracepoints)
#   debian: Debian's cloud-amd64 configuration (linux-config-6.12)
#           + configs/debian.config, its modules trimmed to
#           configs/debian-modules.list, for make deb-debian
# Out of tree in build/kernel-FLAVOR, with ccache; the .config is replaced
# only when it changes, so unchanged builds are no-ops.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavor=${1:?usage: build-kernel.sh normal|debug|bench|debian}
src=$top/build/linux
out=$top/build/kernel-$flavor
fragments="$top/configs/guest.config $top/configs/sleepy.config"
debian_config=/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz
case $flavor in
normal) ;;
debug|bench) fragments="$fragments $top/configs/$flavor.config" ;;
debian) fragments=$top/configs/debian.config ;;
*) echo "build-kernel: unknown flavor '$flavor' (normal, debug, bench or debian)" >&2; exit 2 ;;
esac
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Relative paths in the cache keys: clones at other paths (CI) share hits.
export CCACHE_BASEDIR=$top
mk() { make -s -C "$src" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)" "$@"; }

mkdir -p "$out" "$out/.cfg"
# One kernel build at a time on this machine (2 cores): wait for the other.
exec 9>"$top/build/.kernel-build.lock"
flock 9
cfg=$out/.cfg
if [ "$flavor" = debian ]; then
	xz -dc "$debian_config" > "$cfg/.config"
else
	make -s -C "$src" O="$cfg" tinyconfig >/dev/null
fi
(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$cfg" "$cfg/.config" $fragments >/dev/null)
make -s -C "$src" O="$cfg" olddefconfig >/dev/null
if [ "$flavor" = debian ]; then
	grep -v '^#' "$top/configs/debian-modules.list" > "$cfg/modules.list"
	make -s -C "$src" O="$cfg" LSMOD="$cfg/modules.list" localmodconfig </dev/null >/dev/null 2>"$cfg/localmodconfig.log" || {
		cat "$cfg/localmodconfig.log" >&2; exit 1; }
	if grep 'config not found\|did not have configs' "$cfg/localmodconfig.log" >&2; then
		echo "build-kernel: configs/debian-modules.list names modules this configuration does not have" >&2
		exit 1
	fi
fi
for f in $fragments; do
	grep -E '^CONFIG_[A-Z0-9_]+=' "$f" | while IFS= read -r line; do
		sym=${line%%=*}
		grep -qx "$line" "$cfg/.config" ||
			{ echo "build-kernel: $f asks for $line but Kconfig gave: $(grep "^$sym=\|# $sym is" "$cfg/.config" || echo unset)" >&2; exit 1; }
	done
done
cmp -s "$cfg/.config" "$out/.config" || cp "$cfg/.config" "$out/.config"
# Debian's configuration is built once, by bindeb-pkg (make-deb.sh): its
# build names the source tree by a relative path, and every object built
# here with the absolute one would be built again there.
if [ "$flavor" = debian ]; then
	mk olddefconfig >/dev/null
	echo "build-kernel: debian configured in $out (bindeb-pkg builds it)"
	exit 0
fi

start=$(date +%s)
# A line a minute, so that a first build (several minutes) is not silent.
touch "$out/.build-start"
while sleep 60; do
	echo "build-kernel: $flavor: $(( $(date +%s) - start )) s, $(find "$out" -name '*.o' -newer "$out/.build-start" | wc -l) objects compiled (a full build has about 1400)"
done &
ticker=$!
trap 'kill $ticker 2>/dev/null' EXIT
mk olddefconfig >/dev/null
mk bzImage
echo "build-kernel: $flavor $(make -s -C "$src" kernelversion) built in $(( $(date +%s) - start )) s: $out/arch/x86/boot/bzImage"
