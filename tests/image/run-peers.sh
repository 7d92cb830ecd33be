#!/bin/bash
# make bench-peers, in the full image on the kernel of make deb-debian
# (sleepy.mode=peers), booted under QEMU -icount (guest time is
# instructions): sleepy beside the tools users pick today on the same
# kernel (perf, bpftrace, BCC).  Five parts (sleepy.parts=), each
# configuration REPS times in alternating order, one raw line per run in
# out/bench-peers/raw.tsv:
# - sample: every tool samples every CPU at one rate while both CPUs run
#   the same CPU-bound loop, so that none gains from an idle CPU:
#     run CONFIG REP ELAPSED_NS SAMPLES LOST BYTES READY_NS STOP_NS
#   (SAMPLES: the loop's, counted by the tool itself; BYTES: what the
#   tool wrote while sampling; READY_NS: from the tool's launch until it
#   samples; STOP_NS: from its stop signal until it has exited), and per
#   tool its whole run around a command that does nothing (start, stop,
#   and for the BPF tools compiling and loading their programs):
#     fixed CONFIG REP TOTAL_NS
# - sched: a context-switch storm (pingpong, two threads waking each other
#   on CPU 1) under sleepy --sched, perf's switch events, bpftrace's
#   runqlat and off-CPU time, BCC's libbpf-tools offcputime, runqlat and
#   wakeuptime (and BCC's Python offcputime, runqlat, offwaketime);
# - irq: a timer interrupt storm (ticker: 50 us sleeps on CPU 1, a niced
#   spinner beside it so that the CPU is never idle) under sleepy --irq,
#   bpftrace timing every interrupt and softirq, libbpf-tools hardirqs -d
#   and softirqs -d (and BCC's Python ones):
#     event PART CONFIG REP ELAPSED_NS EVENTS LOST BYTES READY_NS STOP_NS
#   (EVENTS: the switches and wakeups, or interrupts and softirqs, sleepy
#   recorded; the BPF tools see the same tracepoints but do not count).
# - idle: an idle machine sampled by each tool, the local timer interrupts
#   it takes (sleepy parks an idle CPU's timer, the others keep firing):
#     idle CONFIG REP ELAPSED_NS INTERRUPTS
# - task: per task, a loop of two lengths and `true` under each tool, and
#   the loop beside an unrelated, mostly busy process on the other CPU
#   (see task_one).
# Every tool gets the same buffer per CPU (4 MiB) where it has one.
# Options on the kernel command line: sleepy.reps=N, sleepy.rate=HZ,
# sleepy.configs=a,b,... (sample part), sleepy.idle_configs=a,b,... (idle
# part), sleepy.task_configs=a,b,... (task part),
# sleepy.parts=sample,sched,irq,idle,task,
# sleepy.bcc=0 (not BCC's Python tools, which compile their programs
# for a minute each under TCG), sleepy.bcc_reps=N.
export PATH=/sleepy/bin:/sleepy/bench:/usr/sbin:/usr/bin:/sbin:/bin
ln -sfn /mnt/out/bench-peers/sleepy /sleepy
# The recordings go to memory, not to the image's disk: under -icount
# sleep=off a guest waiting for the disk skips its clock ahead while the
# host does the I/O in real time, so a wait on the disk (the drainer's
# fsync at the stop, perf's writes) lasts as long as the host's load
# makes it (at 5ac7a49, beside a make test on the host, two sleepy stops
# took 60.1 and 60.2 s of guest time: sleepy-stop waits at most 60 s for
# its drainer).
mount -t tmpfs -o size=1G tmpfs /tmp
cd /tmp
reps=5 rate=9973 parts="sample sched irq idle task" bcc_reps= bcc=1
chosen_sched_configs= chosen_irq_configs=
# bpftrace never attached on an idle machine under -icount (1200 s, with
# no sleepy session in that boot; with one, the kernel oopsed meanwhile).
idle_configs="none sleepy perf"
# perf-pid: perf record's default post-processing (a build-id pass over
# the recording) took 46.7 s of guest time around `true` in this image.
task_configs="none sleepy-pid perf-pid perf-pid-tuned"
configs="none sleepy sleepy-g perf perf-g bpftrace-count bpftrace-ustack bpftrace-records"
for arg in $(cat /proc/cmdline); do
	case $arg in
	sleepy.reps=*) reps=${arg#*=} ;;
	sleepy.rate=*) rate=${arg#*=} ;;
	sleepy.configs=*) configs=$(echo "${arg#*=}" | tr , ' ') ;;
	sleepy.parts=*) parts=$(echo "${arg#*=}" | tr , ' ') ;;
	sleepy.bcc_reps=*) bcc_reps=${arg#*=} ;;
	sleepy.bcc=*) bcc=${arg#*=} ;;
	sleepy.idle_configs=*) idle_configs=$(echo "${arg#*=}" | tr , ' ') ;;
	sleepy.task_configs=*) task_configs=$(echo "${arg#*=}" | tr , ' ') ;;
	sleepy.sched_configs=*) chosen_sched_configs=$(echo "${arg#*=}" | tr , ' ') ;;
	sleepy.irq_configs=*) chosen_irq_configs=$(echo "${arg#*=}" | tr , ' ') ;;
	esac
