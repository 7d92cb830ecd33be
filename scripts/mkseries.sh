#!/bin/bash
# make series: exports kernel-overlay/ + patches/ as a git format-patch
# series with a cover letter, on top of the pristine Debian source, into
# out/series, authored and signed off by whoever runs it (git config
# user.name and user.email of this repository).  With --check (make test),
# also counts each patch's changed lines (at most 700), runs checkpatch
# --strict on each, and builds the kernel after every patch (and boots it
# after those that change what runs without a session, and the last),
# printing "ok - ..." lines; that series stays in build/series/check,
# under a throwaway identity where none is configured.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
check=${1:-}
work=$top/build/series
tree=$work/linux
out=$top/out/series
name=$(git -C "$top" config user.name || true)
email=$(git -C "$top" config user.email || true)
if [ "$check" = --check ]; then
	out=$work/check
	[ -n "$name" ] && [ -n "$email" ] ||
		name="sleepy series check" email="series-check@sleepy.invalid"
elif [ -z "$name" ] || [ -z "$email" ]; then
	echo "mkseries: set git config user.name and user.email: the patches are signed off by whoever exports them" >&2
	exit 1
fi
tarball=$(ls /usr/src/linux-source-6.12.tar.* | head -n1)
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# The per-commit builds sit at the same relative place as the main build
# (build/series/{linux,kernel-normal} like build/{linux,kernel-normal}),
# so with paths made relative to the clone ccache finds what either built.
export CCACHE_BASEDIR=$top
# SERIES_JOBS: parallel compiles; SERIES_LOAD: no new one while the load
# average is above it (make test: two, the second only once the debug
# guests beside it have ended).
jobs="-j${SERIES_JOBS:-$(nproc)}${SERIES_LOAD:+ -l$SERIES_LOAD}"
# gc.auto=0: the commits made here, about 80,000 files each run, would
# start an automatic repack of the whole kernel tree beside the builds.
git_() { git -C "$tree" -c gc.auto=0 -c user.name="$name" -c user.email="$email" "$@"; }

# One commit per concern, in an order that builds at every step:
# "subject|overlay paths|patch file|body".  A commit with a patch file and
# no subject takes the patch's own message; one with a subject and a patch
# file takes both changes under the subject.  The first fixes every
# header the kernel at large includes: Kconfig's symbols (autoconf.h),
# the system calls' declarations (syscalls.h) and numbers, generic and
# x86's (the generated unistd headers), so that each later commit builds
# with the final .config and headers and finds in ccache what the normal
# kernel's build compiled: only the files it changes compile.  Cold runs
# compiled every object again at one job beside the debug guests for a
# first commit without CONFIG_SLEEPY (16 minutes), about 1,100 for one
# without the declarations (10 minutes), and still most for one without
# x86's numbers (8 minutes).  The system calls are sys_ni_syscall
# (ENOSYS) until the session commit defines them.
commits=(
"sleepy: the user-space ABI, and building kernel/sleepy|include/uapi/linux/sleepy.h kernel/sleepy/Kconfig|0002-sleepy-build.patch 0003-sleepy-syscalls.patch 0004-x86-sleepy-syscalls.patch|abi"
"|"'|0001-relay-channels-without-files.patch|'
"sleepy: add per-application appid tables|include/linux/sleepy.h kernel/sleepy/sleepy.h kernel/sleepy/apps.c||apps"
"sleepy: KUnit tests of the appid tables|kernel/sleepy/apps_kunit.c||apps_kunit"
"sleepy: add per-CPU record buffers on relay|kernel/sleepy/buffer.c||buffer"
"sleepy: KUnit tests of the record buffers|kernel/sleepy/buffer_kunit.c||buffer_kunit"
"sleepy: sample from the tick or per-CPU hrtimers, with call stacks|kernel/sleepy/sampling.c kernel/sleepy/stack.c|0005-sleepy-tick-hook.patch 0006-sched-idle-sleepy-hook.patch|sampling"
"sleepy: keep the appid tables through fork, exec and exit|kernel/sleepy/probes.c kernel/sleepy/process.c||process"
"sleepy: record executable mappings, and what ran before a session|kernel/sleepy/maps.c kernel/sleepy/walk.c|0012-mm-sleepy-mmap-hook.patch|maps"
"sleepy: time interrupts through their tracepoints|kernel/sleepy/irq.h kernel/sleepy/irq.c||irq"
"sleepy: write the interrupt histograms into the stream|kernel/sleepy/irq_flush.c kernel/sleepy/irq_kunit.c||irq_flush"
"sleepy: record context switches and wakeups|kernel/sleepy/sched.c||sched"
"sleepy: add sessions: sleepy_start() and sleepy_stop()|kernel/sleepy/session.c||session"
"|Documentation/userspace-api/sleepy.rst|0014-sleepy-docs.patch|"
"selftests/sleepy: what the test programs share|tools/testing/selftests/sleepy/sleepy_test.h|0013-selftests-sleepy.patch|selftest_harness"
"selftests/sleepy: scheduler and interrupt records|tools/testing/selftests/sleepy/sleepy_sched_test.c||selftest_sched"
"selftests/sleepy: the system call ABI|tools/testing/selftests/sleepy/config tools/testing/selftests/sleepy/sleepy_test.c||selftest_abi"
"selftests/sleepy: appids, mappings and the start walk|tools/testing/selftests/sleepy/sleepy_process_test.c||selftest_process"
"selftests/sleepy: samples, call stacks and CPU hotplug|tools/testing/selftests/sleepy/sleepy_sample_test.c||selftest_sample"
)
declare -A bodies
bodies[abi]="sleepy is a sampling profiler after SLEEPY (2005), built into the
kernel: the timer tick or a per-CPU hrtimer records the interrupted
instruction pointers of every CPU together with an appid, program name
plus instance number, unique for a whole session even when pids are
reused, into per-CPU relay buffers that a tool drains.

