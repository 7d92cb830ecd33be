// SPDX-License-Identifier: GPL-2.0
/* Summing the per-CPU interrupt histograms; naming the interrupts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irq.h"
#include "recording.h"

/* x86's LOCAL_TIMER_VECTOR, the one system vector the kernel times. */
#define X86_LOCAL_TIMER_VECTOR	0xec

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

void sleepy_irqs_init(struct sleepy_irqs *irqs)
{
	memset(irqs, 0, sizeof(*irqs));
	sleepy_table_init(&irqs->totals, sizeof(struct sleepy_irq_total));
	sleepy_table_init(&irqs->charges, sizeof(struct sleepy_irq_charge));
}

void sleepy_irqs_free(struct sleepy_irqs *irqs)
{
	sleepy_table_free(&irqs->totals);
	sleepy_table_free(&irqs->charges);
	free(irqs->interrupts);
	irqs->interrupts = NULL;
}

static int same_total(const void *slot, const void *arg)
{
	const struct sleepy_irq_total *a = slot, *b = arg;

	return a->kind == b->kind && a->number == b->number &&
	       a->action == b->action && a->cpu == b->cpu &&
	       a->end_ns == b->end_ns;
}

static int same_charge(const void *slot, const void *arg)
{
	const struct sleepy_irq_charge *a = slot, *b = arg;

	return a->kind == b->kind && a->number == b->number &&
	       a->appid == b->appid;
}

void sleepy_irqs_add(struct sleepy_irqs *irqs,
		     const struct sleepy_record_header *record)
{
	if (record->type == SLEEPY_REC_IRQ_HIST) {
		const struct sleepy_irq_hist *h = (const void *)record;
		struct sleepy_irq_total key = {
			.kind = h->kind,
			.number = h->number,
			.action = h->kind == SLEEPY_IRQ_ACTION ? h->action : 0,
			.cpu = irqs->by_cpu ? h->cpu : SLEEPY_IRQ_ALL_CPUS,
			/* Recordings of ABI 4 had no time: one interval. */
			.end_ns = irqs->by_interval &&
				  record->size >= sizeof(*h) ? h->time_ns : 0,
		};
		struct sleepy_irq_total *t;
		uint64_t hash;
		int i;

		hash = ((uint64_t)h->kind << 32 | h->number) * 31 + key.cpu;
		hash = (hash * 1000003 + key.end_ns) * 31 + key.action;
		t = sleepy_table_get(&irqs->totals, hash, same_total, &key);
		t->kind = key.kind;
		t->number = key.number;
		t->action = key.action;
		t->cpu = key.cpu;
		t->end_ns = key.end_ns;
		t->count += h->count;
		t->total_ns += h->total_ns;
		for (i = 0; i < SLEEPY_IRQ_BUCKETS; i++)
			t->log2_ns[i] += h->log2_ns[i];
	} else if (record->type == SLEEPY_REC_IRQ_APP) {
		const struct sleepy_irq_app *a = (const void *)record;
		struct sleepy_irq_charge key = {
			.kind = a->kind, .number = a->number, .appid = a->appid,
		};
		struct sleepy_irq_charge *c;

		c = sleepy_table_get(&irqs->charges,
				     ((uint64_t)a->kind << 32 | a->number) * 31 +
				     a->appid, same_charge, &key);
		c->kind = a->kind;
		c->number = a->number;
		c->appid = a->appid;
		c->count += a->count;
		c->total_ns += a->total_ns;
	} else if (record->type == SLEEPY_REC_INTERRUPTS) {
		const char *text = ((const struct sleepy_text *)record)->text;
		size_t max = record->size - sizeof(struct sleepy_record_header);

		free(irqs->interrupts);
		irqs->interrupts = strndup(text, max);
	}
}

/* The line of /proc/interrupts whose first field is @label ("24:"). */
static const char *interrupts_line(const char *text, const char *label,
				   size_t *len)
{
	size_t n = strlen(label);

	while (text && *text) {
		const char *p = text + strspn(text, " ");
		const char *end = strchr(text, '\n');

		if (!end)
			end = text + strlen(text);
		if ((size_t)(end - p) > n && !strncmp(p, label, n)) {
			*len = end - p;
			return p;
		}
		text = *end ? end + 1 : NULL;
	}
	return NULL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * The names /proc/interrupts gives IRQ @number, *@len long, or NULL: the
 * last word of its line, and the words before it that end in a comma
 * ("virtio0, virtio1": a shared line's actions, as show_interrupts()
 * joins them).
 */
static const char *irq_names(const struct sleepy_irqs *irqs, uint32_t number,
			     size_t *len)
{
	const char *line;
	size_t end, start;
	char label[16];

	snprintf(label, sizeof(label), "%u:", number);
	line = interrupts_line(irqs ? irqs->interrupts : NULL, label, &end);
	if (!line)
		return NULL;
	while (end && is_blank(line[end - 1]))
		end--;
	start = end;
	for (;;) {
		while (start && !is_blank(line[start - 1]))
			start--;
		if (start < 3 || line[start - 2] != ',')
			break;
		start -= 2;
	}
	*len = end - start;
	return line + start;
}

/* Name @index of the comma-separated @names, @len long, into @buf. */
static bool list_item(const char *names, size_t len, uint32_t index,
		      char *buf, size_t size)
{
	const char *p = names, *end = names + len;

	for (;;) {
		const char *comma = memchr(p, ',', end - p);
		const char *stop = comma ? comma : end;

		if (!index--) {
			snprintf(buf, size, "%.*s", (int)(stop - p), p);
			return true;
		}
		if (!comma)
			return false;
		p = comma + 1;
		while (p < end && is_blank(*p))
			p++;
	}
}

const char *sleepy_irq_name(const struct sleepy_irqs *irqs, uint32_t kind,
			    uint32_t number, char *buf, size_t size)
{
	const char *names;
	size_t len;

	if (number == SLEEPY_IRQ_OTHER) {
		snprintf(buf, size, "[other]");
	} else if (kind == SLEEPY_IRQ_SOFTIRQ || kind == SLEEPY_IRQ_SOFTIRQ_DELAY) {
		if (number < sizeof(softirq_names) / sizeof(softirq_names[0]))
			snprintf(buf, size, "%s", softirq_names[number]);
		else
			snprintf(buf, size, "softirq %u", number);
	} else if (kind == SLEEPY_IRQ_SYSVEC) {
		if (number == X86_LOCAL_TIMER_VECTOR)
			snprintf(buf, size, "LOC");
		else
			snprintf(buf, size, "vector 0x%x", number);
	} else if ((names = irq_names(irqs, number, &len))) {
		snprintf(buf, size, "%.*s", (int)len, names);
	} else {
		snprintf(buf, size, "irq %u", number);
	}
	return buf;
}

const char *sleepy_irq_total_name(const struct sleepy_irqs *irqs,
				  const struct sleepy_irq_total *t,
				  char *buf, size_t size)
{
	const char *names;
	size_t len;

	if (t->kind != SLEEPY_IRQ_ACTION || t->number == SLEEPY_IRQ_OTHER)
		return sleepy_irq_name(irqs, t->kind, t->number, buf, size);
	names = irq_names(irqs, t->number, &len);
	if (names && list_item(names, len, t->action, buf, size))
		return buf;
	snprintf(buf, size, "irq %u action %u", t->number, t->action);
	return buf;
}
