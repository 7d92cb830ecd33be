/* SPDX-License-Identifier: GPL-2.0 */
/* sleepy-parse --sort: its keys and its report (sort_report.c). */
#ifndef SLEEPY_SORT_REPORT_H
#define SLEEPY_SORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/output.h"
#include "model/profile.h"
#include "report/view.h"

/*
 * Parses --sort's comma-separated keys into @opts; false with a message
 * in @error (unknown or repeated key, empty).
 */
bool sleepy_sort_parse(const char *arg, struct sleepy_report_options *opts,
		       char *error, size_t size);
bool sleepy_sort_has(const struct sleepy_report_options *opts,
		     enum sleepy_sort_key key);
/* The --sort report of @profile's IP counts, @total samples shown. */
void sleepy_sort_report(struct sleepy_output *out,
			const struct sleepy_report_options *opts,
			struct sleepy_profile *profile, uint64_t total);

#endif