done
bcc_reps=${bcc_reps:-$reps}
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
buffer=4M
export BPFTRACE_PERF_RB_PAGES=1024
# offcputime and offwaketime keep their stacks in a map of 16384 by
# default and lose some on the pingpong storm (24 and 60 in a run): a
# user would give them more room, as perf and sleepy get 4 MiB a CPU.
bcc_stacks=131072
workload="-e loop 120000000"
say() { echo "peers: $*"; }
now_ns() { date +%s%N; }
# wait_for FILE PATTERN [PID]: until a line of FILE matches (at most 1200
# s), saying every minute what PID is doing meanwhile.
wait_for() {
	local i
	for ((i = 1; i <= 12000; i++)); do
		grep -q "$2" "$1" 2> /dev/null && return 0
		[ -n "${3-}" ] && [ $((i % 600)) = 0 ] &&
			say "waiting for '$2': $(ps -o etime=,time=,stat=,rss= -p $3 2> /dev/null || echo exited)," \
			    "$(tail -c 200 /tmp/tool.err 2> /dev/null | tr '\n' ' ')"
		sleep 0.1
	done
	say "no '$2' in $1 after 1200 s: $(tail -c 400 /tmp/tool.err 2> /dev/null | tr '\n' ' ')"; return 1
}
wait_for_file() {
	local i
	for ((i = 0; i < 12000; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	say "no $1 after 1200 s"; return 1
}
# tool_state PID: where each thread of PID is (state, the kernel function
# it sleeps in, its system call and kernel stack's top) and the end of
# the tool's stderr, in one line.
tool_state() {
	local task
	for task in /proc/$1/task/*; do
		echo "thread ${task##*/}: $(cut -d' ' -f3 $task/stat) $(cat $task/wchan) syscall $(cut -d' ' -f1 $task/syscall)" \
			"stack $(head -n 3 $task/stack | sed 's/^\[<[0-9a-f]*>\] //' | tr '\n' ' ');"
	done 2> /dev/null | tr '\n' ' '
	echo "stderr: $(tail -c 300 /tmp/tool.err 2> /dev/null | tr '\n' ' ')"
}
# stop PID: SIGINT, then wait; sets stop_ns.
# A tool that exits before it is stopped measured nothing, and one still
# running 600 s after the signal is killed, after saying where it was:
# tool_failed says why, and the run is written as failed (no elapsed
# time).  (bpftrace 0.17 did not stop three times in a make bench.)
stop() {
	local t0 watchdog status
	kill -0 "$1" 2> /dev/null || tool_failed="it exited before its stop"
	t0=$(now_ns)
	kill -INT "$1" 2> /dev/null
	( sleep 600 && say "$config: still running 600 s after its SIGINT: $(tool_state "$1")" &&
		kill -KILL "$1" ) 2> /dev/null &
	watchdog=$!
	wait "$1"
	status=$?
	stop_ns=$(( $(now_ns) - t0 ))
	# Its sleep ended, so that no stray timer wakes an idle part's CPUs.
	pkill -P $watchdog sleep
	wait $watchdog
	if [ $status = 137 ]; then
		tool_failed="it did not exit within 600 s of its SIGINT (killed)"
	fi
}
elapsed_ns() { sed -n 's/^elapsed_ns //p' /tmp/t | tail -n1; }
is_bcc() { case $1 in bcc-*) true ;; *) false ;; esac; }
# BEGIN runs once every probe is attached; stdout stays fully buffered.
bpftrace_ready='BEGIN { system("touch /tmp/bpftrace.ready"); }'
# bpftrace_start PROGRAM: bpftrace in the background until it has
# attached; sets pid and ready_ns (from t0).
bpftrace_start() {
	rm -f /tmp/bpftrace.ready
	bpftrace --unsafe -e "$1 $bpftrace_ready" > /tmp/tool.out 2> /tmp/tool.err &
	pid=$!
	wait_for_file /tmp/bpftrace.ready || tool_failed="it never attached"
	ready_ns=$(( $(now_ns) - t0 ))
}
# What users write with bpftrace for --sched and --irq's questions: run
# queue latency (runqlat.bt's program), off-CPU time per command, and
# the time of every hard interrupt (the local timer's too) and softirq.
bpftrace_runqlat='tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @qtime[args->pid] = nsecs; }
tracepoint:sched:sched_switch { if (args->prev_state == 0) { @qtime[args->prev_pid] = nsecs; } $ns = @qtime[args->next_pid]; if ($ns) { @usecs = hist((nsecs - $ns) / 1000); } delete(@qtime[args->next_pid]); }'
bpftrace_offcpu='tracepoint:sched:sched_switch { @off[args->prev_pid] = nsecs; $s = @off[args->next_pid]; if ($s) { @usecs[args->next_comm] = hist((nsecs - $s) / 1000); delete(@off[args->next_pid]); } }'
bpftrace_irqs='tracepoint:irq:irq_handler_entry, tracepoint:irq_vectors:local_timer_entry { @hs[cpu] = nsecs; }
tracepoint:irq:irq_handler_exit, tracepoint:irq_vectors:local_timer_exit { $s = @hs[cpu]; if ($s) { @hardirq_us = hist((nsecs - $s) / 1000); delete(@hs[cpu]); } }
tracepoint:irq:softirq_entry { @ss[cpu] = nsecs; }
tracepoint:irq:softirq_exit { $s = @ss[cpu]; if ($s) { @softirq_us[args->vec] = hist((nsecs - $s) / 1000); delete(@ss[cpu]); } }'

