// SPDX-License-Identifier: GPL-2.0
/*
 * make run's test program: a PIE that spends its time in libhot.so, which
 * it finds through its rpath (a directory under /tmp).  Exits with status
 * ARGV[2] if given, to check that make run reports a failing program.
 * Prints its CPU time, against which its samples are counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long hot_loop(unsigned long rounds);

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000;

	unsigned long result = hot_loop(rounds);
	struct timespec cpu;

	/* Its CPU time, the truth make run's sample count is checked against. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	printf("hot: %lx, %lld ns on CPU\n", result,
	       cpu.tv_sec * 1000000000LL + cpu.tv_nsec);
	return argc > 2 ? atoi(argv[2]) : 0;
}
