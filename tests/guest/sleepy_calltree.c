// SPDX-License-Identifier: GPL-2.0
/*
 * A program with a known call tree for the call-stack tests, built with
 * frame pointers:
 *
 *   sleepy_calltree tree SECONDS: main -> tree_a -> tree_b -> tree_c (hot,
 *	three quarters of the work) and tree_a -> tree_d (warm, a quarter);
 *	tree_c and tree_d run the same loop, so their shares are 3:1 on any
 *	CPU, emulated or not.  Each round's length is drawn at random: a
 *	fixed round lasting about a whole number of sampling periods
 *	would have the samples land in the same phase round after round
 *	(a CI machine saw 4.1:1).
 *   sleepy_calltree calls SECONDS: main -> calls_outer -> calls_inner,
 *	which calls an empty function, calls_leaf, over and over: many
 *	samples interrupt calls_leaf before it made its frame or after it
 *	left it (under QEMU's TCG, interrupts are taken at the start of a
 *	translated block, such as a function's first instruction), where
 *	its frame pointer is still calls_inner's.
 *   sleepy_calltree read SECONDS: main -> zero_reader -> read(2) of 64K
 *	buffers: time in the kernel, under the user frames.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static NOINLINE void spin(long n)
{
	long i;

	for (i = 0; i < n; i++)
		sink += i;
}

NOINLINE void tree_c(long n)
{
	spin(n);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

NOINLINE void tree_d(long n)
{
	spin(n);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void tree_b(long n)
{
	tree_c(n);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void tree_a(long n)
{
	tree_b(3 * n);
	tree_d(n);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void calls_leaf(void)
{
	__asm__ volatile("" ::: "memory");
}

NOINLINE void calls_inner(long n)
{
	long i;

	for (i = 0; i < n; i++)
		calls_leaf();
}

NOINLINE void calls_outer(long n)
{
	calls_inner(n);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void zero_reader(int fd)
{
	static char buf[1 << 16];
	int i;

	for (i = 0; i < 16; i++)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			exit(1);
}

/* xorshift64: a round length that no timer can keep in step with. */
static long round_length(void)
{
	static unsigned long long state = 88172645463325252ULL;

	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return 50000 + (long)(state % 100000);
}

int main(int argc, char **argv)
{
	double end;
	int fd;

	if (argc != 3 || (strcmp(argv[1], "tree") && strcmp(argv[1], "calls") &&
			  strcmp(argv[1], "read"))) {
		fprintf(stderr, "usage: sleepy_calltree tree|calls|read SECONDS\n");
		return 2;
	}
	end = now() + atof(argv[2]);
	if (!strcmp(argv[1], "tree")) {
		while (now() < end)
			tree_a(round_length());
		return 0;
	}
	if (!strcmp(argv[1], "calls")) {
		while (now() < end)
			calls_outer(100000);
		return 0;
	}
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	while (now() < end)
		zero_reader(fd);
	return 0;
}
