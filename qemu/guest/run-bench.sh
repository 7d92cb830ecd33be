#!/bin/sh
# make bench inside the guest (booted with QEMU -icount, so guest time is
# instructions executed): overhead of sleepy and perf on the workloads,
# drain capacity, drops with a stopped drainer.  Raw results, one per
# line, go to the host's out/bench/raw.tsv; bench/report.py turns them
# into tables, JSON and a plot.  Options from the kernel command line:
# sleepy.reps=N (repetitions), sleepy.first_rep=N (the first one's number,
# 1 unless a boot before ran the others), sleepy.drain_seconds=N,
# sleepy.capacity_seconds=N, and to run less,
# sleepy.workloads=loop,call,..., sleepy.configs=none,sleepy-9973,... and
# sleepy.parts=overhead,busy,callgraph,sched,irq,drain,stalled (and
# recordings, tcg-accuracy and capacity, not run by default: see below);
# sleepy.out=DIR puts the results in out/DIR (default out/bench).
cd /tmp
export PATH=/sleepy/bin:/sleepy/bench:/usr/bin:$PATH
reps=5 first_rep=1 drain_seconds=60 parse_seconds=120 capacity_seconds=20 out=/mnt/out/bench
. /sleepy/guest/bench-workloads.sh
workloads=$bench_workloads
parts="overhead busy callgraph sched irq drain stalled"
for arg in $(cat /proc/cmdline); do
	case $arg in
	sleepy.reps=*) reps=${arg#*=} ;;
	sleepy.first_rep=*) first_rep=${arg#*=} ;;
	sleepy.drain_seconds=*) drain_seconds=${arg#*=} ;;
	sleepy.workloads=*) workloads=$(echo ${arg#*=} | tr , ' ') ;;
	sleepy.parts=*) parts=$(echo ${arg#*=} | tr , ' ') ;;
	sleepy.out=*) out=/mnt/out/${arg#*=} ;;
	sleepy.parse_seconds=*) parse_seconds=${arg#*=} ;;
	sleepy.capacity_seconds=*) capacity_seconds=${arg#*=} ;;
	sleepy.configs=*) configs_asked=$(echo ${arg#*=} | tr , ' ') ;;
	esac
done
mkdir -p $out /tmp/acc
raw=$out/raw.tsv
last_rep=$((first_rep + reps - 1))
: > $raw
# perf must not lower its own rate under emulation: the comparison is at
# the frequency asked for.
# The rate first: with throttling off the kernel refuses to change it.
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
mkfifo /tmp/perf.ctl /tmp/perf.ack

say() { echo "bench: $*"; }
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
workload_cpu=$(( $(grep -c ^processor /proc/cpuinfo) - 1 ))
# elapsed_of FILE [first|last], cpu_of FILE [first|last]: an elapsed's
# time, or its CPU time (its command's and their children's); with two
# (per-task runs: the tool's around the workload's), the workload's first.
elapsed_of() { sed -n 's/^elapsed_ns //p' "$1" | if [ "${2:-first}" = first ]; then head -n1; else tail -n1; fi; }
cpu_of() { sed -n 's/^cpu_ns //p' "$1" | if [ "${2:-first}" = first ]; then head -n1; else tail -n1; fi; }
# sleepy_counts SUMMARY: samples and dropped from sleepy-stop's or
# sleepy-record's summary line, into $samples and $dropped.
sleepy_counts() {
	samples=$(echo "$1" | sed -n 's/^sleepy: \([0-9]*\) samples, .*/\1/p')
	dropped=$(echo "$1" | sed -n 's/^sleepy: [0-9]* samples, \([0-9]*\) dropped.*/\1/p')
}
# perf_samples FILE: the count in perf record's closing message in FILE.
perf_samples() { sed -n 's/.*p.data (\([0-9]*\) samples).*/\1/p' "$1"; }
# perf_sample_count DATA ERR: the samples of perf record's DATA, from its
# closing message in ERR or, without its build-id pass (-B), which does
# not count them, from the file's statistics.
perf_sample_count() {
	local n
	n=$(perf_samples "$2")
	[ -n "$n" ] || n=$(perf report --stats -i "$1" 2> /dev/null |
		awk '/^Aggregated stats:$/ { on = 1 } on && /SAMPLE events:/ { print $3; exit }')
	echo "$n"
}
# perf_lost DATA: samples perf lost, LOST_SAMPLES in the event's own stats.
perf_lost() {
	perf report --stats -i "$1" 2>/dev/null |
		awk '/ stats:$/ { own = 1 } own && /LOST_SAMPLES events:/ { n += $3 }
		     END { print n + 0 }'
}
json_field() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" /tmp/sb.json | head -n1; }

# keep FILE: the overhead runs' first recordings, for the accuracy part.
keep() {
	if [ "$rep" = 1 ] && [ "$kind" = overhead ]; then
		mv $1 /tmp/acc/$config-$w.data
	else
		rm -f $1
	fi
}

# run_one CONFIG WORKLOAD REP [KIND]: one measured run, one raw line of
# KIND (default overhead).  CONFIG: none, sleepy-HZ, sleepy-tick,
# sleepy-gk-HZ (with -g -k), perf-HZ, perf-g-HZ (with -g), perf-tuned-HZ
# (what a perf expert would try against sleepy: only the workload's CPU,
# a buffer of sleepy's default size, no build-id pass or cache, no BPF
# side-band events), sleepy-pid-HZ and perf-pid-HZ (per task: sleepy-record
# and perf record -- CMD, each timed from its start to its end around the
# workload, with the CPU time of the tool's own processes: total_ns and
# tool_cpu_ns, 0 for the others).
run_one() {
	config=$1 w=$2 rep=$3 kind=${4:-overhead} samples=0 dropped=0 bytes=0 on_cpu=0
	total=0 tool_cpu=0
	# The workload on the last CPU; the drainer or perf may use the other.
	# Busy: a copy on each CPU, timed until both end.
	cmd="-c $workload_cpu $w $(workload_args $w)"
	[ "$kind" = busy ] && cmd="-e $w $(workload_args $w)"
	# perf -a with a buffer that loses nothing (its default one dropped
	# records at 10 kHz with both CPUs busy): a run that drops gives no
	# cost per sample.
	rate=${config#*-} stacks= scope="-a -m 4M"
	case $rate in
	gk-*) rate=${rate#gk-} stacks="-g -k" ;;
	g-*) rate=${rate#g-} stacks=-g ;;
	tuned-*) rate=${rate#tuned-} scope="-C $workload_cpu -m 256 -N -B --no-bpf-event" ;;
	pid-*) rate=${rate#pid-} scope=task ;;
	esac
	case $config in
	none)
		elapsed $cmd > /dev/null 2> /tmp/t ;;
	sleepy-pid-*)
		elapsed sleepy-record -F $rate -o /tmp/r.data -- elapsed $cmd > /tmp/rec.out 2> /tmp/t
		sleepy_counts "$(cat /tmp/rec.out)"
		bytes=$(wc -c < /tmp/r.data)
		on_cpu=$samples
		keep /tmp/r.data ;;
	perf-pid-*)
		elapsed perf record -m 4M -e cpu-clock -F $rate -o /tmp/p.data -- elapsed $cmd > /dev/null 2> /tmp/t
		samples=$(perf_samples /tmp/t)
		dropped=$(perf_lost /tmp/p.data)
		bytes=$(wc -c < /tmp/p.data)
		on_cpu=$samples
		keep /tmp/p.data ;;
	sleepy-*)
		frequency="-F $rate"
		[ "$config" = sleepy-tick ] && frequency=
		sleepy-start $frequency $stacks -o /tmp/r.data > /dev/null || say "sleepy-start failed"
		sleep 1
		elapsed $cmd > /dev/null 2> /tmp/t
		summary=$(sleepy-stop) || say "$config $w rep $rep: sleepy-stop failed (exit $?)"
		sleepy_counts "$summary"
		bytes=$(wc -c < /tmp/r.data)
		on_cpu=$(sleepy-parse --sort cpu --format csv /tmp/r.data 2> /dev/null |
			 awk -F, -v cpu=$workload_cpu '$1 == "sorted" && $4 == cpu { print $2 }')
		keep /tmp/r.data ;;
	perf-*)
		# Events enabled (and acknowledged) only once perf has set up.
		perf record $scope -e cpu-clock -F $rate $stacks -D -1 \
			--control fifo:/tmp/perf.ctl,/tmp/perf.ack \
			-o /tmp/p.data 2> /tmp/perf.err & perf=$!
		echo enable > /tmp/perf.ctl
		read ack < /tmp/perf.ack
		elapsed $cmd > /dev/null 2> /tmp/t
		kill -INT $perf
		wait $perf
		samples=$(perf_sample_count /tmp/p.data /tmp/perf.err)
		dropped=$(perf_lost /tmp/p.data)
		bytes=$(wc -c < /tmp/p.data)
		# Without --no-children a -g recording gets a Children column.
		on_cpu=$(perf report -i /tmp/p.data --stdio -q -n --no-children -g none \
			 --sort cpu 2> /dev/null |
			 awk -v cpu=$workload_cpu '$3 + 0 == cpu { print $2 }')
		keep /tmp/p.data ;;
	esac
	ns=$(elapsed_of /tmp/t)
	[ -n "$ns" ] || { say "no time for $config $w"; ns=0; }
	# Busy: every CPU runs the workload, every sample is on a workload CPU.
	[ "$kind" = busy ] && on_cpu=$samples
	if [ "$scope" = task ]; then
		total=$(elapsed_of /tmp/t last)
		tool_cpu=$(( $(cpu_of /tmp/t last) - $(cpu_of /tmp/t) ))
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$w" "$config" "$rep" "$ns" \
		"${samples:-0}" "${dropped:-0}" "${bytes:-0}" "${on_cpu:-0}" "${total:-0}" "${tool_cpu:-0}" >> $raw
	say "$w $config rep $rep: $ns ns, ${samples:-0} samples (${on_cpu:-0} on CPU $workload_cpu), ${dropped:-0} dropped, ${bytes:-0} bytes, total ${total:-0} ns, tool CPU ${tool_cpu:-0} ns"
}

