#!/bin/sh
# make test-grub, first boot (sleepy.mode=grub-setup): Debian's own kernel,
# started by QEMU.  The machine is first made what a user's Debian VM is,
# GRUB on its disk as Debian's installer puts it; then the README's step:
# apt installs the kernel and tools packages of make deb-debian, whose
# scripts make the initrd and the boot menu's entry.
. "$SLEEPY_TESTS/guest/lib.sh"

install_packages() {
	plan 6
	check "grub-install /dev/vda" sh -c 'grub-install /dev/vda > /tmp/grub-install.log 2>&1'
	check "update-grub: Debian's kernel $(uname -r) in the menu" \
		sh -c 'update-grub > /tmp/update-grub.log 2>&1 &&
			grep -q "^menuentry .*\\\$menuentry_id_option" /boot/grub/grub.cfg &&
			grep -q "vmlinuz-$(uname -r) " /boot/grub/grub.cfg'
	t0=$(uptime_s) t0_epoch=$(date +%s)
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		/root/linux-image-*.deb /root/sleepy-tools_*.deb \
		> /tmp/apt.log 2>&1
	status=$?
	t1=$(uptime_s)
	sed 's/^/# apt: /' /tmp/apt.log | tail -n 12
	release=$(dpkg-query -W -f='${Package}\n' 'linux-image-*sleepy*' 2> /dev/null | sed -n 's/^linux-image-//p')
	# Where apt's time went: the kernel unpacked, its initrd written, the
	# menu rewritten, each file's time since apt started.
	for f in "/boot/vmlinuz-$release" "/boot/initrd.img-$release" /boot/grub/grub.cfg; do
		echo "# $f written $(( $(stat -c %Z "$f" 2> /dev/null || echo "$t0_epoch") - t0_epoch )) s after apt started"
	done
	check "apt install ./linux-image-${release:-?}_*.deb ./sleepy-tools_*.deb: exit $status, $((t1 - t0)) s" \
		[ "$status" = 0 -a -n "$release" ]
	check "its initrd made: /boot/initrd.img-$release ($(du -h "/boot/initrd.img-$release" 2> /dev/null | cut -f1))" \
		[ -s "/boot/initrd.img-$release" ]
	check "a menu entry for it (update-grub by the package's postinst.d hook)" \
		grep -q "Debian GNU/Linux, with Linux $release'" /boot/grub/grub.cfg
	first=$(grub_default_kernel)
	check "GRUB's default entry boots it ($first)" [ "$first" = "/boot/vmlinuz-$release" ]
}
group grub-setup install_packages
end_results
