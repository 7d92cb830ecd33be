/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * sleepy: a sampling profiler built into the kernel.
 *
 * This header is the one definition of everything that crosses the
 * kernel/user boundary: the sleepy_start() attribute block and the records
 * the kernel writes into its per-CPU relay files (debugfs sleepy/cpuN).
 * The user-space tools store the same records, unchanged, in their
 * recordings, behind a file header of their own.
 *
 * Every record starts with struct sleepy_record_header.  Readers skip
 * records whose type they do not know by their size, so new record types
 * and new trailing fields can be added without breaking old readers.
 * All fields are in the byte order of the machine that wrote them.
 */
#ifndef _UAPI_LINUX_SLEEPY_H
#define _UAPI_LINUX_SLEEPY_H

#include <linux/types.h>

/* Version of the record stream described below. */
#define SLEEPY_FORMAT_VERSION		1

/* sleepy_attr.flags */
#define SLEEPY_FLAG_KERNEL		(1ULL << 0) /* record kernel IPs too */
#define SLEEPY_FLAG_FOLLOW_CHILDREN	(1ULL << 1) /* pid filter: add descendants */
#define SLEEPY_FLAGS_ALL		(SLEEPY_FLAG_KERNEL | \
					 SLEEPY_FLAG_FOLLOW_CHILDREN)

/* Limits enforced by sleepy_start(). */
#define SLEEPY_MAX_FREQUENCY		100000	/* Hz */
#define SLEEPY_MIN_BUFFER_SIZE		(8U << 10)
#define SLEEPY_MAX_BUFFER_SIZE		(256U << 20)
#define SLEEPY_DEFAULT_BUFFER_SIZE	(1U << 20)

/**
 * struct sleepy_attr - what sleepy_start() should record
 * @size: unused by the kernel (the syscall's size argument rules); kept so
 *	a block dumped to a file says how long it is
 * @frequency: samples per second and CPU from a per-CPU hrtimer; 0 samples
 *	on every scheduler tick (CONFIG_HZ)
 * @flags: SLEEPY_FLAG_*
 * @pid: 0 for every task, else only this process (see FOLLOW_CHILDREN)
 * @buffer_size: bytes of relay buffer per CPU, 0 for the default; a multiple
 *	of the page size between SLEEPY_MIN_ and SLEEPY_MAX_BUFFER_SIZE
 */
struct sleepy_attr {
	__u32 size;
	__u32 frequency;
	__u64 flags;
	__u32 pid;
	__u32 __reserved;
	__u64 buffer_size;
};

#define SLEEPY_ATTR_SIZE_VER0		32	/* first published struct */

enum sleepy_record_type {
	SLEEPY_REC_SAMPLE	= 1,	/* struct sleepy_sample */
	SLEEPY_REC_APP_START	= 2,	/* struct sleepy_app_start */
	SLEEPY_REC_APP_EXIT	= 3,	/* struct sleepy_app_exit */
	SLEEPY_REC_LOST		= 4,	/* struct sleepy_lost */
	/* Written by the tools, never by the kernel: */
	SLEEPY_REC_CPU_STATS	= 64,	/* struct sleepy_cpu_stats */
	SLEEPY_REC_END		= 65,	/* struct sleepy_end */
};

struct sleepy_record_header {
	__u16 type;	/* enum sleepy_record_type */
	__u16 size;	/* whole record, header included, multiple of 8 */
	__u32 cpu;	/* CPU whose buffer the record was written to */
};

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

/**
 * struct sleepy_cpu_stats - what one CPU counted over the session
 * @samples: sample records written into the buffer
 * @dropped: records of any type that did not fit into the buffer
 * @idle: sampling interrupts that found the CPU idle (not recorded); at a
 *	frequency the CPU's timer then waits until the CPU leaves idle
 * @unknown: samples written with SLEEPY_APPID_UNKNOWN
 * @missed: sampling periods skipped because the CPU's timer interrupt came
 *	too late to keep half a period between two samples (interrupts off
 *	too long, or a CPU too slow for the frequency); 0 on the tick.
 *	Absent from records of SLEEPY_CPU_STATS_SIZE_VER0 bytes.
 */
struct sleepy_cpu_stats {
	struct sleepy_record_header header;
	__u64 samples;
	__u64 dropped;
	__u64 idle;
	__u64 unknown;
	__u64 missed;
};

#define SLEEPY_CPU_STATS_SIZE_VER0	40	/* without @missed */

/* Last record of a finished recording. */
struct sleepy_end {
	struct sleepy_record_header header;
	__u64 time_ns;		/* CLOCK_MONOTONIC at sleepy_stop() */
	__u64 table_overflows;	/* tasks the appid tables had no room for */
};

#endif /* _UAPI_LINUX_SLEEPY_H */