say "$(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, $reps repetitions"
# What a guest second is: one loop alone, then two at once on 2 vCPUs.
elapsed loop 50000000 > /dev/null 2> /tmp/t
printf 'calibration\tone\t%s\n' "$(elapsed_of /tmp/t)" >> $raw
elapsed loop 50000000 > /dev/null 2> /tmp/t2 & a=$!
elapsed loop 50000000 > /dev/null 2> /tmp/t3
wait $a
printf 'calibration\ttwo\t%s\t%s\n' "$(elapsed_of /tmp/t2)" "$(elapsed_of /tmp/t3)" >> $raw


# repeat KIND "WORKLOADS" "CONFIGS": every workload under every
# configuration, $reps times, one raw line of KIND each; the order
# alternates so that no configuration always runs first.
repeat() {
	rep=$first_rep
	while [ $rep -le $last_rep ]; do
		for w in $2; do
			order=$3
			[ $((rep % 2)) = 0 ] && order=$(echo $3 | tr ' ' '\n' | tac)
			for config in $order; do
				run_one $config $w $rep $1
			done
		done
		rep=$((rep + 1))
	done
}

# The rates the tools are compared at, 997 and 9973 Hz: primes, so that
# neither divides HZ (1000 here, 250 on Debian's kernel) and no sampling
# timer keeps expiring together with the tick, where one interrupt would
# serve both (sleepy's hrtimer on CPU 0 did at exactly 1 kHz; perf's never
# lines up).  sleepy-tick samples on the tick itself, on purpose.
low=997 high=9973
configs="none sleepy-tick sleepy-$low sleepy-$high perf-$low perf-$high perf-tuned-$low perf-tuned-$high"
[ -n "${configs_asked-}" ] && configs=$configs_asked
want overhead && repeat overhead "$workloads" "$configs"

