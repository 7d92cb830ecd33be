#!/bin/sh
# test-irq.sh: --irq histograms against the kernel's own counters.  A
# session runs while the guest writes 4 MiB to the 9p share (virtio
# interrupts) and the timer ticks; /proc/interrupts and /proc/softirqs
# are read just after the start and just before the stop (inner) and
# before the start and after the stop (outer): every count must lie
# between the two deltas.  The drainer has the histograms written every
# second too (--irq-interval 1): the sums over the intervals must still
# lie there, each CPU's in its own column of /proc/interrupts.
# The guest has a second 9p device (tag aux, the repository's qemu/) on
# a legacy interrupt line it shares with another virtio device (IRQ 11 in
# make test's guests): a shared line, whose actions have histograms of
# their own.
. /sleepy/guest/lib.sh
cd /tmp
export PATH=/sleepy/bin:$PATH
plan 17
mkdir -p /mnt/aux
grep -q ' /mnt/aux ' /proc/mounts || mount -t 9p -o trans=virtio,ro aux /mnt/aux ||
	echo "# test-irq: no second 9p device (tag aux): no shared line"

# count FILE LABEL: the sum over the CPUs of the row LABEL ("LOC:", "11:",
# "TIMER:") of /proc/interrupts or /proc/softirqs.
count() {
	awk -v label="$2" '$1 == label { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i }
		END { print n + 0 }' "$1"
}
# count_cpu FILE LABEL CPU: that row's count on one CPU.
count_cpu() {
	awk -v label="$2" -v cpu="$3" '$1 == label { n = $(cpu + 2) } END { print n + 0 }' "$1"
}
# row FILE REPORT NAME: the JSON row of REPORT whose name is NAME.
row() {
	sed -n "/^  \"$2\": \[/,/^  \]/p" "$1" | grep -F "\"name\": \"$3\"," | head -n1
}
field() {
	echo "$1" | sed -n "s/.*\"$2\": \"*\([^,\"}]*\)\"*[,}].*/\1/p"
}
# bracket NAME COUNT INNER OUTER: INNER <= COUNT <= OUTER, COUNT > 0.
bracket() {
	check "$1: $2 in the histograms, between $3 (inside the session) and $4 (around it)" \
		eval "[ -n '$2' ] && [ '$2' -gt 0 ] && [ '$2' -ge '$3' ] && [ '$2' -le '$4' ]"
}

cat /proc/interrupts > /tmp/int.0; cat /proc/softirqs > /tmp/soft.0
sleepy-start --irq --irq-interval 1 -o /tmp/irq.data > /dev/null
cat /proc/interrupts > /tmp/int.1; cat /proc/softirqs > /tmp/soft.1
dd if=/dev/zero of=/mnt/out/irq-test.tmp bs=64k count=64 2> /dev/null
rm -f /mnt/out/irq-test.tmp
for i in 1 2 3 4; do cat /mnt/aux/*.sh > /dev/null 2>&1; done
sleep 2
cat /proc/interrupts > /tmp/int.2; cat /proc/softirqs > /tmp/soft.2
sleepy-stop > /dev/null
cat /proc/interrupts > /tmp/int.3; cat /proc/softirqs > /tmp/soft.3
parse /tmp/irq.json --format json --irq-by-app /tmp/irq.data

delta() {	# delta FILE-STEM LABEL FROM TO
	echo $(( $(count /tmp/$1.$4 "$2") - $(count /tmp/$1.$3 "$2") ))
}
r=$(row /tmp/irq.json hardirqs LOC)
echo "# $r"
bracket "local timer (LOC)" "$(field "$r" count)" "$(delta int LOC: 1 2)" "$(delta int LOC: 0 3)"
sum=$(echo "$r" | sed -n 's/.*"log2_ns": \[\([0-9,]*\)\].*/\1/p' | tr ',' '\n' |
	awk '{ n += $1 } END { print n + 0 }')
check "local timer: its log2 buckets hold its $(field "$r" count) runs ($sum)" [ "$sum" = "$(field "$r" count)" ]

