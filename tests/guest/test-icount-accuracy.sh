#!/bin/sh
# Under QEMU -icount guest time is instructions executed, so a sampler's
# shares of a program's samples are its functions' shares of the
# instructions: callgrind's, on the host, of the same binary with the same
# arguments.  Here btree runs at 10 kHz and its report goes to the host as
# JSON, named from the recording alone (no -s), where
# tests/accuracy/check-accuracy.py holds it against callgrind and nm.
. /sleepy/guest/lib.sh
. /sleepy/guest/bench-workloads.sh
cd /tmp
plan 1
sleepy-record -F 10000 -o /tmp/btree.data -- /sleepy/bench/btree $(workload_args btree) > /dev/null
status=$?
parse /tmp/btree.json --format json /tmp/btree.data
cp /tmp/btree.json "$results/btree.json"
samples=$(json_num /tmp/btree.json samples)
check "btree at 10 kHz under -icount: recorded (exit $status), reported, ${samples:-no} samples (for the host's check)" \
	eval '[ "$status" = 0 ] && [ "${samples:-0}" -gt 1000 ]'