# Both vCPUs busy, the baseline included: the workload once on each
# vCPU (elapsed -e), timed until both copies end, so that no CPU is idle
# and sleepy's idle parking cannot help; the drainer and perf share the
# CPUs with it.  Under -icount the guest's time is the instructions both
# vCPUs executed, one after the other, whichever way QEMU's round robin
# shares them out; so the extra time over every sample is the cost per
# sample on a busy CPU.  (A spinner on vCPU 0 with the timed workload on
# vCPU 1 measured that split instead: at 0bb1d91 sleepy-1000 2.4 times
# none, perf-10000 no visible progress in 8 minutes.)  perf -C of one CPU
# has no place here.
if want busy; then
	busy_configs=$(echo "$configs" | tr ' ' '\n' | grep -v tuned | tr '\n' ' ')
	repeat busy "loop syscall" "$busy_configs"
fi

# Call stacks: the paper's two workloads with calls, at the high rate without
# and with stacks, kernel ones included (sleepy -g -k, perf -g: both walk
# frame pointers, the workloads are built with them).
want callgraph &&
	repeat callgraph "call btree" "none sleepy-$high sleepy-gk-$high perf-$high perf-g-$high"

# Accuracy: per-function shares of the first repetition at the high rate
# (in the boot that ran it).
want overhead && [ "$first_rep" = 1 ] || workloads=
for w in $workloads; do
	case $w in loop|call|btree) ;; *) continue ;; esac
	sleepy-parse --format json --app $w -s /sleepy/bench/$w \
		/tmp/acc/sleepy-$high-$w.data > $out/accuracy-sleepy-$w.json
	perf report -i /tmp/acc/perf-$high-$w.data --stdio -q -n --comm $w \
		--sort sym 2>/dev/null > $out/accuracy-perf-$w.txt
