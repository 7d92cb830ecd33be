// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy_clock MS: reads CLOCK_MONOTONIC in a loop for MS milliseconds,
 * as a program timing itself often does; the reads run in the vDSO, with
 * no system call, so that is where most of its samples are.  Prints how
 * many reads it made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	long long end, now, reads = 0;

	if (argc != 2 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: sleepy_clock MS\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec * 1000000000LL + ts.tv_nsec + atoi(argv[1]) * 1000000LL;
	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		reads++;
	} while (now < end);
	printf("%lld reads\n", reads);
	return 0;
}
