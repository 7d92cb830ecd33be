#!/bin/bash
# make bench-peers, in the full image on the kernel of make deb-debian
# (sleepy.mode=peers), booted under QEMU -icount (guest time is
# instructions): sleepy beside the tools users pick today on the same
# kernel (perf, bpftrace, BCC), sampling every CPU at one rate while both
# CPUs run the same CPU-bound loop, so that every tool samples busy CPUs
# and none gains from idle ones.  Each configuration runs REPS times, in
# alternating order; a raw line per run goes to out/bench-peers/raw.tsv:
#   run CONFIG REP ELAPSED_NS SAMPLES LOST BYTES READY_NS STOP_NS
# (SAMPLES: the loop's, counted by the tool itself; BYTES: what the tool
# wrote while sampling; READY_NS: from the tool's launch until it
# samples; STOP_NS: from its stop signal until it has exited), and per tool
#   fixed CONFIG REP TOTAL_NS
# its whole run around a command that does nothing (start, stop, and for
# the BPF tools compiling and loading their programs).
# Options on the kernel command line: sleepy.reps=N, sleepy.rate=HZ,
# sleepy.configs=a,b,...
export PATH=/sleepy/bin:/sleepy/bench:/usr/sbin:/usr/bin:/sbin:/bin
ln -sfn /mnt/out/bench-peers/sleepy /sleepy
cd /tmp
reps=5 rate=997
configs="none sleepy sleepy-g perf perf-g bpftrace-count bpftrace-ustack bpftrace-records bcc-profile"
for arg in $(cat /proc/cmdline); do
	case $arg in
	sleepy.reps=*) reps=${arg#*=} ;;
	sleepy.rate=*) rate=${arg#*=} ;;
	sleepy.configs=*) configs=$(echo "${arg#*=}" | tr , ' ') ;;
	esac
done
out=/mnt/out/bench-peers
raw=$out/raw.tsv
mkdir -p $out
: > $raw
# Every tool at the rate asked for: perf must not lower it under emulation
# (the rate with throttling on: with it off the kernel refuses the write).
echo 25 > /proc/sys/kernel/perf_cpu_time_max_percent
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
mkfifo /tmp/perf.ctl /tmp/perf.ack
workload="-e loop 120000000"
say() { echo "peers: $*"; }
now_ns() { date +%s%N; }
# wait_for FILE PATTERN: until a line of FILE matches (at most 600 s).
wait_for() {
	local i
	for ((i = 0; i < 6000; i++)); do
		grep -q "$2" "$1" 2> /dev/null && return 0
		sleep 0.1
	done
	say "no '$2' in $1 after 600 s"; return 1
}
wait_for_file() {
	local i
	for ((i = 0; i < 6000; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	say "no $1 after 600 s"; return 1
}
# stop PID: SIGINT, then wait; sets stop_ns.
stop() {
	local t0
	t0=$(now_ns)
	kill -INT "$1"
	wait "$1"
	stop_ns=$(( $(now_ns) - t0 ))
}
elapsed_ns() { sed -n 's/^elapsed_ns //p' /tmp/t | tail -n1; }
# BEGIN runs once every probe is attached; stdout stays fully buffered.
bpftrace_ready='BEGIN { system("touch /tmp/bpftrace.ready"); }'

# run_one CONFIG REP: the loop on both CPUs under CONFIG, one raw line.
run_one() {
	local config=$1 rep=$2 pid
	samples=0 lost=0 bytes=0 ready_ns=0 stop_ns=0
	rm -f /tmp/t /tmp/tool.out /tmp/tool.err /tmp/r.data /tmp/p.data
	local t0
	t0=$(now_ns)
	case $config in
	none)
		elapsed $workload > /dev/null 2> /tmp/t ;;
	sleepy|sleepy-g)
		sleepy-start -F $rate $([ $config = sleepy-g ] && echo -g) -o /tmp/r.data > /dev/null ||
			say "sleepy-start failed"
		ready_ns=$(( $(now_ns) - t0 ))
		elapsed $workload > /dev/null 2> /tmp/t
		t0=$(now_ns)
		sleepy-stop > /tmp/tool.out
		stop_ns=$(( $(now_ns) - t0 ))
		lost=$(sed -n 's/^sleepy: [0-9]* samples, \([0-9]*\) dropped.*/\1/p' /tmp/tool.out)
		bytes=$(wc -c < /tmp/r.data)
		samples=$(sleepy-parse --sort app --format csv /tmp/r.data 2> /dev/null |
			  awk -F, '$1 == "sorted" && $4 ~ /^loop#/ { n += $2 } END { print n + 0 }') ;;
	perf|perf-g)
		# Sampling starts (and is acknowledged) once perf has set up.
		perf record -a -e cpu-clock -F $rate $([ $config = perf-g ] && echo -g) -D -1 \
			--control fifo:/tmp/perf.ctl,/tmp/perf.ack -o /tmp/p.data 2> /tmp/tool.err &
		pid=$!
		echo enable > /tmp/perf.ctl
		read -r _ < /tmp/perf.ack
		ready_ns=$(( $(now_ns) - t0 ))
		elapsed $workload > /dev/null 2> /tmp/t
		stop $pid
		lost=$(perf report --stats -i /tmp/p.data 2> /dev/null |
			awk '/LOST_SAMPLES events:/ { n += $3 } END { print n + 0 }')
		bytes=$(wc -c < /tmp/p.data)
		samples=$(perf report -i /tmp/p.data --stdio -q -n --no-children -g none --sort comm 2> /dev/null |
			  awk '$3 == "loop" { n += $2 } END { print n + 0 }') ;;
	bpftrace-count|bpftrace-ustack|bpftrace-records)
		case $config in
		bpftrace-count) program="profile:hz:$rate { @[pid, comm] = count(); }" ;;
		bpftrace-ustack) program="profile:hz:$rate { @[pid, comm, ustack] = count(); }" ;;
		# One record per sample through the perf buffer, written out
		# by bpftrace: the twin of a sample record in sleepy's stream.
		bpftrace-records) program="profile:hz:$rate { printf(\"%d %d %s %lx %d\\n\", pid, tid, comm, reg(\"ip\"), cpu); }" ;;
		esac
		rm -f /tmp/bpftrace.ready
		bpftrace --unsafe -e "$program $bpftrace_ready" > /tmp/tool.out 2> /tmp/tool.err &
		pid=$!
		wait_for_file /tmp/bpftrace.ready
		ready_ns=$(( $(now_ns) - t0 ))
		bytes=$(wc -c < /tmp/tool.out)
		elapsed $workload > /dev/null 2> /tmp/t
		[ $config = bpftrace-records ] && bytes=$(( $(wc -c < /tmp/tool.out) - bytes ))
		stop $pid
		[ $config = bpftrace-records ] || bytes=0
		lost=$(cat /tmp/tool.out /tmp/tool.err | sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' |
		       awk '{ n += $1 } END { print n + 0 }')
		case $config in
		bpftrace-count)
			samples=$(awk -F'[][,:]+' '/^@\[/ && $3 == " loop" { n += $4 } END { print n + 0 }' /tmp/tool.out) ;;
		bpftrace-ustack)
			samples=$(awk '/^@\[/ { loop = /, loop, / } /^\]: [0-9]+$/ && loop { n += $2 } END { print n + 0 }' /tmp/tool.out) ;;
		bpftrace-records)
			samples=$(awk '$3 == "loop"' /tmp/tool.out | wc -l) ;;
		esac ;;
	bcc-profile)
		# Unbuffered: its "Sampling at" line says it has attached.
		PYTHONUNBUFFERED=1 profile-bpfcc -F $rate > /tmp/tool.out 2> /tmp/tool.err &
		pid=$!
		wait_for /tmp/tool.out '^Sampling at'
		ready_ns=$(( $(now_ns) - t0 ))
		elapsed $workload > /dev/null 2> /tmp/t
		stop $pid
		samples=$(awk '/^ +- +loop \([0-9]+\)$/ { getline; n += $1 } END { print n + 0 }' /tmp/tool.out) ;;
	esac
	local e
	e=$(elapsed_ns)
	[ -n "$e" ] || { say "$config: the workload did not run"; e=0; }
	printf 'run\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $config $rep $e ${samples:-0} ${lost:-0} \
		${bytes:-0} $ready_ns $stop_ns >> $raw
	say "$config rep $rep: $e ns, $samples samples, $lost lost, $bytes bytes, ready ${ready_ns} ns, stop ${stop_ns} ns"
}