done

# The cost of --sched and --irq: two threads waking each other over a
# futex and a pipe pair, 20,000 rounds, both pinned to the workload CPU,
# so every round is four context switches and two wakeups; sampling at
# 1 kHz alone, then with --sched, --irq and both.  perf on the same run:
# cpu-clock at 1 kHz alone, then with the tracepoints sleepy's --sched
# probes are on (sched_switch, sched_waking, sched_wakeup_new), and
# `perf sched record` (its own set, raw tracepoint data, no sampling).
# perf starts the workload itself, so its setup is not timed; `elapsed`
# times the workload alone in every configuration.
perf_sched_events="-e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup_new"
# perf_events FILE [EVENTS]: samples of the tracepoints matching the
# regex EVENTS (default: the scheduler's) and lost records, "EVENTS
# DROPPED": PERF_RECORD_LOST from the aggregated stats, LOST_SAMPLES from
# each event's own (the aggregated line repeats their sum).
perf_events() {
	perf report --stats -i $1 2>/dev/null | awk -v events="${2:-^sched:}" '
		/^Aggregated stats:$/ { own = 0; next }
		/ stats:$/ { own = 1; tp = ($1 ~ events); next }
		!own && /^ *LOST events:/ { lost += $3 }
		own && /LOST_SAMPLES events:/ { lost += $3 }
		tp && /SAMPLE events:/ { n += $3 }
		END { print n + 0, lost + 0 }'
}
# irq_counts JSON: the interrupts and softirqs in a recording's histograms.
irq_counts() {
	sed -n '/^  "\(hardirqs\|softirqs\)": \[/,/^  \]/p' $1 |
		sed -n 's/.*"count": \([0-9]*\).*/\1/p' | awk '{ n += $1 } END { print n + 0 }'
}
# event_run KIND CONFIG REP LABEL COMMAND...: one run of the sched or irq
# part's workload COMMAND under CONFIG, one raw line of KIND with its
# events (sched: switch and wakeup records; irq: interrupts and softirqs
# handled) and drops.
event_run() {
	kind=$1 config=$2 rep=$3 label=$4 events=0 dropped=0
	shift 4
	rm -f /tmp/p.data
	case $config in
	none)
		"$@" 2> /tmp/t ;;
	sleepy*)
		flags=$(echo ${config#sleepy} | sed 's/-/ --/g')
		sleepy-start -F 1000 $flags -o /tmp/sb.data > /dev/null
		"$@" 2> /tmp/t
		sleepy-stop > /dev/null
		sleepy-parse --format json /tmp/sb.data > /tmp/sb.json
		if [ $kind = sched ]; then
			events=$(( $(json_field switches) + $(json_field wakeups) ))
		else
			events=$(irq_counts /tmp/sb.json)
		fi
		dropped=$(json_field dropped)
		rm -f /tmp/sb.data ;;
	perf-sched-record)
		perf sched record -o /tmp/p.data -- "$@" > /dev/null 2> /tmp/t ;;
	perf*)
		case $config in
		perf-sched) tracepoints=$perf_sched_events ;;
		perf-irq) tracepoints=$perf_irq_events ;;
		*) tracepoints= ;;
		esac
		# Not -F: it would sample the tracepoints at that frequency too,
		# where they are meant to record every event.
		perf record -a -e cpu-clock/freq=1000/ $tracepoints -o /tmp/p.data -- "$@" \
			> /dev/null 2> /tmp/t ;;
	esac
	if [ -e /tmp/p.data ]; then
		[ $kind = sched ] && entries='^sched:' || entries='_entry$'
		set -- $(perf_events /tmp/p.data "$entries")
		events=${1:-0} dropped=${2:-0}
		rm -f /tmp/p.data
	fi
	ns=$(elapsed_of /tmp/t)
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' $kind "$config" "$rep" "${ns:-0}" "$events" "$dropped" >> $raw
	say "$label $config rep $rep: ${ns:-?} ns, $events events, $dropped dropped"
}
if want sched; then
	mkdir -p /tmp/sched-bin
	ln -sf /sleepy/bin/sleepy_sched_load /tmp/sched-bin/pingpong
	rep=$first_rep
	while [ $rep -le $last_rep ]; do
		for config in none sleepy sleepy-sched sleepy-irq \
			      sleepy-sched-irq perf perf-sched perf-sched-record; do
			event_run sched $config $rep pingpong \
				elapsed -c $workload_cpu /tmp/sched-bin/pingpong 20000
		done
		rep=$((rep + 1))
	done
