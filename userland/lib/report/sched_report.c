// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-parse's reports of a --sched recording: off-CPU time by
 * application and blocking site, the wall-clock account per application
 * instance, wakeup links and, for one application, the chain of what it
 * waited for.  Times are milliseconds in text, nanoseconds in CSV and JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/irq.h"
#include "report/sched_report.h"
#include "model/sched_replay.h"

#define CELL	40

struct cells {
	char v[16][CELL];
	const char *p[16];
};

static const char *const *cells_of(struct cells *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		c->p[i] = c->v[i];
	return c->p;
}

/* A duration: ms with 3 decimals in text, ns otherwise. */
static void put_time(const struct sleepy_output *out, char *cell, uint64_t ns)
{
	if (out->format == SLEEPY_FORMAT_TEXT)
		snprintf(cell, CELL, "%.3f", ns / 1e6);
	else
		snprintf(cell, CELL, "%" PRIu64, ns);
}

static void put_ip(char *cell, uint64_t ip)
{
	if (ip)
		snprintf(cell, CELL, "0x%" PRIx64, ip);
	else
		snprintf(cell, CELL, "-");
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_sites(const void *a, const void *b)
{
	const struct sleepy_offcpu_site *x = a, *y = b;

	return cmp_u64_desc(x->total_ns, y->total_ns) ?:
	       cmp_u64_desc(x->count, y->count);
}

static int cmp_links(const void *a, const void *b)
{
	const struct sleepy_wakeup_link *x = a, *y = b;

	return cmp_u64_desc(x->blocked_ns, y->blocked_ns) ?:
	       cmp_u64_desc(x->count, y->count);
}

static int cmp_links_by_count(const void *a, const void *b)
{
	const struct sleepy_wakeup_link *x = a, *y = b;

	return cmp_u64_desc(x->count, y->count) ?:
	       cmp_u64_desc(x->blocked_ns, y->blocked_ns);
}

static uint64_t wall_accounted(const struct sleepy_wall *w)
{
	uint64_t sum = 0;
	int k;

	for (k = 0; k < SLEEPY_TIME_KINDS; k++)
		if (k != SLEEPY_TIME_UNKNOWN)
			sum += w->ns[k];
	return sum;
}

static int cmp_walls(const void *a, const void *b)
{
	const struct sleepy_wall *x = a, *y = b;

	return cmp_u64_desc(x->lifetime_ns, y->lifetime_ns);
}

/* "[hardirq virtio0]", "[softirq TIMER]", "[hardirq]" if unknown. */
static const char *interrupt_label(struct sleepy_profile *profile,
				   const char *context, uint32_t kind,
				   uint32_t number, char *buf, size_t size)
{
	char name[40];

	if (number == SLEEPY_IRQ_OTHER)
		snprintf(buf, size, "[%s]", context);
	else
		snprintf(buf, size, "[%s %s]", context,
			 sleepy_irq_name(profile->irqs, kind, number, name,
					 sizeof(name)));
	return buf;
}

static const char *waker_label(struct sleepy_profile *profile,
			       const struct sleepy_wakeup_link *link,
			       char *buf, size_t size)
{
	switch (link->waker_kind) {
	case SLEEPY_WAKER_HARDIRQ:
		return interrupt_label(profile, "hardirq", SLEEPY_IRQ_HARDIRQ,
				       link->waker_appid, buf, size);
	case SLEEPY_WAKER_SYSVEC:
		return interrupt_label(profile, "hardirq", SLEEPY_IRQ_SYSVEC,
				       link->waker_appid, buf, size);
	case SLEEPY_WAKER_SOFTIRQ:
		return interrupt_label(profile, "softirq", SLEEPY_IRQ_SOFTIRQ,
				       link->waker_appid, buf, size);
	case SLEEPY_WAKER_KERNEL:
		return "[kernel]";
	case SLEEPY_WAKER_IDLE:
		return "[idle]";
	default:
		return sleepy_profile_app(profile, link->waker_appid)->label;
	}
}

static void report_offcpu(struct sleepy_output *out,
			  const struct sleepy_report_options *opts,
			  struct sleepy_profile *profile)
{
	static const struct sleepy_column columns[] = {
		{ "total_ns", "TOTAL ms", 12, true },
		{ "count", "COUNT", 8, true },
		{ "reason", "REASON", -9, false },
		{ "app", "APPLICATION", -24, false },
		{ "user_ip", "USER IP", -18, false },
		{ "kernel_ip", "KERNEL IP", -18, false },
		{ "user_function", "USER FUNCTION", -24, false },
		{ "kernel_function", "KERNEL FUNCTION", -24, false },
	};
	struct sleepy_offcpu_site *sites;
	size_t n, i, shown = 0;
	const char *dso;
	struct cells c;

	sites = sleepy_table_sorted(&profile->sched->sites, &n, cmp_sites);
	sleepy_output_table(out, "offcpu",
			    "Off-CPU time by application, reason and site",
			    columns, 8);
	for (i = 0; i < n; i++) {
		struct sleepy_app *app = sleepy_profile_app(profile, sites[i].appid);
		const char *const *cells;

		if (!sleepy_report_app_selected(opts, app))
			continue;
		if (opts->top && shown++ >= opts->top)
			break;
		put_time(out, c.v[0], sites[i].total_ns);
		snprintf(c.v[1], CELL, "%" PRIu64, sites[i].count);
		snprintf(c.v[2], CELL, "%s", sleepy_time_kind_name(sites[i].kind));
		snprintf(c.v[3], CELL, "%s", app->label);
		put_ip(c.v[4], sites[i].user_ip);
		put_ip(c.v[5], sites[i].kernel_ip);
		cells = cells_of(&c, 6);
		/* Names are not cut to a cell. */
		c.p[6] = sites[i].user_ip ?
			 sleepy_report_function(opts, profile, app,
						sites[i].user_ip, &dso) : NULL;
		c.p[7] = sleepy_report_kernel_function(profile,
							sites[i].kernel_ip, &dso);
		c.p[6] = c.p[6] ?: "-";
		c.p[7] = c.p[7] ?: "-";
		sleepy_output_cells(out, cells);
	}
	free(sites);
}

static void report_wall(struct sleepy_output *out,
			const struct sleepy_report_options *opts,
			struct sleepy_profile *profile)
{
	static const enum sleepy_time_kind kinds[] = {
		SLEEPY_TIME_ON_CPU, SLEEPY_TIME_SLEEP, SLEEPY_TIME_BLOCKED,
		SLEEPY_TIME_IO, SLEEPY_TIME_STOPPED, SLEEPY_TIME_PREEMPTED,
		SLEEPY_TIME_RUNQUEUE, SLEEPY_TIME_UNKNOWN,
	};
	static const struct sleepy_column columns[] = {
		{ "app", "APPLICATION", -24, false },
		{ "threads", "THREADS", 7, true },
		{ "lifetime_ns", "LIFETIME ms", 12, true },
		{ "on_cpu_ns", "ON-CPU", 11, true },
		{ "sleep_ns", "SLEEP", 11, true },
		{ "blocked_ns", "BLOCKED", 10, true },
		{ "io_ns", "IO", 10, true },
		{ "stopped_ns", "STOPPED", 10, true },
		{ "preempted_ns", "PREEMPTED", 10, true },
		{ "runqueue_ns", "RUNQUEUE", 10, true },
		{ "unaccounted_ns", "UNACCOUNTED", 11, true },
		{ "accounted_percent", "ACCOUNTED%", 10, true },
		{ "switches", "SWITCHES", 8, true },
		{ "wakeups", "WAKEUPS", 8, true },
	};
	struct sleepy_wall *walls;
	size_t n, i, shown = 0;
	unsigned int k;
	struct cells c;

	walls = sleepy_table_sorted(&profile->sched->walls, &n, cmp_walls);
	sleepy_output_table(out, "wall",
			    "Wall-clock time by application instance (on + off + wait = lifetime)",
			    columns, 14);
	for (i = 0; i < n; i++) {
		struct sleepy_app *app = sleepy_profile_app(profile, walls[i].appid);
		uint64_t accounted = wall_accounted(&walls[i]);
		uint64_t life = walls[i].lifetime_ns;

		if (!sleepy_report_app_selected(opts, app))
			continue;
		if (opts->top && shown++ >= opts->top)
			break;
		snprintf(c.v[0], CELL, "%s", app->label);
		snprintf(c.v[1], CELL, "%u", walls[i].threads);
		put_time(out, c.v[2], life);
		for (k = 0; k < 8; k++)
			put_time(out, c.v[3 + k], walls[i].ns[kinds[k]]);
		snprintf(c.v[11], CELL, "%.2f", life ? 100.0 * accounted / life : 0.0);
		snprintf(c.v[12], CELL, "%" PRIu64, walls[i].switches);
		snprintf(c.v[13], CELL, "%" PRIu64, walls[i].wakeups);
		sleepy_output_cells(out, cells_of(&c, 14));
	}
	free(walls);
}

static const struct sleepy_column link_columns[] = {
	{ "depth", "DEPTH", 5, true },
	{ "waker", "WAKER", -24, false },
	{ "wakee", "WAKEE", -24, false },
	{ "count", "COUNT", 8, true },
	{ "wakee_blocked_ns", "WAKEE BLOCKED ms", 16, true },
};

static void link_row(struct sleepy_output *out, struct sleepy_profile *profile,
		     const struct sleepy_wakeup_link *link, unsigned int depth)
{
	char label[CELL];
	struct cells c;

	snprintf(c.v[0], CELL, "%u", depth);
	snprintf(c.v[1], CELL, "%s", waker_label(profile, link, label, CELL));
	snprintf(c.v[2], CELL, "%s",
		 sleepy_profile_app(profile, link->wakee_appid)->label);
	snprintf(c.v[3], CELL, "%" PRIu64, link->count);
	put_time(out, c.v[4], link->blocked_ns);
	sleepy_output_cells(out, cells_of(&c, 5));
}

static void report_wakeups(struct sleepy_output *out,
			   const struct sleepy_report_options *opts,
			   struct sleepy_profile *profile, const char *key,
			   const char *title,
			   const struct sleepy_wakeup_link *links, size_t n)
{
	size_t i, shown = 0;

	sleepy_output_table(out, key, title, link_columns + 1, 4);
	for (i = 0; i < n; i++) {
		const struct sleepy_app *wakee =
			sleepy_profile_app(profile, links[i].wakee_appid);
		char label[CELL];
		struct cells c;

		if (!sleepy_report_app_selected(opts, wakee))
			continue;
		if (opts->top && shown++ >= opts->top)
			break;
		snprintf(c.v[0], CELL, "%s", waker_label(profile, &links[i], label, CELL));
		snprintf(c.v[1], CELL, "%s", wakee->label);
		snprintf(c.v[2], CELL, "%" PRIu64, links[i].count);
		put_time(out, c.v[3], links[i].blocked_ns);
		sleepy_output_cells(out, cells_of(&c, 4));
	}
}

/*
 * Who @appid waited for, then whom those waited for, to @depth: each
 * waker's links into it, most blocked time first; an application already
 * on the path is not followed again.
 */
static void chain_of(struct sleepy_output *out, struct sleepy_profile *profile,
		     const struct sleepy_wakeup_link *links, size_t n,
		     uint32_t appid, unsigned int depth, unsigned int max_depth,
		     uint32_t *path)
{
	unsigned int d;
	size_t i;

	path[depth - 1] = appid;
	for (i = 0; i < n; i++) {
		bool seen = false;

		if (links[i].wakee_appid != appid)
			continue;
		link_row(out, profile, &links[i], depth);
		if (depth == max_depth || links[i].waker_kind != SLEEPY_WAKER_APP)
			continue;
		for (d = 0; d < depth; d++)
			seen |= path[d] == links[i].waker_appid;
		if (!seen)
			chain_of(out, profile, links, n, links[i].waker_appid,
				 depth + 1, max_depth, path);
	}
}

static void report_chain(struct sleepy_output *out,
			 const struct sleepy_report_options *opts,
			 struct sleepy_profile *profile,
			 const struct sleepy_wakeup_link *links, size_t n)
{
	unsigned int depth = opts->chain_depth;
	uint32_t path[SLEEPY_CHAIN_MAX_DEPTH], *roots;
	size_t i, nroots = 0;

	if (depth < 1 || depth > SLEEPY_CHAIN_MAX_DEPTH)
		depth = depth ? SLEEPY_CHAIN_MAX_DEPTH : 1;

	/* First the roots: the chains add placeholder applications. */
	roots = calloc(profile->apps.used ?: 1, sizeof(*roots));
	if (!roots) {
		fprintf(stderr, "sleepy: out of memory\n");
		exit(1);
	}
	for (i = 0; i < profile->apps.capacity; i++) {
		struct sleepy_app *app = sleepy_table_slot(&profile->apps, i);

		if (app && !strcmp(app->name, opts->chain_name) &&
		    (!opts->chain_instance || app->instance == opts->chain_instance))
			roots[nroots++] = app->appid;
	}
	sleepy_output_table(out, "chain",
			    "Wakeup chain: who the application waited for, and whom they waited for",
			    link_columns, 5);
	for (i = 0; i < nroots; i++)
		chain_of(out, profile, links, n, roots[i], 1, depth, path);
	free(roots);
}

void sleepy_sched_report(struct sleepy_output *out,
			 const struct sleepy_report_options *opts,
			 struct sleepy_profile *profile,
			 uint64_t begin_ns, uint64_t end_ns)
{
	struct sleepy_wakeup_link *links;
	size_t n;

	sleepy_sched_replay(profile->sched, profile, begin_ns, end_ns);
	report_offcpu(out, opts, profile);
	report_wall(out, opts, profile);
	links = sleepy_table_sorted(&profile->sched->links, &n, cmp_links);
	report_wakeups(out, opts, profile, "wakeups",
		       "Wakeups: waker -> wakee, by the wakee's blocked time",
		       links, n);
	qsort(links, n, sizeof(*links), cmp_links_by_count);
	report_wakeups(out, opts, profile, "wakeups_by_count",
		       "Wakeups: waker -> wakee, by count", links, n);
	/* The chain follows the links that cost the most blocked time. */
	qsort(links, n, sizeof(*links), cmp_links);
	if (opts->chain_name)
		report_chain(out, opts, profile, links, n);
	free(links);
}
