#!/bin/sh
# sleepy-agent, the continuous profiler: interval profiles with no sample
# lost between them, the size cap, a full disk, its command line.
. /sleepy/guest/lib.sh
cd /tmp
plan 13

check "sleepy-agent --help prints USAGE and EXAMPLES" \
	sh -c "sleepy-agent --help | grep -q '^USAGE:' && sleepy-agent --help | grep -q '^EXAMPLES:'"
sleepy-agent -i 0 > /dev/null 2>&1
check "sleepy-agent -i 0: exit 2" [ $? = 2 ]
out=$(sleepy-agent -d /proc/sleepy-agent 2>&1); status=$?
check "sleepy-agent into a directory it cannot make: exit 1, one line ($out)" \
	[ $status = 1 -a "$(echo "$out" | wc -l)" = 1 ]

# Seven seconds of a busy loop in 2 s intervals: every sample the kernel
# counted is in one of the profiles (the cut hands the buffers over).
rm -rf /tmp/prof
sleepy-agent -F 200 -k -g -i 2 -d /tmp/prof -s 0 > /tmp/agent.out 2> /tmp/agent.err &
agent=$!
/sleepy/bench/loop 100000000000 > /dev/null & loop=$!
sleep 7
kill $loop
kill -TERM $agent
wait $agent; status=$?
cat /tmp/agent.out /tmp/agent.err
profiles=$(ls /tmp/prof | grep -c '^sleepy-.*\.pb\.gz$')
check "stopped by SIGTERM: exit 0, $profiles profiles of 2 s" [ $status = 0 -a "$profiles" -ge 3 ]
walk=$(sed -n 's/.*start walk announced \([0-9]*\) processes and \([0-9]*\) mappings.*/\1 \2/p' /tmp/agent.out)
check "the start walk's processes and mappings said ($walk)" \
	sh -c "[ -n '$walk' ] && set -- $walk && [ \$1 -gt 0 -a \$2 -gt 0 ]"
sed -n 's/.* \([0-9]*\) profiles with \([0-9]*\) samples, \([0-9]*\) samples counted by the kernel, \([0-9]*\) dropped.*/\2 \3 \4/p' \
	/tmp/agent.out > /tmp/agent.sum
read -r written counted dropped < /tmp/agent.sum
check "no sample lost between intervals: $written in the profiles, $counted counted, $dropped dropped" \
	[ "${written:-0}" -gt 500 -a "$written" = "$counted" -a "$dropped" = 0 ]
sleepy-parse --format json /tmp/prof > /tmp/prof.json; status=$?
check "sleepy-parse DIR reads them all back: $(json_num /tmp/prof.json samples) samples in $(json_num /tmp/prof.json profiles) profiles" \
	[ $status = 0 -a "$(json_num /tmp/prof.json samples)" = "$written" -a \
	  "$(json_num /tmp/prof.json profiles)" = "$profiles" ]
sleepy-parse --format csv /tmp/prof > /tmp/prof.csv
loop_all=$(awk -F, '$1 == "by_app" && $2 ~ /^loop#/ { n += $7 } END { print n + 0 }' /tmp/prof.csv)
loop_main=$(awk -F, '$1 == "by_function" && $2 ~ /^loop#/ && $6 == "main" { n += $7 } END { print n + 0 }' /tmp/prof.csv)
check "the loop's samples named across intervals: $loop_main of $loop_all in main" \
	[ "$loop_all" -gt 200 -a $((loop_main * 2)) -gt "$loop_all" ]
first=$(ls /tmp/prof | head -n1 | sed 's/sleepy-\(....\)\(..\)\(..\)T\(..\)\(..\)\(..\)Z.*/\1-\2-\3 \4:\5:\6/')
last=$(ls /tmp/prof | tail -n1 | sed 's/sleepy-\(....\)\(..\)\(..\)T\(..\)\(..\)\(..\)Z.*/\1-\2-\3 \4:\5:\6/')
sleepy-parse --format json --from "$last" /tmp/prof > /tmp/last.json
check "--from the last profile's start ($last): that profile alone" \
	[ "$(json_num /tmp/last.json profiles)" = 1 ]
sleepy-parse --from "$first" --to "$first" /tmp/prof > /dev/null 2>&1
check "--from not before --to: exit 2" [ $? = 2 ]

# The size cap: with 1 byte only the newest profile stays.
rm -rf /tmp/cap
sleepy-agent -F 200 -i 1 -d /tmp/cap -s 1 > /dev/null 2>&1 & agent=$!
sleep 4
kill -TERM $agent; wait $agent
check "-s 1: the oldest deleted, the newest kept ($(ls /tmp/cap | wc -l) left)" \
	[ "$(ls /tmp/cap | grep -c '\.pb\.gz$')" = 1 ]

# A full disk: said on stderr, the agent goes on, exit 1 at the stop.
mkdir -p /tmp/full
mount -t tmpfs -o size=16k tmpfs /tmp/full
dd if=/dev/zero of=/tmp/full/filler bs=4k count=16 2> /dev/null
sleepy-agent -F 200 -i 1 -d /tmp/full > /dev/null 2> /tmp/full.err & agent=$!
sleep 3
kill -0 $agent; alive=$?
kill -TERM $agent; wait $agent; status=$?
check "full disk: still running after 3 intervals, exit 1 at the stop (status $status)" \
	[ $alive = 0 -a $status = 1 ]
check "full disk: each lost profile said ($(grep -c 'No space left' /tmp/full.err) lines)" \
	grep -q 'not written (No space left on device); its [0-9]* samples are lost' /tmp/full.err
umount /tmp/full
