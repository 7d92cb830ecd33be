// SPDX-License-Identifier: GPL-2.0
/*
 * make run's dlopen test program: a PIE that loads libhot.so (ARGV[1]) with
 * dlopen() while the session runs, so that the library's mapping comes
 * from the mmap hook, not from the exec, and spends its time in its
 * hot_loop (ARGV[2] rounds).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long (*hot_loop)(unsigned long);
	void *library;

	if (argc != 3) {
		fprintf(stderr, "usage: hot_dlopen LIBRARY ROUNDS\n");
		return 2;
	}
	library = dlopen(argv[1], RTLD_NOW);
	if (!library) {
		fprintf(stderr, "hot_dlopen: %s\n", dlerror());
		return 1;
	}
	hot_loop = (unsigned long (*)(unsigned long))dlsym(library, "hot_loop");
	if (!hot_loop) {
		fprintf(stderr, "hot_dlopen: %s\n", dlerror());
		return 1;
	}
	printf("hot_dlopen: %lx\n", hot_loop(strtoul(argv[2], NULL, 0)));
	return 0;
}