# perf_record ARGS...: perf record in the background, sampling once it
# has set up and acknowledged; sets pid and ready_ns (from t0).
perf_record() {
	perf record -m $buffer -D -1 --control fifo:/tmp/perf.ctl,/tmp/perf.ack \
		-o /tmp/p.data "$@" 2> /tmp/tool.err &
	pid=$!
	echo enable > /tmp/perf.ctl
	read -r _ < /tmp/perf.ack
	ready_ns=$(( $(now_ns) - t0 ))
}
# perf_lost: the records perf lost in /tmp/p.data.
perf_lost() {
	perf report --stats -i /tmp/p.data 2> /dev/null |
		awk '/LOST_SAMPLES events:|^ *LOST events:/ { n += $3 } END { print n + 0 }'
}
# anon_fds PID KIND: how many anonymous files of KIND (perf_event,
# bpf_link) PID holds.
anon_fds() {
	ls -l /proc/$1/fd 2> /dev/null | grep -c "anon_inode:\[\?$2\]\?\$"
}
# bpf_tool PATTERN TOOL ARGS...: a BCC tool (Python, compiling its program
# at start) or one of BCC's libbpf-tools (CO-RE: compiled already, loaded
# against the kernel's BTF) in the background until its output matches
# PATTERN (it has attached); "perf events": until it holds one per CPU
# (profile prints its header before it compiles); "bpf links": until it
# holds one (offcputime prints nothing).  Sets pid and ready_ns (from t0).
# A script's background job starts with SIGINT ignored, and Python then
# never installs its handler: BCC's tools would sleep through stop()'s
# SIGINT for ever (every BENCH_BCC run hung there); env gives them
# SIGINT's default back, as an interactive shell does.
bpf_tool() {
	local pattern=$1 i kind= least=1
	shift
	env --default-signal=INT PYTHONUNBUFFERED=1 stdbuf -oL "$@" > /tmp/tool.out 2> /tmp/tool.err &
	pid=$!
	case $pattern in
	"perf events") kind=perf_event least=$(nproc) ;;
	"bpf links") kind=bpf_link ;;
	esac
	if [ -n "$kind" ]; then
		for ((i = 1; i <= 12000; i++)); do
			[ "$(anon_fds $pid $kind)" -ge $least ] && break
			[ $((i % 600)) = 0 ] &&
				say "waiting for $1's $pattern: $(ps -o etime=,time=,stat=,rss= -p $pid 2> /dev/null || echo exited)"
			sleep 0.1
		done
		[ $i -le 12000 ] || tool_failed="no $pattern after 1200 s"
	else
		wait_for /tmp/tool.out "$pattern" $pid || tool_failed="it never attached"
	fi
	ready_ns=$(( $(now_ns) - t0 ))
}

