/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sleepy-parse's reports of an aggregated recording: by application, by
 * application and instruction pointer and, with function names, by
 * application and function; or the one report the options ask for
 * (--sort, a view of the call stacks), each with the --sched and --irq
 * reports of a recording that has them.  In the library so that
 * sleepy-parse and the fuzzer (userland/fuzz/) run the same code.
 */
#ifndef SLEEPY_REPORT_H
#define SLEEPY_REPORT_H

#include <stdio.h>

#include "record/recording.h"
#include "report/view.h"

/*
 * Writes every report of @profile, read from @rec, to @out; with --sort,
 * the summary and that one report.
 */
void sleepy_report(FILE *out, const struct sleepy_report_options *opts,
		   struct sleepy_profile *profile,
		   const struct sleepy_recording *rec);

#endif
