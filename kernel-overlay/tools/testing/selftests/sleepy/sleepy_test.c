// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the sleepy_start()/sleepy_stop() ABI and of what a session
 * writes: every documented error, the session file descriptor and its
 * ioctls, start/stop cycles, appids across fork, exec and pid reuse, the
 * start walk (zombies, a fork storm, a pid filter), executable mappings,
 * call stacks (user and kernel, cut at the depth asked for) and the
 * accounting of samples and drops.  Needs root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <linux/sleepy.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#define MAX_CPUS 64

static long sys_start(const void *attr, unsigned int flags)
{
	return syscall(__NR_sleepy_start, attr, flags);
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
	uint64_t samples, dropped, missed;
};

/* Appends the whole sub-buffers one CPU's buffer holds, like the drainer. */
static int read_buffer(int fd, struct stream *s)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct sleepy_subbuf_header header;

	while (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN)) {
		size_t len;

		if (read(fd, &header, sizeof(header)) != sizeof(header))
			return -1;
		len = header.committed - sizeof(header);
		s->records = realloc(s->records, s->size + len);
		if (read(fd, s->records + s->size, len) != (ssize_t)len)
			return -1;
		s->size += len;
	}
	return 0;
}

/* Every CPU's buffer descriptor, -1 for a CPU without one; how many. */
static int open_buffers(int session, int *fds)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		fds[cpu] = ioctl(session, SLEEPY_IOC_CPU_BUFFER, cpu);
		if (fds[cpu] < 0 && errno != ENODEV)
			return -1;
		n += fds[cpu] >= 0;
	}
	return n;
}

static int read_buffers(int *fds, struct stream *s)
{
	int cpu;

	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (fds[cpu] >= 0 && read_buffer(fds[cpu], s))
			return -1;
	return 0;
}

static void close_buffers(int *fds)
{
	int cpu;

	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (fds[cpu] >= 0)
			close(fds[cpu]);
}

static int read_stream(int session, struct stream *s)
{
	int fds[MAX_CPUS], err;

	memset(s, 0, sizeof(*s));
	if (open_buffers(session, fds) < 0)
		return -1;
	err = read_buffers(fds, s);
	close_buffers(fds);
	return err;
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

static int read_stats(int session, struct cpu_stats *stats)
{
	int cpu;

	memset(stats, 0, sizeof(*stats) * MAX_CPUS);
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct sleepy_cpu_counters c = { .cpu = cpu };

		if (ioctl(session, SLEEPY_IOC_CPU_COUNTERS, &c)) {
			if (errno == EINVAL)
				break;	/* past the possible CPUs */
			return -1;
		}
		stats[cpu] = (struct cpu_stats){ c.samples, c.dropped, c.missed };
	}
	return cpu ? 0 : -1;
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
	int fd;		/* the session's file descriptor, -1 if none */
};

FIXTURE_SETUP(sleepy)
{
	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.size = sizeof(self->attr);
	self->fd = -1;
	/* A session left running by someone else makes every test fail. */
	ASSERT_EQ(-1, sys_stop(0));
	ASSERT_EQ(ESRCH, errno);
}

FIXTURE_TEARDOWN(sleepy)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Whether the session's start walk is done, waiting up to @ms for it. */
static bool wait_sampling(int fd, int ms)
{
	struct sleepy_session_info info;

	while (!ioctl(fd, SLEEPY_IOC_SESSION_INFO, &info) && !info.sampling &&
	       ms-- > 0)
		usleep(1000);
	return info.sampling;
}

/* Starts a session with @attr into self->fd, sampling; 0 or -1. */
static int start(FIXTURE_DATA(sleepy) *self, struct sleepy_attr *attr)
{
	if (self->fd >= 0)
		close(self->fd);
	self->fd = sys_start(attr, 0);
	if (self->fd < 0)
		return -1;
	return wait_sampling(self->fd, 30000) ? 0 : -1;
}

#define EXPECT_ERRNO(err, call) do {		\
	errno = 0;				\
	EXPECT_EQ(-1, (call));			\
	EXPECT_EQ(err, errno);			\
} while (0)

/* E2BIG writes back the size the kernel supports, as perf does. */
static void expect_e2big(struct __test_metadata *_metadata, void *attr,
			 __u32 size)
{
	struct sleepy_attr *a = attr;

	a->size = size;
	EXPECT_ERRNO(E2BIG, sys_start(a, 0));
	EXPECT_EQ(SLEEPY_ATTR_SIZE_VER0, a->size);
}

TEST_F(sleepy, bad_size)
{
	uint64_t big_block[1024] = {};
	char *big = (char *)big_block;

	expect_e2big(_metadata, big, SLEEPY_ATTR_SIZE_VER0 - 8);
	expect_e2big(_metadata, big, 1);
	expect_e2big(_metadata, big, sizeof(big_block));
	expect_e2big(_metadata, big, 0xffffffffu);
	/* Longer than we know: fine if the tail is zero, E2BIG if not. */
	memcpy(big, &self->attr, sizeof(self->attr));
	((struct sleepy_attr *)big)->size = sizeof(self->attr) + 64;
	ASSERT_EQ(0, start(self, (void *)big));
	ASSERT_EQ(0, sys_stop(0));
	big[sizeof(self->attr) + 8] = 1;
	expect_e2big(_metadata, big, sizeof(self->attr) + 64);
	/* Size 0 is the first version. */
	self->attr.size = 0;
	EXPECT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
	/* Unknown syscall flags. */
	self->attr.size = sizeof(self->attr);
	EXPECT_ERRNO(EINVAL, sys_start(&self->attr, 1));
	EXPECT_ERRNO(EINVAL, sys_start(&self->attr, 0x80000000u));
}

TEST_F(sleepy, bad_pointer)
{
	void *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_TRUE(unmapped != MAP_FAILED);
	EXPECT_ERRNO(EFAULT, sys_start(NULL, 0));
	EXPECT_ERRNO(EFAULT, sys_start(unmapped, 0));
	EXPECT_ERRNO(EFAULT, sys_start((void *)0xffffffff81000000ul, 0));
	munmap(unmapped, 4096);
}

TEST_F(sleepy, bad_attr)
{
	struct sleepy_attr a;

	a = self->attr; a.flags = 1ull << 40;
	EXPECT_ERRNO(EINVAL, sys_start(&a, 0));
	a = self->attr; a.max_stack = 8;	/* without SLEEPY_FLAG_CALLCHAIN */
	EXPECT_ERRNO(EINVAL, sys_start(&a, 0));
	/* Eight sub-buffers of 1K: no room for a stack of 127 frames. */
	a = self->attr; a.flags = SLEEPY_FLAG_CALLCHAIN;
	a.buffer_size = SLEEPY_MIN_BUFFER_SIZE;
	EXPECT_ERRNO(EINVAL, sys_start(&a, 0));
	a = self->attr; a.frequency = SLEEPY_MAX_FREQUENCY + 1;
	EXPECT_ERRNO(EINVAL, sys_start(&a, 0));
	a = self->attr; a.buffer_size = 4096;
	EXPECT_ERRNO(EINVAL, sys_start(&a, 0));
	a = self->attr; a.buffer_size = SLEEPY_MIN_BUFFER_SIZE + 1;
	EXPECT_ERRNO(EINVAL, sys_start(&a, 0));
	a = self->attr; a.buffer_size = 2ull * SLEEPY_MAX_BUFFER_SIZE;
	EXPECT_ERRNO(EINVAL, sys_start(&a, 0));
	a = self->attr; a.flags = SLEEPY_FLAG_FOLLOW_CHILDREN;
	EXPECT_ERRNO(EINVAL, sys_start(&a, 0));
	a = self->attr; a.pid = 0x7fffffff;
	EXPECT_ERRNO(EINVAL, sys_start(&a, 0));
	a = self->attr; a.pid = 5000000;	/* above PID_MAX_LIMIT */
	EXPECT_ERRNO(EINVAL, sys_start(&a, 0));
	/* A pid that surely is free: a child's, reaped. */
	a = self->attr;
	a.pid = fork();
	if (!a.pid)
		_exit(0);
	ASSERT_LT(0, (int)a.pid);
	ASSERT_EQ((pid_t)a.pid, waitpid(a.pid, NULL, 0));
	EXPECT_ERRNO(ESRCH, sys_start(&a, 0));
	EXPECT_ERRNO(EINVAL, sys_stop(1));
}