# bpf_tool_lost: the stack traces a BCC tool lost, from its
# "WARNING: 10 stack traces lost" (its map had no room for them), and
# the line said without the capitals a kernel warning has, which the
# console scan would take for one.
bpf_tool_lost() {
	grep -iq 'lost\|error' /tmp/tool.err &&
		say "$config: $(grep -i 'lost\|error' /tmp/tool.err | head -n1 | sed 's/WARNING:/warning:/')" >&2
	sed -n 's/.*[^0-9]\([0-9][0-9]*\) stack traces lost.*/\1/p' /tmp/tool.err |
		awk '{ n += $1 } END { print n + 0 }'
}

# run_one CONFIG REP: the loop on both CPUs under CONFIG, one raw line.
run_one() {
	local config=$1 rep=$2 pid t0
	samples=0 lost=0 bytes=0 ready_ns=0 stop_ns=0 tool_failed=
	rm -f /tmp/t /tmp/tool.out /tmp/tool.err /tmp/r.data /tmp/p.data
	t0=$(now_ns)
	case $config in
	none)
		elapsed $workload > /dev/null 2> /tmp/t ;;
	sleepy|sleepy-g)
		sleepy-start -F $rate -b $buffer $([ $config = sleepy-g ] && echo -g) -o /tmp/r.data > /dev/null ||
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
		perf_record -a -e cpu-clock -F $rate $([ $config = perf-g ] && echo -g)
		elapsed $workload > /dev/null 2> /tmp/t
		stop $pid
		lost=$(perf_lost)
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
		# bpftrace-records: 64 MiB per CPU, so that the kernel loses none
		# of the run's records (with 4 MiB it lost half).  Its reader
		# still falls behind, and bpftrace exits soon after its stop
		# signal without writing the rest: bench/peers-report.py gives
		# no cost per sample to a tool that wrote far fewer than sleepy.
		pages=$BPFTRACE_PERF_RB_PAGES
		[ $config = bpftrace-records ] && pages=16384
		BPFTRACE_PERF_RB_PAGES=$pages bpftrace_start "$program"
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
		bpf_tool "perf events" profile-bpfcc -F $rate
		elapsed $workload > /dev/null 2> /tmp/t
		stop $pid
		lost=$(bpf_tool_lost)
		samples=$(awk '/^ +- +loop \([0-9]+\)$/ { getline; n += $1 } END { print n + 0 }' /tmp/tool.out) ;;
	esac
	local e
	e=$(elapsed_ns)
	[ -n "$e" ] || { say "$config: the workload did not run"; e=0; }
	[ -z "$tool_failed" ] || { say "$config rep $rep: $tool_failed"; e=0; }
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
		elapsed sleepy-record -a -F $rate -b $buffer $([ $config = sleepy-g ] && echo -g) -o /tmp/r.data -- true \
			> /dev/null 2> /tmp/t ;;
	perf|perf-g)
		elapsed perf record -m $buffer -a -e cpu-clock -F $rate $([ $config = perf-g ] && echo -g) -o /tmp/p.data -- true \
			> /dev/null 2> /tmp/t ;;
	bpftrace-count) elapsed bpftrace -e "profile:hz:$rate { @[pid, comm] = count(); } BEGIN { exit(); }" > /dev/null 2> /tmp/t ;;
	bpftrace-ustack) elapsed bpftrace -e "profile:hz:$rate { @[pid, comm, ustack] = count(); } BEGIN { exit(); }" > /dev/null 2> /tmp/t ;;
	bpftrace-records) elapsed bpftrace -e "profile:hz:$rate { printf(\"%d %d %s %lx %d\\n\", pid, tid, comm, reg(\"ip\"), cpu); } BEGIN { exit(); }" > /dev/null 2> /tmp/t ;;
	# Its shortest run: one second of sampling (taken off by the report).
	bcc-profile) elapsed profile-bpfcc -F $rate 1 > /dev/null 2> /tmp/t ;;
	esac
	e=$(elapsed_ns)
	printf 'fixed\t%s\t%s\t%s\n' $config $rep ${e:-0} >> $raw
	say "$config fixed rep $rep: ${e:-none} ns"
}

