// SPDX-License-Identifier: GPL-2.0
/* Summing the per-CPU interrupt histograms; naming the interrupts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/irq.h"
#include "record/recording.h"

/*
 * The x86 system vectors the kernel times, by their rows in
 * /proc/interrupts: the local APIC timer, irq_work, rescheduling and
 * function-call IPIs (both of CAL's vectors).
 */
static const struct {
	uint32_t vector;
	const char *name;
} x86_vectors[] = {
	{ 0xec, "LOC" }, { 0xf6, "IWI" }, { 0xfd, "RES" }, { 0xfc, "CAL" },
	{ 0xfb, "CAL" },
};

static const char *vector_name(uint32_t vector)
{
	size_t i;

	for (i = 0; i < sizeof(x86_vectors) / sizeof(x86_vectors[0]); i++)
		if (x86_vectors[i].vector == vector)
			return x86_vectors[i].name;
	return NULL;
}

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

void sleepy_irqs_init(struct sleepy_irqs *irqs)
{
	memset(irqs, 0, sizeof(*irqs));
	sleepy_table_init(&irqs->totals, sizeof(struct sleepy_irq_total));
	sleepy_table_init(&irqs->charges, sizeof(struct sleepy_irq_charge));
	sleepy_table_init(&irqs->actions,
			  sizeof(struct sleepy_irq_action_name));
}

void sleepy_irqs_free(struct sleepy_irqs *irqs)
{
	sleepy_table_free(&irqs->totals);
	sleepy_table_free(&irqs->charges);
	sleepy_table_free(&irqs->actions);
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

static int same_action(const void *slot, const void *arg)
{
	const struct sleepy_irq_action_name *a = slot, *b = arg;

	return a->irq == b->irq && a->action == b->action;
}

static uint64_t action_hash(uint32_t irq, uint32_t action)
{
	return ((uint64_t)irq << 32 | action) * 1000003;
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
			/* Earlier kernels' records had no time: one interval. */
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
	} else if (record->type == SLEEPY_REC_IRQ_ACTION) {
		const struct sleepy_irq_action *a = (const void *)record;
		struct sleepy_irq_action_name key = {
			.irq = a->irq,
			.action = a->action,
		}, *n;

		n = sleepy_table_get(&irqs->actions,
				     action_hash(a->irq, a->action),
				     same_action, &key);
		n->irq = a->irq;
		n->action = a->action;
		/* The kernel pads it with NULs; a damaged one is cut. */
		memcpy(n->name, a->name, sizeof(n->name) - 1);
		n->name[sizeof(n->name) - 1] = 0;
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
		if (vector_name(number))
			snprintf(buf, size, "%s", vector_name(number));
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
	struct sleepy_irq_action_name key = {
		.irq = t->number,
		.action = t->action,
	};
	const struct sleepy_irq_action_name *n;

	if (t->kind != SLEEPY_IRQ_ACTION || t->number == SLEEPY_IRQ_OTHER)
		return sleepy_irq_name(irqs, t->kind, t->number, buf, size);
	n = irqs ? sleepy_table_find(&irqs->actions,
				     action_hash(t->number, t->action),
				     same_action, &key) : NULL;
	if (n && n->name[0])
		snprintf(buf, size, "%s", n->name);
	else if (t->action == SLEEPY_IRQ_OTHER)
		snprintf(buf, size, "irq %u [other actions]", t->number);
	else
		snprintf(buf, size, "irq %u action %u", t->number, t->action);
	return buf;
}
