/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interrupt tables of a session (SLEEPY_FLAG_IRQ): written by the
 * probes in irq.c, each CPU its own with interrupts off, and the actions'
 * table from any CPU under its lock; read by the flushes and the stop's
 * write in irq_flush.c.
 */
#ifndef _KERNEL_SLEEPY_IRQ_H
#define _KERNEL_SLEEPY_IRQ_H

#include <linux/interrupt.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <uapi/linux/sleepy.h>

#define SLEEPY_IRQ_HIST_SLOTS	128	/* power of two */
#define SLEEPY_IRQ_APP_SLOTS	256	/* power of two */
/* Slots an update probes before it takes the catch-all entry. */
#define SLEEPY_IRQ_PROBES	16
/* Shared-line actions a session tells apart; later ones share OTHER. */
#define SLEEPY_IRQ_ACTIONS	64

struct sleepy_irq_hist_slot {
	u32 kind;		/* enum sleepy_irq_kind, + 1: 0 is free */
	u32 number;
	u32 action;		/* SLEEPY_IRQ_ACTION's id in the session */
	u64 count;
	u64 total_ns;
	u32 log2_ns[SLEEPY_IRQ_BUCKETS];
};

struct sleepy_irq_app_slot {
	u32 kind;		/* enum sleepy_irq_kind, + 1: 0 is free */
	u32 number;
	u32 appid;
	u64 count;
	u64 total_ns;
};

/* One CPU's tables. */
struct sleepy_irq_cpu {
	u64 raised_ns[NR_SOFTIRQS];	/* 0: not raised since its last run */
	struct sleepy_irq_hist_slot hist[SLEEPY_IRQ_HIST_SLOTS];
	struct sleepy_irq_app_slot apps[SLEEPY_IRQ_APP_SLOTS];
	/* What found a full table, per kind, as number SLEEPY_IRQ_OTHER. */
	struct sleepy_irq_hist_slot hist_other[SLEEPY_IRQ_KINDS];
	struct sleepy_irq_app_slot apps_other[SLEEPY_IRQ_KINDS];
};

/*
 * The shared-line actions a session has seen, by IRQ and dev_id, with
 * the name each had then.  Added to from any CPU's interrupt handler
 * under @lock; read without it up to @count, which is published with
 * release after the slot it covers.
 */
struct sleepy_irq_actions {
	raw_spinlock_t lock;
	u32 count;
	struct {
		u32 irq;
		const void *dev_id;
		char name[SLEEPY_IRQ_NAME_LEN];
	} slot[SLEEPY_IRQ_ACTIONS];
};

#if IS_ENABLED(CONFIG_KUNIT)
struct sleepy_irq_hist_slot *
sleepy_irq_hist_slot(struct sleepy_irq_cpu *cpu, u32 kind, u32 number,
		     u32 action);
void sleepy_probe_irq_entry(void *unused, int irq, struct irqaction *action);
void sleepy_probe_irq_exit(void *unused, int irq, struct irqaction *action,
			   int ret);
void sleepy_probe_vector_entry(void *unused, int vector);
void sleepy_probe_vector_exit(void *unused, int vector);
u32 sleepy_irq_depth(void);
#endif

#endif /* _KERNEL_SLEEPY_IRQ_H */
