// SPDX-License-Identifier: GPL-2.0
/* sleepy-parse's reports; see report.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/callgraph.h"
#include "model/irq.h"
#include "report/irq_report.h"
#include "report/report.h"
#include "model/sched.h"
#include "report/sched_report.h"
#include "report/sort_report.h"

/*
 * Counts and rows read out of order are fetched this many places ahead of
 * the one worked on: they lie all over millions of others.
 */
#define AHEAD	16

/* What the reports call an IP count. */
struct ip_name {
	const char *function;	/* NULL if unknown */
	const char *dso;	/* of a function named by the mappings */
};

/*
 * The places in @ips (sorted by samples) of each application's counts,
 * one application after the other: looking names up and adding functions
 * up an application at a time keeps its mappings and its rows in the
 * caches, where the report's order went all over millions of them.
 * Every count's application is in the profile: it holds the count.
 */
static size_t *ips_by_app(struct sleepy_profile *profile,
			  const struct sleepy_ip_count *ips, size_t nips)
{
	size_t *start = sleepy_xcalloc(profile->apps.capacity + 1,
				       sizeof(*start));
	size_t *order = sleepy_xcalloc(nips + 1, sizeof(*order));
	size_t *app_of = sleepy_xcalloc(nips + 1, sizeof(*app_of));
	size_t i, next = 0;

	for (i = 0; i < nips; i++) {
		/* Not sleepy_profile_app(), which may grow the table. */
		app_of[i] = sleepy_table_index(&profile->apps,
			sleepy_table_find(&profile->apps, ips[i].appid,
					  NULL, NULL));
		start[app_of[i]]++;
	}
	for (i = 0; i < profile->apps.capacity; i++) {
		size_t here = start[i];

		start[i] = next;
		next += here;
	}
	for (i = 0; i < nips; i++)
		order[start[app_of[i]]++] = i;
	free(app_of);
	free(start);
	return order;
}

/*
 * The names of @ips, looked up once for every report, an application at a
 * time (@order).  NULL if nothing can name them; *@mapped tells whether the
 * mappings named any.
 */
static struct ip_name *name_ips(const struct sleepy_report_options *opts,
				struct sleepy_profile *profile,
				const struct sleepy_ip_count *ips,
				const size_t *order, size_t nips, bool *mapped)
{
	const struct sleepy_app *app = NULL;
	struct ip_name *names;
	size_t o, i;

	*mapped = false;
	if (!opts->nsymbols && !(opts->dsos && profile->nmappings) &&
	    !profile->ksyms.count)
		return NULL;
	names = calloc(nips + 1, sizeof(*names));
	for (o = 0; names && o < nips; o++) {
		if (o + AHEAD < nips)
			__builtin_prefetch(&ips[order[o + AHEAD]]);
		i = order[o];
		if (!app || app->appid != ips[i].appid)
			app = sleepy_profile_app(profile, ips[i].appid);
		if (!sleepy_report_app_selected(opts, app))
			continue;
		if (ips[i].in_kernel && !ips[i].entry_ip) {
			names[i].function =
				sleepy_report_kernel_function(profile, ips[i].ip,
							      &names[i].dso);
		} else {
			/* Without -k, the user function it entered the kernel from. */
			names[i].function =
				sleepy_report_function(opts, profile, app,
						       ips[i].ip, &names[i].dso);
		}
		*mapped |= names[i].dso && names[i].function;
	}
	return names;
}

struct function_count {
	const struct sleepy_app *app;
	const char *function;	/* one copy per function: the key */
	const char *dso;
	uint64_t samples;
};

static int function_match(const void *slot, const void *arg)
{
	const struct function_count *a = slot, *b = arg;

	return a->app == b->app && a->function == b->function &&
	       a->dso == b->dso;
}

/*
 * Rows of equal samples by their texts (the table's order follows heap
 * addresses): the application's label, the function, the file.
 */
static int cmp_function_texts(const void *a, const void *b, const void *arg)
{
	const struct function_count *x = a, *y = b;
	int diff;

	diff = strcmp(x->app->label, y->app->label);
	diff = diff ?: strcmp(x->function, y->function);
	return diff ?: strcmp(x->dso ?: "", y->dso ?: "");
}

