/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * sleepy: a sampling profiler built into the kernel.
 *
 * This header is the one definition of everything that crosses the
 * kernel/user boundary: the sleepy_start() attribute block, the ioctls of
 * the session file descriptor it returns, and the records the kernel
 * writes into its per-CPU relay buffers.  The user-space tools store the
 * same records, unchanged, in their recordings, behind a file header and
 * trailer records of their own.
 *
 * Every record starts with struct sleepy_record_header.  Readers skip
 * records whose type they do not know by their size, so new record types
 * and new trailing fields can be added without breaking old readers.
 * All fields are in the byte order of the machine that wrote them.
 */
#ifndef _UAPI_LINUX_SLEEPY_H
#define _UAPI_LINUX_SLEEPY_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* sleepy_attr.flags */
#define SLEEPY_FLAG_KERNEL		(1ULL << 0) /* record kernel IPs too */
#define SLEEPY_FLAG_FOLLOW_CHILDREN	(1ULL << 1) /* pid filter: add descendants */
#define SLEEPY_FLAG_SCHED		(1ULL << 2) /* context switches, wakeups */
#define SLEEPY_FLAG_IRQ			(1ULL << 3) /* interrupt histograms */
#define SLEEPY_FLAG_CALLCHAIN		(1ULL << 4) /* call stacks per sample */
#define SLEEPY_FLAGS_ALL		(SLEEPY_FLAG_KERNEL | \
					 SLEEPY_FLAG_FOLLOW_CHILDREN | \
					 SLEEPY_FLAG_SCHED | SLEEPY_FLAG_IRQ | \
					 SLEEPY_FLAG_CALLCHAIN)

/*
 * Limits enforced by sleepy_start().  The highest frequency accepted is
 * also bounded by the sysctl kernel.sleepy_max_frequency (at most
 * SLEEPY_MAX_FREQUENCY), as perf's by kernel.perf_event_max_sample_rate.
 */
#define SLEEPY_MAX_FREQUENCY		50000	/* Hz */
#define SLEEPY_MIN_BUFFER_SIZE		(8U << 10)
#define SLEEPY_MAX_BUFFER_SIZE		(256U << 20)
#define SLEEPY_DEFAULT_BUFFER_SIZE	(1U << 20)
#define SLEEPY_DEFAULT_MAX_STACK	127	/* frames, perf_event_max_stack's */

/**
 * struct sleepy_attr - what sleepy_start() should record
 * @size: size of this structure as the caller knows it; 0 means
 *	SLEEPY_ATTR_SIZE_VER0.  On E2BIG the kernel writes back the size it
 *	supports, as perf_event_open() and sched_setattr() do.
 * @frequency: samples per second and CPU from a per-CPU hrtimer; 0 samples
 *	on every scheduler tick (CONFIG_HZ)
 * @flags: SLEEPY_FLAG_*
 * @pid: 0 for every task, else only this process (see FOLLOW_CHILDREN)
 * @max_stack: with SLEEPY_FLAG_CALLCHAIN, the most frames kept of a
 *	sample's user stack, and of its kernel stack; 0 means
 *	SLEEPY_DEFAULT_MAX_STACK (or kernel.perf_event_max_stack if lower),
 *	at most kernel.perf_event_max_stack (EOVERFLOW, as for perf).  0
 *	without it.  The largest sample must fit into one eighth of
 *	@buffer_size, and into the 65,528 bytes a record's size holds.
 * @buffer_size: bytes of relay buffer per CPU, 0 for the default; a multiple
 *	of the page size between SLEEPY_MIN_ and SLEEPY_MAX_BUFFER_SIZE
 */
struct sleepy_attr {
	__u32 size;
	__u32 frequency;
	__u64 flags;
	__u32 pid;
	__u32 max_stack;
	__u64 buffer_size;
};

#define SLEEPY_ATTR_SIZE_VER0		32	/* the first struct; later ones grow */

