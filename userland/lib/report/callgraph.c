// SPDX-License-Identifier: GPL-2.0
/*
 * Call stacks: names of their frames and the reports over them; see
 * callgraph.h.  A report row is one function (or caller, or callee) of
 * one application, kept in a table keyed by the text "app, kind, name";
 * a row remembers the last stack that counted it, so a function that a
 * stack holds twice (recursion) counts once for that stack, as perf's
 * children do.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/callgraph.h"

#define CELL		(SLEEPY_FRAME_MAX + 8)

/*
 * A frame of @ip: its function, else its address and, of a user IP, the
 * file it lies in.
 */
static struct sleepy_frame frame_of(const struct sleepy_report_options *opts,
				    struct sleepy_profile *profile,
				    const struct sleepy_app *app, uint64_t ip,
				    bool kernel, bool return_address,
				    char *scratch)
{
	/* A call's return address may already be the next function's. */
	uint64_t lookup = return_address && ip ? ip - 1 : ip, address;
	struct sleepy_frame frame = { .kernel = kernel };
	const char *dso;

	if (kernel)
		frame.name = sleepy_report_kernel_function(profile, lookup, &dso);
	else
		frame.name = sleepy_report_place(opts, profile, app, lookup,
						 &dso, &address);
	if (frame.name)
		return frame;
	snprintf(scratch, SLEEPY_FRAME_MAX, "0x%" PRIx64, ip);
	frame.name = scratch;
	frame.file = kernel ? NULL : dso;
	return frame;
}

unsigned int sleepy_stack_frames(const struct sleepy_report_options *opts,
				 struct sleepy_profile *profile,
				 const struct sleepy_app *app,
				 const struct sleepy_stack *stack,
				 struct sleepy_frame *frames,
				 char (*scratch)[SLEEPY_FRAME_MAX])
{
	const uint64_t *user = stack->ips + stack->nr_kernel;
	unsigned int n = 0, i;

	if (stack->flags & SLEEPY_CALLCHAIN_USER_CUT)
		frames[n++] = (struct sleepy_frame) { .name = "[cut]" };
	for (i = stack->nr_user; i-- > 0; n++)
		frames[n] = frame_of(opts, profile, app, user[i], false, i > 0,
				     scratch[n]);
	if (stack->flags & SLEEPY_CALLCHAIN_KERNEL_CUT)
		frames[n++] = (struct sleepy_frame) {
			.name = "[cut]", .kernel = true,
		};
	for (i = stack->nr_kernel; i-- > 0; n++)
		frames[n] = frame_of(opts, profile, app, stack->ips[i], true,
				     i > 0, scratch[n]);
	if (stack->in_kernel && !stack->nr_kernel)
		frames[n++] = (struct sleepy_frame) {
			.name = "[kernel]", .kernel = true,
		};
	return n;
}

struct callgraph_row {
	char *key;		/* app label, kind and name, joined by \x1f */
	const struct sleepy_app *app;
	const char *function;	/* in @key */
	bool kernel;
	uint64_t samples;	/* children, callers' or callees' samples */
	uint64_t self;		/* --children: the function itself */
	size_t last_stack;	/* + 1 */
};

static int same_key(const void *slot, const void *arg)
{
	return !strcmp(((const struct callgraph_row *)slot)->key, arg);
}

static struct callgraph_row *row_of(struct sleepy_table *rows,
				    const struct sleepy_app *app,
				    const struct sleepy_frame *frame)
{
	char key[SLEEPY_APP_NAME_LEN + 16 + 3 + SLEEPY_FRAME_MAX];
	struct callgraph_row *row;

	snprintf(key, sizeof(key), "%s\x1f%c\x1f%s", app->label,
		 frame->kernel ? 'k' : 'u', frame->name);
	row = sleepy_table_get(rows, sleepy_hash_string(key), same_key, key);
	if (!row->key) {
		row->key = strdup(key);
		if (!row->key) {
			fprintf(stderr, "sleepy: out of memory\n");
			exit(1);
		}
		row->app = app;
		row->function = strrchr(row->key, '\x1f') + 1;
		row->kernel = frame->kernel;
	}
	return row;
}

/* Adds @samples to @frame's row, once per stack @id. */
static void count(struct sleepy_table *rows, const struct sleepy_app *app,
		  const struct sleepy_frame *frame, size_t id, uint64_t samples)
{
	struct callgraph_row *row = row_of(rows, app, frame);

	if (row->last_stack != id + 1) {
		row->last_stack = id + 1;
		row->samples += samples;
	}
}

/* Whether @frame is the function --callers or --callees names. */
static bool is_function(const struct sleepy_report_options *opts,
			const struct sleepy_frame *frame)
{
	return !strcmp(frame->name, opts->stack_function);
}

/*
 * The rows of one stack; returns the samples it adds to the report's
 * total (for --callers and --callees, only if it holds the function).
 */