# irq_counts JSON: the interrupts and softirqs in a recording's histograms.
irq_counts() {
	sed -n '/^  "\(hardirqs\|softirqs\)": \[/,/^  \]/p' $1 |
		sed -n 's/.*"count": \([0-9]*\).*/\1/p' | awk '{ n += $1 } END { print n + 0 }'
}
# json_field NAME: the recording's summary figure NAME (0 if absent).
json_field() {
	local v
	v=$(sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" /tmp/r.json | head -n1)
	echo ${v:-0}
}

# event_one PART CONFIG REP: PART's workload on CPU 1 under CONFIG.
event_one() {
	local part=$1 config=$2 rep=$3 pid t0 spinner
	events=0 lost=0 bytes=0 ready_ns=0 stop_ns=0 tool_failed=
	rm -f /tmp/t /tmp/tool.out /tmp/tool.err /tmp/r.data /tmp/p.data
	t0=$(now_ns)
	case $config in
	sleepy*)
		sleepy-start -F $rate -b $buffer $(echo ${config#sleepy} | sed 's/-/ --/g') -o /tmp/r.data > /dev/null ||
			say "sleepy-start failed"
		ready_ns=$(( $(now_ns) - t0 )) ;;
	perf-switch)
		# Every switch and wakeup a record; no sampling beside them.
		perf_record -a --switch-events -e sched:sched_waking ;;
	perf-offcpu) perf_record -a --off-cpu ;;
	bpftrace-runqlat) bpftrace_start "$bpftrace_runqlat" ;;
	bpftrace-offcpu) bpftrace_start "$bpftrace_offcpu" ;;
	bpftrace-irqs) bpftrace_start "$bpftrace_irqs" ;;
	bcc-offcputime) bpf_tool 'Hit Ctrl-C' offcputime-bpfcc --stack-storage-size $bcc_stacks ;;
	bcc-runqlat) bpf_tool 'Hit Ctrl-C' runqlat-bpfcc ;;
	bcc-offwaketime) bpf_tool 'Hit Ctrl-C' offwaketime-bpfcc --stack-storage-size $bcc_stacks ;;
	bcc-hardirqs) bpf_tool 'Hit Ctrl-C' hardirqs-bpfcc -d ;;
	bcc-softirqs) bpf_tool 'Hit Ctrl-C' softirqs-bpfcc -d ;;
	libbpf-offcputime) bpf_tool 'bpf links' offcputime ;;
	libbpf-runqlat) bpf_tool 'Hit Ctrl-C' runqlat ;;
	libbpf-wakeuptime) bpf_tool 'Tracing blocked' wakeuptime ;;
	libbpf-hardirqs) bpf_tool 'Hit Ctrl-C' hardirqs -d ;;
	libbpf-softirqs) bpf_tool 'Hit Ctrl-C' softirqs -d ;;
	esac
	if [ $part = sched ]; then
		elapsed -c 1 /tmp/bin/pingpong 20000 2> /tmp/t
	else
		taskset -c 1 nice -n 19 loop 1000000000000 > /dev/null &
		spinner=$!
		elapsed -c 1 /tmp/bin/ticker 20000 50 2> /tmp/t
		kill $spinner
		wait $spinner 2> /dev/null
	fi
	case $config in
	sleepy*)
		t0=$(now_ns)
		sleepy-stop > /tmp/tool.out
		stop_ns=$(( $(now_ns) - t0 ))
		sleepy-parse --format json /tmp/r.data > /tmp/r.json
		if [ $part = sched ]; then
			events=$(( $(json_field switches) + $(json_field wakeups) ))
		else
			events=$(irq_counts /tmp/r.json)
		fi
		lost=$(json_field dropped)
		bytes=$(wc -c < /tmp/r.data) ;;
	perf-*)
		stop $pid
		lost=$(perf_lost)
		bytes=$(wc -c < /tmp/p.data) ;;
	bpftrace-*)
		stop $pid
		lost=$(cat /tmp/tool.out /tmp/tool.err | sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' |
		       awk '{ n += $1 } END { print n + 0 }') ;;
	bcc-*|libbpf-*)
		stop $pid
		lost=$(bpf_tool_lost) ;;
	esac
	local e
	e=$(elapsed_ns)
	[ -n "$e" ] || { say "$config: the workload did not run"; e=0; }
	[ -z "$tool_failed" ] || { say "$part $config rep $rep: $tool_failed"; e=0; }
	printf 'event\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $part $config $rep $e ${events:-0} \
		${lost:-0} ${bytes:-0} $ready_ns $stop_ns >> $raw
	say "$part $config rep $rep: $e ns, $events events, $lost lost, $bytes bytes, ready ${ready_ns} ns, stop ${stop_ns} ns"
}

