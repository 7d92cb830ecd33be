// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-parse diff A B: the latency histograms of two recordings side by
 * side, operation by operation (an interrupt's or softirq's handler time,
 * a softirq's delay, a program's sleeps, blocked waits, I/O waits,
 * preemptions or run-queue waits), ranked by the Earth Mover's Distance
 * between the two distributions: OSprof found it the metric that best
 * tells a changed distribution from noise.  On log2 buckets the EMD is the
 * area between the two cumulative distributions, in buckets: 1.0 means
 * every run moved by a factor of two.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/diff.h"
#include "model/irq.h"
#include "model/sched_replay.h"

#define CELL	64

/* One operation in both recordings. */
struct operation {
	char name[48];
	uint64_t count[2];
	uint64_t total_ns[2];
	uint64_t log2_ns[2][SLEEPY_IRQ_BUCKETS];
	double emd;		/* < 0: in one recording only */
};

static int same_operation(const void *slot, const void *arg)
{
	return !strcmp(((const struct operation *)slot)->name, arg);
}

static void add(struct sleepy_table *ops, int side, const char *name,
		uint64_t count, uint64_t total_ns, const uint64_t *log2_ns)
{
	struct operation *op;
	uint64_t hash = 5381;
	const char *c;
	int i;

	for (c = name; *c; c++)
		hash = hash * 33 + (unsigned char)*c;
	op = sleepy_table_get(ops, hash, same_operation, name);
	snprintf(op->name, sizeof(op->name), "%s", name);
	op->count[side] += count;
	op->total_ns[side] += total_ns;
	for (i = 0; i < SLEEPY_IRQ_BUCKETS; i++)
		op->log2_ns[side][i] += log2_ns[i];
}

static void add_profile(struct sleepy_table *ops, int side,
			struct sleepy_profile *profile, uint64_t begin_ns)
{
	static const char *const irq_kinds[] = {
		"hardirq", "hardirq", "softirq", "softirq delay", "hardirq action",
	};
	char name[48], irq[40];
	size_t i;

	if (profile->irqs) {
		for (i = 0; i < profile->irqs->totals.capacity; i++) {
			struct sleepy_irq_total *t =
				sleepy_table_slot(&profile->irqs->totals, i);

			if (!t || t->kind >= sizeof(irq_kinds) / sizeof(irq_kinds[0]))
				continue;
			snprintf(name, sizeof(name), "%s %s", irq_kinds[t->kind],
				 sleepy_irq_total_name(profile->irqs, t, irq,
						       sizeof(irq)));
			add(ops, side, name, t->count, t->total_ns, t->log2_ns);
		}
	}
	if (profile->sched) {
		sleepy_sched_replay(profile->sched, profile, begin_ns,
				    profile->end_ns);
		for (i = 0; i < profile->sched->waits.capacity; i++) {
			struct sleepy_wait_hist *w =
				sleepy_table_slot(&profile->sched->waits, i);

			if (!w)
				continue;
			snprintf(name, sizeof(name), "%s %s",
				 sleepy_time_kind_name(w->kind), w->name);
			add(ops, side, name, w->count, w->total_ns, w->log2_ns);
		}
	}
}

double sleepy_emd_log2(const uint64_t *a, uint64_t count_a,
		       const uint64_t *b, uint64_t count_b, int buckets)
{
	double cdf = 0, emd = 0;
	int i;

	if (!count_a || !count_b)
		return -1;
	for (i = 0; i < buckets - 1; i++) {
		cdf += (double)a[i] / count_a - (double)b[i] / count_b;
		emd += cdf < 0 ? -cdf : cdf;
	}
	return emd;
}

/*
 * A histogram of a few runs is noise: one 271 us run against one 63 us
 * run (EMD 3) outranked a sleeper's 100 sleeps that moved from 2 ms to
 * 20 ms (EMD 3.3).  Operations with fewer runs than this on either side
 * rank after the others.
 */
#define MIN_RUNS	10

