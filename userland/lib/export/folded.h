/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sleepy-parse --folded: a recording as folded stacks, the input of
 * FlameGraph's flamegraph.pl and of speedscope.  One line per distinct
 * stack: its frames, root first, joined by ';', one space and an integer
 * weight.  The root is the program's name, its instances' stacks merged
 * (with --instances, struct sleepy_report_options.stacks_by_instance, the
 * application instance, name#instance); kernel frames end in _[k].  Lines
 * are merged by their text (several IPs name one function, several
 * instances one program) and sorted by weight descending, then by text.
 */
#ifndef SLEEPY_FOLDED_H
#define SLEEPY_FOLDED_H

#include <stdbool.h>
#include <stdio.h>

#include "model/profile.h"
#include "record/recording.h"
#include "report/view.h"

enum sleepy_folded_kind {
	/*
	 * app;function (or [file] of a user IP no function names, 0xIP,
	 * 0xIP_[k]) samples; with stacks (-g), app;root;...;leaf
	 * (callgraph.h names the frames)
	 */
	SLEEPY_FOLDED_CPU,
	/*
	 * app;[reason];user function, [file] or 0xIP;0xIP_[k] off-CPU ns
	 * (--sched)
	 */
	SLEEPY_FOLDED_OFFCPU,
};

/* "cpu" or "offcpu"; false for anything else. */
bool sleepy_folded_parse(const char *name, enum sleepy_folded_kind *kind);

struct sleepy_folded_line {
	char *stack;		/* frames joined by ';' */
	uint64_t weight;
};

/*
 * The folded stacks of @kind of @profile, read from @rec, heaviest first;
 * of @opts, the application filter, the symbols and top apply.  NULL for
 * off-CPU stacks of a recording without context switches; else free with
 * sleepy_folded_lines_free().  *@count is set to their number.
 */
struct sleepy_folded_line *sleepy_folded_lines(const struct sleepy_report_options *opts,
					      enum sleepy_folded_kind kind,
					      struct sleepy_profile *profile,
					      const struct sleepy_recording *rec,
					      size_t *count);
void sleepy_folded_lines_free(struct sleepy_folded_line *lines, size_t count);
/*
 * qsort() order of folded lines by their text, application frame first:
 * every application's lines, and every stack sharing a prefix, together.
 */
int sleepy_folded_cmp_stacks(const void *a, const void *b);

/*
 * Writes @profile, read from @rec, as folded stacks of @kind to @stream.
 * Of @opts, the application filter, the symbols and top (at most that many
 * lines, the heaviest) apply.  Returns 0, or -1 without writing anything
 * for off-CPU stacks of a recording without context switches.
 */
int sleepy_folded(FILE *stream, const struct sleepy_report_options *opts,
		  enum sleepy_folded_kind kind, struct sleepy_profile *profile,
		  const struct sleepy_recording *rec);

#endif