The header defines the whole interface once, for the kernel and the
tools: struct sleepy_attr for sleepy_start() (extensible by its size,
as sched_setattr()'s), the ioctls of the session descriptor, and every
record type with its fields.  Records are multiples of 8 bytes behind a
common header, so a reader skips the types it does not know.

sleepy_start(struct sleepy_attr __user *attr, unsigned int flags) takes
the attribute block and returns a file descriptor that owns the session;
sleepy_stop(flags) ends the running session and flushes every CPU's
buffer.  They are declared and numbered here, in the generic table and
in x86's (the structures they take have no pointers and the same layout
on 32 and 64 bits, so no compat entry points are needed), and return
ENOSYS (sys_ni_syscall) until the session patch defines them, and
whenever sleepy is not built.  The numbers, 1000 and 1001, are out of
the range upstream hands out in order (463 onwards; 6.13 took 463 and
464 for setxattrat/getxattrat): a tool built against these headers gets
ENOSYS, not another system call, on a kernel without sleepy.  They are
to be replaced by the next free numbers if the series is merged.

Kconfig declares CONFIG_SLEEPY (x86-64 for now: the system call numbers,
the x86 system vectors' tracepoints and the compat stack walk) and its
KUnit tests; CONFIG_SLEEPY selects TRACING, which brings the
tracepoints the probes of later patches use, as blktrace does."
bodies[apps]="An appid names one instance of one program for a whole profiling
session: the program name plus how often that name started, so that
sh#3 and sh#4 stay apart in a profile after both are gone and their
pids are reused, which a pid or a comm alone cannot do.

The tables map a live thread group to its appid (pid_appid) and a name
to its instance count (max_appid).  They are changed in process context
under a spinlock and read from the sampling interrupt under RCU; their
entries come from pools allocated when a session starts, so no path
allocates and a full pool is counted, not fatal.  A mapping can be made
conditional on the process still being alive, checked under the lock,
so a start that races with an exit cannot leave a stale one.

kernel/sleepy/sleepy.h declares what the files of the following patches
share, include/linux/sleepy.h the hooks they add to core files: one
static branch each, a no-op until a session runs."
bodies[apps_kunit]="Instances, pid reuse, exited processes, overflow, and concurrent
writers against lock-free readers that must never see another pid's
appid nor a stale one."
bodies[buffer]="Samples are taken in hard-irq context on every CPU and must never wait:
each CPU writes its own relay buffer with interrupts off, so writers do
not nest and need no lock.  Each sub-buffer starts with a header whose
committed count the writer advances with a release store after every
record, and a whole sub-buffer is published with a write barrier before
relay moves on, pairing with the acquire in relay's reader; the reader's
consumed count pairs the other way.  Full buffers drop and count; the
loss is announced in-stream as soon as a record fits again.  A writer
that can wait or try again later writes without counting a loss.
Counters use u64_stats so that 32-bit readers see whole values.

The channel has no files: a reader gets a descriptor for one CPU's
buffer, with relay's file operations, from the session (a later patch),
so neither debugfs nor root is needed to read it; a second descriptor
for a buffer that has a reader is refused, since reads consume."
bodies[buffer_kunit]="Full buffers counting their drops, a writer that tries again counting
none, wrap-around behind a reader, and a hard-irq writer nesting over a
process-context one."
bodies[sampling]="A session without a frequency samples on every scheduler tick, like
the old profile=... option: a call next to profile_tick() in both tick
handlers (periodic and NO_HZ).  At a frequency, a pinned hard-irq
hrtimer per CPU samples instead.  A CPU hotplug state starts and
cancels each CPU's timer, so a CPU that goes down does not leave its
timer on another one and a CPU that comes up is sampled.  CPU k's timer
fires at the multiples of the period shifted by k/nr_cpu_ids of one, as
skew_tick=1 spreads the ticks, and rearms at least half a period ahead
and far enough that the samples take at most perf_cpu_time_max_percent
of the CPU, counting the periods it skipped.

A timer that finds its CPU idle twice in a row stops rearming, as the
tick does under NO_HZ, so a session does not keep waking idle CPUs only
to count them idle.  put_prev_task_idle() restarts it on its own grid:
it runs on the CPU itself with the runqueue locked and interrupts off
whenever the idle task gives way to another task, which is what
sched_ext uses to learn that a CPU leaves idle as well.  The exit of
do_idle()'s loop is not enough: after it, schedule_idle() may switch to
a task, back to idle and, in the same call, to a task again; a timer
that parked in that window stayed parked for as long as the task ran.
The hrtimer base lock nests inside the runqueue lock, as for hrtick.

With SLEEPY_FLAG_CALLCHAIN every sample carries its call stacks: the
user stack walked by frame pointers with copy_from_user_nofault() from
the interrupt (32-bit frames for compat tasks), the kernel stack from
stack_trace_save_regs() on the interrupted registers, each at most
max_stack frames (within kernel.perf_event_max_stack), built in a
per-CPU scratch record; a stack cut at that depth, or a user walk that
reached a frame it could not read or follow, is flagged in the record.
Each hook is one static branch while no session runs."
bodies[process]="Probes on sched_process_fork, sched_process_exec and
sched_process_exit keep the appid tables of the running session and
announce each application instance in the stream: a new thread group
gets an appid before it first runs, an exec starts a new instance, and
the last thread's exit retires it before the pid can be reused.  The
probes are registered with each session and do nothing before it is
published.  probes.c registers a set of probes all or none."
bodies[maps]="A profiler names a user IP by its mapping: the file, its offset and
its build-id.  Next to perf_event_mmap() in __mmap_region() and in
mprotect_fixup() (a file mapping made executable), a hook records each
new executable file mapping of a profiled process while a session
runs, so the samples of a process that exits, or whose pid is reused,
before anyone reads /proc/PID/maps still resolve.  It asks whether a
session wants the mapping before it reads the path or the build-id
(from pages in memory only: never a fault under mmap_lock).  The
mappings an exec makes arrive before the exec probe announces the new
image and are flagged as belonging to it.

The processes that ran before a session, and their mappings, are
announced by a kthread of the session's own once its descriptor is
handed out, at the pace of the reader: a full buffer makes it move to a
CPU whose buffer has room, or wait a tick, never drop.  It finds the
processes one at a time by pid, each under a short RCU section, takes
each mm's lock with a trylock the stop can interrupt (a kthread gets no
fatal signal) and never holds it while it waits.  Sampling begins when
it is done, so a session started beside thousands of processes with
the smallest buffers loses nothing of its start, and a stuck mm can
neither hang a start nor a stop."
bodies[irq]="With SLEEPY_FLAG_IRQ, probes on irq_handler_entry/exit,
softirq_entry/exit/raise and x86's local_timer, irq_work, reschedule
and call_function(_single) vector tracepoints fill per-CPU log2
histograms of each hard interrupt's and softirq's handler time, of each
softirq's delay from raise to run, and the time each took from the
application it interrupted; not a record per interrupt.  An IRQ is
timed from its first action's entry to its last one's exit; a shared
line's actions have histograms of their own, keyed by IRQ and dev_id
and named by the name they had when first seen.  Every time is the
handler's own: a CPU sums the own time of the hard interrupts it
finished, and a softirq, IRQ or action takes off what the sum grew by
while it ran, as irqtime accounting splits them.  With
SLEEPY_FLAG_SCHED the same probes tell which interrupt woke a task."
bodies[irq_flush]="The histograms go into the stream at the stop and when the session's
owner asks (SLEEPY_IOC_IRQ_FLUSH, for interval views): each online CPU
writes its own from an IPI, and an offline CPU's are written by the
flushing one.  A slot the buffer has no room for keeps its counts for
the next flush; only the stop's write can lose one, and counts it.  The
names of the shared-line actions go with them.