# The other system vectors timed: irq_work (relay's reader wakeups among
# them), rescheduling and function-call IPIs (CAL: two vectors, summed).
# Any of them may not have fired; those that did are all counted.
for v in IWI RES CAL; do
	n=$(sed -n '/^  "hardirqs": \[/,/^  \]/p' /tmp/irq.json | grep -F "\"name\": \"$v\"," |
		sed -n 's/.*"count": \([0-9]*\).*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
	inner=$(delta int $v: 1 2) outer=$(delta int $v: 0 3)
	check "system vector $v: $n in the histograms, between $inner (inside the session) and $outer (around it)" \
		[ "$n" -ge "$inner" -a "$n" -le "$outer" ]
done

# The virtio device of the 9p share: its IRQ number from the recording's
# copy of /proc/interrupts, by name.
r=$(sed -n '/^  "hardirqs": \[/,/^  \]/p' /tmp/irq.json | grep '"name": "virtio' | head -n1)
echo "# $r"
irq=$(field "$r" number)
bracket "virtio ($(field "$r" name), IRQ ${irq:-?})" "$(field "$r" count)" \
	"$(delta int "$irq:" 1 2)" "$(delta int "$irq:" 0 3)"

# The shared line, the one whose name lists two actions ("virtio0,
# virtio1" here; with MSI-X, as on Debian's kernel, the aux devices get
# legacy interrupts through vectors=0): one row per action (0 and 1, named
# as in the line's list), each run once per interrupt of the line, their
# time inside it.
line=$(sed -n '/^  "hardirqs": \[/,/^  \]/p' /tmp/irq.json | grep '"name": "[^"]*, ' | head -n1)
irq=$(field "$line" number)
sed -n '/^  "hardirq_actions": \[/,/^  \]/p' /tmp/irq.json |
	grep -F "\"number\": ${irq:-none}," > /tmp/actions
sed 's/^/# /' /tmp/actions
action_name() {	# action_name INDEX: the name of that action's row
	grep -F "\"action\": $1," /tmp/actions | sed -n 's/.*"name": "\([^"]*\)".*/\1/p'
}
names="$(action_name 0), $(action_name 1)"
line_name=$(echo "$line" | sed -n 's/.*"name": "\([^"]*\)".*/\1/p')
check "shared IRQ ${irq:-?} ($line_name): a histogram per action, named in the line's order ($names)" \
	eval "[ '$(wc -l < /tmp/actions)' = 2 ] && [ '$names' = '$line_name' ] && [ -n '$(action_name 1)' ]"
counts=$(sed -n 's/.*"count": \([0-9]*\).*/\1/p' /tmp/actions | tr '\n' ' ')
action_ns=$(sed -n 's/.*"total_ns": \([0-9]*\).*/\1/p' /tmp/actions | awk '{ n += $1 } END { print n + 0 }')
check "shared IRQ: each action ran for each of its $(field "$line" count) interrupts, within 2 ($counts), in $action_ns of its $(field "$line" total_ns) ns" \
	awk -v c="$counts" -v n="$(field "$line" count)" -v a="$action_ns" -v t="$(field "$line" total_ns)" \
	'BEGIN { k = split(c, v, " "); ok = k == 2 && n > 0 && a > 0 && a <= t
		 for (i = 1; i <= k; i++) ok = ok && v[i] >= n - 2 && v[i] <= n + 2
		 exit !ok }'

r=$(row /tmp/irq.json softirqs TIMER)
echo "# $r"
bracket "TIMER softirq" "$(field "$r" count)" "$(delta soft TIMER: 1 2)" "$(delta soft TIMER: 0 3)"
rcu=$(row /tmp/irq.json softirqs RCU)
bracket "RCU softirq" "$(field "$rcu" count)" "$(delta soft RCU: 1 2)" "$(delta soft RCU: 0 3)"
d=$(row /tmp/irq.json softirq_delay TIMER)
echo "# $d"
check "TIMER softirq: delays from raise to run for $(field "$d" count) of its $(field "$r" count) runs" \
	eval "[ -n '$(field "$d" count)' ] && [ '$(field "$d" count)' -gt 0 ]"

