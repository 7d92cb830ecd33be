/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sleepy-parse DIR: the report of a directory of interval profiles
 * (sleepy-agent's pprof files), or of those in a time range.  A profile
 * is taken whole when its interval overlaps the range: its samples carry
 * no time of their own, so the range is as fine as the interval.  The
 * samples are read back from the profiles as they were written (the
 * application and pid labels, the leaf location's function and file).
 */
#ifndef SLEEPY_INTERVALS_H
#define SLEEPY_INTERVALS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/output.h"

struct sleepy_intervals_options {
	const char *dir;
	int64_t from_ns, to_ns;	/* wall clock; INT64_MIN/INT64_MAX: open */
	uint64_t top;		/* rows per report, 0 = all */
	const char *app_name;	/* only this application, NULL = all */
	uint32_t app_instance;	/* with app_name: 0 = every instance */
	enum sleepy_format format;
};

/*
 * Parses a time for --from or --to as journalctl takes it, in local time:
 * "YYYY-MM-DD HH:MM[:SS]", "YYYY-MM-DDTHH:MM[:SS]", "YYYY-MM-DD", or
 * "HH:MM[:SS]" (today), or "@SECONDS" since the epoch.  False if @s is
 * none of these.
 */
bool sleepy_parse_wall_time(const char *s, int64_t *ns);

/*
 * Prints the reports by application and by application and function of
 * the selected profiles.  Returns 0; 1 if a profile was unreadable (the
 * others are reported) or none was in the range, said on stderr.
 */
int sleepy_intervals_report(FILE *out, const struct sleepy_intervals_options *opts);

#endif