TEST_F(sleepy, busy_and_not_running)
{
	EXPECT_ERRNO(ESRCH, sys_stop(0));
	ASSERT_EQ(0, start(self, &self->attr));
	EXPECT_ERRNO(EBUSY, sys_start(&self->attr, 0));
	EXPECT_EQ(0, sys_stop(0));
	EXPECT_ERRNO(ESRCH, sys_stop(0));
	/* A stopped session whose descriptor is open does not block. */
	EXPECT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
}

/* The descriptor owns the session: closing it stops sampling. */
TEST_F(sleepy, close_stops_session)
{
	int flags;

	self->attr.frequency = 10000;
	ASSERT_EQ(0, start(self, &self->attr));
	flags = fcntl(self->fd, F_GETFD);
	EXPECT_TRUE(flags & FD_CLOEXEC);
	close(self->fd);
	self->fd = -1;
	EXPECT_ERRNO(ESRCH, sys_stop(0));
	/* A child holding a copy keeps it alive until it exits. */
	ASSERT_EQ(0, start(self, &self->attr));
	if (!fork()) {
		sleep(1);
		_exit(0);
	}
	close(self->fd);
	self->fd = -1;
	EXPECT_ERRNO(EBUSY, sys_start(&self->attr, 0));
	wait(NULL);
	EXPECT_ERRNO(ESRCH, sys_stop(0));
}

TEST_F(sleepy, ioctls)
{
	struct sleepy_cpu_counters c = { .cpu = MAX_CPUS * 1024 };
	struct sleepy_session_info info;
	int buf;

	ASSERT_EQ(0, start(self, &self->attr));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, SLEEPY_IOC_CPU_COUNTERS, &c));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, SLEEPY_IOC_CPU_COUNTERS, NULL));
	EXPECT_ERRNO(ENODEV, ioctl(self->fd, SLEEPY_IOC_CPU_BUFFER, 1UL << 20));
	EXPECT_ERRNO(ENODEV, ioctl(self->fd, SLEEPY_IOC_CPU_BUFFER, -1L));
	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, _IO(SLEEPY_IOC_MAGIC, 99), 0));
	ASSERT_EQ(0, ioctl(self->fd, SLEEPY_IOC_SESSION_INFO, &info));
	EXPECT_EQ(1, info.running);
	EXPECT_EQ(0, info.stop_ns);
	EXPECT_EQ(SLEEPY_DEFAULT_BUFFER_SIZE, info.buffer_size);
	buf = ioctl(self->fd, SLEEPY_IOC_CPU_BUFFER, 0);
	ASSERT_LE(0, buf);
	EXPECT_TRUE(fcntl(buf, F_GETFD) & FD_CLOEXEC);
	EXPECT_ERRNO(EBADF, write(buf, "x", 1));
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, ioctl(self->fd, SLEEPY_IOC_SESSION_INFO, &info));
	EXPECT_EQ(0, info.running);
	EXPECT_LT(info.start_ns, info.stop_ns);
	/* The buffer outlives the session's descriptor. */
	close(self->fd);
	self->fd = -1;
	{
		struct sleepy_subbuf_header h;

		EXPECT_EQ(sizeof(h), read(buf, &h, sizeof(h)));
		EXPECT_EQ(0, h.cpu);
	}
	close(buf);
}

/* Records carry global pids: a child pid namespace may not start one. */
TEST_F(sleepy, pid_namespace_refused)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	pid = fork();
	if (!pid) {
		if (sys_start(&self->attr, 0) != -1 || errno != EPERM)
			_exit(11);
		if (sys_stop(0) != -1 || errno != EPERM)
			_exit(12);
		_exit(0);
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(sleepy, unprivileged)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, start(self, &self->attr));
	pid = fork();
	if (!pid) {
		/* Dropping root drops every capability. */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		/* As perf with kernel.perf_event_paranoid at its default. */
		if (sys_start(&self->attr, 0) != -1 || errno != EACCES)
			_exit(11);
		if (sys_stop(0) != -1 || errno != EACCES)
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
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
		uint64_t samples = 0, missed = 0;
		int cpu;

		ASSERT_EQ(0, start(self, &self->attr));
		spin(200);
		ASSERT_EQ(0, sys_stop(0));
		ASSERT_EQ(0, read_stream(self->fd, &s));
		/* The walk at start announced this very process. */
		EXPECT_TRUE(find_app(&s, getpid(), NULL, 0) != NULL);
		ASSERT_EQ(0, read_stats(self->fd, stats));
		count_records(&s);
		for (cpu = 0; cpu < MAX_CPUS; cpu++) {
			samples += s.samples[cpu];
			missed += stats[cpu].missed;
		}
		/*
		 * 200 ms busy at 1 kHz: 200 periods on the busy CPU, each a
		 * sample or, when the emulated CPU is late, a missed period.
		 * How many are late is the emulator's speed (under QEMU's
		 * TCG a busy vCPU gets about half its timer interrupts), so
		 * the samples are held against the periods, not a count.
		 */
		EXPECT_GE(samples * 4, samples + missed)
			TH_LOG("round %d: %llu samples, %llu periods missed",
			       round, (unsigned long long)samples,
			       (unsigned long long)missed);
		EXPECT_GE(samples + missed, 140)
			TH_LOG("round %d: %llu samples + %llu missed of 200 periods",
			       round, (unsigned long long)samples,
			       (unsigned long long)missed);
		free(s.records);
	}
}

TEST_F(sleepy, fork_new_instance)
{
	struct sleepy_app_start *me, *child;
	struct stream s;
	pid_t pid;

	ASSERT_EQ(0, start(self, &self->attr));
	pid = fork();
	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	me = find_app(&s, getpid(), NULL, 0);
	child = find_app(&s, pid, NULL, 0);
	ASSERT_TRUE(me != NULL);
	ASSERT_TRUE(child != NULL);
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

	ASSERT_EQ(0, start(self, &self->attr));
	pid1 = run("/bin/true");
	pid2 = run("/bin/true");
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	/* Per-CPU streams are not in time order: tell them apart by name. */
	first = find_app(&s, pid1, "true", 0);
	second = find_app(&s, pid2, "true", 0);
	forked = find_app(&s, pid1, NULL, 0);
	if (forked == first)
		forked = find_app(&s, pid1, NULL, 1);
	ASSERT_TRUE(first != NULL);
	ASSERT_TRUE(second != NULL);
	ASSERT_TRUE(forked != NULL);
	EXPECT_EQ(first->instance + 1, second->instance);
	EXPECT_NE(first->appid, second->appid);
	EXPECT_NE(forked->appid, first->appid);
	EXPECT_LT(forked->appid, first->appid);
	EXPECT_EQ(forked->appid, first->parent_appid);
	EXPECT_TRUE(has_exit(&s, forked->appid));	/* retired by exec */
	EXPECT_TRUE(has_exit(&s, first->appid));
	free(s.records);
}

/*
 * The first mapping record of @pid with @flags that starts at @start, or
 * (@exact false) anywhere but there.
 */
static struct sleepy_mmap *find_mmap(struct stream *s, pid_t pid,
				     uint32_t flags, uint64_t start, bool exact)
{
	struct sleepy_record_header *r;

	for_each_record(s, r) {
		struct sleepy_mmap *m = (void *)r;

		if (r->type == SLEEPY_REC_MMAP && m->pid == (uint32_t)pid &&
		    m->flags == flags && (m->start == start) == exact)
			return m;
	}
	return NULL;
}

/* The mapping record of @pid that holds @addr (its text, for a function). */
static struct sleepy_mmap *find_mmap_of(struct stream *s, pid_t pid,
					uint64_t addr)
{
	struct sleepy_record_header *r;

	for_each_record(s, r) {
		struct sleepy_mmap *m = (void *)r;

		if (r->type == SLEEPY_REC_MMAP && m->pid == (uint32_t)pid &&
		    !m->flags && addr - m->start < m->len)
			return m;
	}
	return NULL;
}

/*
 * The executable mappings: this process's at the start (its text, with
 * the build-id every Debian binary has), one it maps while the session
 * runs (this file again, at an offset), one it maps read-only and then
 * makes executable with mprotect(), and the new image of an exec.
 */
