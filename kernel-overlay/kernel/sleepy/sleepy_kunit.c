// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the sleepy appid tables and per-CPU buffers.
 *
 * The tests build their own tables and channels, independent of any
 * running session, and read the buffers directly through the relay
 * structures.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/relay.h>

#include "sleepy.h"

static void sleepy_test_instances(struct kunit *test)
{
	struct sleepy_apps *apps = sleepy_apps_create(16);
	struct sleepy_app_change change;
	bool selected;

	KUNIT_ASSERT_NOT_NULL(test, apps);
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 100, "loop", true,
						 true, NULL, &change));
	KUNIT_EXPECT_EQ(test, 1U, change.appid);
	KUNIT_EXPECT_EQ(test, 1U, change.instance);
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 101, "loop", false,
						 true, NULL, &change));
	KUNIT_EXPECT_EQ(test, 2U, change.appid);
	KUNIT_EXPECT_EQ(test, 2U, change.instance);
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 102, "call", false,
						 true, NULL, &change));
	KUNIT_EXPECT_EQ(test, 1U, change.instance);

	KUNIT_EXPECT_EQ(test, 1U, sleepy_apps_lookup(apps, 100, &selected));
	KUNIT_EXPECT_TRUE(test, selected);
	KUNIT_EXPECT_EQ(test, 2U, sleepy_apps_lookup(apps, 101, &selected));
	KUNIT_EXPECT_FALSE(test, selected);
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_lookup(apps, 103, &selected));
	KUNIT_EXPECT_EQ(test, 3U, sleepy_apps_live(apps));
	sleepy_apps_destroy(apps);
}

static void sleepy_test_pid_reuse(struct kunit *test)
{
	struct sleepy_apps *apps = sleepy_apps_create(16);
	struct sleepy_app_change change;
	bool selected;
	u32 first;

	KUNIT_ASSERT_NOT_NULL(test, apps);
	KUNIT_ASSERT_EQ(test, 0, sleepy_apps_add(apps, 7, "sh", false, true, NULL,
						 &change));
	first = change.appid;
	KUNIT_EXPECT_EQ(test, -EEXIST, sleepy_apps_add(apps, 7, "sh", false,
						       false, NULL, &change));
	KUNIT_EXPECT_EQ(test, first, sleepy_apps_remove(apps, 7));
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_lookup(apps, 7, &selected));
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_remove(apps, 7));

	/* The same pid again: a new appid and the next instance. */
	KUNIT_ASSERT_EQ(test, 0, sleepy_apps_add(apps, 7, "sh", false, true, NULL,
						 &change));
	KUNIT_EXPECT_NE(test, first, change.appid);
	KUNIT_EXPECT_EQ(test, 2U, change.instance);
	KUNIT_EXPECT_EQ(test, 0U, change.old_appid);

	/* exec: the mapping is replaced and the old appid reported. */
	first = change.appid;
	KUNIT_ASSERT_EQ(test, 0, sleepy_apps_add(apps, 7, "true", false, true, NULL,
						 &change));
	KUNIT_EXPECT_EQ(test, first, change.old_appid);
	KUNIT_EXPECT_EQ(test, change.appid, sleepy_apps_lookup(apps, 7,
							       &selected));
	sleepy_apps_destroy(apps);
}

/*
 * The start walk passes the process's live thread count: a process whose
 * exit hook already ran (count zero) is not mapped, so it cannot leave a
 * mapping nobody removes.  Nothing else changes, no instance is counted.
 */
static void sleepy_test_dead_not_mapped(struct kunit *test)
{
	struct sleepy_apps *apps = sleepy_apps_create(16);
	struct sleepy_app_change change;
	atomic_t live = ATOMIC_INIT(0);
	bool selected;

	KUNIT_ASSERT_NOT_NULL(test, apps);
	KUNIT_EXPECT_EQ(test, -ESRCH, sleepy_apps_add(apps, 9, "zombie", true,
						      false, &live, &change));
	KUNIT_EXPECT_EQ(test, 0U, change.appid);
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_lookup(apps, 9, &selected));
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_live(apps));

	atomic_set(&live, 1);
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 9, "zombie", true,
						 false, &live, &change));
	KUNIT_EXPECT_EQ(test, 1U, change.instance);
	KUNIT_EXPECT_EQ(test, change.appid, sleepy_apps_lookup(apps, 9,
							       &selected));
	sleepy_apps_destroy(apps);
}

