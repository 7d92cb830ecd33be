// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads with known waits for the --sched tests (test-sched.sh), one
 * program named by the link it runs as, so that each is its own
 * application in the reports:
 *   sleeper COUNT MS       nanosleep MS ms, COUNT times, then print the
 *                          nanoseconds spent in them by its own clock
 *   writer COUNT MS        one byte to stdout every MS ms, COUNT times
 *   reader                 read stdin to its end; prints the bytes read
 *   hog CPU SECONDS        spin on CPU for SECONDS of wall-clock time, then
 *                          print "hog PID CPU-NS WALL-NS": its CPU time as
 *                          the scheduler counts it and its time from main
 *                          to exit, to check sleepy's account against
 *   pingpong ROUNDS        two threads waking each other over futexes and
 *                          a pipe pair, ROUNDS times (a switch storm)
 *   ticker COUNT US        nanosleep US microseconds, COUNT times: a timer
 *                          interrupt for each (an interrupt storm whose
 *                          rate is guest time, so it repeats under -icount)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0) {
		fprintf(stderr, "sleepy_sched_load: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int hog(int cpu, long seconds)
{
	cpu_set_t set;
	double start = now(), end = start + seconds;
	volatile unsigned long spins = 0;
	struct timespec cpu_time;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("hog: sched_setaffinity");
		return 1;
	}
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			spins++;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu_time);
	printf("hog %d %lld %lld\n", getpid(),
	       cpu_time.tv_sec * 1000000000LL + cpu_time.tv_nsec,
	       (long long)((now() - start) * 1e9));
	return 0;
}

static atomic_int turn;
static int pipes[2][2];
static long rounds;

static void futex_wait_for(int value)
{
	while (atomic_load(&turn) != value)
		syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, !value, NULL, NULL, 0);
}

static void futex_pass(int value)
{
	atomic_store(&turn, value);
	syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Side 1: waits for its turn, passes it back, then the same over pipes. */
static void *pong(void *arg __attribute__((unused)))
{
	char c;

	for (long i = 0; i < rounds; i++) {
		futex_wait_for(1);
		futex_pass(0);
		if (read(pipes[0][0], &c, 1) != 1 || write(pipes[1][1], &c, 1) != 1)
			break;
	}
	return NULL;
}

static int pingpong(long n)
{
	pthread_t thread;
	char c = 'x';

	rounds = n;
	if (pipe(pipes[0]) || pipe(pipes[1]) ||
	    pthread_create(&thread, NULL, pong, NULL)) {
		perror("pingpong");
		return 1;
	}
	for (long i = 0; i < rounds; i++) {
		futex_pass(1);
		futex_wait_for(0);
		if (write(pipes[0][1], &c, 1) != 1 || read(pipes[1][0], &c, 1) != 1)
			return 1;
	}
	pthread_join(thread, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	long i, count;
	char buf[512];
	ssize_t n;

	if (!strcmp(name, "sleeper") && argc == 3) {
		double slept = 0, start;

		for (i = 0, count = number(argv[1]); i < count; i++) {
			start = now();
			sleep_us(number(argv[2]) * 1000);
			slept += now() - start;
		}
		printf("%.0f\n", slept * 1e9);
		return 0;
	}
	if (!strcmp(name, "writer") && argc == 3) {
		for (i = 0, count = number(argv[1]); i < count; i++) {
			sleep_us(number(argv[2]) * 1000);
			if (write(1, "w", 1) != 1)
				return 1;
		}
		return 0;
	}
	if (!strcmp(name, "reader") && argc == 1) {
		for (count = 0; (n = read(0, buf, sizeof(buf))) > 0; count += n)
			;
		printf("%ld\n", count);
		return n < 0;
	}
	if (!strcmp(name, "hog") && argc == 3)
		return hog(number(argv[1]), number(argv[2]));
	if (!strcmp(name, "pingpong") && argc == 2)
		return pingpong(number(argv[1]));
	if (!strcmp(name, "ticker") && argc == 3) {
		for (i = 0, count = number(argv[1]); i < count; i++)
			sleep_us(number(argv[2]));
		return 0;
	}
	fprintf(stderr, "usage: sleeper COUNT MS | writer COUNT MS | reader | hog CPU SECONDS | pingpong ROUNDS | ticker COUNT US (as the program's name)\n");
	return 2;
}
