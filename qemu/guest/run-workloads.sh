#!/bin/sh
# make run inside the guest: profile the paper's benchmarks (or the user's
# program) and print sleepy-parse's reports.  The recording goes to out/.
# The program's exit status (or the profiler's failure) goes to
# out/run-status, for make run's own exit status.
cd /tmp
rec=/tmp/sleepy.data
opts=$(cat /sleepy/prog/opts)
status=/mnt/out/run-status
echo "sleepy-guest: $(uname -sr), $(grep -c ^processor /proc/cpuinfo) CPUs"
if [ -f /sleepy/prog/name ]; then
	prog=/sleepy/prog/$(cat /sleepy/prog/name)
	eval "set -- $(cat /sleepy/prog/args)"
	echo "sleepy-guest: sleepy-record $opts -o $rec -- $prog $*"
	sleepy-record $opts -o $rec -- "$prog" "$@"
	code=$?
	echo "sleepy-guest: exit status $code"
	echo "$code" > $status
	# Function names when the program is a non-PIE ELF with symbols.
	sleepy-parse -s "$prog" --top 1 $rec >/dev/null 2>&1 && symbols="-s $prog"
else
	echo "sleepy-guest: sleepy-start $opts -o $rec"
	if ! sleepy-start $opts -o $rec; then
		echo "sleepy-start failed" > $status
		exit 0
	fi
	code=0
	for b in loop call btree; do
		echo "sleepy-guest: running $b"
		/sleepy/bench/$b || code=$?
	done
	sleepy-stop
	echo "$code" > $status
	symbols="-s /sleepy/bench/loop -s /sleepy/bench/call -s /sleepy/bench/btree"
fi
sleepy-parse --top 25 ${symbols:-} $rec
# Named here, where the mapped files are: a flame graph and the pprof
# profile for the host.
# Their warnings are the report's (a file without symbols): said once, unless
# they fail.
if sleepy-parse ${symbols:-} --flamegraph cpu $rec > /mnt/out/flamegraph.svg 2> /tmp/parse.err; then
	echo "sleepy-guest: flame graph written to out/flamegraph.svg"
else
	cat /tmp/parse.err
fi
if sleepy-parse ${symbols:-} --pprof /mnt/out/profile.pb.gz $rec 2> /tmp/parse.err; then
	echo "sleepy-guest: pprof profile written to out/profile.pb.gz"
else
	cat /tmp/parse.err
fi
cp $rec /mnt/out/sleepy.data 2>/dev/null && echo "sleepy-guest: recording copied to out/sleepy.data"
echo "sleepy-guest: kernel taint flags $(cat /proc/sys/kernel/tainted)"