TEST_F(sleepy, mappings)
{
	struct sleepy_app_start *me, *child;
	struct sleepy_mmap *text, *mapped, *protected, *exec;
	char exe[256];
	struct stream s;
	ssize_t len;
	void *map, *map_ro;
	pid_t pid;
	int fd;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_GT(len, 0);
	exe[len] = '\0';
	fd = open(exe, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start(self, &self->attr));
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 4096);
	ASSERT_TRUE(map != MAP_FAILED);
	map_ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 8192);
	ASSERT_TRUE(map_ro != MAP_FAILED);
	ASSERT_EQ(0, mprotect(map_ro, 4096, PROT_READ | PROT_EXEC));
	pid = run("/bin/true");
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	me = find_app(&s, getpid(), NULL, 0);
	child = find_app(&s, pid, "true", 0);
	ASSERT_TRUE(me != NULL);
	ASSERT_TRUE(child != NULL);

	text = find_mmap_of(&s, getpid(), (uintptr_t)find_mmap);
	ASSERT_TRUE(text != NULL);
	EXPECT_STREQ(exe, text->path);
	EXPECT_EQ(me->appid, text->appid);
	EXPECT_GT(text->len, 0);
	EXPECT_EQ(20, text->build_id_size);

	mapped = find_mmap(&s, getpid(), 0, (uintptr_t)map, true);
	ASSERT_TRUE(mapped != NULL);
	EXPECT_STREQ(exe, mapped->path);
	EXPECT_EQ(me->appid, mapped->appid);
	EXPECT_EQ(4096, mapped->len);
	EXPECT_EQ(4096, mapped->pgoff);
	EXPECT_EQ(0, memcmp(text->build_id, mapped->build_id, 20));
	EXPECT_GE(mapped->time_ns, text->time_ns);

	protected = find_mmap(&s, getpid(), 0, (uintptr_t)map_ro, true);
	ASSERT_TRUE(protected != NULL);
	EXPECT_STREQ(exe, protected->path);
	EXPECT_EQ(me->appid, protected->appid);
	EXPECT_EQ(4096, protected->len);
	EXPECT_EQ(8192, protected->pgoff);

	/* Mapped by the exec, before the new image is announced. */
	exec = find_mmap(&s, pid, SLEEPY_MMAP_EXEC, 0, false);
	ASSERT_TRUE(exec != NULL);
	EXPECT_EQ(0, exec->appid);
	EXPECT_GT(exec->len, 0);
	EXPECT_LE(exec->time_ns, child->time_ns);
	EXPECT_EQ(0, exec->header.size % 8);
	EXPECT_LT(strlen(exec->path), exec->header.size - sizeof(*exec));
	munmap(map, 4096);
	munmap(map_ro, 4096);
	close(fd);
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
	ASSERT_EQ(0, start(self, &self->attr));
	for (i = 0; i < 2; i++) {
		pid = clone_with_tid(tid);
		if (!pid)
			_exit(0);
		ASSERT_EQ(tid, pid) TH_LOG("clone3 set_tid: %s", strerror(errno));
		waitpid(pid, NULL, 0);
	}
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	first = find_app(&s, tid, NULL, 0);
	second = find_app(&s, tid, NULL, 1);
	ASSERT_TRUE(first != NULL);
	ASSERT_TRUE(second != NULL);
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

/*
 * A known call chain, built with frame pointers (-fno-omit-frame-pointer):
 * stack_outer -> stack_middle -> stack_inner, which spins.  Each callee
 * notes the return address into its caller, what the user stack of a
 * sample in stack_inner must hold after its IP.
 */
static volatile unsigned long stack_return_middle, stack_return_outer;
static volatile unsigned long stack_spins;

static void __attribute__((noinline)) stack_inner(int ms)
{
	struct timespec start, now;

	stack_return_middle = (unsigned long)__builtin_return_address(0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (int i = 0; i < 100000; i++)
			stack_spins++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 +
		 (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

static void __attribute__((noinline)) stack_middle(int ms)
{
	stack_return_outer = (unsigned long)__builtin_return_address(0);
	stack_inner(ms);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

static void __attribute__((noinline)) stack_outer(int ms)
{
	stack_middle(ms);
	__asm__ volatile("" ::: "memory");
}

/* Recurses @depth times, then spins: a stack deeper than max_stack. */
static int __attribute__((noinline)) stack_deep(int depth, int ms)
{
	if (depth)
		return stack_deep(depth - 1, ms) + 1;
	stack_inner(ms);
	return 0;
}

/* Reads a lot from /dev/zero: time in the kernel, entered from here. */
static void read_zero(int ms)
{
	static char buf[1 << 16];
	struct timespec start, now;
	int fd = open("/dev/zero", O_RDONLY);

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (int i = 0; i < 16; i++)
			if (read(fd, buf, sizeof(buf)) < 0)
				break;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 +
		 (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
	close(fd);
}

/* The stacks of @s's sample @r, or NULL; fails the test if malformed. */
static struct sleepy_callchain *chain_of(struct __test_metadata *_metadata,
					 struct sleepy_sample *r)
{
	struct sleepy_callchain *chain = (void *)(r + 1);

	if (!(r->flags & SLEEPY_SAMPLE_CALLCHAIN))
		return NULL;
	EXPECT_GE(r->header.size, sizeof(*r) + sizeof(*chain) +
		  (chain->nr_kernel + chain->nr_user) * sizeof(chain->ips[0]));
	return chain;
}

/*
 * -g: every sample of a session with SLEEPY_FLAG_CALLCHAIN has stacks; a
 * sample in stack_inner has the chain stack_inner <- stack_middle <-
 * stack_outer; a sample in the kernel (-k) has kernel frames, starting at
 * its kernel IP, before the user frames, starting at its user IP.
 */
TEST_F(sleepy, call_stacks)
{
	unsigned int with_chain = 0, known = 0, kernel = 0, samples = 0;
	struct sleepy_sample *r;
	struct stream s;

	self->attr.frequency = 2000;
	self->attr.pid = getpid();
	self->attr.flags = SLEEPY_FLAG_CALLCHAIN | SLEEPY_FLAG_KERNEL;
	ASSERT_EQ(0, start(self, &self->attr));
	stack_outer(400);
	read_zero(400);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	for_each_record(&s, r) {
		struct sleepy_callchain *chain;
		__u64 *user;

		if (r->header.type != SLEEPY_REC_SAMPLE ||
		    r->tid != (uint32_t)getpid())
			continue;
		samples++;
		chain = chain_of(_metadata, r);
		if (!chain)
			continue;
		with_chain++;
		user = chain->ips + chain->nr_kernel;
		ASSERT_LE(1, chain->nr_user);
		EXPECT_EQ(r->user_ip, user[0]);
		if (chain->nr_user >= 3 && user[1] == stack_return_middle &&
		    user[2] == stack_return_outer)
			known++;
		if ((r->flags & SLEEPY_SAMPLE_IN_KERNEL) && chain->nr_kernel >= 2) {
			EXPECT_EQ(r->kernel_ip, chain->ips[0]);
			kernel++;
		}
		EXPECT_EQ(0, chain->flags & (SLEEPY_CALLCHAIN_USER_CUT |
					     SLEEPY_CALLCHAIN_KERNEL_CUT));
	}
	EXPECT_LT(100, samples);
	EXPECT_EQ(samples, with_chain);
	/* The spin loop is stack_inner's; clock_gettime() is a few. */
	EXPECT_LT(samples / 4, known)
		TH_LOG("%u of %u samples with stack_inner <- stack_middle <- stack_outer",
		       known, samples);
	EXPECT_LT(samples / 10, kernel)
		TH_LOG("%u of %u samples with a kernel stack", kernel, samples);
	free(s.records);
}

/* A stack deeper than max_stack keeps its innermost frames, flagged. */
TEST_F(sleepy, call_stacks_cut_at_max_stack)
{
	unsigned int deep = 0, samples = 0;
	struct sleepy_sample *r;
	struct stream s;

	self->attr.frequency = 2000;
	self->attr.pid = getpid();
	self->attr.flags = SLEEPY_FLAG_CALLCHAIN;
	self->attr.max_stack = 4;
	ASSERT_EQ(0, start(self, &self->attr));
	stack_deep(20, 400);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	for_each_record(&s, r) {
		struct sleepy_callchain *chain;

		if (r->header.type != SLEEPY_REC_SAMPLE ||
		    r->tid != (uint32_t)getpid())
			continue;
		samples++;
		chain = chain_of(_metadata, r);
		ASSERT_TRUE(chain != NULL);
		EXPECT_LE(chain->nr_user, 4);
		EXPECT_EQ(0, chain->nr_kernel);	/* no SLEEPY_FLAG_KERNEL */
		if (chain->nr_user == 4 &&
		    (chain->flags & SLEEPY_CALLCHAIN_USER_CUT))
			deep++;
	}
	EXPECT_LT(100, samples);
	EXPECT_LT(samples / 2, deep)
		TH_LOG("%u of %u samples cut at 4 frames", deep, samples);
	free(s.records);
}

/* A session of @ms busy milliseconds: its stream and its counters. */
static int record_busy(FIXTURE_DATA(sleepy) *self, int ms, struct stream *s,
		       struct cpu_stats *stats)
{
	if (start(self, &self->attr))
		return -1;
	spin(ms);
	if (sys_stop(0) || read_stream(self->fd, s))
		return -1;
	count_records(s);
	return read_stats(self->fd, stats);
}

/* Every sample the kernel counted is in the stream, and nothing else. */
TEST_F(sleepy, samples_match_counters)
{
	struct cpu_stats stats[MAX_CPUS];
	uint64_t total = 0, missed = 0;
	struct stream s;
	int cpu;

	self->attr.frequency = 2000;
	ASSERT_EQ(0, record_busy(self, 500, &s, stats));
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		EXPECT_EQ(stats[cpu].samples, s.samples[cpu]);
		EXPECT_EQ(0, stats[cpu].dropped);
		total += s.samples[cpu];
		missed += stats[cpu].missed;
	}
	/* 500 ms busy at 2 kHz: 1000 periods, sampled or missed. */
	EXPECT_GT(total, 100)
		TH_LOG("%llu samples, %llu periods missed",
		       (unsigned long long)total, (unsigned long long)missed);
	EXPECT_GE(total + missed, 700)
		TH_LOG("%llu samples + %llu missed of 1000 periods",
		       (unsigned long long)total, (unsigned long long)missed);
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
	ASSERT_EQ(0, record_busy(self, 1000, &s, stats));
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		EXPECT_EQ(stats[cpu].samples, s.samples[cpu]);
		/* Losses reported in-stream never exceed those counted. */
		EXPECT_LE(s.lost[cpu], stats[cpu].dropped);
		dropped += stats[cpu].dropped;
		kept += s.samples[cpu];
	}
	EXPECT_GT(dropped, 0);
	EXPECT_GT(kept, 0);
	/* Nobody read: at most one buffer's worth per CPU. */
	EXPECT_LE(s.size, SLEEPY_MIN_BUFFER_SIZE *
			  (size_t)sysconf(_SC_NPROCESSORS_CONF));
	TH_LOG("kept %llu samples, dropped %llu records",
	       (unsigned long long)kept, (unsigned long long)dropped);
	free(s.records);
}

/* @n children that wait for SIGKILL, their pids in @pids. */
static int spawn_waiters(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (!pids[i]) {
			for (;;)
				pause();
		}
	}
	return 0;
}

static void kill_waiters(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
}

/* Executable file mappings /proc/PID/maps lists for @pid. */
static int exec_mappings(pid_t pid)
{
	char path[64], line[512], perms[8];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*x-%*x %7s", perms) == 1 && perms[2] == 'x' &&
		    strchr(line, '/'))
			n++;
	fclose(f);
	return n;
}

/* Mapping records of @pid written by the start walk. */
static int walk_mappings(struct stream *s, pid_t pid)
{
	struct sleepy_record_header *r;
	int n = 0;

	for_each_record(s, r) {
		struct sleepy_mmap *m = (void *)r;

		n += r->type == SLEEPY_REC_MMAP && m->pid == (uint32_t)pid &&
		     !m->flags;
	}
	return n;
}

static uint64_t sum_counters(int session, uint64_t *dropped)
{
	uint64_t timer_fired = 0;
	int cpu;

	*dropped = 0;
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct sleepy_cpu_counters c = { .cpu = cpu };

		if (ioctl(session, SLEEPY_IOC_CPU_COUNTERS, &c))
			break;
		timer_fired += c.samples + c.idle;
		*dropped += c.dropped;
	}
	return timer_fired;
}