# The time taken from applications is part of the interrupts' time.
charged=$(sed -n '/^  "irq_by_app": \[/,/^  \]/p' /tmp/irq.json |
	sed -n 's/.*"total_ns": \([0-9]*\).*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
total=$(sed -n '/^  "hardirqs": \[/,/^  \]/p; /^  "softirqs": \[/,/^  \]/p' /tmp/irq.json |
	sed -n 's/.*"total_ns": \([0-9]*\).*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
check "by application: $charged ns taken from applications, within the interrupts' $total ns" \
	eval "[ '$charged' -gt 0 ] && [ '$charged' -le '$total' ]"

# Per CPU: each CPU's local timer count against its own column.
parse /tmp/irq-cpu.json --format json --irq-per-cpu /tmp/irq.data
for cpu in 0 1; do
	r=$(sed -n '/^  "hardirqs": \[/,/^  \]/p' /tmp/irq-cpu.json |
		grep -F '"name": "LOC",' | grep -F "\"cpu\": $cpu," | head -n1)
	echo "# $r"
	inner=$(( $(count_cpu /tmp/int.2 LOC: $cpu) - $(count_cpu /tmp/int.1 LOC: $cpu) ))
	outer=$(( $(count_cpu /tmp/int.3 LOC: $cpu) - $(count_cpu /tmp/int.0 LOC: $cpu) ))
	bracket "local timer on CPU $cpu" "$(field "$r" count)" "$inner" "$outer"
done

# Per interval: the flushes every second wrote the timer's histograms at
# least twice (about 3 s of session), and the intervals add up to the total.
parse /tmp/irq-int.json --format json --irq-intervals /tmp/irq.data
sed -n '/^  "hardirqs": \[/,/^  \]/p' /tmp/irq-int.json | grep -F '"name": "LOC",' > /tmp/loc-int
cat /tmp/loc-int | sed 's/^/# /'
n=$(wc -l < /tmp/loc-int)
sum=$(sed -n 's/.*"count": \([0-9]*\).*/\1/p' /tmp/loc-int | awk '{ n += $1 } END { print n + 0 }')
ends=$(sed -n 's/.*"end_s": \([0-9.]*\).*/\1/p' /tmp/loc-int | sort -u | wc -l)
check "local timer in $n intervals with $ends distinct ends, summing to the total $(field "$(row /tmp/irq.json hardirqs LOC)" count) ($sum)" \
	eval "[ '$n' -ge 3 ] && [ '$ends' = '$n' ] && [ '$sum' = '$(field "$(row /tmp/irq.json hardirqs LOC)" count)' ]"

# Without --irq, no histograms.
# A report must be there to lack them: the tools worked, the recording
# ended and has the shell's busy loop.
sleepy-start -o /tmp/noirq.data > /dev/null; statuses=$?
i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done
sleepy-stop > /dev/null; statuses="$statuses $?"
parse /tmp/noirq.json --format json /tmp/noirq.data; statuses="$statuses $?"
samples=$(json_num /tmp/noirq.json samples)
check "without --irq: no interrupt report (start, stop, parse exit $statuses; ${samples:-no} samples)" \
	eval '[ "$statuses" = "0 0 0" ] && [ "${samples:-0}" -gt 0 ] &&
	      grep -q "\"complete\": true" /tmp/noirq.json && ! grep -q "\"hardirqs\"" /tmp/noirq.json'

# An interval without --irq is refused in one line, exit status 2.
sleepy-start --irq-interval 1 -o /tmp/bad.data > /tmp/bad.out 2>&1
status=$?
check "--irq-interval without --irq: exit $status, $(wc -l < /tmp/bad.out) line: $(cat /tmp/bad.out)" \
	eval "[ $status = 2 ] && [ \$(wc -l < /tmp/bad.out) = 1 ] && grep -q 'needs --irq' /tmp/bad.out && [ ! -e /tmp/bad.data ]"
umount /mnt/aux 2> /dev/null
true
