/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the sleepy kselftest programs share: the system calls, reading a
 * session's stream and counters as the drainer does, and the fixture
 * that makes sure no other session runs.  Each program includes it once.
 */
#ifndef SLEEPY_TEST_H
#define SLEEPY_TEST_H

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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#define MAX_CPUS 64

static inline long sys_start(const void *attr, unsigned int flags)
{
	return syscall(__NR_sleepy_start, attr, flags);
}

static inline long sys_stop(unsigned int flags)
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
	uint64_t samples, dropped, missed, idle;
};

/*
 * Reads @len bytes of a sub-buffer relay reported complete: a read may
 * come up short while the writer moves on to the next one, so it is
 * resumed, for 5 s at most.
 */
static inline int read_subbuf(int fd, void *buf, size_t len)
{
	size_t done = 0;
	int tries = 0;

	while (done < len && tries < 5000) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0) {
			done += n;
			continue;
		}
		tries++;
		usleep(1000);
	}
	return done == len ? 0 : -1;
}

/* Appends the whole sub-buffers one CPU's buffer holds, like the drainer. */
static inline int read_buffer(int fd, struct stream *s)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct sleepy_subbuf_header header;

	while (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN)) {
		size_t len;

		if (read_subbuf(fd, &header, sizeof(header)))
			return -1;
		len = header.committed - sizeof(header);
		s->records = realloc(s->records, s->size + len);
		if (read_subbuf(fd, s->records + s->size, len))
			return -1;
		s->size += len;
	}
	return 0;
}

/* Every CPU's buffer descriptor, -1 for a CPU without one; how many. */
static inline int open_buffers(int session, int *fds)
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

static inline int read_buffers(int *fds, struct stream *s)
{
	int cpu;

	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (fds[cpu] >= 0 && read_buffer(fds[cpu], s))
			return -1;
	return 0;
}

static inline void close_buffers(int *fds)
{
	int cpu;

	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (fds[cpu] >= 0)
			close(fds[cpu]);
}

static inline int read_stream(int session, struct stream *s)
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
static inline void *next_record(struct stream *s, void *r)
{
	unsigned char *p = r ? (unsigned char *)r +
			       ((struct sleepy_record_header *)r)->size :
			       s->records;

	return p < s->records + s->size ? p : NULL;
}

#define for_each_record(s, r) \
	for (r = next_record(s, NULL); r; r = next_record(s, r))

static inline void count_records(struct stream *s)
{
	struct sleepy_record_header *r;

	for_each_record(s, r) {
		if (r->type == SLEEPY_REC_SAMPLE)
			s->samples[r->cpu]++;
		else if (r->type == SLEEPY_REC_LOST)
			s->lost[r->cpu] += ((struct sleepy_lost *)r)->count;
	}
}

static inline int read_stats(int session, struct cpu_stats *stats)
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
		stats[cpu] = (struct cpu_stats){ c.samples, c.dropped, c.missed,
						 c.idle };
	}
	return cpu ? 0 : -1;
}

static inline struct sleepy_app_start *find_app(struct stream *s, pid_t pid,
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

static inline bool has_exit(struct stream *s, uint32_t appid)
{
	struct sleepy_record_header *r;

	for_each_record(s, r)
		if (r->type == SLEEPY_REC_APP_EXIT &&
		    ((struct sleepy_app_exit *)r)->appid == appid)
			return true;
	return false;
}

static inline uint64_t monotonic_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static inline void spin(int ms)
{
	uint64_t end = monotonic_ns() + ms * 1000000ULL;

	while (monotonic_ns() < end)
		continue;
}

/* Keeps this thread on the CPU it runs on; returns that CPU, or -1. */
static inline int pin_here(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return cpu < 0 || sched_setaffinity(0, sizeof(set), &set) ? -1 : cpu;
}

/* A busy CPU's periods (samples, drops, idle, missed) against the clock. */
static inline bool grid_accounted(const struct cpu_stats *c, unsigned int hz,
				  uint64_t busy_ns, uint64_t elapsed_ns)
{
	uint64_t points = c->samples + c->dropped + c->idle + c->missed;

	return points * 100 >= hz * busy_ns / 1000000000ULL * 97 &&
	       points <= hz * elapsed_ns / 1000000000ULL + 2;
}

static inline pid_t run(const char *path)
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
	/*
	 * The tests wait with usleep(), which an i386 build can do only on a
	 * kernel with the 32-bit time system calls: without them every wait
	 * would return at once, unnoticed.
	 */
	ASSERT_EQ(0, usleep(1));
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
static inline bool wait_sampling(int fd, int ms)
{
	struct sleepy_session_info info;

	while (!ioctl(fd, SLEEPY_IOC_SESSION_INFO, &info) &&
	       !info.sample_start_ns && ms-- > 0)
		usleep(1000);
	return info.sample_start_ns;
}

/* Starts a session with @attr into self->fd, sampling; 0 or -1. */
static inline int start(FIXTURE_DATA(sleepy) *self, struct sleepy_attr *attr)
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
static inline void expect_e2big(struct __test_metadata *_metadata, void *attr,
			 __u32 size)
{
	struct sleepy_attr *a = attr;

	a->size = size;
	EXPECT_ERRNO(E2BIG, sys_start(a, 0));
	EXPECT_EQ(SLEEPY_ATTR_SIZE_VER0, a->size);
}


/* A session of @ms busy milliseconds: its stream and its counters. */
static inline int record_busy(FIXTURE_DATA(sleepy) *self, int ms, struct stream *s,
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


static inline uint64_t sum_counters(int session, uint64_t *dropped)
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


static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}


/*
 * In a child the test forks: die with the test, even one that fails
 * before it kills its children, which would otherwise keep the runner's
 * output pipe open.
 */
static inline void die_with_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
}

