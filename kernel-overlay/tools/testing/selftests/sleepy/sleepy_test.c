// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the sleepy_start()/sleepy_stop() ABI: every documented error,
 * the session file descriptor and its ioctls, start/stop cycles, the
 * permissions (perf's, the owner's stop, the memlock charge) and the
 * sysctls sleepy follows.  Needs root.
 */
#include "sleepy_test.h"

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
	/* Read, never mapped: relay's fault handler trusts the offset. */
	EXPECT_TRUE(mmap(NULL, SLEEPY_DEFAULT_BUFFER_SIZE, PROT_READ,
			 MAP_PRIVATE, buf, 1 << 20) == MAP_FAILED);
	EXPECT_EQ(ENODEV, errno);
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
	int round, busy;

	busy = pin_here();
	ASSERT_LE(0, busy);
	self->attr.frequency = 1000;
	for (round = 0; round < 3; round++) {
		uint64_t t0 = monotonic_ns(), elapsed;

		ASSERT_EQ(0, start(self, &self->attr));
		spin(200);
		ASSERT_EQ(0, sys_stop(0));
		elapsed = monotonic_ns() - t0;
		ASSERT_EQ(0, read_stream(self->fd, &s));
		/* The walk at start announced this very process. */
		EXPECT_TRUE(find_app(&s, getpid(), NULL, 0) != NULL);
		ASSERT_EQ(0, read_stats(self->fd, stats));
		count_records(&s);
		/*
		 * 200 ms busy at 1 kHz: 200 periods on the busy CPU, each a
		 * sample or, when the emulated CPU is late, a missed period
		 * (under QEMU's TCG a busy vCPU gets about half its timer
		 * interrupts): the samples are held against the periods.
		 */
		EXPECT_TRUE(grid_accounted(&stats[busy], 1000, 200000000, elapsed))
			TH_LOG("round %d: %llu samples, %llu missed, %llu idle, %llu ns",
			       round, (unsigned long long)stats[busy].samples,
			       (unsigned long long)stats[busy].missed,
			       (unsigned long long)stats[busy].idle,
			       (unsigned long long)elapsed);
		EXPECT_EQ(stats[busy].samples, s.samples[busy]);
		EXPECT_LE(50, stats[busy].samples);
		free(s.records);
	}
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
	struct sleepy_attr a = {
		.size = sizeof(a),
		.frequency = 10000,
		.buffer_size = 32 << 20,
	};
	uint64_t before, during, after = 0;
	int status, i;
	pid_t owner;

	before = mem_available_kb();
	owner = session_owner(&a);
	ASSERT_LT(0, owner);
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

static int stop_others_session(void *unused)
{
	if (sys_stop(0) != -1 || errno != EPERM)
		return 11;
	return 0;
}

/*
 * Root of a user namespace nobody made: every capability there, none in
 * the initial namespace, where perf checks CAP_PERFMON.  So at paranoid 0
 * it gets what nobody gets (sampling, not the tracepoints), and nothing
 * at the default level (checked by the caller's step 11).
 */
static int enter_user_namespace_as_root(void)
{
	/* A process that changed its uid may not write its own uid_map. */
	if (prctl(PR_SET_DUMPABLE, 1))
		return 10;
	if (unshare(CLONE_NEWUSER))
		return 14;
	if (write_file("/proc/self/uid_map", "0 65534 1"))
		return 15;
	return setresuid(0, 0, 0) || getuid() != 0 ? 16 : 0;
}

static int start_as_user_namespace_root(void *unused)
{
	struct sleepy_attr attr = { .size = sizeof(attr) };
	int step = enter_user_namespace_as_root();
	long fd;

	if (step)
		return step;
	attr.flags = SLEEPY_FLAG_SCHED;
	if (sys_start(&attr, 0) != -1 || errno != EPERM)
		return 12;
	attr.flags = 0;
	fd = sys_start(&attr, 0);
	if (fd < 0)
		return 13;
	close(fd);
	return 0;
}

