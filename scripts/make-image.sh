#!/bin/bash
# make image: a Debian bookworm disk image that boots with systemd under
# QEMU, with the packages of make deb installed by apt (their
# dependencies and maintainer scripts run: initramfs-tools makes the
# initrd).  Usage: make-image.sh [full|minimal] [base]
# With IMAGE_KERNEL=debian, the packages of make deb-debian (Debian's own
# configuration) go in instead, into build/image/VARIANT-debian.img.
#   full:    what a user profiles and compares with: linux-perf, bpftrace,
#            bpfcc-tools, libbpf-tools, python3, xz-utils, sqlite3, gcc and make
#   minimal: systemd, xz-utils and the tools' libraries (make test)
#   grub:    minimal, with Debian's own kernel (linux-image-cloud-amd64)
#            and GRUB, none of our packages: a user's machine before
#            sleepy, for make test-grub, which installs them the way the
#            README says; a partitioned disk, build/image/grub.img
# The Debian part (mmdebstrap, from DEBIAN_MIRROR) is built once per
# package list and kept in build/image/base-VARIANT/; each run copies it,
# installs out/deb/*.deb into the copy offline and writes
# build/image/VARIANT.img (ext4, no partition table; grub's is
# partitioned), with the kernel and initrd beside it for QEMU's -kernel
# and -initrd; with "base", only the Debian part is built.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
variant=${1:-full}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
dir=$top/build/image
base=$dir/base-$variant

packages="systemd-sysv udev initramfs-tools zstd kmod procps iproute2 less
	xz-utils libdw1 libelf1 libprotobuf-c1 zlib1g"
case $variant in
full)	packages+=" linux-perf bpftrace bpfcc-tools libbpf-tools python3 sqlite3 gcc make libc6-dev" ;;
minimal) ;;
grub)	packages+=" linux-image-cloud-amd64 grub-pc" ;;
*)	echo "make image: unknown variant '$variant' (full, minimal or grub)" >&2; exit 2 ;;
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
install_packages() {	# make deb's packages, by apt in a chroot
	# The full image's BCC compiles its programs against the running
	# kernel's headers, as a user's does once linux-headers is installed.
	local patterns="linux-image-*.deb sleepy-tools_*.deb" pattern found
	[ "$variant" = full ] && patterns="$patterns linux-headers-*.deb"
	debs=
	for pattern in $patterns; do
		found=$(ls "$top"/$debdir/$pattern 2>/dev/null || true)
		if [ "$(echo "$found" | grep -c .)" != 1 ]; then
			echo "make image: $debdir/ needs one $pattern (make deb${IMAGE_KERNEL:+-$IMAGE_KERNEL})" >&2
			exit 1
		fi
		debs="$debs $found"
	done

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
}
t0=$(date +%s)
rm -rf "$root"
cp -a "$base" "$root"
# The 9p shares' drivers are loaded by the initramfs, before anything
# mounts: loaded by udev from the root file system, they raced the fstab
# mounts, and once the second share's channel was not there yet
# ("9pnet_virtio: no channels available for device tests") and
# /mnt/tests failed (sleepy-guest then says so and powers off).  The
# kernel package's postinst builds the initramfs with them.
[ "$variant" = grub ] || printf '9pnet_virtio\n9p\n' >> "$root/etc/initramfs-tools/modules"
[ "$variant" = grub ] || install_packages

# The system: root on the disk, a root shell on the serial console, the
# repository's out/ (and tests/, for make test) over 9p, and the test
# runner that sleepy.mode= on the kernel command line starts.
echo sleepy-debian > "$root/etc/hostname"
echo "LABEL=sleepy-root / ext4 defaults 0 1" > "$root/etc/fstab"
[ "$variant" = grub ] || cat >> "$root/etc/fstab" <<'EOF'
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
img=$dir/$name.img
rm -f "$img"
if [ "$variant" = grub ]; then
	# A disk as a PC has it: an MBR partition table, the root file system
	# in its one partition from 1 MiB, the gap before it left for GRUB's
	# core image, which make test-grub's first boot installs (grub-install
	# /dev/vda in the guest: this machine's loop devices show no
	# partitions).  The kernel command line of its menu entries runs the
	# test (make test-grub) at every boot; a user's has none of it.
	# Debian's kernel has no 9p: the test scripts, the packages (as a
	# user copies them over) and the results live on the disk, from
	# which test-grub.sh reads them back (debugfs).
	mkdir -p "$root/etc/default/grub.d" "$root/usr/local/lib/sleepy-test/image" \
		"$root/usr/local/lib/sleepy-test/guest" "$root/etc/systemd/system/sleepy-guest.service.d"
	cp "$top"/tests/image/run-grub*.sh "$root/usr/local/lib/sleepy-test/image/"
	cp "$top/tests/guest/lib.sh" "$root/usr/local/lib/sleepy-test/guest/"
	if ! cp "$top"/out/deb-debian/linux-image-*.deb "$top"/out/deb-debian/sleepy-tools_*.deb "$root/root/"; then
		echo "make image: the grub variant needs the packages of make deb-debian in out/deb-debian/" >&2
		exit 1
	fi
	cat > "$root/etc/systemd/system/sleepy-guest.service.d/on-disk.conf" <<'EOF'
[Unit]
Wants=
After=
After=multi-user.target
[Service]
Environment=SLEEPY_TESTS=/usr/local/lib/sleepy-test SLEEPY_RESULTS_ROOT=/var/lib/sleepy-test
EOF
	cat > "$root/etc/default/grub.d/sleepy-test.cfg" <<'EOF'
GRUB_TIMEOUT=1
GRUB_TERMINAL=serial
GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"
GRUB_CMDLINE_LINUX_DEFAULT=""
GRUB_CMDLINE_LINUX="console=ttyS0 panic=-1 sleepy.mode=grub sleepy.results=grub"
EOF
	truncate -s "$((size + 1))M" "$img"
	echo 'start=2048, type=83, bootable' | sfdisk -q "$img"
	mkfs.ext4 -q -F -L sleepy-root -E offset=1048576 -d "$root" "$img" "${size}M"
else
	mkfs.ext4 -q -F -L sleepy-root -d "$root" "$img" "${size}M"
fi
rm -rf "$root"
echo "make image: ${img#"$top"/} (${size} MiB, kernel $release) in $(( $(date +%s) - t0 )) s"
