/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sleepy-parse diff: two recordings' latency histograms compared with the
 * Earth Mover's Distance, most changed operation first.
 */
#ifndef SLEEPY_DIFF_H
#define SLEEPY_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "report/output.h"
#include "model/profile.h"

struct sleepy_diff_options {
	const char *path_a, *path_b;
	uint64_t top;		/* rows, 0 = all */
	enum sleepy_format format;
};

/*
 * The EMD between two log2 histograms of @buckets buckets, each
 * normalised by its count: the area between their cumulative
 * distributions, in buckets.  -1 if either is empty.
 */
double sleepy_emd_log2(const uint64_t *a, uint64_t count_a,
		       const uint64_t *b, uint64_t count_b, int buckets);

/*
 * Writes the ranking of every operation of @a and @b (read completely;
 * @begin_a and @begin_b their sessions' starts) to @stream.
 */
void sleepy_diff_report(FILE *stream, const struct sleepy_diff_options *opts,
			struct sleepy_profile *a, uint64_t begin_a,
			struct sleepy_profile *b, uint64_t begin_b);

#endif
