// SPDX-License-Identifier: GPL-2.0
/* The SLEEPY paper's "call" benchmark: main adds loop(i), the sum 0..i. */
#include <stdio.h>
#include <stdlib.h>

long loop(long n)
{
	long sum = 0;
	long i;

	for (i = 0; i <= n; i++)
		sum += i;
	return sum;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 17000;
	long total = 0;
	long i;

	for (i = 0; i < n; i++)
		total += loop(i);
	printf("call: %ld\n", total);
	return 0;
}