# part CONFIGS RUN: RUN of each configuration, REPS times in alternating
# order (a drift in the guest's state spreads evenly); BCC's only
# bcc_reps times.
part() {
	local order config rep
	for ((rep = 1; rep <= reps; rep++)); do
		order=$1
		[ $((rep % 2)) = 0 ] && order=$(echo $1 | tr ' ' '\n' | tac | tr '\n' ' ')
		for config in $order; do
			is_bcc $config && [ $rep -gt $bcc_reps ] && continue
			$2 $config $rep
		done
	done
}

# The image's daily jobs (apt-daily, dpkg-db-backup, fstrim, e2scrub,
# tmpfiles-clean: systemd timers, the Persistent ones due at a fresh
# image's first boot) may run in the middle of the measurements (at
# 5ac7a49 one run without a profiler took 2.6 s instead of 1.0): no timer
# fires from here on, and jobs already started end before the first run.
systemctl stop '*.timer'
for ((waited = 0; waited < 600; waited++)); do
	[ -z "$(systemctl list-jobs --no-legend)" ] && break
	sleep 1
done
say "timers stopped; systemd jobs still running after ${waited} s: $(systemctl list-jobs --no-legend | wc -l)"
say "$(uname -r), rate $rate Hz, $reps repetitions (BCC $bcc_reps), parts: $parts"
say "perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate), perf_cpu_time_max_percent $(cat /proc/sys/kernel/perf_cpu_time_max_percent)"
say "versions: $(perf --version 2>&1 | head -n1); bpftrace $(bpftrace --version 2>&1 | head -n1); bcc $(dpkg-query -W -f '${Version}' bpfcc-tools 2>/dev/null); libbpf-tools $(dpkg-query -W -f '${Version}' libbpf-tools 2>/dev/null)"
mkdir -p /tmp/bin
ln -sf /sleepy/bin/sleepy_sched_load /tmp/bin/pingpong
ln -sf /sleepy/bin/sleepy_sched_load /tmp/bin/ticker
local_timer_interrupts() {
	awk '$1 == "LOC:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print n }' /proc/interrupts
}
# idle_one CONFIG REP: an idle machine (both CPUs) sampled by CONFIG for
# a while: the local timer interrupts per second it costs.
idle_one() {
	local config=$1 rep=$2 pid t0 before after
	rm -f /tmp/tool.out /tmp/tool.err /tmp/r.data /tmp/p.data /tmp/bpftrace.ready
	t0=$(now_ns)
	case $config in
	sleepy) sleepy-start -F $rate -b $buffer -o /tmp/r.data > /dev/null ;;
	perf) perf_record -a -e cpu-clock -F $rate ;;
	bpftrace-count)
		bpftrace -e "profile:hz:$rate { @[pid, comm] = count(); } $bpftrace_ready" \
			> /tmp/tool.out 2> /tmp/tool.err &
		pid=$!
		wait_for_file /tmp/bpftrace.ready ;;
	esac
	before=$(local_timer_interrupts)
	t0=$(now_ns)
	sleep 5
	after=$(local_timer_interrupts)
	local e=$(( $(now_ns) - t0 ))
	case $config in
	sleepy) sleepy-stop > /dev/null ;;
	perf|bpftrace-count) stop $pid ;;
	esac
	printf 'idle\t%s\t%s\t%s\t%s\n' $config $rep $e $((after - before)) >> $raw
	say "idle $config rep $rep: $((after - before)) local timer interrupts in $e ns"
}

