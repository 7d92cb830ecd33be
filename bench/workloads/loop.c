// SPDX-License-Identifier: GPL-2.0
/* The SLEEPY paper's "loop" benchmark: one for loop summing its index. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 150000000L;
	volatile long sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += i;
	printf("loop: %ld\n", (long)sum);
	return 0;
}
