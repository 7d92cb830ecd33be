// SPDX-License-Identifier: GPL-2.0
/*
 * elapsed [-c CPU | -e] CMD [ARGS]: run CMD (pinned to CPU, with all it
 * forks; with -e one copy pinned to each CPU, all at once) and print
 * "elapsed_ns N" (CLOCK_MONOTONIC, until the last copy ended) and "cpu_ns
 * N" (the user and system time of CMD and every descendant it waited for)
 * on stderr; exits with CMD's status (the first failing copy's).  The
 * benchmark needs nanoseconds, which busybox's time does not give, and
 * one CPU for the workload: a fork/exec workload whose children land on
 * either vCPU at random does not repeat from run to run.  -e keeps every
 * CPU busy with the same work: under QEMU -icount the time until all end
 * is the instructions all CPUs executed, however QEMU shared them out.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("elapsed: sched_setaffinity");
		return -1;
	}
	return 0;
}

/* Starts @argv pinned to @cpu (not pinned if -1); its pid, or -1. */
static pid_t start(char **argv, int cpu)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("elapsed: fork");
		return -1;
	}
	if (!pid) {
		if (cpu >= 0 && pin(cpu))
			_exit(1);
		execvp(argv[0], argv);
		perror("elapsed: exec");
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	int status, result = 0, cpu = -1, ncpus = 1, started = 0, i;
	bool every_cpu = false;
	struct rusage usage;
	long long begin;
	char *end;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		cpu = strtol(argv[2], &end, 10);
		if (*end || cpu < 0 || cpu >= CPU_SETSIZE) {
			fprintf(stderr, "elapsed: bad CPU '%s'\n", argv[2]);
			return 2;
		}
		argv += 2;
		argc -= 2;
	} else if (argc > 1 && !strcmp(argv[1], "-e")) {
		every_cpu = true;
		ncpus = sysconf(_SC_NPROCESSORS_ONLN);
		if (ncpus < 1)
			ncpus = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: elapsed [-c CPU | -e] CMD [ARGS]\n");
		return 2;
	}
	begin = now_ns();
	for (i = 0; i < ncpus; i++) {
		if (start(argv + 1, every_cpu ? i : cpu) < 0) {
			result = 1;
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++) {
		if (wait(&status) < 0) {
			perror("elapsed: wait");
			return 1;
		}
		if (!result)
			result = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	fprintf(stderr, "elapsed_ns %lld\n", now_ns() - begin);
	if (!getrusage(RUSAGE_CHILDREN, &usage))
		fprintf(stderr, "cpu_ns %lld\n",
			(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000000LL +
			(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000LL);
	return result;
}