fi

# The cost of --irq: 20,000 sleeps of 50 us on the workload CPU, each
# ended by the local timer's interrupt (and its softirqs), the interrupt
# rate in guest time so that it repeats under -icount; sampling at 1 kHz
# alone, then with --irq (each interrupt timed into a per-CPU histogram).
# perf on the same run: cpu-clock at 1 kHz alone, then with the
# tracepoints BCC's hardirqs and softirqs attach to, and x86's local
# timer ones (every interrupt a record).  Events: interrupts and softirqs
# handled (sleepy: the histograms' counts; perf: the entry records).
perf_irq_events="-e irq:irq_handler_entry -e irq:irq_handler_exit -e irq:softirq_entry -e irq:softirq_exit"
perf_irq_events="$perf_irq_events -e irq_vectors:local_timer_entry -e irq_vectors:local_timer_exit"
if want irq; then
	mkdir -p /tmp/sched-bin
	ln -sf /sleepy/bin/sleepy_sched_load /tmp/sched-bin/ticker
	rep=$first_rep
	while [ $rep -le $last_rep ]; do
		for config in none sleepy sleepy-irq perf perf-irq; do
			event_run irq $config $rep ticker \
				elapsed -c $workload_cpu /tmp/sched-bin/ticker 20000 50
		done
		rep=$((rep + 1))
	done
	# The same on virtio traffic: 16 MiB written to the 9p share in
	# 64 KiB writes, each request ended by the share's interrupt.  The
	# host completes them in real time, so unlike the storm above this
	# does not repeat under -icount: the table gives the spread.
	rep=$first_rep
	while [ $rep -le $last_rep ]; do
		for config in none sleepy sleepy-irq perf perf-irq; do
			event_run irq-io $config $rep virtio \
				elapsed -c $workload_cpu dd if=/dev/zero of=/mnt/out/irq-io.tmp \
				bs=64k count=256
			rm -f /mnt/out/irq-io.tmp
		done
		rep=$((rep + 1))
	done
