// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-parse --folded; see folded.h.  Each sample count or off-CPU site
 * becomes a stack string, merged with the lines of the same text in a
 * table keyed by the string's hash.  Frames come from names the tools do
 * not control (symbol tables), so ';', which separates frames, and control
 * bytes, which would break lines, become '_' in them.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/callgraph.h"
#include "export/folded.h"
#include "model/sched_replay.h"

#define FRAME		(SLEEPY_FRAME_MAX + 8)	/* a frame's name + "_[k]" */
#define MAX_FRAMES	4	/* app, reason, user, kernel */

bool sleepy_folded_parse(const char *name, enum sleepy_folded_kind *kind)
{
	if (!strcmp(name, "cpu"))
		*kind = SLEEPY_FOLDED_CPU;
	else if (!strcmp(name, "offcpu"))
		*kind = SLEEPY_FOLDED_OFFCPU;
	else
		return false;
	return true;
}

static int same_stack(const void *slot, const void *arg)
{
	return !strcmp(((const struct sleepy_folded_line *)slot)->stack, arg);
}

static int cmp_lines(const void *a, const void *b)
{
	const struct sleepy_folded_line *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

/*
 * A stack's first frame: @app's program, whose instances share their
 * stacks (as perf's stackcollapse and BCC's profile -f key them by
 * command), or with --instances the instance itself.
 */
static const char *root_frame(const struct sleepy_report_options *opts,
			      const struct sleepy_app *app)
{
	return opts->stacks_by_instance || !app->name[0] ? app->label :
							   app->name;
}

/* @frames joined by ';', in a string the caller frees. */
static char *join(const char *const *frames, unsigned int n)
{
	size_t len = 0;
	unsigned int f;
	const char *s;
	char *stack, *p;

	for (f = 0; f < n; f++)
		len += strlen(frames[f]) + 1;
	stack = malloc(len);
	if (!stack) {
		fprintf(stderr, "sleepy: out of memory\n");
		exit(1);
	}
	for (f = 0, p = stack; f < n; f++) {
		for (s = frames[f]; *s; s++)
			*p++ = *s == ';' || iscntrl((unsigned char)*s) ? '_' : *s;
		*p++ = ';';
	}
	p[-1] = '\0';
	return stack;
}

static void add(struct sleepy_table *lines, const char *const *frames,
		unsigned int n, uint64_t weight)
{
	struct sleepy_folded_line *line;
	char *stack;

	if (!weight)
		return;
	stack = join(frames, n);
	line = sleepy_table_get(lines, sleepy_hash_string(stack), same_stack, stack);
	if (line->stack)
		free(stack);
	else
		line->stack = stack;
	line->weight += weight;
}

/* 0xIP, with _[k] for a kernel IP. */
static const char *ip_frame(char *buf, uint64_t ip, bool kernel)
{
	snprintf(buf, FRAME, "0x%" PRIx64 "%s", ip, kernel ? "_[k]" : "");
	return buf;
}

/* A kernel IP's function, else the IP, with _[k]. */
static const char *kernel_frame(char *buf, struct sleepy_profile *profile,
				uint64_t ip)
{
	const char *dso;
	const char *function = sleepy_report_kernel_function(profile, ip, &dso);

	if (!function)
		return ip_frame(buf, ip, true);
	snprintf(buf, FRAME, "%s_[k]", function);
	return buf;
}

/*
 * [file] in @buf: a user IP no function names, in the file it lies in, as
 * FlameGraph's stackcollapse-perf.pl shows it; its IPs make one frame, not
 * a sliver each.
 */
static const char *file_frame(char *buf, const char *file)
{
	snprintf(buf, FRAME, "[%s]", file);
	return buf;
}

/* A user IP's function, else [file], else the IP. */
static const char *user_frame(char *buf,
			      const struct sleepy_report_options *opts,
			      struct sleepy_profile *profile,
			      const struct sleepy_app *app, uint64_t ip)
{
	const char *function, *dso;
	uint64_t address;

	function = sleepy_report_place(opts, profile, app, ip, &dso, &address);
	if (function)
		return function;
	return dso ? file_frame(buf, dso) : ip_frame(buf, ip, false);
}

/* app;function, app;0xIP or app;0xIP_[k]: samples. */
static void add_samples(struct sleepy_table *lines,
			const struct sleepy_report_options *opts,
			struct sleepy_profile *profile)
{
	struct sleepy_ip_count *ips;
	size_t nips, i;

	ips = sleepy_profile_ips(profile, &nips);
	for (i = 0; i < nips; i++) {
		const struct sleepy_app *app = sleepy_profile_app(profile, ips[i].appid);
		const char *frames[3] = { root_frame(opts, app) };
		char buf[FRAME];

		if (!sleepy_report_app_selected(opts, app))
			continue;
		unsigned int n = 1;

		if (!ips[i].in_kernel) {
			frames[n++] = user_frame(buf, opts, profile, app, ips[i].ip);
		} else if (!ips[i].entry_ip) {
			frames[n++] = kernel_frame(buf, profile, ips[i].ip);
		} else {
			/* Without -k: where it entered the kernel from. */
			if (ips[i].ip)
				frames[n++] = user_frame(buf, opts, profile, app,
							 ips[i].ip);
			frames[n++] = "[kernel]_[k]";
		}
		add(lines, frames, n, ips[i].samples);
	}
	free(ips);
}

/* app;root;...;leaf, kernel frames with _[k]: samples, with -g. */
static void add_stacks(struct sleepy_table *lines,
		       const struct sleepy_report_options *opts,
		       struct sleepy_profile *profile)
{
	unsigned int room = sleepy_stack_room(profile) + 1, n, f;
	struct sleepy_frame *frames = sleepy_xrealloc(NULL, room * sizeof(*frames));
	char (*scratch)[SLEEPY_FRAME_MAX] = sleepy_xrealloc(NULL, room * sizeof(*scratch));
	/* The frames written anew: kernel ones with _[k], [file] ones. */
	char (*text)[FRAME] = sleepy_xrealloc(NULL, room * sizeof(*text));
	const char **names = sleepy_xrealloc(NULL, room * sizeof(*names));
	size_t i;

	for (i = 0; i < profile->stacks.capacity; i++) {
		const struct sleepy_stack *stack = sleepy_table_slot(&profile->stacks, i);
		const struct sleepy_app *app;

		if (!stack)
			continue;
		app = sleepy_profile_app(profile, stack->appid);
		if (!sleepy_report_app_selected(opts, app))
			continue;
		n = sleepy_stack_frames(opts, profile, app, stack, frames, scratch);
		names[0] = root_frame(opts, app);
		for (f = 0; f < n; f++) {
			names[f + 1] = frames[f].name;
			if (frames[f].kernel) {
				snprintf(text[f], FRAME, "%s_[k]", frames[f].name);
				names[f + 1] = text[f];
			} else if (frames[f].file) {
				names[f + 1] = file_frame(text[f], frames[f].file);
			}
		}
		add(lines, names, n + 1, stack->samples);
	}
	free(names);
	free(text);
	free(scratch);
	free(frames);
}

/* app;[reason];user site;kernel site_[k]: off-CPU ns. */
static void add_offcpu(struct sleepy_table *lines,
		       const struct sleepy_report_options *opts,
		       struct sleepy_profile *profile)
{
	struct sleepy_table *sites = &profile->sched->sites;
	size_t i;

	for (i = 0; i < sites->capacity; i++) {
		const struct sleepy_offcpu_site *site = sleepy_table_slot(sites, i);
		char reason[FRAME], user[FRAME], kernel[FRAME];
		const char *frames[MAX_FRAMES];
		const struct sleepy_app *app;
		unsigned int n = 0;

		if (!site)
			continue;
		app = sleepy_profile_app(profile, site->appid);
		if (!sleepy_report_app_selected(opts, app))
			continue;
		snprintf(reason, sizeof(reason), "[%s]",
			 sleepy_time_kind_name(site->kind));
		frames[n++] = root_frame(opts, app);
		frames[n++] = reason;
		if (site->user_ip)
			frames[n++] = user_frame(user, opts, profile, app,
					       site->user_ip);
		if (site->kernel_ip)
			frames[n++] = kernel_frame(kernel, profile,
						   site->kernel_ip);
		add(lines, frames, n, site->total_ns);
	}
}

/* By application frame, then by the rest: each application's together. */
int sleepy_folded_cmp_stacks(const void *a, const void *b)
{
	const char *x = ((const struct sleepy_folded_line *)a)->stack;
	const char *y = ((const struct sleepy_folded_line *)b)->stack;
	size_t lx = strcspn(x, ";"), ly = strcspn(y, ";");
	int diff = memcmp(x, y, lx < ly ? lx : ly);

	if (diff)
		return diff;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x + lx, y + ly);
}

