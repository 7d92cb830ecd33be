/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interrupt histograms of a --irq recording (SLEEPY_REC_IRQ_HIST and
 * SLEEPY_REC_IRQ_APP, one per CPU, interrupt and interval), summed over
 * the CPUs and the intervals unless asked to keep them apart, with the
 * IRQs' names from the /proc/interrupts the recording keeps.
 */
#ifndef SLEEPY_IRQ_H
#define SLEEPY_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "record/recording.h"
#include "model/table.h"

/* cpu of a total over every CPU. */
#define SLEEPY_IRQ_ALL_CPUS	UINT32_MAX

/*
 * One interrupt (kind and number, and action of a shared line) over every
 * CPU, or on one, per interval.
 */
struct sleepy_irq_total {
	uint32_t kind;		/* enum sleepy_irq_kind */
	uint32_t number;
	uint32_t cpu;		/* SLEEPY_IRQ_ALL_CPUS unless by_cpu */
	uint32_t action;	/* SLEEPY_IRQ_ACTION's id in the session */
	uint64_t end_ns;	/* its interval's end; 0 unless by_interval */
	uint64_t count;
	uint64_t total_ns;
	uint64_t log2_ns[SLEEPY_IRQ_BUCKETS];
};

/* Time one interrupt took from one application instance. */
struct sleepy_irq_charge {
	uint32_t kind;
	uint32_t number;
	uint32_t appid;
	uint32_t __pad;
	uint64_t count;
	uint64_t total_ns;
};

/* The name a shared line's action had when the kernel first saw it. */
struct sleepy_irq_action_name {
	uint32_t irq;
	uint32_t action;
	char name[SLEEPY_IRQ_NAME_LEN];
};

struct sleepy_irqs {
	struct sleepy_table totals;	/* -> struct sleepy_irq_total */
	struct sleepy_table charges;	/* -> struct sleepy_irq_charge */
	struct sleepy_table actions;	/* -> struct sleepy_irq_action_name */
	char *interrupts;		/* /proc/interrupts at the stop, or NULL */
	/* Set before adding: totals per CPU, per interval (flush or stop). */
	bool by_cpu;
	bool by_interval;
};

void sleepy_irqs_init(struct sleepy_irqs *irqs);
void sleepy_irqs_free(struct sleepy_irqs *irqs);
/*
 * Adds a SLEEPY_REC_IRQ_HIST, SLEEPY_REC_IRQ_APP, SLEEPY_REC_IRQ_ACTION or
 * SLEEPY_REC_INTERRUPTS.
 */
void sleepy_irqs_add(struct sleepy_irqs *irqs,
		     const struct sleepy_record_header *record);
/*
 * The name of an interrupt: /proc/interrupts' names for an IRQ
 * ("virtio0-requests", "virtio0, virtio1" for a shared line), its row's
 * name for a system vector ("LOC"), the kernel's name for a softirq
 * ("TIMER"); written to @buf.  @irqs may be NULL: IRQs are then numbers.
 */
const char *sleepy_irq_name(const struct sleepy_irqs *irqs, uint32_t kind,
			    uint32_t number, char *buf, size_t size);
/*
 * The name of @t: sleepy_irq_name(), or for one action of a shared line
 * the name the kernel recorded for it ("virtio1"), or "irq 11 action 1"
 * if the recording has none for it.
 */
const char *sleepy_irq_total_name(const struct sleepy_irqs *irqs,
				  const struct sleepy_irq_total *t,
				  char *buf, size_t size);

#endif
