// SPDX-License-Identifier: GPL-2.0
/*
 * elapsed CMD [ARGS]: run CMD and print "elapsed_ns N" (CLOCK_MONOTONIC)
 * on stderr; exits with CMD's status.  The benchmark needs nanoseconds,
 * which busybox's time does not give.
 */
#include <stdio.h>
#include <stdlib.h>
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
	long long start;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: elapsed CMD [ARGS]\n");
		return 2;
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
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