#define START_WALK_WAITERS 2000

/*
 * A session started with the smallest buffers beside thousands of
 * processes loses nothing of its start: the walk writes at the pace of a
 * reader, and sampling begins once it is done.
 */
TEST_F_TIMEOUT(sleepy, start_walk_paced_by_reader, 600)
{
	static pid_t waiters[START_WALK_WAITERS];
	int fds[MAX_CPUS], i, unannounced = 0, unmapped = 0, expected;
	uint64_t dropped = 0;
	struct stream s = {};

	ASSERT_EQ(0, spawn_waiters(waiters, START_WALK_WAITERS));
	expected = exec_mappings(waiters[0]);
	ASSERT_LT(0, expected);
	self->attr.frequency = 1000;
	self->attr.buffer_size = SLEEPY_MIN_BUFFER_SIZE;
	self->fd = sys_start(&self->attr, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_LT(0, open_buffers(self->fd, fds));
	for (i = 0; !wait_sampling(self->fd, 0) && i < 30000; i++) {
		ASSERT_EQ(0, read_buffers(fds, &s));
		usleep(1000);
	}
	EXPECT_LT(i, 30000) TH_LOG("the start walk never ended");
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_buffers(fds, &s));
	close_buffers(fds);
	sum_counters(self->fd, &dropped);
	EXPECT_EQ(0, dropped);
	count_records(&s);
	for (i = 0; i < MAX_CPUS; i++)
		EXPECT_EQ(0, s.lost[i]);
	for (i = 0; i < START_WALK_WAITERS; i++) {
		unannounced += !find_app(&s, waiters[i], NULL, 0);
		unmapped += walk_mappings(&s, waiters[i]) != expected;
	}
	EXPECT_EQ(0, unannounced);
	EXPECT_EQ(0, unmapped)
		TH_LOG("%d of %d processes without their %d executable mappings",
		       unmapped, START_WALK_WAITERS, expected);
	TH_LOG("%zu bytes through buffers of %u bytes per CPU",
	       s.size, SLEEPY_MIN_BUFFER_SIZE);
	free(s.records);
	kill_waiters(waiters, START_WALK_WAITERS);
}

/*
 * A walk that waits for a reader who never reads is no hang: the stop,
 * the owner's death and the next start all go through, and nothing is
 * counted lost.
 */