/*
 * The @n @rows in the report's order, in an array the caller frees: by
 * samples, then by their texts' ranks (one 64-bit number when the three
 * ranks fit in one, almost always; otherwise by the texts).
 */
static struct sleepy_order *sorted_functions(const struct function_count *rows,
					     size_t n)
{
	struct sleepy_table labels, functions, dsos;
	struct sleepy_order *orders;
	uint64_t nlabels, nfunctions, ndsos, span;
	const struct function_count *row;
	size_t i;
	bool fits;

	sleepy_table_init(&labels, sizeof(struct sleepy_text_rank));
	sleepy_table_init(&functions, sizeof(struct sleepy_text_rank));
	sleepy_table_init(&dsos, sizeof(struct sleepy_text_rank));
	for (i = 0; i < n; i++) {
		row = &rows[i];
		sleepy_rank_add(&labels, row->app->label);
		sleepy_rank_add(&functions, row->function);
		sleepy_rank_add(&dsos, row->dso ?: "");
	}
	nlabels = sleepy_rank_texts(&labels);
	nfunctions = sleepy_rank_texts(&functions);
	ndsos = sleepy_rank_texts(&dsos);
	fits = !__builtin_mul_overflow(nlabels, nfunctions, &span) &&
	       !__builtin_mul_overflow(span, ndsos, &span);
	orders = sleepy_xcalloc(n + 1, sizeof(*orders));
	for (i = 0; i < n; i++) {
		row = &rows[i];
		orders[i] = (struct sleepy_order) {
			.samples = row->samples,
			.ranks = !fits ? 0 :
				 (sleepy_text_rank(&labels, row->app->label) * nfunctions +
				  sleepy_text_rank(&functions, row->function)) * ndsos +
				 sleepy_text_rank(&dsos, row->dso ?: ""),
			.item = row,
		};
	}
	sleepy_table_free(&labels);
	sleepy_table_free(&functions);
	sleepy_table_free(&dsos);
	sleepy_sort_orders(orders, n, fits ? NULL : cmp_function_texts, NULL);
	return orders;
}

/* Moves the rows of @table to the end of *@rows (*@n of them) and empties it. */
static void take_rows(struct sleepy_table *table, struct function_count **rows,
		      size_t *n, size_t *size)
{
	size_t i;

	if (*n + table->used > *size) {
		*size = 2 * (*n + table->used);
		*rows = sleepy_xrealloc(*rows, *size * sizeof(**rows));
	}
	for (i = 0; i < table->capacity; i++) {
		const struct function_count *row = sleepy_table_slot(table, i);

		if (row)
			(*rows)[(*n)++] = *row;
	}
	sleepy_table_free(table);
}

/*
 * By function, of the applications -s names and, if the mappings named
 * any function, of all.
 */
