#!/bin/sh
# make test-grub, the boots GRUB starts (sleepy.mode=grub on its entries'
# command line).  On the sleepy kernel (GRUB's default once the package is
# installed): it runs and profiles, then grub-reboot picks Debian's kernel
# for the next boot only.  On Debian's kernel: the tools say in one line
# that it has no sleepy, and apt remove takes the packages and their menu
# entry away, Debian's kernel the default again.
. "$SLEEPY_TESTS/guest/lib.sh"
stock=$(ls /lib/modules | grep -v sleepy | head -n 1)
release=$(ls /lib/modules | grep sleepy | head -n 1)
booted_by_grub() {	# GRUB passes the kernel's path as BOOT_IMAGE
	grep -q "BOOT_IMAGE=/boot/vmlinuz-$(uname -r) " /proc/cmdline
}
systemd_up() {
	state=$(systemctl is-system-running --wait 2> /dev/null)
	check "systemd brought the system up ($state; $(systemd-analyze time 2> /dev/null | head -n 1))" \
		[ "$state" = running ]
}

sleepy_kernel() {
	plan 5
	check "GRUB booted the sleepy kernel by default ($(uname -r); $(cat /proc/cmdline))" booted_by_grub
	systemd_up
	head -c 4000000 /usr/lib/x86_64-linux-gnu/libc.so.6 > /tmp/input
	sleepy-record -F 1000 -o /tmp/xz.data -- xz -9 -k -f -T1 /tmp/input > /tmp/record.out 2>&1
	check "sleepy-record profiles xz -9 ($(tail -n 1 /tmp/record.out))" \
		grep -q '^sleepy: [1-9][0-9]* samples, 0 dropped' /tmp/record.out
	sleepy-parse --app xz /tmp/xz.data > /tmp/xz.txt 2>&1
	named=$(grep -m1 '[a-z_][a-z0-9_]* (liblzma\.so' /tmp/xz.txt | sed 's/  */ /g')
	check "sleepy-parse names liblzma's functions ($named)" [ -n "$named" ]
	entry="Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux $stock"
	grub-reboot "$entry"
	check "grub-reboot \"$entry\": $(grub-editenv list)" \
		sh -c "grub-editenv list | grep -qF 'next_entry=$entry'"
}

stock_kernel() {
	plan 6
	check "GRUB booted Debian's kernel once ($(uname -r); $(cat /proc/cmdline))" \
		eval '[ "$(uname -r)" = "$stock" ] && booted_by_grub'
	systemd_up
	out=$(sleepy-start -o /tmp/x.data 2>&1)
	status=$?
	lines=$(printf '%s\n' "$out" | wc -l)
	check "sleepy-start on it: exit $status, $lines line ($out)" \
		eval '[ "$status" = 1 ] && [ "$lines" = 1 ] && case $out in *"no sleepy support"*) true ;; *) false ;; esac'
	check "the choice was for one boot: no next_entry left ($(grub-editenv list | tr '\n' ' '))" \
		sh -c '! grub-editenv list | grep -q "^next_entry=."'
	t0=$(uptime_s)
	DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "linux-image-$release" sleepy-tools > /tmp/apt.log 2>&1
	status=$?
	t1=$(uptime_s)
	left=$(ls /boot | grep sleepy | tr '\n' ' ')
	check "apt remove linux-image-$release sleepy-tools: exit $status, $((t1 - t0)) s; nothing of it in /boot${left:+ (left: $left)}" \
		eval '[ "$status" = 0 ] && [ -z "$left" ]'
	first=$(grub_default_kernel)
	check "GRUB's menu without it, Debian's kernel the default ($first)" \
		eval '! grep -qF "$release" /boot/grub/grub.cfg && [ "$first" = "/boot/vmlinuz-$stock" ]'
}

if [ -n "$release" ] && [ "$(uname -r)" = "$release" ]; then
	group grub-sleepy sleepy_kernel
else
	group grub-stock stock_kernel
fi
end_results