fi

# Drain capacity: both vCPUs busy, default buffer, $drain_seconds s per
# frequency; 10 kHz, then up to 15 and 20 kHz while nothing is lost, else
# down to 5, 2 and 1 kHz.  Not higher: at 30 kHz on both busy vCPUs this
# -icount guest loses samples and, one session in two or three, never
# leaves interrupt and softirq handling on one vCPU (an RCU stall that
# lasts until the boot's timeout).
busy() {
	loop 1000000000000 > /dev/null & b1=$!
	loop 1000000000000 > /dev/null & b2=$!
}
unbusy() { kill $b1 $b2; wait $b1 $b2 2>/dev/null; }
drain_run() {	# drain_run HZ: sets dropped
	busy
	sleepy-start -F $1 -o /tmp/d.data > /dev/null
	sleep $drain_seconds
	summary=$(sleepy-stop)
	unbusy
	sleepy_counts "$summary"
	missed=$(echo "$summary" | sed -n 's/.* \([0-9]*\) periods missed.*/\1/p')
	printf 'drain\t%s\t%s\t%s\t%s\t%s\n' "$1" "$drain_seconds" "$samples" "$dropped" "${missed:-0}" >> $raw
	say "drain $1 Hz $drain_seconds s: $samples samples, $dropped dropped, ${missed:-0} periods missed"
	rm -f /tmp/d.data
}
want drain && drain_run 10000
if ! want drain; then
	:
elif [ "$dropped" = 0 ]; then
	for hz in 15000 20000; do
		drain_run $hz
		[ "$dropped" = 0 ] || break
	done
else
	for hz in 5000 2000 1000; do
		drain_run $hz
		[ "$dropped" = 0 ] && break
	done
fi

# A stalled reader: the drainer stopped for 5 s at 10 kHz on both busy
# vCPUs; what each buffer size keeps and drops (sampling goes on).
want stalled || stalled_sizes=
for size in ${stalled_sizes-64K 256K 1M 4M}; do
	busy
	# To a file: the drainer keeps sleepy-start's stdout open.
	sleepy-start -F 10000 -b $size -o /tmp/s.data > /tmp/start.out
	drainer=$(sed -n 's/.*drainer pid \([0-9]*\).*/\1/p' /tmp/start.out)
	kill -STOP $drainer
	sleep 5
	kill -CONT $drainer
	summary=$(sleepy-stop)
	unbusy
	sleepy_counts "$summary"
	memory=$(echo "$summary" | sed -n 's/.*kernel memory: \([0-9]*\) buffer bytes per CPU, \([0-9]*\) table bytes.*/\1\t\2/p')
	printf 'stalled\t%s\t5\t10000\t%s\t%s\n' "$size" "$samples" "$dropped" >> $raw
	printf 'memory\t%s\n' "$memory" >> $raw
	say "stalled drainer, buffer $size: $samples samples, $dropped dropped"
	rm -f /tmp/s.data