/**
 * struct sleepy_cpu_counters - what one CPU counted, SLEEPY_IOC_CPU_COUNTERS
 * @cpu: in: the CPU asked about
 * @samples: sample records written into the buffer
 * @dropped: records of any type that did not fit into the buffer
 * @idle: sampling interrupts that found the CPU idle (not recorded); at a
 *	frequency the CPU's timer then waits until the CPU leaves idle
 * @unknown: samples written with SLEEPY_APPID_UNKNOWN
 * @missed: sampling periods skipped because the CPU's timer interrupt came
 *	too late to keep half a period between two samples (interrupts off
 *	too long, or a CPU too slow for the frequency); 0 on the tick
 */
struct sleepy_cpu_counters {
	__u32 cpu;
	__u32 __reserved;
	__u64 samples;
	__u64 dropped;
	__u64 idle;
	__u64 unknown;
	__u64 missed;
};

/**
 * struct sleepy_session_info - the session, SLEEPY_IOC_SESSION_INFO
 * @start_ns: CLOCK_MONOTONIC of the start
 * @stop_ns: CLOCK_MONOTONIC of the stop, 0 while the session runs
 * @table_overflows: processes the appid tables had no room for
 * @buffer_size: bytes of buffer per CPU
 * @app_table_bytes: kernel memory one live application instance takes
 * @running: 1 until the session is stopped
 * @sample_start_ns: CLOCK_MONOTONIC of the end of the start walk (every
 *	process that ran before the session announced, with its executable
 *	mappings, into buffers a reader drains), when the samples, switches
 *	and interrupt times begin; 0 before.  A tool runs its workload after
 *	it, and measures the session's samples from it.
 */
struct sleepy_session_info {
	__u64 start_ns;
	__u64 stop_ns;
	__u64 table_overflows;
	__u64 buffer_size;
	__u32 app_table_bytes;
	__u32 running;
	__u64 sample_start_ns;
};

/*
 * ioctls of the session file descriptor sleepy_start() returns.
 *
 * SLEEPY_IOC_CPU_BUFFER: a new read-only file descriptor (close-on-exec)
 * for the relay buffer of the CPU given as the argument; ENODEV if that
 * CPU has no buffer (it was never online during the session), EBUSY while
 * another descriptor reads it.  The buffer can be read, polled and
 * mmap()ed like any relay file.
 *
 * SLEEPY_IOC_IRQ_FLUSH: writes the interrupt histograms counted since the
 * start or the last flush into the stream now (each CPU's into its own
 * buffer), stamped with the time of the flush, and starts them again from
 * zero; the stop writes the rest.  A reader sums the records of a kind,
 * number and CPU for the whole session, or keeps them apart by time for
 * intervals.  EINVAL if the session has no histograms (SLEEPY_FLAG_IRQ),
 * ESRCH once it is stopped.  What a full buffer cannot take is kept for
 * the next flush or the stop, never lost.
 *
 * SLEEPY_IOC_FLUSH: hands every CPU's partly filled sub-buffer to its
 * reader now, so that a reader that drains after the call has every
 * record written before it (a continuous profiler cutting the stream into
 * intervals).  EAGAIN if a CPU's buffer had no free sub-buffer (its reader
 * is behind): drain and call again; ESRCH once stopped (the stop hands
 * everything over).  The argument must be 0.
 */
#define SLEEPY_IOC_MAGIC		0xB9
#define SLEEPY_IOC_CPU_BUFFER		_IO(SLEEPY_IOC_MAGIC, 1)
#define SLEEPY_IOC_CPU_COUNTERS		_IOWR(SLEEPY_IOC_MAGIC, 2, struct sleepy_cpu_counters)
#define SLEEPY_IOC_SESSION_INFO		_IOR(SLEEPY_IOC_MAGIC, 3, struct sleepy_session_info)
#define SLEEPY_IOC_IRQ_FLUSH		_IO(SLEEPY_IOC_MAGIC, 4)
#define SLEEPY_IOC_FLUSH		_IO(SLEEPY_IOC_MAGIC, 5)

