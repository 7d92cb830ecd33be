// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-parse's reports of a --irq recording, in the shape of BCC's
 * hardirqs and softirqs: per interrupt, runs, total and average time,
 * and (text) its log2 histogram of handler time in ns; on a shared line,
 * each action's handler time alike (BCC's hardirqs keys by action name);
 * softirqs' delay from raise to run alike; with --irq-by-app, the time each interrupt
 * took from each application instance it interrupted.  --irq-per-cpu and
 * --irq-intervals keep CPUs and intervals apart (a column each; in text,
 * a histogram each).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/irq.h"
#include "report/irq_report.h"

#define CELL	48
#define MAX_COLUMNS	10

/* Interval by interval, CPU by CPU, then the costliest first. */
static int cmp_totals(const void *a, const void *b)
{
	const struct sleepy_irq_total *x = a, *y = b;

	if (x->end_ns != y->end_ns)
		return x->end_ns < y->end_ns ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return x->action < y->action ? -1 : x->action > y->action;
}

static bool same_group(const struct sleepy_irq_total *a,
		       const struct sleepy_irq_total *b)
{
	return a->end_ns == b->end_ns && a->cpu == b->cpu;
}

/* Seconds from the session start to the end of @t's interval. */
static double interval_end_s(const struct sleepy_irq_total *t, uint64_t start_ns)
{
	return t->end_ns > start_ns ? (t->end_ns - start_ns) / 1e9 : 0.0;
}

/* "LOC", or "LOC, cpu 1, to 2.000 s" when CPUs or intervals are apart. */
static const char *group_name(const struct sleepy_irqs *irqs,
			      const struct sleepy_irq_total *t,
			      uint64_t start_ns, char *buf, size_t size)
{
	char name[64];
	int n;

	n = snprintf(buf, size, "%s",
		     sleepy_irq_total_name(irqs, t, name, sizeof(name)));
	if (irqs->by_cpu && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, ", cpu %" PRIu32, t->cpu);
	if (irqs->by_interval && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - n, ", to %.3f s", interval_end_s(t, start_ns));
	return buf;
}

static int cmp_charges(const void *a, const void *b)
{
	const struct sleepy_irq_charge *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return x->appid < y->appid ? -1 : x->appid > y->appid;
}

