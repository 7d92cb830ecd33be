#!/bin/sh
# Idle CPUs are not woken to be found idle: at 1 kHz on an idle guest the
# hrtimers park instead of firing 1000 times a second per CPU, yet a CPU
# that gets busy again is sampled; and a tick session that follows finds
# no parked timer to restart.
. /sleepy/guest/lib.sh
cd /tmp
plan 3
# Parked, not dead: a short busy loop after the 2 s is sampled at once.
sleepy-start -F 1000 -o /tmp/idle.data >/dev/null
sleep 2
/sleepy/bench/loop 20000000 > /dev/null & spin=$!
wait $spin
sleepy-stop >/dev/null
parse /tmp/idle.json --format json /tmp/idle.data
idle=$(json_num /tmp/idle.json idle)
check "idle guest at 1 kHz for 2 s: timers park (idle interrupts: $idle, unparked ~4000)" \
	[ -n "$idle" -a "${idle:-9999}" -lt 1000 ]
spun=$(app_samples /tmp/idle.json $spin)
check "the same session, complete, sampled the busy loop that followed: ${spun:-no} samples" \
	eval 'grep -q "\"complete\": true" /tmp/idle.json && [ "${spun:-0}" -ge 10 ]'
# The tick runs on busy CPUs only: as many samples as milliseconds of CPU
# time the window's own work took (the sleep, sleepy-stop, the drainer;
# its length is the machine's speed, read from /proc/stat), where a
# stray 1 kHz timer would add about 2000 per CPU.
busy_ms() {	# all CPUs' non-idle time so far, in ms (USER_HZ = 100)
	read -r _ user nice system _ _ irq softirq steal _ < /proc/stat
	echo $(( (user + nice + system + irq + softirq + steal) * 10 ))
}
busy0=$(busy_ms)
sleepy-start -o /tmp/tick.data >/dev/null
sleep 2
/sleepy/bench/loop 20000000 > /dev/null & spin=$!
wait $spin
sleepy-stop >/dev/null
busy=$(( $(busy_ms) - busy0 ))
parse /tmp/tick.json --format json /tmp/tick.data
samples=$(json_num /tmp/tick.json samples)
spun=$(app_samples /tmp/tick.json $spin)
check "tick session after a 1 kHz one: no stray timer ($samples samples in 2 s idle and a short loop, $busy ms of CPU busy), the loop sampled (${spun:-no} samples)" \
	[ -n "$samples" -a "${samples:-99999}" -le $((busy * 3 / 2 + 500)) -a "${spun:-0}" -ge 10 ]
