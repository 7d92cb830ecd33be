// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the samples: call stacks (user and kernel, cut at the depth
 * asked for), the accounting of samples and drops, CPU hotplug during
 * sessions, an idle CPU sampled after the start and a filtered session
 * sparing other CPUs.  Needs root.
 */
#include "sleepy_test.h"

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

/*
 * kernel.perf_event_max_stack at 0 leaves no frame to a session with the
 * default depth: its samples carry empty, cut call stacks, as perf's do.
 */
TEST_F(sleepy, call_stacks_at_no_depth)
{
	unsigned int samples = 0, empty = 0;
	struct sleepy_sample *r;
	struct stream s;
	char old[16];

	ASSERT_EQ(0, read_file(PERF_MAX_STACK, old, sizeof(old)));
	ASSERT_EQ(0, write_file(PERF_MAX_STACK, "0"));
	self->attr.frequency = 2000;
	self->attr.pid = getpid();
	self->attr.flags = SLEEPY_FLAG_CALLCHAIN | SLEEPY_FLAG_KERNEL;
	EXPECT_EQ(0, start(self, &self->attr));
	stack_deep(20, 400);
	EXPECT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, write_file(PERF_MAX_STACK, old));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	for_each_record(&s, r) {
		struct sleepy_callchain *chain;

		if (r->header.type != SLEEPY_REC_SAMPLE ||
		    r->tid != (uint32_t)getpid())
			continue;
		samples++;
		chain = chain_of(_metadata, r);
		ASSERT_TRUE(chain != NULL);
		if (!chain->nr_user && !chain->nr_kernel &&
		    (chain->flags & SLEEPY_CALLCHAIN_USER_CUT))
			empty++;
	}
	EXPECT_LT(100, samples);
	EXPECT_EQ(samples, empty)
		TH_LOG("%u of %u samples with no frame", empty, samples);
	free(s.records);
}

/*
 * Every sample the kernel counted is in the stream, and nothing else; and
 * every period of the busy CPU's grid is accounted for, against this
 * process's own clock: 500 ms spinning at 2 kHz on one CPU.  With no
 * limit on the samples' share of the CPU: under KASAN and emulation a
 * sample takes long enough that perf's default 25% skipped four periods
 * in five (207 of 1,000 sampled on a slower host); that limit has its own
 * test (sample_time_follows_perf_sysctl).
 */
TEST_F(sleepy, samples_match_counters)
{
	struct cpu_stats stats[MAX_CPUS];
	uint64_t t0, elapsed;
	struct stream s;
	char old[16];
	int cpu, busy, recorded;

	busy = pin_here();
	ASSERT_LE(0, busy);
	ASSERT_EQ(0, read_file(CPU_PERCENT, old, sizeof(old)));
	ASSERT_EQ(0, write_file(CPU_PERCENT, "0"));
	self->attr.frequency = 2000;
	t0 = monotonic_ns();
	recorded = record_busy(self, 500, &s, stats);
	elapsed = monotonic_ns() - t0;
	ASSERT_EQ(0, write_file(CPU_PERCENT, old));
	ASSERT_EQ(0, recorded);
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		EXPECT_EQ(stats[cpu].samples, s.samples[cpu]);
		EXPECT_EQ(0, stats[cpu].dropped);
	}
	EXPECT_TRUE(grid_accounted(&stats[busy], 2000, 500000000, elapsed))
		TH_LOG("CPU %d: %llu samples, %llu missed, %llu idle, %llu ns",
		       busy, (unsigned long long)stats[busy].samples,
		       (unsigned long long)stats[busy].missed,
		       (unsigned long long)stats[busy].idle,
		       (unsigned long long)elapsed);
	/* Half the periods of a busy vCPU can be missed under emulation. */
	EXPECT_LE(250, stats[busy].samples);
	free(s.records);
}

/* Samples in @s taken before @ns, and in all. */
static uint64_t samples_before(struct stream *s, uint64_t ns, uint64_t *all)
{
	struct sleepy_record_header *r;
	uint64_t n = 0;

	*all = 0;
	for_each_record(s, r) {
		if (r->type != SLEEPY_REC_SAMPLE)
			continue;
		++*all;
		n += ((struct sleepy_sample *)r)->time_ns < ns;
	}
	return n;
}

/*
 * SLEEPY_IOC_FLUSH hands the partly filled sub-buffers over while the
 * session runs: a drain after it has every sample taken before it, so
 * what the stop leaves holds none of those.  Far less than a sub-buffer
 * is written, so without it the first drain would find nothing.  A
 * buffer nobody reads fills up: the hand-over says EAGAIN until it is
 * drained.  Refused with an argument, and once stopped.
 */
