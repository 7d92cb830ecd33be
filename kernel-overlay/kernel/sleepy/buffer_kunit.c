// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the sleepy per-CPU buffers: full buffers counting their
 * drops, or not for a writer that tries again, wrap-around behind a
 * reader, a hard-irq writer nesting over a process-context one.  The
 * tests build channels of their own,
 * independent of any running session, and read the buffers directly
 * through the relay structures.
 */
#include <kunit/test.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/relay.h>

#include "sleepy.h"

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

/*
 * A writer that can wait or try again (the start walk, a histogram flush)
 * finds the buffer full without a loss being counted or reported, and
 * without its has-room hint saying otherwise; the one that waits leaves a
 * sub-buffer to the others.
 */
static void sleepy_test_try_write(struct kunit *test)
{
	struct sleepy_sample sample = { .appid = 1 };
	struct sleepy_buffer buffer;
	unsigned int written = 0, tries;
	int cpu;

	KUNIT_ASSERT_EQ(test, 0, sleepy_test_open(test, &buffer, 16384));
	cpu = get_cpu();
	KUNIT_EXPECT_TRUE(test, sleepy_buffer_has_room(&buffer, cpu));
	for (tries = 0; tries < 1000; tries++)
		written += sleepy_buffer_try_write(&buffer, &sample,
						   SLEEPY_REC_SAMPLE,
						   sizeof(sample));
	KUNIT_EXPECT_LT(test, written, tries);
	KUNIT_EXPECT_EQ(test, 0ULL, sleepy_test_counters(&buffer, cpu).dropped);
	KUNIT_EXPECT_EQ(test, 0ULL,
			per_cpu_ptr(buffer.stats, cpu)->lost_pending);
	KUNIT_EXPECT_FALSE(test, sleepy_buffer_has_room(&buffer, cpu));
	relay_subbufs_consumed(buffer.chan, cpu, buffer.chan->n_subbufs);
	KUNIT_EXPECT_TRUE(test, sleepy_buffer_has_room(&buffer, cpu));

	/* A paced writer leaves a sub-buffer to those that cannot wait. */
	for (tries = 0; tries < 1000; tries++)
		if (!sleepy_buffer_write_paced(&buffer, &sample,
					       SLEEPY_REC_SAMPLE,
					       sizeof(sample)))
			break;
	KUNIT_EXPECT_LT(test, tries, 1000U);
	KUNIT_EXPECT_FALSE(test, sleepy_buffer_has_room(&buffer, cpu));
	KUNIT_EXPECT_TRUE(test, sleepy_test_write_sample(&buffer, 0));
	KUNIT_EXPECT_EQ(test, 0ULL, sleepy_test_counters(&buffer, cpu).dropped);
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
	struct rchan_buf *buf;
	ktime_t end, next;
	size_t i;
	int cpu;

	KUNIT_ASSERT_EQ(test, 0, sleepy_test_open(test, &buffer, 1 << 20));
	sleepy_test_nested_buffer = &buffer;
	sleepy_test_nested_fired = 0;
	/* On the stack: debugobjects must know it as such. */
	hrtimer_init_on_stack(&timer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	timer.function = sleepy_test_nested_fn;

	cpu = get_cpu();
	buf = *per_cpu_ptr(buffer.chan->buf, cpu);
	hrtimer_start(&timer, ns_to_ktime(20 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	/*
	 * Until the timer has interrupted the writes at least once.  A
	 * virtual CPU on a loaded host may take its interrupts a long
	 * time late, the tick's too: the deadline is the clocksource's,
	 * not jiffies, and past 3000 writes one is written every 50 us
	 * (spinning: preemption is off), so that the writes wait about a
	 * second for the timer in half the buffer.
	 */
	end = ktime_add_ms(ktime_get(), 1000);
	next = 0;
	while (process_writes < 3000 ||
	       (!READ_ONCE(sleepy_test_nested_fired) && process_writes < 20000 &&
		ktime_before(ktime_get(), end))) {
		while (process_writes >= 3000 && ktime_before(ktime_get(), next))
			cpu_relax();
		next = ktime_add_us(ktime_get(), 50);
		process_writes += sleepy_buffer_write(&buffer, &exit_rec,
						      SLEEPY_REC_APP_EXIT,
						      sizeof(exit_rec));
	}
	put_cpu();
	hrtimer_cancel(&timer);
	destroy_hrtimer_on_stack(&timer);

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

static struct kunit_case sleepy_buffer_test_cases[] = {
	KUNIT_CASE(sleepy_test_full),
	KUNIT_CASE(sleepy_test_try_write),
	KUNIT_CASE(sleepy_test_wrap),
	KUNIT_CASE(sleepy_test_nested),
	{}
};

static struct kunit_suite sleepy_buffer_test_suite = {
	.name = "sleepy_buffer",
	.test_cases = sleepy_buffer_test_cases,
};

kunit_test_suite(sleepy_buffer_test_suite);
