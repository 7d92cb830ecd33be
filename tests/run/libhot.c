// SPDX-License-Identifier: GPL-2.0
/* The hot loop of make run's test program, in a shared library. */
unsigned long hot_loop(unsigned long rounds)
{
	unsigned long x = 1;

	while (rounds--)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}