struct sleepy_folded_line *sleepy_folded_lines(const struct sleepy_report_options *opts,
					      enum sleepy_folded_kind kind,
					      struct sleepy_profile *profile,
					      const struct sleepy_recording *rec,
					      size_t *count)
{
	struct sleepy_folded_line *lines;
	struct sleepy_table table;
	size_t n, i;

	if (kind == SLEEPY_FOLDED_OFFCPU && !profile->sched)
		return NULL;
	sleepy_table_init(&table, sizeof(*lines));
	if (kind == SLEEPY_FOLDED_CPU && profile->stacks.used) {
		add_stacks(&table, opts, profile);
	} else if (kind == SLEEPY_FOLDED_CPU) {
		add_samples(&table, opts, profile);
	} else {
		sleepy_sched_replay(profile->sched, profile,
				    rec->header.start_time_ns, profile->end_ns);
		add_offcpu(&table, opts, profile);
	}
	lines = sleepy_table_sorted(&table, &n, cmp_lines);
	sleepy_table_free(&table);
	if (opts->top && n > opts->top) {
		for (i = opts->top; i < n; i++)
			free(lines[i].stack);
		n = opts->top;
	}
	*count = n;
	return lines;
}

void sleepy_folded_lines_free(struct sleepy_folded_line *lines, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(lines[i].stack);
	free(lines);
}

int sleepy_folded(FILE *stream, const struct sleepy_report_options *opts,
		  enum sleepy_folded_kind kind, struct sleepy_profile *profile,
		  const struct sleepy_recording *rec)
{
	struct sleepy_folded_line *lines;
	size_t n, i;

	lines = sleepy_folded_lines(opts, kind, profile, rec, &n);
	if (!lines)
		return -1;
	for (i = 0; i < n; i++)
		fprintf(stream, "%s %" PRIu64 "\n", lines[i].stack,
			lines[i].weight);
	sleepy_folded_lines_free(lines, n);
	return 0;
}