KUnit tests cover the nesting arithmetic: a timer interrupt inside a
softirq, a demultiplexed IRQ inside its parent, an action of a shared
line."
bodies[sched]="With SLEEPY_FLAG_SCHED, probes on sched_switch, sched_waking and
sched_wakeup_new record every context switch (who leaves the CPU, why,
the user IP it left from and, with kernel IPs, where in the kernel it
blocked; who takes the CPU) and every wakeup (waker or interrupt,
wakee, CPU), so that the tools compute exact off-CPU time per
application instance, its reasons, run-queue waits and wakeup links
instead of sampling them.  They run with the runqueue or the wakee's
pi_lock held and interrupts off and only copy a record into the local
relay buffer, whose reader wakeup relay defers to an irq_work.  The
blocking site skips the scheduler, the probe and the tracepoint's
iterator."
bodies[session]="sleepy_start() creates the one session of the system and returns a file
descriptor that owns it: sleepy_stop() ends sampling, and closing the
last reference stops the session if it still runs and frees its
buffers, so a session never outlives its tools.  ioctls on it hand out
a read descriptor per CPU buffer, the per-CPU counters and the session
times and state.  The start registers the probes the session needs,
publishes it to the hooks and the probes through an RCU pointer behind
a static key, and starts the walk over the processes that ran before
it; the stop ends the walk, clears the pointer and waits for a grace
period before it cancels the timers and unregisters the probes.