TEST_F_TIMEOUT(sleepy, start_walk_without_reader_stops, 300)
{
	static pid_t waiters[START_WALK_WAITERS];
	uint64_t dropped;
	int status, ready[2];
	pid_t owner;
	char byte;

	ASSERT_EQ(0, spawn_waiters(waiters, START_WALK_WAITERS));
	self->attr.buffer_size = SLEEPY_MIN_BUFFER_SIZE;
	self->fd = sys_start(&self->attr, 0);
	ASSERT_LE(0, self->fd);
	EXPECT_FALSE(wait_sampling(self->fd, 200));
	ASSERT_EQ(0, sys_stop(0));
	sum_counters(self->fd, &dropped);
	EXPECT_EQ(0, dropped);

	ASSERT_EQ(0, pipe(ready));
	owner = fork();
	if (!owner) {
		if (sys_start(&self->attr, 0) < 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	ASSERT_EQ(1, read(ready[0], &byte, 1));
	usleep(200000);
	kill(owner, SIGKILL);
	ASSERT_EQ(owner, waitpid(owner, &status, 0));
	EXPECT_ERRNO(ESRCH, sys_stop(0));
	self->attr.buffer_size = 0;
	ASSERT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
	kill_waiters(waiters, START_WALK_WAITERS);
}

/* One reader per CPU buffer: a second would read records twice or skip them. */
TEST_F(sleepy, one_reader_per_buffer)
{
	int fd, again;

	ASSERT_EQ(0, start(self, &self->attr));
	fd = ioctl(self->fd, SLEEPY_IOC_CPU_BUFFER, 0);
	ASSERT_LE(0, fd);
	EXPECT_ERRNO(EBUSY, ioctl(self->fd, SLEEPY_IOC_CPU_BUFFER, 0));
	close(fd);
	again = ioctl(self->fd, SLEEPY_IOC_CPU_BUFFER, 0);
	EXPECT_LE(0, again);
	EXPECT_EQ(0, sys_stop(0));
	close(again);
}

/* Every APP_START and APP_EXIT of @s, counted per appid. */
static void count_announcements(struct stream *s, unsigned int *starts,
				unsigned int *exits, unsigned int max)
{
	struct sleepy_record_header *r;

	memset(starts, 0, max * sizeof(*starts));
	memset(exits, 0, max * sizeof(*exits));
	for_each_record(s, r) {
		uint32_t appid = r->type == SLEEPY_REC_APP_START ?
				 ((struct sleepy_app_start *)r)->appid :
				 r->type == SLEEPY_REC_APP_EXIT ?
				 ((struct sleepy_app_exit *)r)->appid : 0;

		if (!appid || appid >= max)
			continue;
		if (r->type == SLEEPY_REC_APP_START)
			starts[appid]++;
		else
			exits[appid]++;
	}
}

/*
 * A zombie's exit hook ran before the session: the start walk must not
 * announce it (it would never see an exit), nor any process twice while
 * others fork and exit as fast as they can.
 */
TEST_F(sleepy, start_walk_zombies_and_fork_storm)
{
	enum { MAX_APPID = 1 << 16 };
	static unsigned int starts[MAX_APPID], exits[MAX_APPID];
	pid_t zombie, stormers[2];
	struct stream s;
	int i, round, bad = 0;

	zombie = fork();
	if (!zombie)
		_exit(0);
	ASSERT_LT(0, zombie);
	for (i = 0; i < 2; i++) {
		stormers[i] = fork();
		if (!stormers[i]) {
			for (;;) {
				pid_t p = fork();

				if (!p)
					_exit(0);
				waitpid(p, NULL, 0);
			}
		}
	}
	usleep(100000);	/* the zombie has exited, the storm runs */
	for (round = 0; round < 5; round++) {
		ASSERT_EQ(0, start(self, &self->attr));
		usleep(50000);
		ASSERT_EQ(0, sys_stop(0));
		ASSERT_EQ(0, read_stream(self->fd, &s));
		EXPECT_TRUE(find_app(&s, zombie, NULL, 0) == NULL);
		count_announcements(&s, starts, exits, MAX_APPID);
		for (i = 1; i < MAX_APPID; i++)
			if (starts[i] != 1 && (starts[i] || exits[i]))
				bad++;
			else if (exits[i] > 1)
				bad++;
		EXPECT_EQ(0, bad)
			TH_LOG("round %d: %d appids without one start and at most one exit",
			       round, bad);
		free(s.records);
	}
	for (i = 0; i < 2; i++) {
		kill(stormers[i], SIGKILL);
		waitpid(stormers[i], NULL, 0);
	}
	waitpid(zombie, NULL, 0);
}

/* A pid-filtered session announces the selected process only. */
TEST_F(sleepy, pid_filter_announces_selected_only)
{
	struct sleepy_record_header *r;
	struct stream s;
	int others = 0, mine = 0;
	pid_t child;

	self->attr.pid = getpid();
	self->attr.frequency = 1000;
	ASSERT_EQ(0, start(self, &self->attr));
	child = run("/bin/true");	/* not followed: not announced */
	spin(100);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	for_each_record(&s, r) {
		if (r->type != SLEEPY_REC_APP_START)
			continue;
		if (((struct sleepy_app_start *)r)->pid == (uint32_t)getpid())
			mine++;
		else
			others++;
	}
	EXPECT_EQ(1, mine);
	EXPECT_EQ(0, others) TH_LOG("child %d", child);
	free(s.records);

	/* With --follow the child is in. */
	self->attr.flags = SLEEPY_FLAG_FOLLOW_CHILDREN;
	ASSERT_EQ(0, start(self, &self->attr));
	child = run("/bin/true");
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	EXPECT_TRUE(find_app(&s, child, "true", 0) != NULL);
	free(s.records);
}

/* Counts what a --sched session recorded of @child. */
struct sched_counts {
	unsigned int sleeps, wakeups, exits, others, unselected, kernel_ips;
	unsigned int by_named_irq;	/* wakeups from an interrupt it names */
};

static void count_sched(struct stream *s, pid_t child, struct sched_counts *c)
{
	struct sleepy_record_header *r;

	memset(c, 0, sizeof(*c));
	for_each_record(s, r) {
		struct sleepy_switch *sw = (void *)r;
		struct sleepy_wakeup *w = (void *)r;

		if (r->type == SLEEPY_REC_SWITCH) {
			/* Every task's last switch is written (uapi header). */
			if (!sw->prev_appid && !sw->next_appid &&
			    sw->reason != SLEEPY_SWITCH_EXITING)
				c->unselected++;
			if (sw->kernel_ip)
				c->kernel_ips++;
			if (sw->prev_tid != (uint32_t)child)
				c->others++;
			else if (sw->reason == SLEEPY_SWITCH_SLEEP)
				c->sleeps++;
			else if (sw->reason == SLEEPY_SWITCH_EXITING)
				c->exits++;
		} else if (r->type == SLEEPY_REC_WAKEUP) {
			if (!w->waker_appid && !w->wakee_appid)
				c->unselected++;
			if (w->wakee_tid == (uint32_t)child &&
			    !(w->flags & SLEEPY_WAKEUP_NEW_TASK))
				c->wakeups++;
			if (w->wakee_tid == (uint32_t)child &&
			    (w->flags & SLEEPY_WAKEUP_HARDIRQ) && !w->waker_tid &&
			    w->source != SLEEPY_IRQ_OTHER)
				c->by_named_irq++;
		}
	}
}

/*
 * Forks a child that sleeps 5 ms @n times once it reads a byte from @go.
 * poll(), not usleep(): a kernel without POSIX timers and 32-bit time
 * (the guest's) gives 32-bit callers ENOSYS for clock_nanosleep().
 */
static pid_t sleeper(int go[2], int n)
{
	pid_t pid;
	char c;

	if (pipe(go))
		return -1;
	pid = fork();
	if (!pid) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		while (n--)
			poll(NULL, 0, 5);
		_exit(0);
	}
	close(go[0]);
	return pid;
}

/*
 * With SLEEPY_FLAG_SCHED, a sleeping process's switches away (reason
 * sleep, then exiting) and its wakeups (by the timer interrupt, named) are
 * in the stream, only records
 * that involve a selected process with a pid filter, no kernel IPs
 * without SLEEPY_FLAG_KERNEL; without the flag, none at all.
 */
TEST_F(sleepy, sched_switches_and_wakeups)
{
	struct sched_counts c;
	struct stream s;
	int go[2], status;
	pid_t child;

	for (int with_sched = 0; with_sched < 2; with_sched++) {
		child = sleeper(go, 20);
		ASSERT_LT(0, child);
		self->attr.pid = child;
		self->attr.flags = with_sched ? SLEEPY_FLAG_SCHED : 0;
		ASSERT_EQ(0, start(self, &self->attr));
		ASSERT_EQ(1, write(go[1], "g", 1));
		close(go[1]);
		ASSERT_EQ(child, waitpid(child, &status, 0));
		ASSERT_EQ(0, status);
		/*
		 * The child's last switch (reason exiting) comes after
		 * exit_notify() let waitpid() return: on its own CPU, which
		 * an emulator may not run for a while.  Idle this CPU so the
		 * other one runs before the stop turns the hook off.
		 */
		usleep(100 * 1000);
		ASSERT_EQ(0, sys_stop(0));
		ASSERT_EQ(0, read_stream(self->fd, &s));
		count_sched(&s, child, &c);
		free(s.records);
		if (!with_sched) {
			EXPECT_EQ(0, c.sleeps + c.wakeups + c.exits + c.others);
			continue;
		}
		EXPECT_LE(20, c.sleeps);
		EXPECT_LE(20, c.wakeups);
		/* Woken by their timers, in the timer interrupt. */
		EXPECT_LE(10, c.by_named_irq);
		EXPECT_EQ(1, c.exits);
		EXPECT_EQ(0, c.unselected);
		EXPECT_EQ(0, c.kernel_ips);
	}
}

/* SLEEPY_FLAG_KERNEL adds where a task blocked, in the kernel. */
TEST_F(sleepy, sched_kernel_ips)
{
	struct sched_counts c;
	struct stream s;
	int go[2];
	pid_t child;

	child = sleeper(go, 10);
	ASSERT_LT(0, child);
	self->attr.pid = child;
	self->attr.flags = SLEEPY_FLAG_SCHED | SLEEPY_FLAG_KERNEL;
	ASSERT_EQ(0, start(self, &self->attr));
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	ASSERT_EQ(child, waitpid(child, NULL, 0));
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	count_sched(&s, child, &c);
	free(s.records);
	EXPECT_LE(10, c.sleeps);
	EXPECT_LE(10, c.kernel_ips);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * With SLEEPY_FLAG_IRQ, the stop writes per-CPU interrupt histograms:
 * the timer's among them, each holding its count in its buckets, an
 * action's place only for a shared line's action; and none without the
 * flag.
 */
TEST_F(sleepy, irq_histograms)
{
	struct sleepy_record_header *r;
	unsigned int hists, bad;
	uint64_t runs;
	struct stream s;

	for (int with_irq = 0; with_irq < 2; with_irq++) {
		self->attr.flags = with_irq ? SLEEPY_FLAG_IRQ : 0;
		ASSERT_EQ(0, start(self, &self->attr));
		spin(200);
		ASSERT_EQ(0, sys_stop(0));
		ASSERT_EQ(0, read_stream(self->fd, &s));
		hists = bad = 0;
		runs = 0;
		for_each_record(&s, r) {
			struct sleepy_irq_hist *h = (void *)r;
			uint64_t sum = 0;

			if (r->type != SLEEPY_REC_IRQ_HIST)
				continue;
			hists++;
			for (int i = 0; i < SLEEPY_IRQ_BUCKETS; i++)
				sum += h->log2_ns[i];
			if (sum != h->count || h->kind >= SLEEPY_IRQ_KINDS ||
			    (h->kind != SLEEPY_IRQ_ACTION && h->action))
				bad++;
			runs += h->count;
		}
		free(s.records);
		if (!with_irq) {
			EXPECT_EQ(0, hists);
			continue;
		}
		EXPECT_LT(0, hists);
		EXPECT_LT(0, runs);
		EXPECT_EQ(0, bad);
	}
}

/*
 * SLEEPY_IOC_IRQ_FLUSH writes the histograms so far, stamped with its
 * time, and counts again from zero: the stop then writes only what came
 * after, so every record carries the flush's time or the stop's, and no
 * interrupt and CPU has two records of one interval.  Refused without
 * SLEEPY_FLAG_IRQ, with an argument, and once the session is stopped.
 */
TEST_F(sleepy, irq_flush)
{
	unsigned int at_flush = 0, at_stop = 0, other = 0, twice = 0;
	struct sleepy_record_header *r, *q;
	struct sleepy_session_info info;
	uint64_t before, after;
	struct stream s;

	ASSERT_EQ(0, start(self, &self->attr));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, SLEEPY_IOC_IRQ_FLUSH, 0));
	ASSERT_EQ(0, sys_stop(0));

	self->attr.flags = SLEEPY_FLAG_IRQ;
	ASSERT_EQ(0, start(self, &self->attr));
	spin(200);
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, SLEEPY_IOC_IRQ_FLUSH, 1));
	before = now_ns();
	ASSERT_EQ(0, ioctl(self->fd, SLEEPY_IOC_IRQ_FLUSH, 0));
	after = now_ns();
	spin(200);
	ASSERT_EQ(0, sys_stop(0));
	EXPECT_ERRNO(ESRCH, ioctl(self->fd, SLEEPY_IOC_IRQ_FLUSH, 0));
	ASSERT_EQ(0, ioctl(self->fd, SLEEPY_IOC_SESSION_INFO, &info));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	for_each_record(&s, r) {
		struct sleepy_irq_hist *h = (void *)r;

		if (r->type != SLEEPY_REC_IRQ_HIST)
			continue;
		ASSERT_EQ(sizeof(*h), r->size);
		if (h->time_ns == info.stop_ns)
			at_stop++;
		else if (h->time_ns >= before && h->time_ns <= after)
			at_flush++;
		else
			other++;
		for (q = next_record(&s, r); q; q = next_record(&s, q)) {
			struct sleepy_irq_hist *g = (void *)q;

			if (q->type == SLEEPY_REC_IRQ_HIST &&
			    g->kind == h->kind && g->number == h->number &&
			    g->action == h->action && g->cpu == h->cpu &&
			    g->time_ns == h->time_ns)
				twice++;
		}
	}
	free(s.records);
	TH_LOG("%u histograms at the flush, %u at the stop", at_flush, at_stop);
	EXPECT_LT(0, at_flush);
	EXPECT_LT(0, at_stop);
	EXPECT_EQ(0, other);
	EXPECT_EQ(0, twice);
}


