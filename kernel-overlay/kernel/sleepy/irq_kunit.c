// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of how sleepy splits interrupt time when handlers nest: a
 * softirq interrupted by a timer, a demultiplexing IRQ running its
 * children, and an action of a shared line.  They drive the functions the
 * probes use with times of their own, so the expected own times are exact.
 * And a full histogram table, whose catch-all entry names no action, and
 * a shared line whose next action is unlinked while its handlers run.
 */
#include <kunit/test.h>
#include <linux/irqflags.h>
#include <asm/irq_vectors.h>

#include "irq.h"
#include "sleepy.h"

/* A timer interrupt at 10..30 inside a softirq at 0..100. */
static void sleepy_test_softirq_with_timer(struct kunit *test)
{
	struct sleepy_irq_run softirq, timer;
	u64 nested = 0;

	sleepy_irq_run_begin(&softirq, nested, 0);
	sleepy_irq_run_begin(&timer, nested, 10);
	KUNIT_EXPECT_EQ(test, 20ULL, sleepy_irq_run_end(&timer, &nested, 30, true));
	KUNIT_EXPECT_EQ(test, 80ULL,
			sleepy_irq_run_end(&softirq, &nested, 100, false));
	/* A softirq's time is no hard interrupt's to take off. */
	KUNIT_EXPECT_EQ(test, 20ULL, nested);
}

/* A parent IRQ at 0..100 runs a child at 10..50, which runs one at 20..30. */
static void sleepy_test_demultiplexed(struct kunit *test)
{
	struct sleepy_irq_run parent, child, grandchild;
	u64 nested = 1000;	/* what the CPU finished before */

	sleepy_irq_run_begin(&parent, nested, 0);
	sleepy_irq_run_begin(&child, nested, 10);
	sleepy_irq_run_begin(&grandchild, nested, 20);
	KUNIT_EXPECT_EQ(test, 10ULL,
			sleepy_irq_run_end(&grandchild, &nested, 30, true));
	KUNIT_EXPECT_EQ(test, 30ULL, sleepy_irq_run_end(&child, &nested, 50, true));
	KUNIT_EXPECT_EQ(test, 60ULL,
			sleepy_irq_run_end(&parent, &nested, 100, true));
	/* Each nanosecond once: the three own times make the parent's wall. */
	KUNIT_EXPECT_EQ(test, 1100ULL, nested);
}

/*
 * An action of a shared line at 0..40, with a timer at 5..15 in it, is
 * 30 ns of its own and adds nothing: its IRQ adds its own at its exit.
 */
static void sleepy_test_action(struct kunit *test)
{
	struct sleepy_irq_run irq, action, timer;
	u64 nested = 0;

	sleepy_irq_run_begin(&irq, nested, 0);
	sleepy_irq_run_begin(&action, nested, 0);
	sleepy_irq_run_begin(&timer, nested, 5);
	sleepy_irq_run_end(&timer, &nested, 15, true);
	KUNIT_EXPECT_EQ(test, 30ULL, sleepy_irq_run_end(&action, &nested, 40,
							false));
	KUNIT_EXPECT_EQ(test, 10ULL, nested);
	KUNIT_EXPECT_EQ(test, 35ULL, sleepy_irq_run_end(&irq, &nested, 45, true));
}

/*
 * More shared-line actions than the table has slots: every one is counted
 * somewhere, the last ones in the catch-all entry, which stands for other
 * IRQs and other actions, not for action 0.
 */
static void sleepy_test_full_table(struct kunit *test)
{
	struct sleepy_irq_cpu *cpu = kunit_kzalloc(test, sizeof(*cpu),
						   GFP_KERNEL);
	struct sleepy_irq_hist_slot *slot, *other = NULL;
	u32 action;

	KUNIT_ASSERT_NOT_NULL(test, cpu);
	for (action = 0; action <= SLEEPY_IRQ_HIST_SLOTS; action++) {
		slot = sleepy_irq_hist_slot(cpu, SLEEPY_IRQ_ACTION, 10, action);
		if (slot->number == SLEEPY_IRQ_OTHER)
			other = slot;
		else
			KUNIT_EXPECT_EQ(test, action, slot->action);
	}
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_EXPECT_EQ(test, SLEEPY_IRQ_ACTION + 1, other->kind);
	KUNIT_EXPECT_EQ(test, SLEEPY_IRQ_OTHER, other->action);
}

/*
 * The probes of a shared line's first action, whose next one free_irq()
 * unlinks after the exit looked (the handler loop ends), then of what the
 * CPU handles next: the line's frame ends by then, so the CPU is back at
 * depth 0 after it, not stuck a frame deep.
 */
static u32 sleepy_depth_after_unlink(struct irqaction *then, int then_irq)
{
	struct irqaction second = {}, first = { .next = &second };
	unsigned long flags;
	u32 depth;

	local_irq_save(flags);
	sleepy_probe_irq_entry(NULL, 10, &first);
	sleepy_probe_irq_exit(NULL, 10, &first, IRQ_HANDLED);
	first.next = NULL;
	if (then) {
		sleepy_probe_irq_entry(NULL, then_irq, then);
		sleepy_probe_irq_exit(NULL, then_irq, then, IRQ_HANDLED);
	} else {
		sleepy_probe_vector_entry(NULL, LOCAL_TIMER_VECTOR);
		sleepy_probe_vector_exit(NULL, LOCAL_TIMER_VECTOR);
	}
	depth = sleepy_irq_depth();
	local_irq_restore(flags);
	return depth;
}

static void sleepy_test_unlinked_action(struct kunit *test)
{
	struct irqaction other = {};

	/* A timer interrupt, another line, the same line's first again. */
	KUNIT_EXPECT_EQ(test, 0U, sleepy_depth_after_unlink(NULL, 0));
	KUNIT_EXPECT_EQ(test, 0U, sleepy_depth_after_unlink(&other, 11));
	KUNIT_EXPECT_EQ(test, 0U, sleepy_depth_after_unlink(&other, 10));
}

static struct kunit_case sleepy_irq_test_cases[] = {
	KUNIT_CASE(sleepy_test_softirq_with_timer),
	KUNIT_CASE(sleepy_test_demultiplexed),
	KUNIT_CASE(sleepy_test_action),
	KUNIT_CASE(sleepy_test_full_table),
	KUNIT_CASE(sleepy_test_unlinked_action),
	{}
};

static struct kunit_suite sleepy_irq_test_suite = {
	.name = "sleepy_irq",
	.test_cases = sleepy_irq_test_cases,
};

kunit_test_suite(sleepy_irq_test_suite);