Permissions are perf's for a CPU-wide event (perf_allow_cpu(), and
perf_allow_kernel() plus kptr_restrict for kernel IPs), and for
tracepoints (perf_allow_tracepoint()) to record switches, wakeups and
interrupt times; callers in a child pid namespace are refused because
records carry global pids.  Only the user who started a session (or
CAP_SYS_ADMIN) stops it.  The buffers are charged as perf charges its
ring buffers: perf_event_mlock_kb per CPU to the user's locked_vm, the
rest to the mm's pinned_vm within RLIMIT_MEMLOCK unless CAP_IPC_LOCK,
refused with EPERM as perf_mmap() refuses.  kernel.sleepy_max_frequency
bounds the rate as perf_event_max_sample_rate does; max_stack follows
perf_event_max_stack, with perf's EOVERFLOW.

The system calls were declared and numbered by the first patch; until
this one they returned ENOSYS."
bodies[selftest_harness]="The header the sleepy kselftest programs that follow share: the system
calls, reading a session's stream and counters as a drainer does, and
the fixture that makes sure no other session runs.  sleepy is added to
the default TARGETS; its programs come with the next patches."
bodies[selftest_sched]="kselftest harness tests of what SLEEPY_FLAG_SCHED and SLEEPY_FLAG_IRQ
record: switches and wakeups of a known sleeper, checked against the
switches it counted itself, where a task blocked, the interrupt
histograms against /proc/interrupts at the stop and at a flush."
bodies[selftest_abi]="Every documented error of sleepy_start() and sleepy_stop(), E2BIG
write-back, the session descriptor (close stops the session, a killed
owner frees the buffers) and its ioctls, one reader per buffer, refusal
in a pid namespace, unprivileged use (the root of a user namespace
included), start/stop cycles, another user's stop refused, the memlock
charge, and the sysctls sleepy follows (perf_event_max_stack,
perf_cpu_time_max_percent, sleepy_max_frequency, kptr_restrict); the
configuration the suite needs (config)."
bodies[selftest_process]="New appids on fork, exec and pid reuse, the executable mappings (at
the start, mmap, mprotect, exec), the start walk beside 2,000
processes with the smallest buffers (nothing lost, every process and
mapping announced), without a reader (stop, the owner's death and the
next start go through), against zombies and a fork storm, and pid
filters, also across pid reuse."
bodies[selftest_sample]="Call stacks of a known chain of the program's own frames (kernel
frames too, cut at max_stack and flagged), every counted sample in the
stream, drops counted without a reader, CPU hotplug during and between
10 kHz sessions, and an idle CPU sampled after the start."

