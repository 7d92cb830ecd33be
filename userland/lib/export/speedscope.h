/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sleepy-parse --speedscope: the folded stacks of folded.h in speedscope's
 * own file format (https://www.speedscope.app/file-format-schema.json),
 * one "sampled" profile per root frame (a program, or with --instances an
 * application instance), heaviest first, so that speedscope lists them as
 * it lists threads.  A stack is the frames above the root (root first)
 * with its weight: samples (unit "none") or off-CPU nanoseconds.
 */
#ifndef SLEEPY_SPEEDSCOPE_H
#define SLEEPY_SPEEDSCOPE_H

#include <stdio.h>

#include "export/folded.h"

/*
 * Writes the speedscope file of the folded stacks of @kind of @profile,
 * read from @rec, to @stream; of @opts, the application filter, the
 * symbols and top apply.  Returns 0, or -1 without writing anything for
 * off-CPU stacks of a recording without context switches.
 */
int sleepy_speedscope(FILE *stream, const struct sleepy_report_options *opts,
		      enum sleepy_folded_kind kind,
		      struct sleepy_profile *profile,
		      const struct sleepy_recording *rec);

#endif