enum sleepy_record_type {
	SLEEPY_REC_SAMPLE	= 1,	/* struct sleepy_sample */
	SLEEPY_REC_APP_START	= 2,	/* struct sleepy_app_start */
	SLEEPY_REC_APP_EXIT	= 3,	/* struct sleepy_app_exit */
	SLEEPY_REC_LOST		= 4,	/* struct sleepy_lost */
	SLEEPY_REC_SWITCH	= 5,	/* struct sleepy_switch */
	SLEEPY_REC_WAKEUP	= 6,	/* struct sleepy_wakeup */
	SLEEPY_REC_IRQ_HIST	= 7,	/* struct sleepy_irq_hist */
	SLEEPY_REC_IRQ_APP	= 8,	/* struct sleepy_irq_app */
	SLEEPY_REC_MMAP		= 9,	/* struct sleepy_mmap, then its path */
	SLEEPY_REC_IRQ_ACTION	= 10,	/* struct sleepy_irq_action */
	/* 64 and above: never written by the kernel, free for the tools. */
	SLEEPY_REC_FIRST_USER	= 64,
};

struct sleepy_record_header {
	__u16 type;	/* enum sleepy_record_type */
	__u16 size;	/* whole record, header included, multiple of 8 */
	__u32 cpu;	/* CPU whose buffer the record was written to */
};

/* The largest record: the most @size holds, a multiple of 8. */
#define SLEEPY_RECORD_MAX_SIZE		0xfff8

/*
 * Each relay sub-buffer starts with this header.  The writer updates
 * @committed after every record, so a reader holding a complete
 * sub-buffer knows exactly how many bytes (this header included) are
 * records, and never reads into a sub-buffer that is still being written.
 */
struct sleepy_subbuf_header {
	__u32 committed;
	__u32 cpu;
};

/* sleepy_sample.flags */
#define SLEEPY_SAMPLE_IN_KERNEL		(1U << 0) /* interrupt hit kernel mode */
#define SLEEPY_SAMPLE_KERNEL_THREAD	(1U << 1) /* no user context at all */
#define SLEEPY_SAMPLE_CALLCHAIN		(1U << 2) /* a sleepy_callchain follows */

/**
 * struct sleepy_sample - one sample of the interrupted context
 * @time_ns: CLOCK_MONOTONIC
 * @user_ip: user instruction pointer; with SLEEPY_SAMPLE_IN_KERNEL, the one
 *	the task entered the kernel from
 * @kernel_ip: kernel instruction pointer if SLEEPY_SAMPLE_IN_KERNEL and the
 *	session asked for SLEEPY_FLAG_KERNEL, else 0
 * @tid: thread id (global pid namespace)
 * @appid: application instance, announced by a SLEEPY_REC_APP_START; 0 is
 *	"unknown" (a task the tables could not map)
 * @flags: SLEEPY_SAMPLE_*
 *
 * In a session with SLEEPY_FLAG_CALLCHAIN every sample has
 * SLEEPY_SAMPLE_CALLCHAIN and is followed, within its record, by its
 * stacks.
 */
struct sleepy_sample {
	struct sleepy_record_header header;
	__u64 time_ns;
	__u64 user_ip;
	__u64 kernel_ip;
	__u32 tid;
	__u32 appid;
	__u32 flags;
	__u32 __reserved;
};

/* sleepy_callchain.flags: a stack is cut short, never silently. */
#define SLEEPY_CALLCHAIN_KERNEL_CUT	(1U << 0) /* deeper than max_stack */
#define SLEEPY_CALLCHAIN_USER_CUT	(1U << 1) /* deeper than max_stack */
/*
 * The user walk stopped at a frame it could not read (not in memory), whose
 * frame pointer did not lead up the stack or whose return address was no
 * user address (code built without frame pointers, as most of a
 * distribution's libraries are): the frames kept are right, the outer ones
 * are missing.
 */
#define SLEEPY_CALLCHAIN_USER_FAULT	(1U << 2)

/**
 * struct sleepy_callchain - the stacks of a sample, after its
 *	struct sleepy_sample in the same record
 * @nr_kernel: kernel frames, the first of @ips; only for a sample that hit
 *	kernel mode in a session with SLEEPY_FLAG_KERNEL
 * @nr_user: user frames, after the kernel ones; none for kernel threads
 * @flags: SLEEPY_CALLCHAIN_*
 * @ips: innermost frame first in each stack: the interrupted (or, for the
 *	user stack of a sample in kernel mode, the entry's) instruction
 *	pointer, then the return addresses of its callers, outwards
 */