/* Samples of @cpu in @s taken at or after @since. */
static uint64_t samples_on(struct stream *s, unsigned int cpu, uint64_t since)
{
	struct sleepy_record_header *r;
	uint64_t n = 0;

	for_each_record(s, r)
		if (r->type == SLEEPY_REC_SAMPLE && r->cpu == cpu &&
		    ((struct sleepy_sample *)r)->time_ns >= since)
			n++;
	return n;
}

static int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

/* The CPU @pid last ran on (/proc/PID/stat field 39), -1 if unknown. */
static int last_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	int field, fd, cpu = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the name may hold spaces */
	for (field = 2; p && field < 39; field++)
		p = strchr(p + 1, ' ');
	if (p)
		cpu = atoi(p + 1);
	return cpu;
}

/* Pins @pid to @cpu and waits (2 s at most) until it runs there. */
static bool move_to(pid_t pid, int cpu)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!pin(pid, cpu) && last_cpu(pid) == cpu)
			return true;
		usleep(20000);
	}
	return false;
}

/*
 * Why tests that need a busy CPU cannot run here, or NULL: the environment
 * (SLEEPY_TEST_NO_HOG) says a spinning process of this build gets no timer
 * interrupts, so there is nothing to sample.
 */
static const char *no_hog_reason(void)
{
	const char *why = getenv("SLEEPY_TEST_NO_HOG");

	return why && *why ? why : NULL;
}

/* A child spinning on @cpu until killed. */
static pid_t hog(int cpu)
{
	pid_t pid = fork();

	if (!pid) {
		pin(0, cpu);
		for (;;)
			;
	}
	return pid;
}

static void unhog(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Samples @cpu has written so far in the running session. */
static uint64_t cpu_samples(int session, int cpu)
{
	struct sleepy_cpu_counters c = { .cpu = cpu };

	return ioctl(session, SLEEPY_IOC_CPU_COUNTERS, &c) ? 0 : c.samples;
}

/*
 * Whether @cpu takes at least @n more samples within 10 s: a debug kernel
 * under emulation samples far below the rate asked for.
 */
static bool cpu_samples_again(int session, int cpu, uint64_t n)
{
	uint64_t base = cpu_samples(session, cpu);
	int i;

	for (i = 0; i < 100; i++) {
		usleep(100000);
		if (cpu_samples(session, cpu) >= base + n)
			return true;
	}
	return false;
}

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

/*
 * When CPU 1 takes no sample: where are the sampling timers queued, and
 * is CPU 1 in high-resolution mode?  From /proc/timer_list.
 */
static void show_cpu1_timers(struct __test_metadata *_metadata)
{
	FILE *f = fopen("/proc/timer_list", "r");
	char line[256];
	int cpu = -1;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu: ", 5))
			cpu = atoi(line + 5);
		else if (!strncmp(line, "Tick Device", 11))
			cpu = -1;
		if (strstr(line, "sleepy") ||
		    (cpu == 1 && (strstr(line, "hres") ||
				  strstr(line, "expires_next") ||
				  strstr(line, "tick_stopped"))))
			TH_LOG("timer_list cpu %d: %s", cpu,
			       strtok(line, "\n"));
	}
	fclose(f);
}

/* Does the hog run?  Its state, CPU and user time, a second apart. */
static void show_hog(struct __test_metadata *_metadata, pid_t pid)
{
	char path[64], buf[1024];
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 2; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = 0;
		TH_LOG("hog: %s", strtok(buf, "\n"));
		sleep(1);
	}
}

