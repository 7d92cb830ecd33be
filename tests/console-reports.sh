#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# console-reports.sh LOG [BOOTED]: whether a guest's console is clean,
# for make test, make run's test and make bench alike.  Clean is a line
# that shows the guest booted and its console was kept (BOOTED, a basic
# regular expression: by default the kernel's banner, which a guest booted
# with "quiet" does not print) and no line that tests/kernel-reports.ere
# matches (a warning, an Oops, an RCU stall, a lockdep or KASAN report, a
# segfault in user space), except the kernel's own notices on what a user
# asked of it that tests/kernel-notices.ere lists: trinity, as nobody in
# a user namespace of its own, may mount with MS_MANDLOCK, and the kernel
# says once that the option is ignored ("WARNING: The mand mount option
# ...", a pr_warn_once in fs/namespace.c, no WARN(): no trace, no taint).
# Clean: nothing printed, exit 0.  Otherwise one line that says why,
# exit 1; a scan that could not run is not clean either.
log=$1 booted=${2:-Linux version}
ere=$(dirname "${BASH_SOURCE[0]}")/kernel-reports.ere
notices=$(dirname "${BASH_SOURCE[0]}")/kernel-notices.ere
if ! grep -qa "$booted" "$log" 2>/dev/null; then
	echo "no line of a booted guest ($booted) in $log"
	exit 1
fi
hits=$(grep -aEf "$ere" "$log")
status=$?
if [ $status = 0 ]; then
	hits=$(grep -avEf "$notices" <<< "$hits")
	status=$?
	# grep -v: 1 when every hit was a notice (clean), 2 when it failed.
fi
case $status in
1)	exit 0 ;;
0)	echo "$(wc -l <<< "$hits") kernel report lines in $log, the first: $(head -n 1 <<< "$hits" | tr -d '\r')" ;;
*)	echo "$log could not be scanned (grep exit $status)" ;;
esac
exit 1