struct sleepy_callchain {
	__u16 nr_kernel;
	__u16 nr_user;
	__u32 flags;
	__u64 ips[];
};

#define SLEEPY_APP_NAME_LEN		16
#define SLEEPY_APPID_UNKNOWN		0

/**
 * struct sleepy_app_start - an application instance appeared
 * @appid: id used by the samples, unique for the whole session
 * @parent_appid: appid of the forking (or, for exec, the previous) image;
 *	0 for processes that already ran when the session started
 * @pid: thread group id
 * @instance: how often @name started in this session, from 1
 * @time_ns: CLOCK_MONOTONIC of the fork or exec, or the session start
 * @name: comm of the program, NUL padded
 */
struct sleepy_app_start {
	struct sleepy_record_header header;
	__u32 appid;
	__u32 parent_appid;
	__u32 pid;
	__u32 instance;
	__u64 time_ns;
	char name[SLEEPY_APP_NAME_LEN];
};

/* An application instance ended: its process exited or exec'd. */
struct sleepy_app_exit {
	struct sleepy_record_header header;
	__u32 appid;
	__u32 pid;
	__u64 time_ns;
};

/*
 * @count records did not fit into this CPU's buffer before this one did.
 * The running total is also in the CPU's statistics.
 */
struct sleepy_lost {
	struct sleepy_record_header header;
	__u64 count;
};

/* Why a task left the CPU, sleepy_switch.reason. */
enum sleepy_switch_reason {
	SLEEPY_SWITCH_PREEMPTED	= 0,	/* still runnable: waits for a CPU */
	SLEEPY_SWITCH_SLEEP	= 1,	/* interruptible sleep, or TASK_IDLE */
	SLEEPY_SWITCH_BLOCKED	= 2,	/* uninterruptible, not I/O */
	SLEEPY_SWITCH_IO	= 3,	/* uninterruptible, waiting for I/O */
	SLEEPY_SWITCH_EXITING	= 4,	/* last switch of an exiting thread */
	SLEEPY_SWITCH_STOPPED	= 5,	/* stopped, traced, frozen or parked */
};

/**
 * struct sleepy_switch - a CPU switched from one task to another
 *	(SLEEPY_FLAG_SCHED); written by the CPU itself, in its buffer
 * @time_ns: CLOCK_MONOTONIC
 * @user_ip: the user IP @prev_tid entered the kernel from, 0 for kernel
 *	threads and the idle task
 * @kernel_ip: where @prev_tid blocked, the first caller outside the
 *	scheduler (what /proc/PID/wchan shows); only for SLEEP, BLOCKED and
 *	IO, and only if the session asked for SLEEPY_FLAG_KERNEL; else 0
 * @prev_tid: the task leaving the CPU; 0 is the CPU's idle task
 * @prev_appid: its application instance, 0 if none (idle, unmapped)
 * @next_tid: the task taking the CPU; 0 is the idle task
 * @next_appid: its application instance, 0 if none
 * @reason: enum sleepy_switch_reason, of @prev_tid
 *
 * With a pid filter, only switches from or to a selected process are
 * written, and every task's last switch (reason exiting).  A task's time
 * off the CPU is the time between its switch away and its next switch to,
 * on any CPU.
 */
struct sleepy_switch {
	struct sleepy_record_header header;
	__u64 time_ns;
	__u64 user_ip;
	__u64 kernel_ip;
	__u32 prev_tid;
	__u32 prev_appid;
	__u32 next_tid;
	__u32 next_appid;
	__u32 reason;
	__u32 __reserved;
};

/* sleepy_wakeup.flags */
#define SLEEPY_WAKEUP_NEW_TASK		(1U << 0) /* first wakeup of a new task */
#define SLEEPY_WAKEUP_HARDIRQ		(1U << 1) /* woken by an interrupt handler */
#define SLEEPY_WAKEUP_SOFTIRQ		(1U << 2) /* woken from softirq context */
#define SLEEPY_WAKEUP_SYSVEC		(1U << 3) /* with HARDIRQ: by a system vector */