static int set_cpu1(const char *state)
{
	int fd = open(CPU1_ONLINE, O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, state, 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * CPU 1 goes offline and online during 10 kHz sessions and between them:
 * no timer is left on another CPU (the console scan catches the kernel's
 * warnings), and CPU 1 is sampled again once it is back, also when it
 * was offline at the start.
 */
TEST_F_TIMEOUT(sleepy, cpu_hotplug, 180)
{
	struct stream s;
	uint64_t since;
	int round;
	pid_t h;

	if (sysconf(_SC_NPROCESSORS_CONF) < 2)
		SKIP(return, "one CPU: nothing to unplug");
	if (no_hog_reason())
		SKIP(return, "%s", no_hog_reason());
	ASSERT_EQ(0, access(CPU1_ONLINE, W_OK));
	self->attr.frequency = 10000;
	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, start(self, &self->attr));
		h = hog(1);
		usleep(100000);
		ASSERT_EQ(0, set_cpu1("0"));
		usleep(100000);
		ASSERT_EQ(0, set_cpu1("1"));
		/* The unplug widened its affinity. */
		EXPECT_TRUE(move_to(h, 1))
			TH_LOG("round %d: the hog does not run on CPU 1 (on %d)",
			       round, last_cpu(h));
		since = now_ns();
		if (!cpu_samples_again(self->fd, 1, 50)) {
			struct sleepy_cpu_counters c = { .cpu = 1 };

			ioctl(self->fd, SLEEPY_IOC_CPU_COUNTERS, &c);
			EXPECT_TRUE(0)
				TH_LOG("round %d: CPU 1 back online, hog on CPU %d: samples %llu dropped %llu idle %llu missed %llu",
				       round, last_cpu(h),
				       (unsigned long long)c.samples,
				       (unsigned long long)c.dropped,
				       (unsigned long long)c.idle,
				       (unsigned long long)c.missed);
			show_cpu1_timers(_metadata);
			show_hog(_metadata, h);
		}
		unhog(h);
		ASSERT_EQ(0, sys_stop(0));
		ASSERT_EQ(0, read_stream(self->fd, &s));
		/* And they are in its buffer. */
		EXPECT_GE(samples_on(&s, 1, since), 50);
		free(s.records);
		/* Between sessions. */
		ASSERT_EQ(0, set_cpu1("0"));
		ASSERT_EQ(0, set_cpu1("1"));
	}
	/* Offline at the start, online during the session. */
	ASSERT_EQ(0, set_cpu1("0"));
	ASSERT_EQ(0, start(self, &self->attr));
	ASSERT_EQ(0, set_cpu1("1"));
	h = hog(1);
	EXPECT_TRUE(move_to(h, 1));
	since = now_ns();
	if (!cpu_samples_again(self->fd, 1, 50)) {
		EXPECT_TRUE(0)
			TH_LOG("offline at the start: %llu samples from CPU 1",
			       (unsigned long long)cpu_samples(self->fd, 1));
		show_cpu1_timers(_metadata);
	}
	unhog(h);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	EXPECT_GE(samples_on(&s, 1, since), 50);
	free(s.records);
}

/*
 * CPU 1 idle across the start parks its timer; a hog that then runs there
 * must be sampled (the switch away from idle restarts the timer).
 */
TEST_F(sleepy, idle_cpu_sampled_after_start)
{
	struct cpu_stats stats[MAX_CPUS];
	uint64_t since, hog_samples;
	struct stream s;
	bool sampled;
	pid_t h;

	if (sysconf(_SC_NPROCESSORS_CONF) < 2)
		SKIP(return, "one CPU");
	if (no_hog_reason())
		SKIP(return, "%s", no_hog_reason());
	pin(0, 0);
	self->attr.frequency = 1000;
	ASSERT_EQ(0, start(self, &self->attr));
	usleep(200000);		/* CPU 1 idle for many periods: parked */
	since = now_ns();
	h = hog(1);
	sampled = cpu_samples_again(self->fd, 1, 100);
	unhog(h);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	ASSERT_EQ(0, read_stats(self->fd, stats));
	hog_samples = samples_on(&s, 1, since);
	EXPECT_TRUE(sampled);
	EXPECT_GE(hog_samples, 100)
		TH_LOG("%llu samples on CPU 1, %llu periods missed there",
		       (unsigned long long)hog_samples,
		       (unsigned long long)stats[1].missed);
	free(s.records);
}

/*
 * MemAvailable, plus the free pages that wait in the per-CPU page lists
 * (/proc/zoneinfo "count:"), which MemAvailable leaves out: a CPU that
 * just freed many pages may keep them there.
 */
static uint64_t mem_available_kb(void)
{
	unsigned long long kb = 0, pages, pcp = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %llu", &pages) == 1)
			pcp += pages;
	fclose(f);
	return kb + pcp * (getpagesize() / 1024);
}