static void report_functions(struct sleepy_output *out,
			     const struct sleepy_report_options *opts,
			     struct sleepy_profile *profile,
			     const struct sleepy_ip_count *ips,
			     const size_t *order, const struct ip_name *names,
			     size_t nips, bool mapped, uint64_t total)
{
	struct function_count key, *counts = NULL;
	size_t ncounts = 0, size = 0, o, i;
	struct sleepy_app *app = NULL;
	struct sleepy_order *rows;
	struct sleepy_table table;

	/* Rows of two applications never add up: a table per application. */
	sleepy_table_init(&table, sizeof(key));
	for (o = 0; o < nips; o++) {
		struct function_count *count;

		if (o + AHEAD < nips) {
			__builtin_prefetch(&ips[order[o + AHEAD]]);
			__builtin_prefetch(&names[order[o + AHEAD]]);
		}
		i = order[o];
		if (app && app->appid != ips[i].appid)
			take_rows(&table, &counts, &ncounts, &size);
		app = sleepy_profile_app(profile, ips[i].appid);

		if (!sleepy_report_app_selected(opts, app) ||
		    !(mapped || sleepy_report_named_by_s(opts, app)))
			continue;
		key = (struct function_count) {
			.app = app,
			.function = names[i].function ?:
				    (ips[i].in_kernel ? "[kernel]" : "[unknown]"),
			.dso = names[i].dso,
		};
		/* Time in the kernel, whatever function entered it. */
		if (ips[i].entry_ip)
			key = (struct function_count) {
				.app = app, .function = "[kernel]",
			};
		else if (!names[i].function && !ips[i].in_kernel)
			key.dso = sleepy_report_unknown_dso(opts, profile, app,
							     ips[i].ip);
		count = sleepy_table_get(&table, (uintptr_t)key.function ^
					 (uintptr_t)key.dso ^
					 ((uint64_t)app->appid << 40),
					 function_match, &key);
		if (!count->app)
			*count = key;
		count->samples += ips[i].samples;
	}
	take_rows(&table, &counts, &ncounts, &size);
	rows = sorted_functions(counts, ncounts);

	sleepy_output_report(out, "by_function", "By application and function",
			     SLEEPY_COLUMNS_FUNCTION);
	for (i = 0; i < ncounts && (!opts->top || i < opts->top); i++) {
		const struct function_count *count = rows[i].item;
		struct sleepy_row row;

		/* The row, then its application once the row is in. */
		if (i + AHEAD < ncounts)
			__builtin_prefetch(rows[i + AHEAD].item);
		if (i + AHEAD / 2 < ncounts)
			__builtin_prefetch(((const struct function_count *)
					    rows[i + AHEAD / 2].item)->app);
		row = (struct sleepy_row) {
			.app = count->app->label,
			.pid = count->app->pid,
			.function = count->function,
			.dso = count->dso,
			.samples = count->samples,
			.percent = 100.0 * count->samples / total,
		};

		sleepy_output_row(out, &row);
	}
	free(rows);
	free(counts);
}

