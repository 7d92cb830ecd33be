// SPDX-License-Identifier: GPL-2.0
/*
 * Fork/exec-heavy benchmark: every round forks a child that execs this
 * program again in its "child" role and exits at once, so a profiler that
 * tracks applications sees a new instance per round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 500;
	int status;
	long i;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "child"))
		return 0;
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			perror("forkexec: fork");
			return 1;
		}
		if (!pid) {
			execl("/proc/self/exe", argv[0], "child", (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "forkexec: child failed\n");
			return 1;
		}
	}
	printf("forkexec: %ld children\n", n);
	return 0;
}