TEST_F(sleepy, user_namespace_root_is_no_root)
{
	int status;
	pid_t pid;

	EXPECT_EQ(0, as_nobody_at_paranoid_0(start_as_user_namespace_root, NULL))
		TH_LOG("10, 14-16 no namespace, 12 sched not refused, 13 sampling refused at paranoid 0");
	pid = fork();
	if (!pid) {
		int step;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(9);
		step = enter_user_namespace_as_root();
		if (step)
			_exit(step);
		_exit(sys_start(&self->attr, 0) == -1 && errno == EACCES ? 0 : 11);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("at the default paranoid level: step %d", WEXITSTATUS(status));
}

/*
 * Kernel IPs for a caller without CAP_PERFMON at paranoid 0: as perf's,
 * while kptr_restrict shows it kernel addresses (0), not at 1.
 */
static int start_with_kernel_ips(void *shown)
{
	struct sleepy_attr attr = {
		.size = sizeof(attr), .flags = SLEEPY_FLAG_KERNEL,
	};
	long fd = sys_start(&attr, 0);

	if (!shown)
		return fd == -1 && errno == EACCES ? 0 : 11;
	if (fd < 0)
		return 12;
	close(fd);
	return 0;
}

TEST_F(sleepy, kernel_ips_at_paranoid_0)
{
	char old[16];

	ASSERT_EQ(0, read_file(KPTR_RESTRICT, old, sizeof(old)));
	ASSERT_EQ(0, write_file(KPTR_RESTRICT, "0"));
	EXPECT_EQ(0, as_nobody_at_paranoid_0(start_with_kernel_ips, (void *)1));
	ASSERT_EQ(0, write_file(KPTR_RESTRICT, "1"));
	EXPECT_EQ(0, as_nobody_at_paranoid_0(start_with_kernel_ips, NULL));
	ASSERT_EQ(0, write_file(KPTR_RESTRICT, old));
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

/* Buffers as large as perf_event_mlock_kb on every CPU, and two pages. */
static int start_beyond_mlock_kb(void *expect_eperm)
{
	return start_with_buffers(mlock_bytes() + 8192, expect_eperm,
				  expect_eperm);
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

/*
 * The share of a CPU the samples may take is perf's: at 1% a CPU that
 * cannot keep up with 50 kHz takes far fewer than at perf's default 25%
 * (under QEMU TCG, whose interrupt delivery bounds the 25% run and is not
 * counted in a sample's time, 2.85 times as many were measured on a quiet
 * host, 1.8 times beside make test's debug kernel build).  The two
 * settings take turns, twice, so that the host's load weighs on both.
 */
TEST_F(sleepy, sample_time_follows_perf_sysctl)
{
	static const char *const percent[] = { "25", "1" };
	struct cpu_stats stats[MAX_CPUS];
	uint64_t samples[2] = {};
	char old[16];
	struct stream s;
	int turn, cpu;

	ASSERT_EQ(0, read_file(CPU_PERCENT, old, sizeof(old)));
	self->attr.frequency = 50000;
	for (turn = 0; turn < 4; turn++) {
		ASSERT_EQ(0, write_file(CPU_PERCENT, percent[turn % 2]));
		ASSERT_EQ(0, record_busy(self, 500, &s, stats));
		for (cpu = 0; cpu < MAX_CPUS; cpu++)
			samples[turn % 2] += stats[cpu].samples;
		free(s.records);
	}
	ASSERT_EQ(0, write_file(CPU_PERCENT, old));
	EXPECT_GT(2 * samples[0], 3 * samples[1])
		TH_LOG("%llu samples at 25%%, %llu at 1%%",
		       (unsigned long long)samples[0],
		       (unsigned long long)samples[1]);
}

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
	/*
	 * A record's 16-bit size bounds the depth whatever the sysctl
	 * allows: 4,000 frames a stack fit into 65,528 bytes (a scratch
	 * record larger than a per-CPU allocation may be), 5,000 do not,
	 * though a sub-buffer of the default buffers would take them.
	 */
	ASSERT_EQ(0, write_file(PERF_MAX_STACK, "5000"));
	self->attr.max_stack = 5000;
	EXPECT_ERRNO(EINVAL, sys_start(&self->attr, 0));
	self->attr.max_stack = 4000;
	EXPECT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
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