# kernel/sleepy/Makefile as it stands after a commit: the objects whose
# sources the commit has added so far, in the final Makefile's order.
write_sleepy_makefile() {
	local dir=$tree/kernel/sleepy core="" tests="" o
	[ -d "$dir" ] || return 0
	for o in apps buffer session sampling process maps walk probes sched irq irq_flush stack; do
		[ -f "$dir/$o.c" ] && core+=" $o.o"
	done
	for o in apps_kunit buffer_kunit irq_kunit; do
		[ -f "$dir/$o.c" ] && tests+=" $o.o"
	done
	{
		echo "# SPDX-License-Identifier: GPL-2.0"
		echo "obj-y				+=$core"
		[ -z "$tests" ] || echo "obj-\$(CONFIG_SLEEPY_KUNIT_TEST)	+=$tests"
	} > "$dir/Makefile"
}

# The selftests' Makefile likewise: the test programs added so far.
write_selftest_makefile() {
	local dir=$tree/tools/testing/selftests/sleepy progs="" t
	[ -d "$dir" ] || return 0
	for t in sleepy_test sleepy_process_test sleepy_sample_test sleepy_sched_test; do
		[ -f "$dir/$t.c" ] && progs+=" $t"
	done
	sed "s/^TEST_GEN_PROGS :=.*/TEST_GEN_PROGS :=$progs/" \
		"$top/kernel-overlay/tools/testing/selftests/sleepy/Makefile" > "$dir/Makefile"
}

if [ ! -d "$tree/.git" ]; then
	echo "mkseries: making a git tree of the pristine source (once)"
	rm -rf "$work"; mkdir -p "$work"
	tar -C "$work" -xf "$tarball"
	mv "$work/linux-source-6.12" "$tree"
	git_ init -q
	git_ add -A -f
	git_ commit -qm "Linux $(make -s -C "$tree" kernelversion) (Debian linux-source-6.12)"
	git_ tag base
fi
git_ checkout -qf base
git_ clean -fdqx
git_ checkout -qB sleepy