done
# Capacity, in a boot of its own with 8 vCPUs (sleepy.parts=capacity;
# make bench boots it with a host thread per vCPU, in real time): what
# the single reader (sleepy's drainer, perf record's one thread) drains a
# second while every CPU is busy.  No sampling rate gets there under TCG:
# 8 busy vCPUs take only some of their timer interrupts, and sleepy lost
# nothing up to 32 kHz per CPU, where it took a fifth of the periods.  So
# each reader drains a backlog: every vCPU runs a loop, the tool samples
# at 8 kHz with 1 MiB per CPU (sleepy's default) and a fixed period
# (perf's frequency mode would retune it), its reader stopped for
# $capacity_seconds s so that a backlog builds up, but short of full
# buffers, which would drop (under QEMU 10.0, 40 s filled both tools'
# 8 MiB, 25 s left them at about 5 MB); then the reader continues
# and the session stops at once.  The bytes written from then on, over
# the time until the tool is done (sleepy-stop returns, perf record
# exits), are what it drains.
uptime_cs() { awk '{ printf "%.0f\n", $1 * 100 }' /proc/uptime; }
capacity_run() {	# capacity_run TOOL REP
	pids=
	for cpu in $(seq 0 $workload_cpu); do
		loop 1000000000000 > /dev/null & pids="$pids $!"
	done
	case $1 in
	sleepy)
		data=/tmp/c.data
		sleepy-start -F 8000 -o $data > /tmp/start.out
		reader=$(sed -n 's/.*drainer pid \([0-9]*\).*/\1/p' /tmp/start.out) ;;
	perf)
		# p.data: the name perf_samples finds in perf's last message.
		data=/tmp/p.data
		perf record -a -m 1M -B -e cpu-clock -c 125000 -D -1 \
			--control fifo:/tmp/perf.ctl,/tmp/perf.ack \
			-o $data > /dev/null 2> /tmp/perf.err & reader=$!
		echo enable > /tmp/perf.ctl
		read ack < /tmp/perf.ack ;;
	esac
	kill -STOP $reader
	sleep $capacity_seconds
	before=$(wc -c < $data)
	# Timed alike for both, by the shell that waits: perf record is its
	# child, sleepy-stop waits for the drainer.  /proc/uptime's 10 ms
	# steps are 1% of a drain.
	t0=$(uptime_cs)
	kill -CONT $reader
	if [ $1 = sleepy ]; then
		sleepy-stop > /tmp/stop.out
	else
		kill -INT $reader
		wait $reader
	fi
	ns=$(( ($(uptime_cs) - t0) * 10000000 ))
	after=$(wc -c < $data)
	kill $pids
	wait $pids 2> /dev/null
	# The recording's bytes a sample, side-band records included.
	if [ $1 = sleepy ]; then
		sleepy_counts "$(cat /tmp/stop.out)"
	else
		samples=$(perf_sample_count $data /tmp/perf.err)
		dropped=$(perf_lost $data)
	fi
	rm -f $data
	printf 'capacity\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $1 $2 $((workload_cpu + 1)) \
		"${ns:-0}" $((after - before)) "${dropped:-0}" $after "${samples:-0}" >> $raw
	say "capacity $1 rep $2 on $((workload_cpu + 1)) CPUs: $((after - before)) bytes in ${ns:-?} ns; $after bytes, ${samples:-0} samples in all, ${dropped:-0} dropped while stopped"
}
if want capacity; then
	# perf's throttling back on, as the kernel ships it: this part needs
	# a backlog, not an exact rate, and nothing here compares costs.
	echo 25 > /proc/sys/kernel/perf_cpu_time_max_percent
	rep=$first_rep
	while [ $rep -le $last_rep ]; do
		capacity_run sleepy $rep
		capacity_run perf $rep
		rep=$((rep + 1))
	done
	echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
fi

