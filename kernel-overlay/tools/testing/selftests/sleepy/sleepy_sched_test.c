// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of what SLEEPY_FLAG_SCHED and SLEEPY_FLAG_IRQ record: context
 * switches and wakeups, where a task blocked, and the interrupt
 * histograms at the stop and at a flush.  Needs root.
 */
#include "sleepy_test.h"

/* Counts what a --sched session recorded of @child. */
struct sched_counts {
	unsigned int sleeps, preempted, wakeups, exits, others, unselected;
	unsigned int kernel_ips;
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
			else if (sw->reason == SLEEPY_SWITCH_PREEMPTED)
				c->preempted++;
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

/* What the kernel counted of the sleeper's switches away during its polls. */
struct switches {
	long voluntary, involuntary;
};

/* A child that polls for 5 ms @n times once it reads a byte from @go. */
struct sleeper {
	pid_t pid;
	int go;		/* written by the parent to let it start */
	int report;	/* its struct switches, read once it exited */
};

/*
 * A poll whose timer expires before the child got to schedule(), its vCPU
 * stalled by the host for 5 ms, neither sleeps nor is woken: the child
 * reports what getrusage() counted around its polls, and the stream is
 * checked against that.
 */
static int sleeper_fork(struct sleeper *s, int n)
{
	int go[2], report[2];
	struct rusage before, after;
	struct switches sw;
	char c;

	if (pipe(go))
		return -1;
	if (pipe(report)) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	s->pid = fork();
	if (!s->pid) {
		close(go[1]);
		close(report[0]);
		if (read(go[0], &c, 1) != 1 || getrusage(RUSAGE_SELF, &before))
			_exit(1);
		while (n--)
			poll(NULL, 0, 5);
		if (getrusage(RUSAGE_SELF, &after))
			_exit(1);
		sw.voluntary = after.ru_nvcsw - before.ru_nvcsw;
		sw.involuntary = after.ru_nivcsw - before.ru_nivcsw;
		_exit(write(report[1], &sw, sizeof(sw)) != sizeof(sw));
	}
	close(go[0]);
	close(report[1]);
	s->go = go[1];
	s->report = report[0];
	return s->pid;
}

/* Lets the sleeper run, waits for it, and reads what it counted. */
static int sleeper_run(struct sleeper *s, struct switches *sw)
{
	int status, ok;

	ok = write(s->go, "g", 1) == 1;
	close(s->go);
	ok &= waitpid(s->pid, &status, 0) == s->pid && status == 0;
	ok &= read(s->report, sw, sizeof(*sw)) == sizeof(*sw);
	close(s->report);
	return ok ? 0 : -1;
}

/*
 * With SLEEPY_FLAG_SCHED, a sleeping process's switches away (reason
 * sleep, then exiting) and its wakeups (by the timer interrupt, named) are
 * in the stream, only records that involve a selected process with a pid
 * filter, no kernel IPs without SLEEPY_FLAG_KERNEL; without the flag, none
 * at all.
 */
TEST_F(sleepy, sched_switches_and_wakeups)
{
	struct sched_counts c;
	struct sleeper child;
	struct switches sw;
	struct stream s;

	for (int with_sched = 0; with_sched < 2; with_sched++) {
		ASSERT_LT(0, sleeper_fork(&child, 20));
		self->attr.pid = child.pid;
		self->attr.flags = with_sched ? SLEEPY_FLAG_SCHED : 0;
		ASSERT_EQ(0, start(self, &self->attr));
		ASSERT_EQ(0, sleeper_run(&child, &sw));
		/*
		 * The child's last switch (reason exiting) comes after
		 * exit_notify() let waitpid() return: on its own CPU, which
		 * an emulator may not run for a while.  Idle this CPU so the
		 * other one runs before the stop turns the probes off.
		 */
		usleep(1000 * 1000);
		ASSERT_EQ(0, sys_stop(0));
		ASSERT_EQ(0, read_stream(self->fd, &s));
		count_sched(&s, child.pid, &c);
		free(s.records);
		if (!with_sched) {
			EXPECT_EQ(0, c.sleeps + c.wakeups + c.exits + c.others);
			continue;
		}
		TH_LOG("polls: %ld voluntary, %ld involuntary switches; stream: %u sleeps, %u preempted, %u wakeups (%u by a named interrupt)",
		       sw.voluntary, sw.involuntary, c.sleeps, c.preempted,
		       c.wakeups, c.by_named_irq);
		/* Most polls slept, or the test did not test. */
		EXPECT_LE(10, sw.voluntary);
		/* Each, and the read of @go if it blocked in the session. */
		EXPECT_LE(sw.voluntary, c.sleeps);
		EXPECT_GE(sw.voluntary + 1, c.sleeps);
		EXPECT_LE(sw.involuntary, c.preempted);
		/* Each sleep woken; at most one per poll and the write to @go. */
		EXPECT_LE(sw.voluntary, c.wakeups);
		EXPECT_GE(21, c.wakeups);
		/* By their timers, in the timer interrupt. */
		EXPECT_LE(10, c.by_named_irq);
		EXPECT_GE(20, c.by_named_irq);
		EXPECT_EQ(1, c.exits);
		EXPECT_EQ(0, c.unselected);
		EXPECT_EQ(0, c.kernel_ips);
	}
}

/* SLEEPY_FLAG_KERNEL adds where a task blocked, in the kernel. */
TEST_F(sleepy, sched_kernel_ips)
{
	struct sched_counts c;
	struct sleeper child;
	struct switches sw;
	struct stream s;

	ASSERT_LT(0, sleeper_fork(&child, 10));
	self->attr.pid = child.pid;
	self->attr.flags = SLEEPY_FLAG_SCHED | SLEEPY_FLAG_KERNEL;
	ASSERT_EQ(0, start(self, &self->attr));
	ASSERT_EQ(0, sleeper_run(&child, &sw));
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	count_sched(&s, child.pid, &c);
	free(s.records);
	TH_LOG("polls: %ld voluntary switches; stream: %u sleeps, %u with a kernel IP",
	       sw.voluntary, c.sleeps, c.kernel_ips);
	EXPECT_LE(5, sw.voluntary);
	EXPECT_LE(sw.voluntary, c.sleeps);
	EXPECT_GE(sw.voluntary + 1, c.sleeps);
	EXPECT_LE(sw.voluntary, c.kernel_ips);
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

TEST_HARNESS_MAIN