/**
 * struct sleepy_wakeup - a task became runnable (SLEEPY_FLAG_SCHED);
 *	written by the waker's CPU, in the waker's context
 * @time_ns: CLOCK_MONOTONIC, before the wakee is queued
 * @waker_user_ip: the user IP the waker entered the kernel from; 0 for
 *	kernel threads and interrupt context
 * @waker_tid: the waking task; 0 in interrupt context or the idle task
 * @waker_appid: its application instance, 0 if none
 * @wakee_tid: the task woken
 * @wakee_appid: its application instance, 0 if none
 * @cpu: the CPU the wakee last ran on (for a new task, the one chosen for
 *	it); the scheduler may still move it, and its switch record names
 *	the CPU it runs on
 * @flags: SLEEPY_WAKEUP_*
 * @source: with SLEEPY_WAKEUP_HARDIRQ the IRQ number (the vector with
 *	SLEEPY_WAKEUP_SYSVEC: on x86 the local APIC timer, irq_work,
 *	rescheduling and function-call IPIs), with SLEEPY_WAKEUP_SOFTIRQ the
 *	softirq number; SLEEPY_IRQ_OTHER if the kernel could not tell: an
 *	interrupt with no tracepoint (another system vector, an NMI), one
 *	nested deeper than it keeps, or one whose handler began before the
 *	session
 *
 * With a pid filter, only wakeups from or of a selected process are
 * written.  A task's run-queue wait is the time between its wakeup and
 * its next switch to.
 */
struct sleepy_wakeup {
	struct sleepy_record_header header;
	__u64 time_ns;
	__u64 waker_user_ip;
	__u32 waker_tid;
	__u32 waker_appid;
	__u32 wakee_tid;
	__u32 wakee_appid;
	__u32 cpu;
	__u32 flags;
	__u32 source;
	__u32 __reserved;
};

/* What an interrupt histogram measures, sleepy_irq_hist.kind. */
enum sleepy_irq_kind {
	SLEEPY_IRQ_HARDIRQ	= 0,	/* handler time; number: the IRQ */
	SLEEPY_IRQ_SYSVEC	= 1,	/* handler time; number: the vector */
	SLEEPY_IRQ_SOFTIRQ	= 2,	/* run time; number: the softirq */
	SLEEPY_IRQ_SOFTIRQ_DELAY = 3,	/* from raise to run; the softirq */
	/* One action of a shared IRQ: its handler; number: the IRQ */
	SLEEPY_IRQ_ACTION	= 4,
	SLEEPY_IRQ_KINDS
};

/* The number of everything that found a CPU's table full. */
#define SLEEPY_IRQ_OTHER		0xffffffffU
#define SLEEPY_IRQ_BUCKETS		32

/**
 * struct sleepy_irq_hist - one CPU's histogram of one interrupt
 *	(SLEEPY_FLAG_IRQ) over an interval: from the start or the last
 *	SLEEPY_IOC_IRQ_FLUSH to this flush or the stop
 * @kind: enum sleepy_irq_kind
 * @number: IRQ number, system vector or softirq number, or SLEEPY_IRQ_OTHER
 * @cpu: the CPU it ran on
 * @action: with SLEEPY_IRQ_ACTION, the action's id in the session, which
 *	a SLEEPY_REC_IRQ_ACTION names (SLEEPY_IRQ_OTHER past the ones a
 *	session tells apart); else 0
 * @count: runs
 * @total_ns: their time
 * @log2_ns: runs of 2^i to 2^(i+1)-1 ns in [i] (0 ns in [0]; the last
 *	bucket takes everything longer)
 * @time_ns: CLOCK_MONOTONIC of the flush or the stop that wrote it, the
 *	end of its interval
 */
struct sleepy_irq_hist {
	struct sleepy_record_header header;
	__u32 kind;
	__u32 number;
	__u32 cpu;
	__u32 action;
	__u64 count;
	__u64 total_ns;
	__u32 log2_ns[SLEEPY_IRQ_BUCKETS];
	__u64 time_ns;
};