static void sleepy_test_overflow(struct kunit *test)
{
	struct sleepy_apps *apps = sleepy_apps_create(2);
	struct sleepy_app_change change;
	bool selected;

	KUNIT_ASSERT_NOT_NULL(test, apps);
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 1, "a", false, true, NULL,
						 &change));
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 2, "a", false, true, NULL,
						 &change));
	KUNIT_EXPECT_EQ(test, -ENOSPC, sleepy_apps_add(apps, 3, "a", false,
						       true, NULL, &change));
	KUNIT_EXPECT_EQ(test, 1ULL, apps->overflows);
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_lookup(apps, 3, &selected));

	/* A third name does not fit into the name table either. */
	sleepy_apps_remove(apps, 2);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 3, "b", false, true, NULL,
						 &change));
	KUNIT_EXPECT_EQ(test, -ENOSPC, sleepy_apps_add(apps, 4, "c", false,
						       true, NULL, &change));
	KUNIT_EXPECT_EQ(test, 2ULL, apps->overflows);
	sleepy_apps_destroy(apps);
}

#define SLEEPY_TEST_PIDS	64
#define SLEEPY_TEST_ROUNDS	2000

struct sleepy_test_writer {
	struct sleepy_apps *apps;
	pid_t first_pid;
	struct completion done;
	int errors;
};

static int sleepy_test_writer_fn(void *data)
{
	struct sleepy_test_writer *writer = data;
	struct sleepy_app_change change;
	int i;

	for (i = 0; i < SLEEPY_TEST_ROUNDS; i++) {
		pid_t pid = writer->first_pid + i % SLEEPY_TEST_PIDS;

		if (sleepy_apps_add(writer->apps, pid, "w", false, true, NULL,
				    &change))
			writer->errors++;
		if (i % 3 == 0 && !sleepy_apps_remove(writer->apps, pid))
			writer->errors++;
		cond_resched();
	}
	complete(&writer->done);
	return 0;
}