for entry in "${commits[@]}"; do
	IFS='|' read -r subject paths patch body <<< "$entry"
	for p in $paths; do
		mkdir -p "$tree/$(dirname "$p")"
		cp -r "$top/kernel-overlay/$p" "$tree/$(dirname "$p")/"
	done
	write_sleepy_makefile
	write_selftest_makefile
	msg=$(mktemp)
	for p in $patch; do
		git_ apply --index "$top/patches/$p"
		[ -n "$subject" ] || sed '/^---$/,$d' "$top/patches/$p" > "$msg"
	done
	if [ -n "$subject" ]; then
		printf '%s\n\n%s\n' "$subject" "${bodies[$body]}" > "$msg"
	fi
	printf '\nSigned-off-by: %s <%s>\n' "$name" "$email" >> "$msg"
	# Its maintainer is whoever sends the series.
	if [ -n "$patch" ] && grep -q '^+SLEEPY SAMPLING PROFILER$' "$top/patches/${patch%% *}"; then
		awk -v m="M:	$name <$email>" '{ print } $0 == "SLEEPY SAMPLING PROFILER" { print m }' \
			"$tree/MAINTAINERS" > "$tree/MAINTAINERS.new"
		mv "$tree/MAINTAINERS.new" "$tree/MAINTAINERS"
	fi
	git_ add -A -f
	git_ commit -q -F "$msg"
	rm -f "$msg"
done
for f in kernel/sleepy/Makefile tools/testing/selftests/sleepy/Makefile; do
	cmp -s "$tree/$f" "$top/kernel-overlay/$f" ||
		{ echo "mkseries: $f of the series differs from kernel-overlay's" >&2; exit 1; }
done
[ -z "$(cd "$top/kernel-overlay" && find . -type f | while read -r f; do cmp -s "$f" "$tree/$f" || echo "$f"; done)" ] ||
	{ echo "mkseries: a kernel-overlay file is missing from the series" >&2; exit 1; }

rm -rf "$out"; mkdir -p "$out"
git_ format-patch -q --cover-letter -o "$out" base..sleepy
cover=$(ls "$out"/0000-*)
python3 - "$cover" "$top/patches/cover-letter.txt" <<'PY'
import re
import sys
import textwrap
p, blurb = sys.argv[1:3]
s = open(p).read()
s = s.replace("*** SUBJECT HERE ***", "sleepy: a built-in sampling profiler per application")


def untied(block):
    """@block without the comments that tie its figures to bench/results,
    each paragraph and list item wrapped again."""
    segments = []
    for line in block.splitlines():
        if line.startswith("- ") or not segments:
            segments.append(line)
        else:
            segments[-1] += "\n" + line
    out = []
    for segment in segments:
        # One line; a sentence ending at a line's end gets its two spaces.
        text = re.sub(r"<!--.*?-->", "", segment)
        text = re.sub(r"(\.?)[ \t]*\n[ \t]*", lambda m: m.group(1) + ("  " if m.group(1) else " "), text)
        item = segment.startswith("- ")
        out.append(textwrap.fill(text[2:] if item else text, width=72,
                                 initial_indent="- " if item else "",
                                 subsequent_indent="  " if item else "",
                                 break_on_hyphens=False))
    return "\n".join(out)


text = open(blurb).read().rstrip("\n")
s = s.replace("*** BLURB HERE ***", "\n\n".join(
    untied(b) if "<!--" in b else b for b in text.split("\n\n")))
open(p, "w").write(s)
PY
echo "mkseries: $(ls "$out" | wc -l) files in ${out#$top/} (base: $(git_ log -1 --format=%s base))"

[ "$check" = --check ] || exit 0
status=0
# What each commit's kernel check is: "none" for a patch that changes no
# kernel source (Documentation/, selftests), which leaves the kernel of
# the one before; "build" for one that only adds files under
# kernel/sleepy/: code that runs in a session or in KUnit, not at boot,
# which the boot of the last kernel patch runs (every KUnit suite); and
# "boot" for one that changes a file the kernel runs without a session
# (a hook, relay, the build, the system call tables), and the last kernel
# patch: it builds and boots.  Booting every commit cost a minute each
# beside the debug guests.
commit_checks=()
for commit in $(git_ rev-list --reverse base..sleepy); do
	files=$(git_ diff --name-only "$commit^" "$commit" | grep -v '^Documentation/\|^tools/testing/' || true)
	if [ -z "$files" ]; then
		commit_checks+=("$commit none")
	elif grep -qv '^kernel/sleepy/' <<< "$files"; then
		commit_checks+=("$commit boot")
	else
		commit_checks+=("$commit build")
	fi
