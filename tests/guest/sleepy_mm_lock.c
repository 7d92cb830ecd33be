// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy_mm_lock FILE: holds this process's mmap_lock for as long as one
 * page of FILE takes to read, as a process on a hung NFS or FUSE mount
 * does.  FILE is on a 9p share that QEMU throttles, which other readers
 * keep busy: the page's read waits behind theirs.
 *
 * One thread reads a page of FILE's mapping through /proc/self/mem: a
 * remote access, which faults the page in holding the mmap_lock and may
 * not drop it to wait (the path of ps reading /proc/PID/cmdline).  Once
 * that read is under way a second thread asks for the lock for writing
 * (an mmap()), so that no new reader gets it either, not even with a
 * trylock.  Prints "held" then, and "released after MS ms" once the
 * writer got the lock; exits 1 with a message on an error.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void *mapped;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void *read_through_mem(void *arg)
{
	int fd = open("/proc/self/mem", O_RDONLY);
	char byte;

	(void)arg;
	if (fd < 0)
		die("sleepy_mm_lock: /proc/self/mem");
	if (pread(fd, &byte, 1, (uintptr_t)mapped) != 1)
		die("sleepy_mm_lock: reading the mapping through /proc/self/mem");
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t reader;
	uint64_t asked;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: sleepy_mm_lock FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		die(argv[1]);
	mapped = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (mapped == MAP_FAILED)
		die("sleepy_mm_lock: mmap");
	/* One page, no readahead: a single read that waits for the budget. */
	if (madvise(mapped, 4096, MADV_RANDOM))
		die("sleepy_mm_lock: madvise");
	if (pthread_create(&reader, NULL, read_through_mem, NULL))
		die("sleepy_mm_lock: pthread_create");
	usleep(500000);	/* the reader is in its page fault */
	printf("held\n");
	fflush(stdout);
	asked = now_ms();
	if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
	    MAP_FAILED)
		die("sleepy_mm_lock: mmap for writing");
	printf("released after %llu ms\n", (unsigned long long)(now_ms() - asked));
	fflush(stdout);
	pthread_join(reader, NULL);
	return 0;
}
