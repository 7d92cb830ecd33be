// SPDX-License-Identifier: GPL-2.0
/*
 * make run's test program: a PIE that spends its time in libhot.so, which
 * it finds through its rpath (a directory under /tmp).  Exits with status
 * ARGV[2] if given, to check that make run reports a failing program.
 */
#include <stdio.h>
#include <stdlib.h>

unsigned long hot_loop(unsigned long rounds);

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000;

	printf("hot: %lx\n", hot_loop(rounds));
	return argc > 2 ? atoi(argv[2]) : 0;
}
