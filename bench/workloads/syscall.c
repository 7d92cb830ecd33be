// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall-heavy benchmark: most time is spent entering and leaving the
 * kernel (getppid) or copying through it (a pipe), so samples land in
 * kernel mode and a profiler's cost on the syscall path shows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	char byte = 0;
	int fds[2];
	long i;

	if (pipe(fds)) {
		perror("syscall: pipe");
		return 1;
	}
	for (i = 0; i < n; i++) {
		getppid();
		if (write(fds[1], &byte, 1) != 1 || read(fds[0], &byte, 1) != 1) {
			perror("syscall: pipe I/O");
			return 1;
		}
	}
	printf("syscall: %ld rounds\n", n);
	return 0;
}
