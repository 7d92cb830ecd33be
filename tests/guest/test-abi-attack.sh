#!/bin/sh
# test-abi-attack.sh [CALLS [TIMEOUT]]: hostile input for sleepy_start()/sleepy_stop()
# from privileged and unprivileged processes at once while others fork,
# exec and exit (sleepy_abi_attack), then a normal session must still work
# and the kernel must not have complained.
. /sleepy/guest/lib.sh
cd /tmp
export PATH=/sleepy/bin:$PATH
plan 13
calls=${1:-100000}
timeout=${2:-1200}
mark="sleepy-abi-attack: $calls calls begin $$"

echo "$mark" > /dev/kmsg
start=$(date +%s)
sleepy_abi_attack -n "$calls" -t "$timeout" -s "${SLEEPY_ABI_SEED:-0}" > /tmp/abi-attack.out 2>&1
status=$?
end=$(date +%s)
# Its own ten results, numbered into this script's; at most 300 lines of
# the rest.
notes=0
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) not_ok "${line#not ok - }" ;;
	*) notes=$((notes + 1)); [ $notes -le 300 ] && echo "# $line" ;;
	esac
done < /tmp/abi-attack.out
check "abi attack: $calls calls in $((end - start)) s, sleepy_abi_attack exit status $status" \
	[ $status = 0 ]

# Every message since the mark; all of them if the mark is gone.
dmesg > /tmp/abi-dmesg
grep -q "$mark" /tmp/abi-dmesg && sed -i "1,/$mark/d" /tmp/abi-dmesg
reports=$(grep -E 'WARNING:|BUG:|Oops|Call Trace:|lockdep|KASAN|suspicious RCU|invalid context|corruption|Out of memory|page allocation failure' /tmp/abi-dmesg | head -n 3)
check "abi attack: no kernel warning in the log${reports:+ ($reports)}" [ -z "$reports" ]

# A normal session afterwards.
rm -f /tmp/after-attack.data
sleepy-start -F 1000 -o /tmp/after-attack.data >/dev/null &&
	/sleepy/bench/loop 20000000 >/dev/null &&
	sleepy-stop >/dev/null &&
	sleepy-parse /tmp/after-attack.data > /tmp/after-attack.txt
check "abi attack: a normal session afterwards records and parses" \
	grep -q 'loop#1' /tmp/after-attack.txt
