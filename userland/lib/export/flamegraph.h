/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sleepy-parse --flamegraph: the folded stacks of folded.h drawn as a
 * self-contained interactive SVG flame graph, in the layout of Brendan
 * Gregg's flamegraph.pl: the root (the program, or with --instances the
 * application instance) at the bottom, callees above their callers, a
 * frame as wide as its weight, siblings in alphabetical order.  A browser
 * opens it alone: a frame's title shows its name and weight on hover, a
 * click zooms to it (and Reset Zoom back), and Search highlights the
 * frames matching a regular expression with the share of the total they
 * cover.  Kernel frames (_[k]) are orange, user frames red to yellow,
 * off-CPU graphs blue.
 */
#ifndef SLEEPY_FLAMEGRAPH_H
#define SLEEPY_FLAMEGRAPH_H

#include <stdio.h>

#include "export/folded.h"

/*
 * Writes the flame graph of the folded stacks of @kind of @profile, read
 * from @rec, to @stream; of @opts, the application filter, the symbols and
 * top apply.  Returns 0, or -1 without writing anything for off-CPU stacks
 * of a recording without context switches.
 */
int sleepy_flamegraph(FILE *stream, const struct sleepy_report_options *opts,
		      enum sleepy_folded_kind kind,
		      struct sleepy_profile *profile,
		      const struct sleepy_recording *rec);

#endif