# fixed_one CONFIG REP: the tool's whole run around nothing.
fixed_one() {
	local config=$1 rep=$2 e
	rm -f /tmp/t
	case $config in
	none) elapsed true 2> /tmp/t ;;
	sleepy|sleepy-g)
		elapsed sleepy-record -a -F $rate $([ $config = sleepy-g ] && echo -g) -o /tmp/r.data -- true \
			> /dev/null 2> /tmp/t ;;
	perf|perf-g)
		elapsed perf record -a -e cpu-clock -F $rate $([ $config = perf-g ] && echo -g) -o /tmp/p.data -- true \
			> /dev/null 2> /tmp/t ;;
	bpftrace-count) elapsed bpftrace -e "profile:hz:$rate { @[pid, comm] = count(); } BEGIN { exit(); }" > /dev/null 2> /tmp/t ;;
	bpftrace-ustack) elapsed bpftrace -e "profile:hz:$rate { @[pid, comm, ustack] = count(); } BEGIN { exit(); }" > /dev/null 2> /tmp/t ;;
	bpftrace-records) elapsed bpftrace -e "profile:hz:$rate { printf(\"%d %d %s %lx %d\\n\", pid, tid, comm, reg(\"ip\"), cpu); } BEGIN { exit(); }" > /dev/null 2> /tmp/t ;;
	# Its shortest run: one second of sampling (taken off by the report).
	# Once only: each run compiles its program for minutes under TCG.
	bcc-profile)
		[ "$rep" = 1 ] || return 0
		elapsed profile-bpfcc -F $rate 1 > /dev/null 2> /tmp/t ;;
	esac
	e=$(elapsed_ns)
	printf 'fixed\t%s\t%s\t%s\n' $config $rep ${e:-0} >> $raw
	say "$config fixed rep $rep: ${e:-none} ns"
}

say "$(uname -r), rate $rate Hz, $reps repetitions: $configs"
say "perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate), perf_cpu_time_max_percent $(cat /proc/sys/kernel/perf_cpu_time_max_percent)"
say "versions: $(perf --version 2>&1 | head -n1); bpftrace $(bpftrace --version 2>&1 | head -n1); bcc $(dpkg-query -W -f '${Version}' bpfcc-tools 2>/dev/null)"
for ((rep = 1; rep <= reps; rep++)); do
	# Alternating order: a drift in the guest's state spreads evenly.
	order=$configs
	[ $((rep % 2)) = 0 ] && order=$(echo $configs | tr ' ' '\n' | tac | tr '\n' ' ')
	for config in $order; do
		run_one $config $rep
	done
done
for ((rep = 1; rep <= reps; rep++)); do
	for config in $configs; do
		fixed_one $config $rep
	done
done
echo "$(uname -r)" > $out/kernel
say "done"
