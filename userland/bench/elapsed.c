// SPDX-License-Identifier: GPL-2.0
/*
 * elapsed [-c CPU] CMD [ARGS]: run CMD (pinned to CPU, with all it forks)
 * and print "elapsed_ns N" (CLOCK_MONOTONIC) and "cpu_ns N" (the user and
 * system time of CMD and every descendant it waited for) on stderr;
 * exits with CMD's status.  The benchmark needs nanoseconds, which busybox's time does not
 * give, and one CPU for the workload: a fork/exec workload whose children
 * land on either vCPU at random does not repeat from run to run.
 */
#define _GNU_SOURCE
#include <sched.h>
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

int main(int argc, char **argv)
{
	struct rusage usage;
	long long start;
	cpu_set_t cpus;
	int status, cpu = -1;
	char *end;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		cpu = strtol(argv[2], &end, 10);
		if (*end || cpu < 0 || cpu >= CPU_SETSIZE) {
			fprintf(stderr, "elapsed: bad CPU '%s'\n", argv[2]);
			return 2;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: elapsed [-c CPU] CMD [ARGS]\n");
		return 2;
	}
	if (cpu >= 0) {
		CPU_ZERO(&cpus);
		CPU_SET(cpu, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
			perror("elapsed: sched_setaffinity");
			return 1;
		}
	}
	start = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("elapsed: fork");
		return 1;
	}
	if (!pid) {
		execvp(argv[1], argv + 1);
		perror("elapsed: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("elapsed: waitpid");
		return 1;
	}
	fprintf(stderr, "elapsed_ns %lld\n", now_ns() - start);
	if (!getrusage(RUSAGE_CHILDREN, &usage))
		fprintf(stderr, "cpu_ns %lld\n",
			(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000000LL +
			(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000LL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
