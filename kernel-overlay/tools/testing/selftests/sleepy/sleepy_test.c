// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the sleepy_start()/sleepy_stop() ABI and of what a session
 * writes: every documented error, start/stop cycles, appids across fork,
 * exec and pid reuse, and the accounting of samples and drops.  Needs root
 * and debugfs at /sys/kernel/debug.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <linux/sleepy.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#define SLEEPY_DIR "/sys/kernel/debug/sleepy"
#define MAX_CPUS 64

static long sys_start(const void *attr, unsigned int size)
{
	return syscall(__NR_sleepy_start, attr, size);
}

static long sys_stop(unsigned int flags)
{
	return syscall(__NR_sleepy_stop, flags);
}

/* Everything a stopped session left in its buffers. */
struct stream {
	unsigned char *records;
	size_t size;
	uint64_t samples[MAX_CPUS];
	uint64_t lost[MAX_CPUS];
};

struct cpu_stats {
	uint64_t samples, dropped;
};

/* Reads whole sub-buffers only, like the drainer. */
static int read_stream(struct stream *s)
{
	struct sleepy_subbuf_header header;
	char path[64];
	int cpu;

	memset(s, 0, sizeof(*s));
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct pollfd pfd = { .events = POLLIN };

		snprintf(path, sizeof(path), SLEEPY_DIR "/cpu%d", cpu);
		pfd.fd = open(path, O_RDONLY);
		if (pfd.fd < 0)
			continue;
		while (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN)) {
			size_t len;

			if (read(pfd.fd, &header, sizeof(header)) != sizeof(header))
				return -1;
			len = header.committed - sizeof(header);
			s->records = realloc(s->records, s->size + len);
			if (read(pfd.fd, s->records + s->size, len) != (ssize_t)len)
				return -1;
			s->size += len;
		}
		close(pfd.fd);
	}
	return 0;
}

/* The record after @r in @s (the first if @r is NULL), or NULL. */
static void *next_record(struct stream *s, void *r)
{
	unsigned char *p = r ? (unsigned char *)r +
			       ((struct sleepy_record_header *)r)->size :
			       s->records;

	return p < s->records + s->size ? p : NULL;
}

#define for_each_record(s, r) \
	for (r = next_record(s, NULL); r; r = next_record(s, r))

static void count_records(struct stream *s)
{
	struct sleepy_record_header *r;

	for_each_record(s, r) {
		if (r->type == SLEEPY_REC_SAMPLE)
			s->samples[r->cpu]++;
		else if (r->type == SLEEPY_REC_LOST)
			s->lost[r->cpu] += ((struct sleepy_lost *)r)->count;
	}
}

static int read_stats(struct cpu_stats *stats)
{
	unsigned long long cpu, samples, dropped, idle, unknown;
	char line[256];
	FILE *f = fopen(SLEEPY_DIR "/stats", "r");

	if (!f)
		return -1;
	memset(stats, 0, sizeof(*stats) * MAX_CPUS);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu %llu samples %llu dropped %llu idle %llu unknown %llu",
			   &cpu, &samples, &dropped, &idle, &unknown) == 5 &&
		    cpu < MAX_CPUS)
			stats[cpu] = (struct cpu_stats){ samples, dropped };
	fclose(f);
	return 0;
}

static struct sleepy_app_start *find_app(struct stream *s, pid_t pid,
					 const char *name, int nth)
{
	struct sleepy_record_header *r;

	for_each_record(s, r) {
		struct sleepy_app_start *a = (void *)r;

		if (r->type != SLEEPY_REC_APP_START || (pid && a->pid != pid) ||
		    (name && strncmp(a->name, name, sizeof(a->name))))
			continue;
		if (nth-- == 0)
			return a;
	}
	return NULL;
}

static bool has_exit(struct stream *s, uint32_t appid)
{
	struct sleepy_record_header *r;

	for_each_record(s, r)
		if (r->type == SLEEPY_REC_APP_EXIT &&
		    ((struct sleepy_app_exit *)r)->appid == appid)
			return true;
	return false;
}