/* BCC's print_log2_hist(), on ns buckets: rows from the first to the last used. */
static void print_histogram(FILE *out, const char *name,
			    const struct sleepy_irq_total *t)
{
	int first = -1, last = -1, i, stars;
	uint64_t max = 0;

	for (i = 0; i < SLEEPY_IRQ_BUCKETS; i++) {
		if (!t->log2_ns[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (t->log2_ns[i] > max)
			max = t->log2_ns[i];
	}
	if (first < 0)
		return;
	fprintf(out, "\n%s = %s\n%24s : count     distribution\n",
		t->kind == SLEEPY_IRQ_SOFTIRQ || t->kind == SLEEPY_IRQ_SOFTIRQ_DELAY ?
		"softirq" : "irq", name, "nsecs");
	for (i = first; i <= last; i++) {
		uint64_t low = i ? 1ULL << i : 0, high = (1ULL << (i + 1)) - 1;
		char bar[41];

		stars = (int)(t->log2_ns[i] * 40 / max);
		memset(bar, '*', stars);
		memset(bar + stars, ' ', 40 - stars);
		bar[40] = '\0';
		if (i == SLEEPY_IRQ_BUCKETS - 1)
			fprintf(out, "%10" PRIu64 " -> %-10s : %-9" PRIu64 " |%s|\n",
				low, "...", t->log2_ns[i], bar);
		else
			fprintf(out, "%10" PRIu64 " -> %-10" PRIu64 " : %-9" PRIu64 " |%s|\n",
				low, high, t->log2_ns[i], bar);
	}
}

/*
 * Whether row @i of @rows is shown: of kind @kind_a or @kind_b, and among
 * the first --top of its group (CPU and interval).  @shown counts them.
 */
static bool row_shown(const struct sleepy_report_options *opts,
		      const struct sleepy_irq_total *rows, size_t i,
		      uint32_t kind_a, uint32_t kind_b, size_t *shown)
{
	if (i && !same_group(&rows[i - 1], &rows[i]))
		*shown = 0;
	if (rows[i].kind != kind_a && rows[i].kind != kind_b)
		return false;
	return !opts->top || (*shown)++ < opts->top;
}

/* The log2 buckets as one cell: "[1,2,...]" in JSON, "1 2 ..." in CSV. */
static char *buckets_cell(const struct sleepy_output *out,
			  const struct sleepy_irq_total *t)
{
	bool json = out->format == SLEEPY_FORMAT_JSON;
	char *buckets = malloc(SLEEPY_IRQ_BUCKETS * 22 + 4);
	size_t used;
	int c;

	if (!buckets)
		exit(1);
	used = sprintf(buckets, json ? "[" : "");
	for (c = 0; c < SLEEPY_IRQ_BUCKETS; c++)
		used += sprintf(buckets + used, "%s%" PRIu64,
				c ? (json ? "," : " ") : "", t->log2_ns[c]);
	sprintf(buckets + used, json ? "]" : "");
	return buckets;
}

static void report_kind(struct sleepy_output *out,
			const struct sleepy_report_options *opts,
			struct sleepy_irqs *irqs, uint64_t start_ns,
			const char *key, const char *title, uint32_t kind_a,
			uint32_t kind_b)
{
	static const struct sleepy_column name_column = { "name", "NAME", -24, false },
		cpu_column = { "cpu", "CPU", 4, true },
		end_column = { "end_s", "TO s", 9, true },
		action_column = { "action", "ACTION", 6, true },
		value_columns[] = {
			{ "number", "NUMBER", 10, true },
			{ "count", "COUNT", 10, true },
			{ "total_ns", "TOTAL ms", 12, true },
			{ "average_ns", "AVERAGE ns", 12, true },
			{ "log2_ns", "", 0, true },
		};
	/* The output keeps a pointer to the columns until the next table. */
	static struct sleepy_column columns[MAX_COLUMNS];
	bool text = out->format == SLEEPY_FORMAT_TEXT;
	char cells[MAX_COLUMNS][CELL], name[96], *buckets = NULL;
	unsigned int ncolumns = 0, c;
	struct sleepy_irq_total *rows;
	const char *p[MAX_COLUMNS];
	size_t n, i, shown = 0;

	columns[ncolumns++] = name_column;
	if (irqs->by_cpu)
		columns[ncolumns++] = cpu_column;
	if (irqs->by_interval)
		columns[ncolumns++] = end_column;
	/* The histogram goes under the table in text, into the row in JSON/CSV. */
	for (c = 0; c < (text ? 4 : 5); c++) {
		columns[ncolumns++] = value_columns[c];
		if (!c && kind_a == SLEEPY_IRQ_ACTION)
			columns[ncolumns++] = action_column;
	}

	rows = sleepy_table_sorted(&irqs->totals, &n, cmp_totals);
	/* Actions have a table only if the recording has a shared line. */
	for (i = 0; i < n && rows[i].kind != kind_a; i++)
		;
	if (i == n && kind_a == SLEEPY_IRQ_ACTION) {
		free(rows);
		return;
	}
	sleepy_output_table(out, key, title, columns, ncolumns);
	for (i = 0; i < n; i++) {
		struct sleepy_irq_total *t = &rows[i];

		if (!row_shown(opts, rows, i, kind_a, kind_b, &shown))
			continue;
		for (c = 0; c < ncolumns; c++)
			p[c] = cells[c];
		snprintf(cells[0], CELL, "%s",
			 sleepy_irq_total_name(irqs, t, name, sizeof(name)));
		c = 1;
		if (irqs->by_cpu)
			snprintf(cells[c++], CELL, "%" PRIu32, t->cpu);
		if (irqs->by_interval)
			snprintf(cells[c++], CELL, "%.3f", interval_end_s(t, start_ns));
		snprintf(cells[c++], CELL, "%" PRIu32, t->number);
		if (kind_a == SLEEPY_IRQ_ACTION)
			snprintf(cells[c++], CELL, "%" PRIu32, t->action);
		snprintf(cells[c++], CELL, "%" PRIu64, t->count);
		if (text)
			snprintf(cells[c++], CELL, "%.3f", t->total_ns / 1e6);
		else
			snprintf(cells[c++], CELL, "%" PRIu64, t->total_ns);
		snprintf(cells[c++], CELL, "%" PRIu64, t->count ? t->total_ns / t->count : 0);
		if (!text)
			p[c] = buckets = buckets_cell(out, t);
		sleepy_output_cells(out, p);
		free(buckets);
		buckets = NULL;
	}
	if (text) {
		for (i = 0, shown = 0; i < n; i++)
			if (row_shown(opts, rows, i, kind_a, kind_b, &shown))
				print_histogram(sleepy_output_stream(out),
						group_name(irqs, &rows[i], start_ns,
							   name, sizeof(name)),
						&rows[i]);
	}
	free(rows);
}

static void report_by_app(struct sleepy_output *out,
			  const struct sleepy_report_options *opts,
			  struct sleepy_profile *profile)
{
	static const struct sleepy_column columns[] = {
		{ "app", "APPLICATION", -24, false },
		{ "interrupt", "INTERRUPT", -24, false },
		{ "kind", "KIND", -8, false },
		{ "count", "COUNT", 10, true },
		{ "total_ns", "TOTAL ms", 12, true },
	};
	static const char *const kinds[] = {
		"hardirq", "sysvec", "softirq", "delay", "action",
	};
	struct sleepy_irqs *irqs = profile->irqs;
	struct sleepy_irq_charge *rows;
	char cells[5][CELL], name[64];
	const char *p[5] = { cells[0], cells[1], cells[2], cells[3], cells[4] };
	size_t n, i, shown = 0;

	rows = sleepy_table_sorted(&irqs->charges, &n, cmp_charges);
	sleepy_output_table(out, "irq_by_app",
			    "Interrupt time taken from each application instance",
			    columns, 5);
	for (i = 0; i < n; i++) {
		struct sleepy_app *app = sleepy_profile_app(profile, rows[i].appid);

		if (!sleepy_report_app_selected(opts, app))
			continue;
		if (opts->top && shown++ >= opts->top)
			break;
		snprintf(cells[0], CELL, "%s", app->label);
		snprintf(cells[1], CELL, "%s",
			 sleepy_irq_name(irqs, rows[i].kind, rows[i].number, name,
					 sizeof(name)));
		snprintf(cells[2], CELL, "%s",
			 rows[i].kind < sizeof(kinds) / sizeof(kinds[0]) ?
			 kinds[rows[i].kind] : "?");
		snprintf(cells[3], CELL, "%" PRIu64, rows[i].count);
		if (out->format == SLEEPY_FORMAT_TEXT)
			snprintf(cells[4], CELL, "%.3f", rows[i].total_ns / 1e6);
		else
			snprintf(cells[4], CELL, "%" PRIu64, rows[i].total_ns);
		sleepy_output_cells(out, p);
	}
	free(rows);
}

void sleepy_irq_report(struct sleepy_output *out,
		       const struct sleepy_report_options *opts,
		       struct sleepy_profile *profile, uint64_t start_ns)
{
	report_kind(out, opts, profile->irqs, start_ns, "hardirqs",
		    "Hard interrupts: handler time (hardirqs -d)",
		    SLEEPY_IRQ_HARDIRQ, SLEEPY_IRQ_SYSVEC);
	report_kind(out, opts, profile->irqs, start_ns, "hardirq_actions",
		    "Shared interrupt lines: each action's handler time",
		    SLEEPY_IRQ_ACTION, SLEEPY_IRQ_ACTION);
	report_kind(out, opts, profile->irqs, start_ns, "softirqs",
		    "Softirqs: handler time (softirqs -d)",
		    SLEEPY_IRQ_SOFTIRQ, SLEEPY_IRQ_SOFTIRQ);
	report_kind(out, opts, profile->irqs, start_ns, "softirq_delay",
		    "Softirqs: delay from raise to run",
		    SLEEPY_IRQ_SOFTIRQ_DELAY, SLEEPY_IRQ_SOFTIRQ_DELAY);
	if (opts->irq_by_app)
		report_by_app(out, opts, profile);
}