# Recordings for bench/parse-speed.sh, in a boot of their own (plain TCG:
# only what is recorded matters here): one workload of PIE programs with
# shared libraries (xz, gzip, sort, md5sum: many short processes, two
# loops at a time) and the btree benchmark, recorded by sleepy and then
# by perf for $parse_seconds s (120) each at 10 kHz on both vCPUs, kernel IPs
# included, into out/DIR/parse/ with the guest's kallsyms for perf
# report.  The two recordings hold the same kind of work, not the same
# samples: parse-speed compares samples per second.
# Full paths: busybox's shell runs its own applets of those names first.
parse_work() {	# parse_work DIR
	mkdir -p $1
	seq 1 20000 | sed 's/$/ lorem ipsum dolor sit amet/' > $1/text
	while :; do
		/usr/bin/xz -1 -c $1/text | /usr/bin/xz -dc | /usr/bin/md5sum > /dev/null
		/usr/bin/gzip -c $1/text | /usr/bin/gzip -dc | /usr/bin/sort -r |
			/usr/bin/md5sum > /dev/null
		btree 100000 > /dev/null
	done
}
if want recordings; then
	mkdir -p $out/parse /tmp/parse
	for tool in sleepy perf; do
		parse_work /tmp/parse/a & w1=$!
		parse_work /tmp/parse/b & w2=$!
		if [ $tool = sleepy ]; then
			sleepy-start -k -F 10000 -o /tmp/parse/sleepy.data > /dev/null
			sleep $parse_seconds
			summary=$(sleepy-stop)
		else
			# A fixed period, as sleepy's (-F 10000 retunes it to
			# make up for periods a late timer missed).  Not as
			# many samples all the same: a late timer makes
			# sleepy's skip to the first point of its grid half a
			# period away, perf's fires at the next point however
			# close (1,815,207 samples against sleepy's 798,404 at
			# 56fd164).  Under -icount, where timers are on time
			# (2,279,055 against 2,406,831), both tries of this
			# part reported an RCU stall during perf's recording
			# (xz in a page fault on the stalled vCPU, sleepy not
			# running): this boot stays on plain TCG.
			summary=$(perf record -a -e cpu-clock -c 100000 \
				-o /tmp/parse/perf.data -- sleep $parse_seconds 2>&1 | tail -n 2 | tr '\n' ' ')
		fi
		kill $w1 $w2; wait $w1 $w2 2> /dev/null
		say "recordings: $tool: $summary"
		cp /tmp/parse/$tool.data $out/parse/ && rm -f /tmp/parse/$tool.data
	done
	cat /proc/kallsyms > $out/parse/kallsyms
fi

# Accuracy where time and instructions differ: without -icount (that
# boot), btree under each tool at 10 kHz, per task (sleepy-record, perf
# record -- CMD), three times each; bench/report.py compares the shares
# per function with each other and with callgrind's instruction shares.
if want tcg-accuracy; then
	mkdir -p $out/tcg-accuracy
	rep=$first_rep
	while [ $rep -le $last_rep ]; do
		sleepy-record -F 10000 -o /tmp/acc.data -- btree $(workload_args btree) > /dev/null
		sleepy-parse --format json --app btree -s /sleepy/bench/btree /tmp/acc.data \
			> $out/tcg-accuracy/sleepy-btree-$rep.json 2> /dev/null
		perf record -q -e cpu-clock -F 10000 -o /tmp/acc.perf -- \
			btree $(workload_args btree) > /dev/null 2>&1
		perf report -i /tmp/acc.perf --stdio -q -n --comm btree --sort sym \
			> $out/tcg-accuracy/perf-btree-$rep.txt 2> /dev/null
		say "tcg-accuracy rep $rep: $(grep -c '"function"' $out/tcg-accuracy/sleepy-btree-$rep.json) sleepy rows, $(wc -l < $out/tcg-accuracy/perf-btree-$rep.txt) perf rows"
		rm -f /tmp/acc.data /tmp/acc.perf
		rep=$((rep + 1))
	done
fi
say "finished"