/**
 * struct sleepy_irq_app - time an interrupt took from an application
 *	instance it interrupted on one CPU (SLEEPY_FLAG_IRQ), over an
 *	interval as struct sleepy_irq_hist
 * @kind: SLEEPY_IRQ_HARDIRQ, SLEEPY_IRQ_SYSVEC or SLEEPY_IRQ_SOFTIRQ
 * @number: as in struct sleepy_irq_hist
 * @cpu: the CPU
 * @appid: the application instance interrupted (0 with SLEEPY_IRQ_OTHER)
 * @count: runs that interrupted it
 * @total_ns: their time
 * @time_ns: as in struct sleepy_irq_hist
 */
struct sleepy_irq_app {
	struct sleepy_record_header header;
	__u32 kind;
	__u32 number;
	__u32 cpu;
	__u32 appid;
	__u64 count;
	__u64 total_ns;
	__u64 time_ns;
};

#define SLEEPY_IRQ_NAME_LEN		32

/**
 * struct sleepy_irq_action - the name of one action of a shared IRQ line
 *	(SLEEPY_FLAG_IRQ), as it was when the session first saw it run;
 *	written with the histograms, at each flush and at the stop
 * @irq: the IRQ number
 * @action: its id, as in struct sleepy_irq_hist; the session keys an
 *	action by its IRQ and dev_id, so a device added or removed during
 *	the session does not move the others
 * @name: the action's name (its device's, as /proc/interrupts shows it),
 *	NUL-padded, cut at SLEEPY_IRQ_NAME_LEN - 1 bytes
 */
struct sleepy_irq_action {
	struct sleepy_record_header header;
	__u32 irq;
	__u32 action;
	char name[SLEEPY_IRQ_NAME_LEN];
};

/* sleepy_mmap.flags */
#define SLEEPY_MMAP_EXEC		(1U << 0) /* mapped by an exec */
#define SLEEPY_MMAP_PATH_TRUNCATED	(1U << 1) /* @path is its last bytes */

#define SLEEPY_MMAP_PATH_MAX		512	/* with the NUL */
#define SLEEPY_BUILD_ID_MAX		20

/**
 * struct sleepy_mmap - an executable mapping of a profiled process,
 *	announced at the session start for the processes that run then, and
 *	when a process maps one (or mprotect() makes one executable) while
 *	the session runs
 * @time_ns: CLOCK_MONOTONIC of the mmap or mprotect, or the session start
 * @start: its first address
 * @len: its length in bytes
 * @pgoff: the file offset mapped at @start, in bytes
 * @pid: thread group id
 * @appid: the application instance whose mapping it is; with
 *	SLEEPY_MMAP_EXEC 0: an exec maps the new image before it is
 *	announced, so the mapping belongs to the instance the next
 *	SLEEPY_REC_APP_START of @pid announces
 * @flags: SLEEPY_MMAP_*
 * @build_id_size: bytes of @build_id used; 0 if the file has no build-id
 *	or its notes were not in memory
 * @dev_major: with @dev_minor and @ino, the file's identity, as perf's
 *	PERF_RECORD_MMAP2 gives it: one file seen under two paths (a bind
 *	mount, a container's root) is one file
 * @dev_minor: see @dev_major
 * @ino: the file's inode number
 * @build_id: the file's ELF build-id (NT_GNU_BUILD_ID)
 * @path: the file's path, NUL-terminated and padded with NULs to the
 *	record's size; at most SLEEPY_MMAP_PATH_MAX bytes, a longer path
 *	keeps its end and sets SLEEPY_MMAP_PATH_TRUNCATED.  An executable
 *	mapping of no file has the name /proc/PID/maps gives it, in
 *	brackets ("[vdso]"), with @pgoff, the identity and the build-id 0
 */
struct sleepy_mmap {
	struct sleepy_record_header header;
	__u64 time_ns;
	__u64 start;
	__u64 len;
	__u64 pgoff;
	__u32 pid;
	__u32 appid;
	__u32 flags;
	__u32 build_id_size;
	__u32 dev_major;
	__u32 dev_minor;
	__u64 ino;
	__u8 build_id[SLEEPY_BUILD_ID_MAX];
	__u32 __reserved;
	char path[];
};

#endif /* _UAPI_LINUX_SLEEPY_H */