done
for ((i = ${#commit_checks[@]} - 1; i >= 0; i--)); do
	case ${commit_checks[i]} in
	*" none") ;;
	*) commit_checks[i]="${commit_checks[i]% *} boot"; break ;;
	esac
done
boots=$(printf '%s\n' "${commit_checks[@]}" | grep -c ' boot$')
# The plan: size and checkpatch per patch, a build (or its absence) per
# patch, the boots, sparse/W=1, CONFIG_SLEEPY=n.
patches=$(ls "$out"/0*.patch | grep -vc '/0000-')
echo "1..$((3 * patches + boots + 2))"
n=0
for patch in "$out"/0*.patch; do
	case $patch in */0000-*) continue ;; esac
	n=$((n + 1))
	# What a reviewer reads: at most 700 changed lines a patch.
	changed=$(awk '/^diff --git / { d = 1 } d && /^[-+]/ && !/^(\+\+\+|---) / && $0 != "-- " { n++ }
		END { print n + 0 }' "$patch")
	if [ "$changed" -le 700 ]; then
		echo "ok - patch $n changes $changed lines (at most 700)"
	else
		echo "not ok - patch $n changes $changed lines, more than 700: $(sed -n 's/^Subject: //p' "$patch")"
		status=1
	fi
	# spdxcheck.py needs Debian's python3 (python3-ply, python3-git).
	report=$(PATH=/usr/bin:/bin:$PATH perl "$tree/scripts/checkpatch.pl" --strict "$patch" 2>&1 || true)
	errors=$(grep -c '^ERROR:' <<< "$report" || true)
	warnings=$(grep -c '^WARNING:\|^CHECK:' <<< "$report" || true)
	# No summary line: checkpatch did not run to the end.
	if ! grep -qE '^total: [0-9]+ errors, [0-9]+ warnings' <<< "$report"; then
		echo "not ok - checkpatch --strict: patch $n: checkpatch did not finish"; echo "$report" | tail -n 5
		status=1
	elif [ "$errors" = 0 ]; then
		echo "ok - checkpatch --strict: patch $n: no errors ($warnings warnings/checks)"
	else
		echo "not ok - checkpatch --strict: patch $n: $errors errors"; echo "$report" | head -n 20
		status=1
	fi
done
# Every patch builds: the normal config, applied commit by commit.
kout=$work/kernel-normal
mkdir -p "$kout"
n=0
for entry in "${commit_checks[@]}"; do
	read -r commit kind <<< "$entry"
	n=$((n + 1))
	if [ "$kind" = none ]; then
		echo "ok - patch $n changes no kernel source; nothing to build ($(git_ log -1 --format=%s "$commit"))"
		continue
	fi
	git_ checkout -q "$commit"
	cp "$top/build/kernel-normal/.config" "$kout/.config"
	if make -s -C "$tree" O="$kout" CC="ccache gcc" HOSTCC="ccache gcc" $jobs olddefconfig bzImage > "$kout/build-$n.log" 2>&1; then
		echo "ok - the kernel builds after patch $n ($(git_ log -1 --format=%s))"
	else
		echo "not ok - the kernel does not build after patch $n"; tail -n 20 "$kout/build-$n.log"
		[ "$kind" = boot ] && echo "not ok - patch $n: not built, not booted"
		status=1
		continue
	fi
	[ "$kind" = boot ] || continue
	# It boots to init, with the KUnit suites it has so far passing and
	# nothing in the console that a kernel reports.
	console=$kout/boot-$n.log
	if bash "$top/qemu/boot.sh" "$kout/arch/x86/boot/bzImage" "$top/build/initramfs.cpio.gz" \
		boot "$console" 180 > /dev/null 2>&1 &&
	   ! grep -qE '\] +not ok [0-9]|BUG:|WARNING:|Oops|Call Trace|rcu: INFO|Kernel panic' "$console"; then
		echo "ok - the kernel boots after patch $n ($(grep -cE '\] +ok [0-9]' "$console") KUnit results, all ok)"
	else
		echo "not ok - the kernel does not boot cleanly after patch $n (${console#$top/})"
		grep -E '\] +not ok [0-9]|BUG:|WARNING:|Oops|Call Trace|rcu: INFO|Kernel panic|boot.sh:' "$console" | head -n 10
		status=1
	fi
done
git_ checkout -q sleepy

# The core files the series touches, as objects of this config (idle.c is
# built inside build_policy.o), and the syscall table.
core_objs=$(git_ diff --name-only base sleepy -- '*.c' | grep -v '^kernel/sleepy/\|^tools/' |
	while read -r f; do if [ -f "$kout/${f%.c}.o" ]; then echo "${f%.c}.o"; fi; done)
core_objs="$core_objs arch/x86/entry/syscall_64.o"

# sparse and W=1 over them: no warning on a line the series added or in
# sleepy's own headers; the warnings these files had before are theirs.
added=$work/added-lines
git_ diff -U0 base sleepy -- '*.c' '*.h' | awk '
	/^\+\+\+ b\// { file = substr($0, 7) }
	/^@@/ { split($3, r, ","); n = (r[2] == "") ? 1 : r[2]
		for (i = 0; i < n; i++) print file ":" (substr(r[1], 2) + i) }' > "$added"
core_log=$work/core-warnings.log
make -C "$tree" O="$kout" CC="ccache gcc" HOSTCC="ccache gcc" C=2 W=1 KCFLAGS=-Wno-error $core_objs > "$core_log" 2>&1
checked=$(grep -c '^  CHECK' "$core_log" || true)
ours=$(sed "s|^$tree/||; s|^\(\.\./\)*||" "$core_log" | grep -E '^[^ :]+:[0-9]+:[0-9]+: (warning|error)' |
	while IFS=: read -r file line _; do
		case $file in
		*sleepy*) echo "$file:$line" ;;
		*) if grep -qx "$file:$line" "$added"; then echo "$file:$line"; fi ;;
		esac
	done | sort -u)