/* The tools die with SIGKILL: sampling stops, the buffers come back. */
TEST_F(sleepy, killed_owner_ends_session)
{
	uint64_t before, during, after = 0;
	int ready[2], status, i;
	char byte;
	pid_t owner;

	ASSERT_EQ(0, pipe(ready));
	before = mem_available_kb();
	owner = fork();
	if (!owner) {
		struct sleepy_attr a = {
			.size = sizeof(a),
			.frequency = 10000,
			.buffer_size = 32 << 20,
		};

		if (sys_start(&a, 0) < 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	ASSERT_EQ(1, read(ready[0], &byte, 1));
	during = mem_available_kb();
	/* Buffers of 32 MiB on each CPU are allocated. */
	EXPECT_GT(before, during + 24 * 1024);
	EXPECT_ERRNO(EBUSY, sys_start(&self->attr, 0));
	kill(owner, SIGKILL);
	ASSERT_EQ(owner, waitpid(owner, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_ERRNO(ESRCH, sys_stop(0));
	/* Freed pages may reach the free lists a little later. */
	for (i = 0; i < 50; i++) {
		after = mem_available_kb();
		if (after > during + (before - during) * 3 / 4)
			break;
		usleep(100000);
	}
	EXPECT_GT(after, during + (before - during) * 3 / 4)
		TH_LOG("MemAvailable %llu kB before, %llu during, %llu after",
		       (unsigned long long)before, (unsigned long long)during,
		       (unsigned long long)after);
	ASSERT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
}

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* The filter holds the process, not its number: a reused pid is out. */
TEST_F(sleepy, pid_filter_survives_pid_reuse)
{
	struct stream s;
	int ready[2];
	pid_t first, second;
	char byte;

	ASSERT_EQ(0, pipe(ready));
	first = fork();
	if (!first) {
		/* Waits until the session holds it, then exits. */
		close(ready[1]);
		if (read(ready[0], &byte, 1) != 1)
			_exit(1);
		_exit(0);
	}
	ASSERT_LT(0, first);
	self->attr.pid = first;
	self->attr.flags = SLEEPY_FLAG_FOLLOW_CHILDREN;
	ASSERT_EQ(0, start(self, &self->attr));
	ASSERT_EQ(1, write(ready[1], "x", 1));
	ASSERT_EQ(first, waitpid(first, NULL, 0));
	/* Another process with the same pid, which forks and execs. */
	second = clone_with_tid(first);
	if (!second) {
		pid_t child = fork();

		if (!child) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(child, NULL, 0);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(first, second) TH_LOG("clone3 set_tid: %s", strerror(errno));
	waitpid(second, NULL, 0);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	EXPECT_TRUE(find_app(&s, 0, "true", 0) == NULL);
	EXPECT_TRUE(find_app(&s, first, NULL, 1) == NULL);
	free(s.records);
	close(ready[0]);
	close(ready[1]);
}

#define KPTR_RESTRICT "/proc/sys/kernel/kptr_restrict"

/* Kernel IPs only for a caller that may see kernel addresses. */
TEST_F(sleepy, kernel_ips_follow_kptr_restrict)
{
	char old[16];

	ASSERT_EQ(0, read_file(KPTR_RESTRICT, old, sizeof(old)));
	ASSERT_EQ(0, write_file(KPTR_RESTRICT, "2"));
	self->attr.flags = SLEEPY_FLAG_KERNEL;
	EXPECT_ERRNO(EACCES, sys_start(&self->attr, 0));
	self->attr.flags = 0;
	EXPECT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, write_file(KPTR_RESTRICT, old));
	self->attr.flags = SLEEPY_FLAG_KERNEL;
	EXPECT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
}

#define PERF_PARANOID "/proc/sys/kernel/perf_event_paranoid"

/*
 * Switches, wakeups and interrupt times are what perf's tracepoints give:
 * at perf_event_paranoid 0 a caller without CAP_PERFMON may sample every
 * CPU, but gets EPERM for SLEEPY_FLAG_SCHED or SLEEPY_FLAG_IRQ, as
 * perf_event_open() gives for a tracepoint.
 */
TEST_F(sleepy, sched_and_irq_need_tracepoint_permission)
{
	char old[16];
	int status;
	pid_t pid;

	ASSERT_EQ(0, read_file(PERF_PARANOID, old, sizeof(old)));
	ASSERT_EQ(0, write_file(PERF_PARANOID, "0"));
	pid = fork();
	if (!pid) {
		struct sleepy_attr attr = self->attr;
		long fd;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		attr.flags = SLEEPY_FLAG_SCHED;
		if (sys_start(&attr, 0) != -1 || errno != EPERM)
			_exit(11);
		attr.flags = SLEEPY_FLAG_IRQ;
		if (sys_start(&attr, 0) != -1 || errno != EPERM)
			_exit(12);
		attr.flags = 0;
		fd = sys_start(&attr, 0);
		if (fd < 0)
			_exit(13);
		if (sys_stop(0))
			_exit(14);
		close(fd);
		_exit(0);
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, write_file(PERF_PARANOID, old));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("step %d failed (11 sched, 12 irq: EPERM expected; 13, 14: plain sampling)",
		       WEXITSTATUS(status));
}

/* Runs @fn as nobody at paranoid level 0; its exit status. */
static int as_nobody_at_paranoid_0(int (*fn)(void *), void *arg)
{
	char old[16];
	int status;
	pid_t pid;

	if (read_file(PERF_PARANOID, old, sizeof(old)) ||
	    write_file(PERF_PARANOID, "0"))
		return -1;
	pid = fork();
	if (!pid) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		_exit(fn(arg));
	}
	waitpid(pid, &status, 0);
	write_file(PERF_PARANOID, old);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int stop_others_session(void *unused)
{
	if (sys_stop(0) != -1 || errno != EPERM)
		return 11;
	return 0;
}

/* Root's session is root's: another user's stop is refused. */
TEST_F(sleepy, stop_by_other_user_refused)
{
	struct sleepy_session_info info;
	uint64_t dropped, fired;

	self->attr.frequency = 1000;
	ASSERT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, as_nobody_at_paranoid_0(stop_others_session, NULL));
	ASSERT_EQ(0, ioctl(self->fd, SLEEPY_IOC_SESSION_INFO, &info));
	EXPECT_EQ(1, info.running);
	fired = sum_counters(self->fd, &dropped);
	spin(100);
	EXPECT_LT(fired, sum_counters(self->fd, &dropped));
	EXPECT_EQ(0, sys_stop(0));
}

/* Buffers as large as perf_event_mlock_kb on every CPU, and one page. */
static int start_beyond_mlock_kb(void *expect_eperm)
{
	struct sleepy_attr attr = { .size = sizeof(attr) };
	struct rlimit none = {};
	char kb[32];
	long fd;

	if (read_file("/proc/sys/kernel/perf_event_mlock_kb", kb, sizeof(kb)))
		return 11;
	attr.buffer_size = (atoi(kb) * 1024UL + 8192) & ~4095UL;
	if (expect_eperm && setrlimit(RLIMIT_MEMLOCK, &none))
		return 12;
	fd = sys_start(&attr, 0);
	if (expect_eperm)
		return fd == -1 && errno == EPERM ? 0 : 13;
	if (fd < 0)
		return 14;
	close(fd);
	return 0;
}

/*
 * The buffers are charged as perf charges its ring buffers: beyond
 * perf_event_mlock_kb per CPU, RLIMIT_MEMLOCK decides, with perf's error.
 */
TEST_F(sleepy, buffers_charged_like_perf)
{
	struct rlimit old, none = {};

	EXPECT_EQ(0, as_nobody_at_paranoid_0(start_beyond_mlock_kb, (void *)1))
		TH_LOG("a user without memlock allowance got buffers beyond perf_event_mlock_kb");
	EXPECT_EQ(0, as_nobody_at_paranoid_0(start_beyond_mlock_kb, NULL))
		TH_LOG("the default RLIMIT_MEMLOCK should allow them");
	/* CAP_IPC_LOCK lifts the limit, as for perf. */
	ASSERT_EQ(0, getrlimit(RLIMIT_MEMLOCK, &old));
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &none));
	self->attr.buffer_size = 4 << 20;
	EXPECT_EQ(0, start(self, &self->attr));
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &old));
	EXPECT_EQ(0, sys_stop(0));
}

#define CPU_PERCENT "/proc/sys/kernel/perf_cpu_time_max_percent"

/*
 * The share of a CPU the samples may take is perf's: at 1% a CPU that
 * cannot keep up with 50 kHz takes far fewer than at perf's default 25%
 * (under QEMU TCG, whose interrupt delivery bounds the 25% run and is not
 * counted in a sample's time, 2.85 times as many were measured).
 */
TEST_F(sleepy, sample_time_follows_perf_sysctl)
{
	const char *percent[] = { "25", "1" };
	struct cpu_stats stats[MAX_CPUS];
	uint64_t samples[2] = {};
	char old[16];
	struct stream s;
	int i, cpu;

	ASSERT_EQ(0, read_file(CPU_PERCENT, old, sizeof(old)));
	self->attr.frequency = 50000;
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, write_file(CPU_PERCENT, percent[i]));
		ASSERT_EQ(0, record_busy(self, 500, &s, stats));
		for (cpu = 0; cpu < MAX_CPUS; cpu++)
			samples[i] += stats[cpu].samples;
		free(s.records);
	}
	ASSERT_EQ(0, write_file(CPU_PERCENT, old));
	EXPECT_GT(samples[0], 2 * samples[1])
		TH_LOG("%llu samples at 25%%, %llu at 1%%",
		       (unsigned long long)samples[0],
		       (unsigned long long)samples[1]);
}

#define PERF_MAX_STACK "/proc/sys/kernel/perf_event_max_stack"

/* Stack depth is bounded by perf's sysctl, with perf's error. */
TEST_F(sleepy, max_stack_follows_perf_sysctl)
{
	char old[16];

	ASSERT_EQ(0, read_file(PERF_MAX_STACK, old, sizeof(old)));
	self->attr.flags = SLEEPY_FLAG_CALLCHAIN;
	self->attr.max_stack = atoi(old) + 1;
	EXPECT_ERRNO(EOVERFLOW, sys_start(&self->attr, 0));
	ASSERT_EQ(0, write_file(PERF_MAX_STACK, "200"));
	self->attr.max_stack = 200;
	EXPECT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
	self->attr.max_stack = 201;
	EXPECT_ERRNO(EOVERFLOW, sys_start(&self->attr, 0));
	/* Below the default, the default follows it down. */
	ASSERT_EQ(0, write_file(PERF_MAX_STACK, "16"));
	self->attr.max_stack = 0;
	EXPECT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, write_file(PERF_MAX_STACK, old));
}

#define MAX_FREQUENCY "/proc/sys/kernel/sleepy_max_frequency"

/* kernel.sleepy_max_frequency bounds the rate, as perf's sysctl does. */
TEST_F(sleepy, max_frequency_sysctl)
{
	char old[16];

	ASSERT_EQ(0, read_file(MAX_FREQUENCY, old, sizeof(old)));
	EXPECT_EQ(SLEEPY_MAX_FREQUENCY, atoi(old));
	EXPECT_NE(0, write_file(MAX_FREQUENCY, "100001"));
	EXPECT_NE(0, write_file(MAX_FREQUENCY, "0"));
	ASSERT_EQ(0, write_file(MAX_FREQUENCY, "1000"));
	self->attr.frequency = 1001;
	EXPECT_ERRNO(EINVAL, sys_start(&self->attr, 0));
	self->attr.frequency = 1000;
	EXPECT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, write_file(MAX_FREQUENCY, old));
	self->attr.frequency = SLEEPY_MAX_FREQUENCY;
	EXPECT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
}

TEST_HARNESS_MAIN