static uint64_t add_stack(struct sleepy_table *rows,
			  const struct sleepy_report_options *opts,
			  const struct sleepy_app *app,
			  const struct sleepy_stack *stack, size_t id,
			  const struct sleepy_frame *frames, unsigned int n)
{
	static const struct sleepy_frame none = { .name = "[none]" };
	bool found = false;
	unsigned int i;

	if (opts->stack_view == SLEEPY_STACKS_CHILDREN) {
		for (i = 0; i < n; i++)
			count(rows, app, &frames[i], id, stack->samples);
		if (n)
			row_of(rows, app, &frames[n - 1])->self += stack->samples;
		return stack->samples;
	}
	for (i = 0; i < n; i++) {
		const struct sleepy_frame *other;

		if (!is_function(opts, &frames[i]))
			continue;
		found = true;
		if (opts->stack_view == SLEEPY_STACKS_CALLERS)
			other = i ? &frames[i - 1] : &none;
		else
			other = i + 1 < n ? &frames[i + 1] : &none;
		count(rows, app, other, id, stack->samples);
	}
	return found ? stack->samples : 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct callgraph_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return strcmp(x->key, y->key);
}

static void percent(char *cell, const struct sleepy_output *out,
		    uint64_t part, uint64_t total)
{
	snprintf(cell, CELL, out->format == SLEEPY_FORMAT_TEXT ? "%.2f%%" : "%.4f",
		 total ? 100.0 * part / total : 0.0);
}

static void write_rows(struct sleepy_output *out,
		       const struct sleepy_report_options *opts,
		       struct callgraph_row *rows, size_t n, uint64_t total)
{
	static const struct sleepy_column children[] = {
		{ "children", "CHILDREN", 10, true },
		{ "children_percent", "%", 7, true },
		{ "self", "SELF", 10, true },
		{ "self_percent", "%", 7, true },
		{ "app", "APP", -20, false },
		{ "function", "FUNCTION", 0, false },
	};
	static const struct sleepy_column neighbours[] = {
		{ "samples", "SAMPLES", 10, true },
		{ "percent", "%", 7, true },
		{ "app", "APP", -20, false },
		{ "function", "FUNCTION", 0, false },
	};
	bool with_self = opts->stack_view == SLEEPY_STACKS_CHILDREN;
	char cells[4][CELL], function[CELL], title[CELL + 64];
	const char *ptrs[6];
	unsigned int c;
	size_t i;

	if (with_self)
		snprintf(title, sizeof(title), "By function, with children "
			 "(%" PRIu64 " samples with stacks)", total);
	else
		snprintf(title, sizeof(title), "%s %s (%" PRIu64
			 " samples with it on the stack)",
			 opts->stack_view == SLEEPY_STACKS_CALLERS ?
			 "Callers of" : "Callees of", opts->stack_function, total);
	if (with_self)
		sleepy_output_table(out, "children", title, children, 6);
	else
		sleepy_output_table(out, opts->stack_view == SLEEPY_STACKS_CALLERS ?
				    "callers" : "callees", title, neighbours, 4);
	for (i = 0; i < n && (!opts->top || i < opts->top); i++) {
		c = 0;
		snprintf(cells[c], CELL, "%" PRIu64, rows[i].samples);
		ptrs[c] = cells[c], c++;
		percent(cells[c], out, rows[i].samples, total);
		ptrs[c] = cells[c], c++;
		if (with_self) {
			snprintf(cells[c], CELL, "%" PRIu64, rows[i].self);
			ptrs[c] = cells[c], c++;
			percent(cells[c], out, rows[i].self, total);
			ptrs[c] = cells[c], c++;
		}
		ptrs[c++] = rows[i].app->label;
		snprintf(function, sizeof(function), "[%c] %s",
			 rows[i].kernel ? 'k' : '.', rows[i].function);
		ptrs[c++] = function;
		sleepy_output_cells(out, ptrs);
	}
}

int sleepy_callgraph_report(struct sleepy_output *out,
			    const struct sleepy_report_options *opts,
			    struct sleepy_profile *profile)
{
	struct sleepy_table *stacks = &profile->stacks;
	char (*scratch)[SLEEPY_FRAME_MAX];
	struct callgraph_row *sorted;
	struct sleepy_frame *frames;
	struct sleepy_table rows;
	uint64_t total = 0;
	size_t i, n;

	if (!stacks->used)
		return -1;
	frames = sleepy_xrealloc(NULL, sleepy_stack_room(profile) * sizeof(*frames));
	scratch = sleepy_xrealloc(NULL, sleepy_stack_room(profile) * sizeof(*scratch));
	sleepy_table_init(&rows, sizeof(struct callgraph_row));
	for (i = 0; i < stacks->capacity; i++) {
		const struct sleepy_stack *stack = sleepy_table_slot(stacks, i);
		const struct sleepy_app *app;
		unsigned int nframes;

		if (!stack)
			continue;
		app = sleepy_profile_app(profile, stack->appid);
		if (!sleepy_report_app_selected(opts, app))
			continue;
		nframes = sleepy_stack_frames(opts, profile, app, stack, frames,
					      scratch);
		total += add_stack(&rows, opts, app, stack, i, frames, nframes);
	}
	sorted = sleepy_table_sorted(&rows, &n, cmp_rows);
	sleepy_table_free(&rows);
	write_rows(out, opts, sorted, n, total);
	for (i = 0; i < n; i++)
		free(sorted[i].key);
	free(sorted);
	free(scratch);
	free(frames);
	return 0;
}