TEST_F(sleepy, flush_hands_over_while_running)
{
	uint64_t before_flush, early, all;
	int fds[MAX_CPUS];
	struct stream s;

	self->attr.frequency = 1000;
	ASSERT_EQ(0, start(self, &self->attr));
	ASSERT_LT(0, open_buffers(self->fd, fds));
	spin(100);
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, SLEEPY_IOC_FLUSH, 1));
	before_flush = now_ns();
	ASSERT_EQ(0, ioctl(self->fd, SLEEPY_IOC_FLUSH, 0));
	memset(&s, 0, sizeof(s));
	ASSERT_EQ(0, read_buffers(fds, &s));
	early = samples_before(&s, before_flush, &all);
	EXPECT_LT(10, early)
		TH_LOG("%llu samples of 100 ms at 1 kHz handed over",
		       (unsigned long long)early);
	free(s.records);

	spin(100);
	ASSERT_EQ(0, sys_stop(0));
	EXPECT_ERRNO(ESRCH, ioctl(self->fd, SLEEPY_IOC_FLUSH, 0));
	memset(&s, 0, sizeof(s));
	ASSERT_EQ(0, read_buffers(fds, &s));
	EXPECT_EQ(0, samples_before(&s, before_flush, &all))
		TH_LOG("samples from before the hand-over left for the stop");
	EXPECT_LT(10, all);
	free(s.records);
	close_buffers(fds);

	/* This process only: see drops_counted_without_reader. */
	self->attr.frequency = 10000;
	self->attr.pid = getpid();
	self->attr.buffer_size = SLEEPY_MIN_BUFFER_SIZE;
	ASSERT_EQ(0, start(self, &self->attr));
	ASSERT_LT(0, open_buffers(self->fd, fds));
	spin(500);
	EXPECT_ERRNO(EAGAIN, ioctl(self->fd, SLEEPY_IOC_FLUSH, 0));
	memset(&s, 0, sizeof(s));
	ASSERT_EQ(0, read_buffers(fds, &s));
	EXPECT_EQ(0, ioctl(self->fd, SLEEPY_IOC_FLUSH, 0));
	free(s.records);
	ASSERT_EQ(0, sys_stop(0));
	close_buffers(fds);
}

/*
 * A tiny buffer nobody reads: drops are counted, kept samples match.  Of
 * this process only: the start walk of a whole system (a Debian one, with
 * systemd) would not fit a buffer nobody reads, and sampling would never
 * begin.
 */
TEST_F(sleepy, drops_counted_without_reader)
{
	struct cpu_stats stats[MAX_CPUS];
	uint64_t dropped = 0, kept = 0;
	struct stream s;
	int cpu;

	self->attr.frequency = 10000;
	self->attr.pid = getpid();
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
 * A CPU brought online during a session gets its buffer from relay, so a
 * start charges the buffers of every possible CPU: with CPU 1 offline,
 * perf_event_mlock_kb a CPU is beyond what the one online CPU allows.
 */
TEST_F(sleepy, buffers_charged_for_every_possible_cpu)
{
	if (sysconf(_SC_NPROCESSORS_CONF) < 2)
		SKIP(return, "one CPU: nothing to unplug");
	ASSERT_NE(0, mlock_bytes());
	EXPECT_EQ(0, as_nobody_at_paranoid_0(start_at_mlock_kb, NULL))
		TH_LOG("buffers of perf_event_mlock_kb on every CPU should fit");
	ASSERT_EQ(0, set_cpu1("0"));
	EXPECT_EQ(0, as_nobody_at_paranoid_0(start_at_mlock_kb, (void *)1))
		TH_LOG("CPU 1 offline: its buffer went uncharged");
	ASSERT_EQ(0, set_cpu1("1"));
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
 * Of @reads looks at /proc/timer_list 10 ms apart, how many find a
 * sampling timer queued on @cpu; -1 if it shows no such CPU.
 */
static int sampling_timer_queued(int cpu, int reads)
{
	int i, at, queued = 0, cpu_seen = 0;
	char line[256];
	FILE *f;

	for (i = 0; i < reads; i++, usleep(10000)) {
		f = fopen("/proc/timer_list", "r");
		if (!f)
			return -1;
		for (at = -1; fgets(line, sizeof(line), f);) {
			if (!strncmp(line, "cpu: ", 5))
				at = atoi(line + 5);
			else if (!strncmp(line, "Tick Device", 11))
				at = -1;
			cpu_seen |= at == cpu;
			if (at == cpu && strstr(line, "sleepy_hrtimer_fn")) {
				queued++;
				break;
			}
		}
		fclose(f);
	}
	return cpu_seen ? queued : -1;
}

/*
 * A session limited to a process keeps no timer on a CPU busy with
 * another task (perf's per-task events do not fire there either), and
 * starts it when the followed process comes to that CPU.
 */
TEST_F(sleepy, pid_filter_spares_other_cpus)
{
	int other_only, followed_there;
	pid_t other, followed;
	uint64_t since;
	struct stream s;
	bool sampled;

	if (sysconf(_SC_NPROCESSORS_CONF) < 2)
		SKIP(return, "one CPU");
	if (no_hog_reason())
		SKIP(return, "%s", no_hog_reason());
	pin(0, 0);
	other = hog(1);
	followed = hog(0);
	EXPECT_TRUE(move_to(other, 1));
	self->attr.frequency = 4000;
	self->attr.pid = followed;
	ASSERT_EQ(0, start(self, &self->attr));
	usleep(100000);
	other_only = sampling_timer_queued(1, 20);
	unhog(other);
	since = now_ns();
	EXPECT_TRUE(move_to(followed, 1));
	followed_there = sampling_timer_queued(1, 20);
	sampled = cpu_samples_again(self->fd, 1, 50);
	unhog(followed);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	EXPECT_EQ(0, other_only)
		TH_LOG("CPU 1 running another task: timer queued at %d of 20 looks",
		       other_only);
	EXPECT_LE(10, followed_there)
		TH_LOG("CPU 1 running the followed task: timer queued at %d of 20 looks",
		       followed_there);
	EXPECT_TRUE(sampled);
	EXPECT_GE(samples_on(&s, 1, since), 50);
	free(s.records);
}

TEST_HARNESS_MAIN
