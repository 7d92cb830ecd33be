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
sleepy-start -o /tmp/tick.data >/dev/null
sleep 2
sleepy-stop >/dev/null
sleepy-parse --format json /tmp/tick.data > /tmp/tick.json
samples=$(json_num /tmp/tick.json samples)
check "tick session after a 1 kHz one: no stray timer ($samples samples in 2 s idle)" \
	[ -n "$samples" -a "${samples:-99999}" -lt 1000 ]