# task_one CONFIG REP LENGTH [beside]: a loop of LENGTH iterations (or
# `true` for 0) on CPU 1 under CONFIG's per-task tool, timed from the
# tool's start to its end, CPU 0 idle: each tool's fixed cost (`true`) and
# its cost per sample (the slope between two lengths).
#     task CONFIG REP LENGTH ELAPSED_NS SAMPLES CPU0_INTERRUPTS
# With "beside", an unrelated, mostly busy process runs on CPU 0
# meanwhile, and the local timer interrupts CPU 0 takes are what it pays
# for the tool (perf's per-task event fires only where the task runs;
# sleepy's pid filter, where a followed task runs):
#     beside CONFIG REP ELAPSED_NS CPU0_INTERRUPTS
# Its elapsed time is no cost: under -icount, whether CPU 0 takes a timer
# moved the loop's time on CPU 1 by as much as the tools' whole cost (120
# M iterations: 3.5 s under sleepy with the pid filter in every CPU's
# interrupt, 5.7 s once it spared CPU 0, 2.9 s under none).  The process
# sleeps 10 ms after each 1 M iterations (about 0.1 s): a vCPU that never
# halts held QEMU's -icount round robin, and perf's 30 M loop beside a
# pure spinner took 260.8 s of guest time instead of 3.4 s.
task_one() {
	local config=$1 rep=$2 length=$3 beside=${4-} spinner= before after cmd
	samples=0
	rm -f /tmp/t /tmp/r.data /tmp/p.data
	cmd="loop $length"
	[ "$length" = 0 ] && cmd=true
	if [ -n "$beside" ]; then
		taskset -c 0 sh -c 'while :; do loop 1000000; sleep 0.01; done' > /dev/null &
		spinner=$!
	fi
	before=$(cpu0_local_timer_interrupts)
	case $config in
	none) elapsed -c 1 $cmd > /dev/null 2> /tmp/t ;;
	sleepy-pid)
		elapsed -c 1 sleepy-record -F $rate -b $buffer -o /tmp/r.data -- $cmd > /dev/null 2> /tmp/t
		samples=$(sleepy-parse --sort app --format csv /tmp/r.data 2> /dev/null |
			  awk -F, '$1 == "sorted" && $4 ~ /^loop#/ { n += $2 } END { print n + 0 }') ;;
	perf-pid|perf-pid-tuned)
		elapsed -c 1 perf record -m $buffer -e cpu-clock -F $rate \
			$([ $config = perf-pid-tuned ] && echo --buildid-mmap -N --no-bpf-event) \
			-o /tmp/p.data -- $cmd > /dev/null 2> /tmp/t
		samples=$(perf report -i /tmp/p.data --stdio -q -n --no-children -g none --sort comm 2> /dev/null |
			  awk '$3 == "loop" { n += $2 } END { print n + 0 }') ;;
	esac
	after=$(cpu0_local_timer_interrupts)
	if [ -n "$spinner" ]; then
		kill $spinner
		wait $spinner 2> /dev/null
		pkill -x -f 'loop 1000000'
	fi
	local e
	e=$(elapsed_ns)
	[ -n "$e" ] || { say "task $config: the workload did not run"; e=0; }
	if [ -n "$beside" ]; then
		printf 'beside\t%s\t%s\t%s\t%s\n' $config $rep $e $((after - before)) >> $raw
	else
		printf 'task\t%s\t%s\t%s\t%s\t%s\t%s\n' $config $rep $length $e $samples $((after - before)) >> $raw
	fi
	say "task $config rep $rep length $length${beside:+ beside a busy CPU 0}: $e ns, $samples samples, $((after - before)) interrupts on CPU 0"
}
cpu0_local_timer_interrupts() { awk '$1 == "LOC:" { print $2 }' /proc/interrupts; }
task_lengths="0 30000000 120000000"
task_all() {
	local length
	for length in $task_lengths; do
		task_one $1 $2 $length
	done
	task_one $1 $2 30000000 beside
}

