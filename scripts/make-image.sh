#!/bin/bash
# make image: a Debian bookworm disk image that boots with systemd under
# QEMU, with the packages of make deb installed by apt (their
# dependencies and maintainer scripts run: initramfs-tools makes the
# initrd).  Usage: make-image.sh [full|minimal] [base]
# With IMAGE_KERNEL=debian, the packages of make deb-debian (Debian's own
# configuration) go in instead, into build/image/VARIANT-debian.img.
#   full:    what a user profiles and compares with: linux-perf, bpftrace,
#            bpfcc-tools, python3, xz-utils, sqlite3, gcc and make
#   minimal: systemd, xz-utils and the tools' libraries (make test)
# The Debian part (mmdebstrap, from DEBIAN_MIRROR) is built once per
# package list and kept in build/image/base-VARIANT/; each run copies it,
# installs out/deb/*.deb into the copy offline and writes
# build/image/VARIANT.img (ext4, no partition table), with the kernel and
# initrd beside it for QEMU's -kernel and -initrd; with "base", only the
# Debian part is built.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
variant=${1:-full}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
dir=$top/build/image
base=$dir/base-$variant

packages="systemd-sysv udev initramfs-tools zstd kmod procps iproute2 less
	xz-utils libdw1 libelf1 libprotobuf-c1 zlib1g"
case $variant in
full)	packages+=" linux-perf bpftrace bpfcc-tools python3 sqlite3 gcc make libc6-dev" ;;
minimal) ;;
*)	echo "make image: unknown variant '$variant' (full or minimal)" >&2; exit 2 ;;
esac
packages=$(echo $packages)

mkdir -p "$dir"
key="bookworm minbase $mirror $packages"
if [ "$(cat "$base/.key" 2>/dev/null)" != "$key" ]; then
	rm -rf "$base"
	t0=$(date +%s)
	echo "make image: Debian bookworm ($variant) from $mirror"
	if ! mmdebstrap --variant=minbase --include="${packages// /,}" \
		--components=main bookworm "$base" "$mirror" > "$dir/mmdebstrap-$variant.log" 2>&1; then
		grep -m1 -iE "^E: |err|fail" "$dir/mmdebstrap-$variant.log" >&2 || true
		echo "make image: mmdebstrap failed (network or mirror?); log in build/image/mmdebstrap-$variant.log" >&2
		rm -rf "$base"
		exit 1
	fi
	echo "$key" > "$base/.key"
	echo "make image: Debian part built in $(( $(date +%s) - t0 )) s"
fi
[ "${2:-}" = base ] && exit 0

debdir=out/deb name=$variant
case ${IMAGE_KERNEL:-normal} in
normal) ;;
debian) debdir=out/deb-debian name=$variant-debian ;;
*)	echo "make image: unknown IMAGE_KERNEL '$IMAGE_KERNEL' (normal or debian)" >&2; exit 2 ;;
esac
root=$dir/root-$name
debs=$(ls "$top"/$debdir/linux-image-*.deb "$top"/$debdir/sleepy-tools_*.deb 2>/dev/null || true)
if [ "$(echo "$debs" | grep -c .)" != 2 ]; then
	echo "make image: $debdir/ needs one linux-image and one sleepy-tools package (make deb${IMAGE_KERNEL:+-$IMAGE_KERNEL})" >&2
	exit 1
fi

t0=$(date +%s)
rm -rf "$root"
cp -a "$base" "$root"
mounts=
cleanup() { for m in $mounts; do umount -l "$m" 2>/dev/null || true; done; }
trap cleanup EXIT
for m in proc sys dev; do
	mount --rbind "/$m" "$root/$m"
	mounts="$root/$m $mounts"
done
mkdir -p "$root/tmp/debs"
cp $debs "$root/tmp/debs/"
# apt, not dpkg alone: it checks the packages' dependencies, which the
# Debian part already holds (nothing to download), and runs their scripts.
if ! chroot "$root" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	/tmp/debs/*.deb' > "$dir/install-$variant.log" 2>&1; then
	tail -n 20 "$dir/install-$variant.log" >&2
	echo "make image: installing the packages failed (build/image/install-$variant.log)" >&2
	exit 1
fi
rm -rf "$root/tmp/debs"
cleanup
mounts=

# The system: root on the disk, a root shell on the serial console, the
# repository's out/ (and tests/, for make test) over 9p, and the test
# runner that sleepy.mode= on the kernel command line starts.
echo sleepy-debian > "$root/etc/hostname"
cat > "$root/etc/fstab" <<'EOF'
/dev/vda / ext4 defaults 0 1
out /mnt/out 9p trans=virtio,version=9p2000.L,nofail 0 0
tests /mnt/tests 9p trans=virtio,version=9p2000.L,ro,nofail 0 0
EOF
mkdir -p "$root/mnt/out" "$root/mnt/tests" \
	"$root/etc/systemd/system/serial-getty@ttyS0.service.d"
cat > "$root/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<'EOF'
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --keep-baud 115200,57600,38400,9600 %I $TERM
EOF
install -m 755 "$top/qemu/image/sleepy-guest" "$root/usr/local/sbin/sleepy-guest"
install -m 644 "$top/qemu/image/sleepy-guest.service" "$root/etc/systemd/system/"
chroot "$root" systemctl enable sleepy-guest.service > /dev/null 2>&1
release=$(ls "$root/lib/modules" | head -n1)
cp "$root/boot/vmlinuz-$release" "$dir/$name.vmlinuz"
cp "$root/boot/initrd.img-$release" "$dir/$name.initrd"

size=$(( $(du -sm "$root" | cut -f1) + 1024 ))
rm -f "$dir/$name.img"
mkfs.ext4 -q -F -L sleepy-root -d "$root" "$dir/$name.img" "${size}M"
rm -rf "$root"
echo "make image: build/image/$name.img (${size} MiB, kernel $release) in $(( $(date +%s) - t0 )) s"