if [ "$checked" -lt "$(wc -w <<< "$core_objs")" ]; then
	echo "not ok - sparse did not check the touched core files (${core_log#$top/})"; status=1
elif [ -n "$ours" ]; then
	echo "not ok - sparse/W=1 warn on lines the series added: $ours"
	grep -F "$(head -n 3 <<< "$ours")" "$core_log" | head -n 10; status=1
else
	echo "ok - sparse (C=2) and W=1 over $(wc -w <<< "$core_objs") touched core objects: nothing on the series' lines"
fi

# CONFIG_SLEEPY=n: the hooks compile to nothing and the syscalls to
# sys_ni_syscall.  Only the objects the option changes are built; every
# sleepy symbol they still reference must be defined among them.
nout=$work/kernel-nosleepy
mkdir -p "$nout"
cp "$top/build/kernel-normal/.config" "$nout/.config"
"$tree/scripts/config" --file "$nout/.config" --disable SLEEPY
off_objs="$core_objs kernel/sys_ni.o"
if make -s -C "$tree" O="$nout" CC="ccache gcc" HOSTCC="ccache gcc" $jobs olddefconfig $off_objs \
	> "$nout/build.log" 2>&1 && ! grep -q '^CONFIG_SLEEPY=y' "$nout/.config"; then
	undefined=$(cd "$nout" && nm -u $off_objs | grep -io '[a-z0-9_]*sleepy[a-z0-9_]*' | sort -u)
	defined=$(cd "$nout" && nm --defined-only $off_objs | grep -io '[a-z0-9_]*sleepy[a-z0-9_]*' | sort -u)
	missing=$(comm -23 <(echo "$undefined") <(echo "$defined") | grep . || true)
	if [ -z "$missing" ]; then
		echo "ok - CONFIG_SLEEPY=n builds the hooked objects, no sleepy symbol left undefined"
	else
		echo "not ok - CONFIG_SLEEPY=n leaves undefined: $missing"; status=1
	fi
else
	echo "not ok - CONFIG_SLEEPY=n does not build (${nout#$top/}/build.log)"; tail -n 20 "$nout/build.log"
	status=1
fi
exit $status