/* Two writers and a reader on one table: nothing lost, nothing stale. */
static void sleepy_test_concurrent(struct kunit *test)
{
	struct sleepy_test_writer writers[2];
	struct sleepy_apps *apps;
	struct task_struct *task;
	unsigned long lookups = 0;
	u32 expected_live = 0;
	bool selected;
	int i;

	/* Retired entries return after a grace period: room for all. */
	apps = sleepy_apps_create(2 * SLEEPY_TEST_ROUNDS + 2 * SLEEPY_TEST_PIDS);
	KUNIT_ASSERT_NOT_NULL(test, apps);
	for (i = 0; i < 2; i++) {
		writers[i] = (struct sleepy_test_writer) {
			.apps = apps,
			.first_pid = 1000 + i * SLEEPY_TEST_PIDS,
		};
		init_completion(&writers[i].done);
		task = kthread_run(sleepy_test_writer_fn, &writers[i],
				   "sleepy_test%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	while (!completion_done(&writers[0].done) ||
	       !completion_done(&writers[1].done)) {
		for (i = 1000; i < 1000 + 2 * SLEEPY_TEST_PIDS; i++)
			if (sleepy_apps_lookup(apps, i, &selected) >
			    2 * SLEEPY_TEST_ROUNDS)
				KUNIT_FAIL(test, "appid out of range");
		lookups++;
		cond_resched();
	}
	wait_for_completion(&writers[0].done);
	wait_for_completion(&writers[1].done);

	KUNIT_EXPECT_EQ(test, 0, writers[0].errors + writers[1].errors);
	KUNIT_EXPECT_EQ(test, 2U * SLEEPY_TEST_ROUNDS, apps->next_appid);
	/* A pid stays mapped if its last round did not remove it. */
	for (i = SLEEPY_TEST_ROUNDS - SLEEPY_TEST_PIDS; i < SLEEPY_TEST_ROUNDS; i++)
		expected_live += 2 * (i % 3 != 0);
	KUNIT_EXPECT_EQ(test, expected_live, sleepy_apps_live(apps));
	KUNIT_EXPECT_EQ(test, 0ULL, apps->overflows);
	KUNIT_EXPECT_GT(test, lookups, 0UL);
	sleepy_apps_destroy(apps);
}

/* Walks the records of sub-buffer @index of @cpu's buffer. */
static void sleepy_test_count(struct kunit *test, struct sleepy_buffer *buffer,
			      int cpu, size_t index, unsigned int *counts)
{
	struct rchan_buf *buf = *per_cpu_ptr(buffer->chan->buf, cpu);
	void *subbuf = buf->start + index * buffer->chan->subbuf_size;
	struct sleepy_subbuf_header *header = subbuf;
	struct sleepy_record_header *record;
	size_t offset = sizeof(*header);

	KUNIT_EXPECT_EQ(test, (u32)cpu, header->cpu);
	KUNIT_EXPECT_LE(test, header->committed, buffer->chan->subbuf_size);
	while (offset < header->committed) {
		record = subbuf + offset;
		if (record->size < sizeof(*record) || record->type >= 8 ||
		    record->cpu != cpu) {
			KUNIT_FAIL(test, "bad record at %zu", offset);
			break;
		}
		counts[record->type]++;
		offset += record->size;
	}
	KUNIT_EXPECT_EQ(test, offset, (size_t)header->committed);
}

static int sleepy_test_open(struct kunit *test, struct sleepy_buffer *buffer,
			    size_t size)
{
	return sleepy_buffer_open(buffer, size);
}

static void sleepy_test_close(struct kunit *test, struct sleepy_buffer *buffer)
{
	sleepy_buffer_close(buffer);
}

/* One CPU's counters as the session's ioctl reports them. */
static struct sleepy_cpu_counters
sleepy_test_counters(struct sleepy_buffer *buffer, unsigned int cpu)
{
	struct sleepy_cpu_counters counters = { .cpu = cpu };

	sleepy_buffer_count(buffer, cpu, &counters);
	return counters;
}

static bool sleepy_test_write_sample(struct sleepy_buffer *buffer, u32 tid)
{
	struct sleepy_sample sample = { .tid = tid, .appid = 1 };

	return sleepy_buffer_write(buffer, &sample, SLEEPY_REC_SAMPLE,
				   sizeof(sample));
}

/* Fill to the brim: every write either lands or is counted as dropped. */
static void sleepy_test_full(struct kunit *test)
{
	struct sleepy_buffer buffer;
	struct sleepy_buffer_stats *stats;
	struct sleepy_cpu_counters counters;
	unsigned int counts[8] = {}, written = 0, tries = 0;
	struct rchan_buf *buf;
	size_t i;
	int cpu;

	KUNIT_ASSERT_EQ(test, 0, sleepy_test_open(test, &buffer, 16384));
	cpu = get_cpu();
	buf = *per_cpu_ptr(buffer.chan->buf, cpu);
	stats = per_cpu_ptr(buffer.stats, cpu);
	for (tries = 0; tries < 1000; tries++)
		written += sleepy_test_write_sample(&buffer, tries);

	counters = sleepy_test_counters(&buffer, cpu);
	KUNIT_EXPECT_EQ(test, (u64)written, counters.samples);
	KUNIT_EXPECT_EQ(test, (u64)(tries - written), counters.dropped);
	KUNIT_EXPECT_GT(test, counters.dropped, 0ULL);
	/* Two sub-buffers stay free: one to move to, one for the flush. */
	KUNIT_EXPECT_EQ(test, buffer.chan->n_subbufs - 2, buf->subbufs_produced);
	for (i = 0; i <= buf->subbufs_produced; i++)
		sleepy_test_count(test, &buffer, cpu, i, counts);
	KUNIT_EXPECT_EQ(test, written, counts[SLEEPY_REC_SAMPLE]);

	/* The reader frees everything: the loss is reported first. */
	relay_subbufs_consumed(buffer.chan, cpu, buffer.chan->n_subbufs);
	KUNIT_EXPECT_TRUE(test, sleepy_test_write_sample(&buffer, 0));
	KUNIT_EXPECT_EQ(test, 0ULL, stats->lost_pending);
	i = buf->subbufs_produced % buffer.chan->n_subbufs;
	memset(counts, 0, sizeof(counts));
	sleepy_test_count(test, &buffer, cpu, i, counts);
	KUNIT_EXPECT_EQ(test, 1U, counts[SLEEPY_REC_LOST]);
	KUNIT_EXPECT_EQ(test, 1U, counts[SLEEPY_REC_SAMPLE]);
	put_cpu();
	sleepy_test_close(test, &buffer);
}

/* A reader that keeps up lets the writer wrap around without loss. */
static void sleepy_test_wrap(struct kunit *test)
{
	struct sleepy_buffer buffer;
	struct rchan_buf *buf;
	size_t consumed = 0;
	int cpu, i;

	KUNIT_ASSERT_EQ(test, 0, sleepy_test_open(test, &buffer, 16384));
	cpu = get_cpu();
	buf = *per_cpu_ptr(buffer.chan->buf, cpu);
	for (i = 0; i < 5000; i++) {
		if (!sleepy_test_write_sample(&buffer, i))
			break;
		if (buf->subbufs_produced > buf->subbufs_consumed) {
			relay_subbufs_consumed(buffer.chan, cpu, 1);
			consumed++;
		}
	}
	KUNIT_EXPECT_EQ(test, 5000, i);
	KUNIT_EXPECT_GT(test, consumed, 2 * buffer.chan->n_subbufs);
	KUNIT_EXPECT_EQ(test, 0ULL, sleepy_test_counters(&buffer, cpu).dropped);
	put_cpu();
	sleepy_test_close(test, &buffer);
}

static struct sleepy_buffer *sleepy_test_nested_buffer;
static unsigned int sleepy_test_nested_fired;

static enum hrtimer_restart sleepy_test_nested_fn(struct hrtimer *timer)
{
	sleepy_test_write_sample(sleepy_test_nested_buffer, 1);
	sleepy_test_nested_fired++;
	hrtimer_forward_now(timer, ns_to_ktime(20 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/*
 * A hard-irq writer interrupting a process-context writer on the same CPU:
 * every record stays whole and is counted.
 */
static void sleepy_test_nested(struct kunit *test)
{
	struct sleepy_buffer buffer;
	unsigned int counts[8] = {};
	struct sleepy_app_exit exit_rec = { .appid = 2 };
	struct hrtimer timer;
	unsigned int process_writes = 0;
	unsigned long end;
	struct rchan_buf *buf;
	size_t i;
	int cpu;

	KUNIT_ASSERT_EQ(test, 0, sleepy_test_open(test, &buffer, 1 << 20));
	sleepy_test_nested_buffer = &buffer;
	sleepy_test_nested_fired = 0;
	hrtimer_init(&timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	timer.function = sleepy_test_nested_fn;

	cpu = get_cpu();
	buf = *per_cpu_ptr(buffer.chan->buf, cpu);
	hrtimer_start(&timer, ns_to_ktime(20 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	/*
	 * Until the timer has interrupted the writes at least once: an
	 * emulated CPU may take its interrupt milliseconds late.
	 */
	end = jiffies + msecs_to_jiffies(200);
	while (time_before(jiffies, end) && process_writes < 20000 &&
	       (process_writes < 3000 || !READ_ONCE(sleepy_test_nested_fired)))
		process_writes += sleepy_buffer_write(&buffer, &exit_rec,
						      SLEEPY_REC_APP_EXIT,
						      sizeof(exit_rec));
	put_cpu();
	hrtimer_cancel(&timer);

	KUNIT_EXPECT_GT(test, sleepy_test_nested_fired, 0U);
	KUNIT_EXPECT_EQ(test, 0ULL, sleepy_test_counters(&buffer, cpu).dropped);
	KUNIT_ASSERT_LT(test, buf->subbufs_produced, buffer.chan->n_subbufs);
	for (i = 0; i <= buf->subbufs_produced; i++)
		sleepy_test_count(test, &buffer, cpu, i, counts);
	KUNIT_EXPECT_EQ(test, process_writes, counts[SLEEPY_REC_APP_EXIT]);
	KUNIT_EXPECT_EQ(test, sleepy_test_nested_fired,
			counts[SLEEPY_REC_SAMPLE]);
	sleepy_test_close(test, &buffer);
}

static struct kunit_case sleepy_test_cases[] = {
	KUNIT_CASE(sleepy_test_instances),
	KUNIT_CASE(sleepy_test_pid_reuse),
	KUNIT_CASE(sleepy_test_dead_not_mapped),
	KUNIT_CASE(sleepy_test_overflow),
	KUNIT_CASE(sleepy_test_concurrent),
	KUNIT_CASE(sleepy_test_full),
	KUNIT_CASE(sleepy_test_wrap),
	KUNIT_CASE(sleepy_test_nested),
	{}
};

static struct kunit_suite sleepy_test_suite = {
	.name = "sleepy",
	.test_cases = sleepy_test_cases,
};

kunit_test_suite(sleepy_test_suite);

MODULE_DESCRIPTION("KUnit tests for the sleepy profiler");
MODULE_LICENSE("GPL");