void sleepy_report(FILE *stream, const struct sleepy_report_options *opts,
		   struct sleepy_profile *profile,
		   const struct sleepy_recording *rec)
{
	struct sleepy_app **apps, *app = NULL;
	struct sleepy_ip_count *ips;
	struct sleepy_output out;
	struct ip_name *names;
	size_t *order;
	bool mapped;
	char text[768], json[1280], frequency[32] = "tick (CONFIG_HZ)";
	size_t napps, nips, i, shown;
	uint64_t total = 0;

	for (i = 0; i < profile->apps.capacity; i++) {
		app = sleepy_table_slot(&profile->apps, i);
		if (app && sleepy_report_app_selected(opts, app))
			total += app->samples;
	}
	app = NULL;
	if (rec->header.frequency)
		snprintf(frequency, sizeof(frequency), "%u Hz",
			 rec->header.frequency);

	snprintf(text, sizeof(text),
		 "# %s: %" PRIu64 " samples shown of %" PRIu64 " (%" PRIu64
		 " in kernel mode), %u CPUs, %s, %.2f s, %" PRIu64 " dropped, %"
		 PRIu64 " idle, %" PRIu64 " periods missed",
		 opts->path, total, profile->samples, profile->kernel_samples,
		 rec->header.ncpus, frequency, profile->samples ?
		 (profile->last_ns - profile->first_ns) / 1e9 : 0.0,
		 profile->totals.dropped, profile->totals.idle,
		 profile->totals.missed);
	if (profile->sched)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 ", %" PRIu64 " switches, %" PRIu64 " wakeups",
			 profile->sched->switches, profile->sched->wakeups);
	if (profile->stack_samples)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 ", %" PRIu64 " with stacks (%" PRIu64 " cut at --max-stack, %"
			 PRIu64 " ended at a frame without a frame pointer)",
			 profile->stack_samples, profile->stacks_cut,
			 profile->stacks_unwalkable);
	snprintf(json, sizeof(json),
		 "\n  \"samples\": %" PRIu64 ", \"samples_shown\": %" PRIu64
		 ", \"kernel_samples\": %" PRIu64 ", \"cpus\": %u, \"frequency\": %u"
		 ", \"counted_samples\": %" PRIu64 ", \"dropped\": %" PRIu64
		 ", \"lost_in_stream\": %" PRIu64 ", \"idle\": %" PRIu64 ", \"missed\": %" PRIu64
		 ", \"table_overflows\": %" PRIu64
		 ", \"switches\": %" PRIu64 ", \"wakeups\": %" PRIu64
		 ", \"stack_samples\": %" PRIu64 ", \"stacks_cut\": %" PRIu64
		 ", \"stacks_unwalkable\": %" PRIu64
		 ", \"complete\": %s",
		 profile->samples, total, profile->kernel_samples,
		 rec->header.ncpus, rec->header.frequency,
		 profile->totals.samples, profile->totals.dropped,
		 profile->lost_in_stream, profile->totals.idle, profile->totals.missed,
		 profile->table_overflows,
		 profile->sched ? profile->sched->switches : 0,
		 profile->sched ? profile->sched->wakeups : 0,
		 profile->stack_samples, profile->stacks_cut,
		 profile->stacks_unwalkable,
		 rec->finished && !rec->error[0] ? "true" : "false");
	sleepy_output_begin(&out, stream, opts->format, text, json);
	if (!total)
		total = 1;
	if (opts->nsort || opts->stack_view) {
		if (opts->nsort)
			sleepy_sort_report(&out, opts, profile, total);
		else
			sleepy_callgraph_report(&out, opts, profile);
		sleepy_output_end(&out);
		return;
	}
	apps = sleepy_profile_apps(profile, &napps);
	ips = sleepy_profile_ips(profile, &nips);

	sleepy_output_report(&out, "by_app", "By application", SLEEPY_COLUMNS_APP);
	for (i = 0, shown = 0; i < napps; i++) {
		struct sleepy_row row = {
			.app = apps[i]->label,
			.pid = apps[i]->pid,
			.samples = apps[i]->samples,
			.percent = 100.0 * apps[i]->samples / total,
		};

		if (!apps[i]->samples || !sleepy_report_app_selected(opts, apps[i]))
			continue;
		if (opts->top && shown++ >= opts->top)
			break;
		sleepy_output_row(&out, &row);
	}

	/* Not before: looking applications up may move them under @apps. */
	order = ips_by_app(profile, ips, nips);
	names = name_ips(opts, profile, ips, order, nips, &mapped);
	sleepy_output_report(&out, "by_app_ip",
			     "By application and instruction pointer",
			     SLEEPY_COLUMNS_IP);
	for (i = 0, shown = 0; i < nips; i++) {
		struct sleepy_row row;

		/* An application's rows of one sample count follow each other. */
		if (!app || app->appid != ips[i].appid)
			app = sleepy_profile_app(profile, ips[i].appid);
		row = (struct sleepy_row) {
			.app = app->label,
			.pid = app->pid,
			.has_ip = true,
			.ip = ips[i].ip,
			.in_kernel = ips[i].in_kernel,
			.function = names ? names[i].function : NULL,
			.dso = names ? names[i].dso : NULL,
			.samples = ips[i].samples,
			.percent = 100.0 * ips[i].samples / total,
		};

		if (!sleepy_report_app_selected(opts, app))
			continue;
		if (opts->top && shown++ >= opts->top)
			break;
		sleepy_output_row(&out, &row);
	}

	if (names && (opts->nsymbols || mapped))
		report_functions(&out, opts, profile, ips, order, names, nips,
				 mapped, total);
	if (profile->sched)
		sleepy_sched_report(&out, opts, profile, rec->header.start_time_ns,
				    profile->end_ns);
	/* A --sched recording keeps /proc/interrupts for its wakeups only. */
	if (profile->irqs && ((rec->header.flags & SLEEPY_FLAG_IRQ) ||
			      profile->irqs->totals.used))
		sleepy_irq_report(&out, opts, profile,
				  rec->header.start_time_ns);
	sleepy_output_end(&out);
	free(names);
	free(order);
	free(apps);
	free(ips);
}