/*
 * A child that starts a session with @attr and holds it until killed;
 * returns once the session is started, -1 if it could not be.
 */
static inline pid_t session_owner(const struct sleepy_attr *attr)
{
	pid_t parent = getpid();
	int ready[2];
	char byte;
	pid_t owner;

	if (pipe(ready))
		return -1;
	owner = fork();
	if (!owner) {
		die_with_parent(parent);
		if (sys_start(attr, 0) < 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (owner > 0 && read(ready[0], &byte, 1) != 1) {
		waitpid(owner, NULL, 0);
		owner = -1;
	}
	close(ready[0]);
	return owner;
}

static inline int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

/* The CPU @pid last ran on (/proc/PID/stat field 39), -1 if unknown. */
static inline int last_cpu(pid_t pid)
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
static inline bool move_to(pid_t pid, int cpu)
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
static inline const char *no_hog_reason(void)
{
	const char *why = getenv("SLEEPY_TEST_NO_HOG");

	return why && *why ? why : NULL;
}

/* A child spinning on @cpu until killed. */
static inline pid_t hog(int cpu)
{
	pid_t pid = fork();

	if (!pid) {
		pin(0, cpu);
		for (;;)
			;
	}
	return pid;
}

static inline void unhog(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

#define PERF_MAX_STACK "/proc/sys/kernel/perf_event_max_stack"
#define CPU_PERCENT "/proc/sys/kernel/perf_cpu_time_max_percent"

static inline int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

static inline int read_file(const char *path, char *buf, size_t size)
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

#define PERF_PARANOID "/proc/sys/kernel/perf_event_paranoid"

/* Runs @fn as nobody at paranoid level 0; its exit status. */
static inline int as_nobody_at_paranoid_0(int (*fn)(void *), void *arg)
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

/*
 * Buffers of @size bytes a CPU, by a user without CAP_IPC_LOCK and, with
 * @no_memlock, without memlock allowance; 0 if the start is refused with
 * EPERM exactly when @expect_eperm.
 */
static inline int start_with_buffers(unsigned long size, bool no_memlock,
				     bool expect_eperm)
{
	struct sleepy_attr attr = { .size = sizeof(attr), .buffer_size = size };
	struct rlimit none = {};
	long fd;

	if (no_memlock && setrlimit(RLIMIT_MEMLOCK, &none))
		return 12;
	fd = sys_start(&attr, 0);
	if (fd < 0)
		return expect_eperm && errno == EPERM ? 0 : 13;
	close(fd);
	return expect_eperm ? 14 : 0;
}

/* kernel.perf_event_mlock_kb in bytes, page-aligned down; 0 on error. */
static inline unsigned long mlock_bytes(void)
{
	char kb[32];

	if (read_file("/proc/sys/kernel/perf_event_mlock_kb", kb, sizeof(kb)))
		return 0;
	return atoi(kb) * 1024UL & ~4095UL;
}

/* Buffers of perf_event_mlock_kb a CPU, without memlock allowance. */
static inline int start_at_mlock_kb(void *expect_eperm)
{
	return start_with_buffers(mlock_bytes(), true, expect_eperm);
}

#endif /* SLEEPY_TEST_H */