static void spin(int ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - start.tv_sec) * 1000 +
	       (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

static pid_t run(const char *path)
{
	pid_t pid = fork();

	if (!pid) {
		execl(path, path, NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	return pid;
}

FIXTURE(sleepy) {
	struct sleepy_attr attr;
};

FIXTURE_SETUP(sleepy)
{
	sys_stop(0);	/* a session a failed test left */
	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.size = sizeof(self->attr);
}

FIXTURE_TEARDOWN(sleepy)
{
	sys_stop(0);
}

#define EXPECT_ERRNO(err, call) do {		\
	errno = 0;				\
	EXPECT_EQ(-1, (call));			\
	EXPECT_EQ(err, errno);			\
} while (0)

TEST_F(sleepy, bad_size)
{
	char big[8192] = {};

	EXPECT_ERRNO(EINVAL, sys_start(&self->attr, 0));
	EXPECT_ERRNO(EINVAL, sys_start(&self->attr, SLEEPY_ATTR_SIZE_VER0 - 8));
	EXPECT_ERRNO(E2BIG, sys_start(big, sizeof(big)));
	EXPECT_ERRNO(E2BIG, sys_start(big, 0xffffffffu));
	/* Longer than we know: fine if the tail is zero, E2BIG if not. */
	memcpy(big, &self->attr, sizeof(self->attr));
	ASSERT_EQ(0, sys_start(big, sizeof(self->attr) + 64));
	ASSERT_EQ(0, sys_stop(0));
	big[sizeof(self->attr) + 8] = 1;
	EXPECT_ERRNO(E2BIG, sys_start(big, sizeof(self->attr) + 64));
}

TEST_F(sleepy, bad_pointer)
{
	void *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, unmapped);
	EXPECT_ERRNO(EFAULT, sys_start(NULL, sizeof(self->attr)));
	EXPECT_ERRNO(EFAULT, sys_start(unmapped, sizeof(self->attr)));
	EXPECT_ERRNO(EFAULT, sys_start((void *)0xffffffff81000000ul, sizeof(self->attr)));
	munmap(unmapped, 4096);
}

TEST_F(sleepy, bad_attr)
{
	struct sleepy_attr a;

	a = self->attr; a.flags = 1ull << 40;
	EXPECT_ERRNO(EINVAL, sys_start(&a, sizeof(a)));
	a = self->attr; a.__reserved = 1;
	EXPECT_ERRNO(EINVAL, sys_start(&a, sizeof(a)));
	a = self->attr; a.frequency = SLEEPY_MAX_FREQUENCY + 1;
	EXPECT_ERRNO(EINVAL, sys_start(&a, sizeof(a)));
	a = self->attr; a.buffer_size = 4096;
	EXPECT_ERRNO(EINVAL, sys_start(&a, sizeof(a)));
	a = self->attr; a.buffer_size = SLEEPY_MIN_BUFFER_SIZE + 1;
	EXPECT_ERRNO(EINVAL, sys_start(&a, sizeof(a)));
	a = self->attr; a.buffer_size = 2ull * SLEEPY_MAX_BUFFER_SIZE;
	EXPECT_ERRNO(EINVAL, sys_start(&a, sizeof(a)));
	a = self->attr; a.flags = SLEEPY_FLAG_FOLLOW_CHILDREN;
	EXPECT_ERRNO(EINVAL, sys_start(&a, sizeof(a)));
	a = self->attr; a.pid = 0x7fffffff;
	EXPECT_ERRNO(EINVAL, sys_start(&a, sizeof(a)));
	a = self->attr; a.pid = 5000000;	/* above PID_MAX_LIMIT */
	EXPECT_ERRNO(EINVAL, sys_start(&a, sizeof(a)));
	a = self->attr; a.pid = 32767;
	if (kill(a.pid, 0) && errno == ESRCH)
		EXPECT_ERRNO(ESRCH, sys_start(&a, sizeof(a)));
	EXPECT_ERRNO(EINVAL, sys_stop(1));
}

TEST_F(sleepy, busy_and_not_running)
{
	EXPECT_ERRNO(ESRCH, sys_stop(0));
	ASSERT_EQ(0, sys_start(&self->attr, sizeof(self->attr)));
	EXPECT_ERRNO(EBUSY, sys_start(&self->attr, sizeof(self->attr)));
	EXPECT_EQ(0, sys_stop(0));
	EXPECT_ERRNO(ESRCH, sys_stop(0));
}

TEST_F(sleepy, unprivileged)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, sys_start(&self->attr, sizeof(self->attr)));
	pid = fork();
	if (!pid) {
		/* Dropping root drops every capability. */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		if (sys_start(&self->attr, sizeof(self->attr)) != -1 || errno != EPERM)
			_exit(11);
		if (sys_stop(0) != -1 || errno != EPERM)
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, sys_stop(0));	/* still ours to stop */
}

TEST_F(sleepy, start_stop_start)
{
	struct cpu_stats stats[MAX_CPUS];
	struct stream s;
	int round;

	self->attr.frequency = 1000;
	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, sys_start(&self->attr, sizeof(self->attr)));
		spin(100);
		ASSERT_EQ(0, sys_stop(0));
		ASSERT_EQ(0, read_stream(&s));
		/* The walk at start announced this very process. */
		EXPECT_NE(NULL, find_app(&s, getpid(), NULL, 0));
		ASSERT_EQ(0, read_stats(stats));
		free(s.records);
	}
}

TEST_F(sleepy, fork_new_instance)
{
	struct sleepy_app_start *me, *child;
	struct stream s;
	pid_t pid;

	ASSERT_EQ(0, sys_start(&self->attr, sizeof(self->attr)));
	pid = fork();
	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(&s));
	me = find_app(&s, getpid(), NULL, 0);
	child = find_app(&s, pid, NULL, 0);
	ASSERT_NE(NULL, me);
	ASSERT_NE(NULL, child);
	EXPECT_EQ(0, strncmp(me->name, child->name, sizeof(me->name)));
	EXPECT_NE(me->appid, child->appid);
	EXPECT_EQ(me->appid, child->parent_appid);
	EXPECT_GT(child->instance, me->instance);
	EXPECT_TRUE(has_exit(&s, child->appid));
	EXPECT_FALSE(has_exit(&s, me->appid));
	free(s.records);
}

