/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where time goes when a task is not on a CPU: the context switch and
 * wakeup records of a --sched recording replayed in time order, per
 * thread, into exact off-CPU intervals (by reason and blocking site),
 * run-queue waits, wakeup links and a wall-clock account per application
 * instance.
 */
#ifndef SLEEPY_SCHED_H
#define SLEEPY_SCHED_H

#include <stdint.h>

#include "record/recording.h"
#include "model/table.h"

/* Where a thread's time goes: the kernel's switch reasons, then ours. */
enum sleepy_time_kind {
	SLEEPY_TIME_PREEMPTED = SLEEPY_SWITCH_PREEMPTED,
	SLEEPY_TIME_SLEEP = SLEEPY_SWITCH_SLEEP,
	SLEEPY_TIME_BLOCKED = SLEEPY_SWITCH_BLOCKED,
	SLEEPY_TIME_IO = SLEEPY_SWITCH_IO,
	SLEEPY_TIME_STOPPED = SLEEPY_SWITCH_STOPPED,
	SLEEPY_TIME_RUNQUEUE,	/* woken, waiting for a CPU */
	SLEEPY_TIME_ON_CPU,
	SLEEPY_TIME_UNKNOWN,	/* before a thread's first record */
	SLEEPY_TIME_KINDS
};

const char *sleepy_time_kind_name(enum sleepy_time_kind kind);

/* One switch or wakeup record, as the replay needs it. */
struct sleepy_sched_event {
	uint64_t time_ns;
	uint64_t user_ip;	/* switch: prev's; wakeup: the waker's */
	uint64_t kernel_ip;	/* switch: where prev blocked */
	uint32_t tid[2];	/* switch: prev, next; wakeup: waker, wakee */
	uint32_t appid[2];
	uint32_t seq;		/* order in the file, for equal times */
	uint16_t type;		/* SLEEPY_REC_SWITCH or SLEEPY_REC_WAKEUP */
	uint8_t reason;		/* switch: enum sleepy_switch_reason */
	uint8_t flags;		/* wakeup: SLEEPY_WAKEUP_* */
	uint32_t source;	/* wakeup from an interrupt: its number */
};

/* A waker that is no application instance. */
enum sleepy_waker_kind {
	SLEEPY_WAKER_APP,
	SLEEPY_WAKER_HARDIRQ,	/* waker_appid: the IRQ, or SLEEPY_IRQ_OTHER */
	SLEEPY_WAKER_SOFTIRQ,	/* waker_appid: the softirq */
	SLEEPY_WAKER_SYSVEC,	/* waker_appid: the vector */
	SLEEPY_WAKER_KERNEL,	/* a kernel thread or an unmapped task */
	SLEEPY_WAKER_IDLE,
};

/* Off-CPU time of one application instance at one site, for one reason. */
struct sleepy_offcpu_site {
	uint32_t appid;
	uint32_t kind;		/* enum sleepy_time_kind */
	uint64_t user_ip;
	uint64_t kernel_ip;
	uint64_t total_ns;
	uint64_t count;
};

/* Wakeups of one application instance by one waker. */
struct sleepy_wakeup_link {
	uint32_t waker_kind;	/* enum sleepy_waker_kind */
	uint32_t waker_appid;	/* or the interrupt's number */
	uint32_t wakee_appid;
	uint32_t __pad;
	uint64_t count;
	uint64_t blocked_ns;	/* wakee's off-CPU time these wakeups ended */
};

/* The wall-clock account of one application instance, summed over threads. */
struct sleepy_wall {
	uint32_t appid;
	uint32_t threads;
	uint64_t lifetime_ns;	/* in the session */
	uint64_t ns[SLEEPY_TIME_KINDS];
	uint64_t switches;	/* away from the CPU */
	uint64_t wakeups;	/* received */
};

/*
 * The lengths of one kind of off-CPU interval (a sleep, a run-queue wait)
 * of one program, over its instances: what `sleepy-parse diff` compares.
 */
struct sleepy_wait_hist {
	char name[SLEEPY_APP_NAME_LEN + 1];
	uint32_t kind;		/* enum sleepy_time_kind */
	uint64_t count;
	uint64_t total_ns;
	uint64_t log2_ns[SLEEPY_IRQ_BUCKETS];
};

struct sleepy_sched {
	struct sleepy_sched_event *events;
	size_t nevents, capacity;
	uint64_t switches, wakeups;
	/* Results of sleepy_sched_replay(). */
	struct sleepy_table sites;	/* -> struct sleepy_offcpu_site */
	struct sleepy_table links;	/* -> struct sleepy_wakeup_link */
	struct sleepy_table walls;	/* appid -> struct sleepy_wall */
	struct sleepy_table waits;	/* -> struct sleepy_wait_hist */
	uint64_t begin_ns, end_ns;
};

void sleepy_sched_init(struct sleepy_sched *sched);
void sleepy_sched_free(struct sleepy_sched *sched);
/* Keeps a SLEEPY_REC_SWITCH or SLEEPY_REC_WAKEUP record for the replay. */
void sleepy_sched_add(struct sleepy_sched *sched,
		      const struct sleepy_record_header *record);
#endif
