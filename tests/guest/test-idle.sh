#!/bin/sh
# Idle CPUs are not woken to be found idle: at 1 kHz on an idle guest the
# hrtimers park instead of firing 1000 times a second per CPU, and a tick
# session that follows finds no parked timer to restart.
. /sleepy/guest/lib.sh
cd /tmp
plan 2
sleepy-start -F 1000 -o /tmp/idle.data >/dev/null
sleep 2
sleepy-stop >/dev/null
sleepy-parse --format json /tmp/idle.data > /tmp/idle.json
idle=$(json_num /tmp/idle.json idle)
check "idle guest at 1 kHz for 2 s: timers park (idle interrupts: $idle, unparked ~4000)" \
	[ -n "$idle" -a "${idle:-9999}" -lt 1000 ]
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
sleepy-stop >/dev/null
busy=$(( $(busy_ms) - busy0 ))
sleepy-parse --format json /tmp/tick.data > /tmp/tick.json
samples=$(json_num /tmp/tick.json samples)
check "tick session after a 1 kHz one: no stray timer ($samples samples in 2 s idle, $busy ms of CPU busy)" \
	[ -n "$samples" -a "${samples:-99999}" -le $((busy * 3 / 2 + 500)) ]
