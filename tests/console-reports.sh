#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# console-reports.sh LOG [BOOTED]: whether a guest's console is clean,
# for make test, make run's test and make bench alike.  Clean is a line
# that shows the guest booted and its console was kept (BOOTED, a basic
# regular expression: by default the kernel's banner, which a guest booted
# with "quiet" does not print) and no line that tests/kernel-reports.ere
# matches (a warning, an Oops, an RCU stall, a lockdep or KASAN report, a
# segfault in user space).  Clean: nothing printed, exit 0.  Otherwise one
# line that says why, exit 1; a scan that could not run is not clean
# either.
log=$1 booted=${2:-Linux version}
ere=$(dirname "${BASH_SOURCE[0]}")/kernel-reports.ere
if ! grep -qa "$booted" "$log" 2>/dev/null; then
	echo "no line of a booted guest ($booted) in $log"
	exit 1
fi
hits=$(grep -aEf "$ere" "$log")
status=$?
case $status in
1)	exit 0 ;;
0)	echo "$(wc -l <<< "$hits") kernel report lines in $log, the first: $(head -n 1 <<< "$hits" | tr -d '\r')" ;;
*)	echo "$log could not be scanned (grep exit $status)" ;;
esac
exit 1