TEST_F(sleepy, exec_new_instance)
{
	struct sleepy_app_start *first, *second, *forked;
	struct stream s;
	pid_t pid1, pid2;

	ASSERT_EQ(0, sys_start(&self->attr, sizeof(self->attr)));
	pid1 = run("/bin/true");
	pid2 = run("/bin/true");
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(&s));
	/* Per-CPU streams are not in time order: tell them apart by name. */
	first = find_app(&s, pid1, "true", 0);
	second = find_app(&s, pid2, "true", 0);
	forked = find_app(&s, pid1, NULL, 0);
	if (forked == first)
		forked = find_app(&s, pid1, NULL, 1);
	ASSERT_NE(NULL, first);
	ASSERT_NE(NULL, second);
	ASSERT_NE(NULL, forked);
	EXPECT_EQ(first->instance + 1, second->instance);
	EXPECT_NE(first->appid, second->appid);
	EXPECT_NE(forked->appid, first->appid);
	EXPECT_LT(forked->appid, first->appid);
	EXPECT_EQ(forked->appid, first->parent_appid);
	EXPECT_TRUE(has_exit(&s, forked->appid));	/* retired by exec */
	EXPECT_TRUE(has_exit(&s, first->appid));
	free(s.records);
}

static pid_t clone_with_tid(pid_t tid)
{
	struct clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = (uintptr_t)&tid,
		.set_tid_size = 1,
	};

	return syscall(__NR_clone3, &args, sizeof(args));
}

TEST_F(sleepy, pid_reuse_new_appid)
{
	struct sleepy_app_start *first, *second;
	struct stream s;
	pid_t tid, pid;
	int i;

	/* A pid nobody uses. */
	for (tid = 20000; tid < 30000 && !(kill(tid, 0) && errno == ESRCH); tid++)
		;
	ASSERT_EQ(0, sys_start(&self->attr, sizeof(self->attr)));
	for (i = 0; i < 2; i++) {
		pid = clone_with_tid(tid);
		if (!pid)
			_exit(0);
		ASSERT_EQ(tid, pid) TH_LOG("clone3 set_tid: %s", strerror(errno));
		waitpid(pid, NULL, 0);
	}
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(&s));
	first = find_app(&s, tid, NULL, 0);
	second = find_app(&s, tid, NULL, 1);
	ASSERT_NE(NULL, first);
	ASSERT_NE(NULL, second);
	if (first->appid > second->appid) {
		struct sleepy_app_start *t = first;

		first = second;
		second = t;
	}
	EXPECT_NE(first->appid, second->appid);
	EXPECT_EQ(first->instance + 1, second->instance);
	EXPECT_TRUE(has_exit(&s, first->appid));
	EXPECT_TRUE(has_exit(&s, second->appid));
	free(s.records);
}

/* A session of @ms busy milliseconds: its stream and its counters. */
static int record_busy(const struct sleepy_attr *attr, int ms,
		       struct stream *s, struct cpu_stats *stats)
{
	if (sys_start(attr, sizeof(*attr)))
		return -1;
	spin(ms);
	if (sys_stop(0) || read_stream(s))
		return -1;
	count_records(s);
	return read_stats(stats);
}

/* Every sample the kernel counted is in the stream, and nothing else. */
TEST_F(sleepy, samples_match_counters)
{
	struct cpu_stats stats[MAX_CPUS];
	uint64_t total = 0;
	struct stream s;
	int cpu;

	self->attr.frequency = 2000;
	ASSERT_EQ(0, record_busy(&self->attr, 500, &s, stats));
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		EXPECT_EQ(stats[cpu].samples, s.samples[cpu]);
		EXPECT_EQ(0, stats[cpu].dropped);
		total += s.samples[cpu];
	}
	EXPECT_GT(total, 100);
	free(s.records);
}

/* A tiny buffer nobody reads: drops are counted, kept samples match. */
TEST_F(sleepy, drops_counted_without_reader)
{
	struct cpu_stats stats[MAX_CPUS];
	uint64_t dropped = 0, kept = 0;
	struct stream s;
	int cpu;

	self->attr.frequency = 10000;
	self->attr.buffer_size = SLEEPY_MIN_BUFFER_SIZE;
	ASSERT_EQ(0, record_busy(&self->attr, 1000, &s, stats));
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		EXPECT_EQ(stats[cpu].samples, s.samples[cpu]);
		/* Losses reported in-stream never exceed those counted. */
		EXPECT_LE(s.lost[cpu], stats[cpu].dropped);
		dropped += stats[cpu].dropped;
		kept += s.samples[cpu];
	}
	EXPECT_GT(dropped, 0);
	EXPECT_GT(kept, 0);
	EXPECT_LT(s.size, 2 * SLEEPY_MIN_BUFFER_SIZE * MAX_CPUS);
	TH_LOG("kept %llu samples, dropped %llu records",
	       (unsigned long long)kept, (unsigned long long)dropped);
	free(s.records);
}

TEST_HARNESS_MAIN