# BCC's libbpf-tools (Debian's libbpf-tools: no profile or offwaketime in
# its 0.26; wakeuptime is the nearest to offwaketime) start in a moment.
sched_configs="none sleepy sleepy-sched perf-switch bpftrace-runqlat bpftrace-offcpu
	libbpf-offcputime libbpf-runqlat libbpf-wakeuptime"
irq_configs="none sleepy sleepy-irq bpftrace-irqs libbpf-hardirqs libbpf-softirqs"
# BCC's Python tools compile their programs with LLVM at the start
# (profile: 47 and 57 s in a boot under plain TCG, 19 s of guest time
# under -icount): sleepy.bcc=0 leaves them out.
if [ "$bcc" = 1 ]; then
	configs="$configs bcc-profile"
	sched_configs="$sched_configs bcc-offcputime bcc-runqlat bcc-offwaketime"
	irq_configs="$irq_configs bcc-hardirqs bcc-softirqs"
fi
# perf's --off-cpu needs a perf built with BPF skeletons.
perf record --off-cpu -o /tmp/p.data -- true > /dev/null 2>&1 && sched_configs="$sched_configs perf-offcpu" ||
	say "perf record --off-cpu: not in this perf ($(perf record --off-cpu -o /tmp/p.data -- true 2>&1 | head -n1))"
# sleepy.sched_configs= and sleepy.irq_configs= choose among them.
# chosen CHOSEN ALL: CHOSEN if each is one of ALL, else ALL (and says so).
chosen() {
	local c
	for c in $1; do
		case " $(echo $2) " in
		*" $c "*) ;;
		*) say "no configuration $c here (these are: $(echo $2)); all of them run" >&2
		   echo "$2"; return ;;
		esac
	done
	echo "${1:-$2}"
}
sched_configs=$(chosen "$chosen_sched_configs" "$sched_configs")
irq_configs=$(chosen "$chosen_irq_configs" "$irq_configs")
for p in $parts; do
	case $p in
	sample)
		part "$configs" run_one
		for ((rep = 1; rep <= reps; rep++)); do
			for config in $configs; do
				# Once only for BCC: it compiles for minutes.
				is_bcc $config && [ $rep -gt 1 ] && continue
				fixed_one $config $rep
			done
		done ;;
	sched) part "$sched_configs" "event_one sched" ;;
	irq) part "$irq_configs" "event_one irq" ;;
	idle) part "$idle_configs" idle_one ;;
	task) part "$task_configs" task_all ;;
	esac
done
echo "$(uname -r)" > $out/kernel
say "done"
