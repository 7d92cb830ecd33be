/* SPDX-License-Identifier: GPL-2.0 */
/* sleepy-parse's reports of a --sched recording (sched_report.c). */
#ifndef SLEEPY_SCHED_REPORT_H
#define SLEEPY_SCHED_REPORT_H

#include <stdint.h>

#include "report/output.h"
#include "model/profile.h"
#include "report/view.h"

/*
 * The reports of a --sched recording, after replaying its
 * switches and wakeups over the session from @begin_ns to @end_ns.
 */
void sleepy_sched_report(struct sleepy_output *out,
			 const struct sleepy_report_options *opts,
			 struct sleepy_profile *profile,
			 uint64_t begin_ns, uint64_t end_ns);

#endif