static bool comparable(const struct operation *op)
{
	return op->emd >= 0 && op->count[0] >= MIN_RUNS &&
	       op->count[1] >= MIN_RUNS;
}

static int cmp_operations(const void *x, const void *y)
{
	const struct operation *a = x, *b = y;

	if (comparable(a) != comparable(b))
		return comparable(a) ? -1 : 1;
	if (a->emd != b->emd)
		return a->emd < b->emd ? 1 : -1;
	return strcmp(a->name, b->name);
}

static void put_mean(const struct sleepy_output *out, char *cell,
		     const struct operation *op, int side)
{
	if (!op->count[side])
		snprintf(cell, CELL, out->format == SLEEPY_FORMAT_JSON ? "null" : "-");
	else
		snprintf(cell, CELL, "%" PRIu64, op->total_ns[side] / op->count[side]);
}

void sleepy_diff_report(FILE *stream, const struct sleepy_diff_options *opts,
			struct sleepy_profile *a, uint64_t begin_a,
			struct sleepy_profile *b, uint64_t begin_b)
{
	static const struct sleepy_column columns[] = {
		{ "rank", "RANK", 4, true },
		{ "operation", "OPERATION", -36, false },
		{ "count_a", "COUNT A", 9, true },
		{ "count_b", "COUNT B", 9, true },
		{ "mean_ns_a", "MEAN ns A", 11, true },
		{ "mean_ns_b", "MEAN ns B", 11, true },
		{ "emd", "EMD", 7, true },
	};
	struct sleepy_output out;
	struct sleepy_table ops;
	struct operation *rows;
	char text[1024], json[1024], cells[7][CELL];
	const char *p[7];
	size_t n = 0, i, rank = 0;
	int c;

	sleepy_table_init(&ops, sizeof(struct operation));
	add_profile(&ops, 0, a, begin_a);
	add_profile(&ops, 1, b, begin_b);
	rows = malloc((ops.used ?: 1) * sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "sleepy: out of memory\n");
		exit(1);
	}
	for (i = 0; i < ops.capacity; i++) {
		struct operation *op = sleepy_table_slot(&ops, i);

		if (!op)
			continue;
		op->emd = sleepy_emd_log2(op->log2_ns[0], op->count[0],
					  op->log2_ns[1], op->count[1],
					  SLEEPY_IRQ_BUCKETS);
		rows[n++] = *op;
	}
	qsort(rows, n, sizeof(*rows), cmp_operations);

	snprintf(text, sizeof(text),
		 "# sleepy-parse diff: A = %s, B = %s: %zu operations, ranked by the Earth Mover's Distance between their log2 latency histograms (in factors of two); those with fewer than %d runs in A or B after the others",
		 opts->path_a, opts->path_b, n, MIN_RUNS);
	snprintf(json, sizeof(json), "\n  \"operations\": %zu", n);
	sleepy_output_begin(&out, stream, opts->format, text, json);
	sleepy_output_table(&out, "diff", "Latency histograms, most changed first", columns, 7);
	for (i = 0; i < n; i++) {
		if (opts->top && rank >= opts->top)
			break;
		for (c = 0; c < 7; c++)
			p[c] = cells[c];
		snprintf(cells[0], CELL, "%zu", ++rank);
		snprintf(cells[1], CELL, "%s", rows[i].name);
		snprintf(cells[2], CELL, "%" PRIu64, rows[i].count[0]);
		snprintf(cells[3], CELL, "%" PRIu64, rows[i].count[1]);
		put_mean(&out, cells[4], &rows[i], 0);
		put_mean(&out, cells[5], &rows[i], 1);
		if (rows[i].emd < 0)
			snprintf(cells[6], CELL, out.format == SLEEPY_FORMAT_JSON ? "null" : "-");
		else
			snprintf(cells[6], CELL, "%.3f", rows[i].emd);
		sleepy_output_cells(&out, p);
	}
	sleepy_output_end(&out);
	free(rows);
	sleepy_table_free(&ops);
}
