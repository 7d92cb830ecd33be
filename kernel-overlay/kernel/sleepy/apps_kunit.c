// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the sleepy appid tables: instances, pid reuse, exited
 * processes, overflow, and concurrent inserts and deletes against RCU
 * lookups.  The tests build tables of their own, independent of any
 * running session.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>

#include "sleepy.h"

static void sleepy_test_instances(struct kunit *test)
{
	struct sleepy_apps *apps = sleepy_apps_create(16);
	struct sleepy_app_change change;

	KUNIT_ASSERT_NOT_NULL(test, apps);
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 100, "loop",
						 true, NULL, &change));
	KUNIT_EXPECT_EQ(test, 1U, change.appid);
	KUNIT_EXPECT_EQ(test, 1U, change.instance);
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 101, "loop",
						 true, NULL, &change));
	KUNIT_EXPECT_EQ(test, 2U, change.appid);
	KUNIT_EXPECT_EQ(test, 2U, change.instance);
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 102, "call",
						 true, NULL, &change));
	KUNIT_EXPECT_EQ(test, 1U, change.instance);

	KUNIT_EXPECT_EQ(test, 1U, sleepy_apps_lookup(apps, 100));
	KUNIT_EXPECT_EQ(test, 2U, sleepy_apps_lookup(apps, 101));
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_lookup(apps, 103));
	KUNIT_EXPECT_EQ(test, 3U, sleepy_apps_live(apps));
	sleepy_apps_destroy(apps);
}

static void sleepy_test_pid_reuse(struct kunit *test)
{
	struct sleepy_apps *apps = sleepy_apps_create(16);
	struct sleepy_app_change change;
	u32 first;

	KUNIT_ASSERT_NOT_NULL(test, apps);
	KUNIT_ASSERT_EQ(test, 0, sleepy_apps_add(apps, 7, "sh", true, NULL,
						 &change));
	first = change.appid;
	KUNIT_EXPECT_EQ(test, -EEXIST, sleepy_apps_add(apps, 7, "sh",
						       false, NULL, &change));
	KUNIT_EXPECT_EQ(test, first, sleepy_apps_remove(apps, 7));
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_lookup(apps, 7));
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_remove(apps, 7));

	/* The same pid again: a new appid and the next instance. */
	KUNIT_ASSERT_EQ(test, 0, sleepy_apps_add(apps, 7, "sh", true, NULL,
						 &change));
	KUNIT_EXPECT_NE(test, first, change.appid);
	KUNIT_EXPECT_EQ(test, 2U, change.instance);
	KUNIT_EXPECT_EQ(test, 0U, change.old_appid);

	/* exec: the mapping is replaced and the old appid reported. */
	first = change.appid;
	KUNIT_ASSERT_EQ(test, 0, sleepy_apps_add(apps, 7, "true", true, NULL,
						 &change));
	KUNIT_EXPECT_EQ(test, first, change.old_appid);
	KUNIT_EXPECT_EQ(test, change.appid, sleepy_apps_lookup(apps, 7));
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

	KUNIT_ASSERT_NOT_NULL(test, apps);
	KUNIT_EXPECT_EQ(test, -ESRCH, sleepy_apps_add(apps, 9, "zombie",
						      false, &live, &change));
	KUNIT_EXPECT_EQ(test, 0U, change.appid);
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_lookup(apps, 9));
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_live(apps));

	atomic_set(&live, 1);
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 9, "zombie",
						 false, &live, &change));
	KUNIT_EXPECT_EQ(test, 1U, change.instance);
	KUNIT_EXPECT_EQ(test, change.appid, sleepy_apps_lookup(apps, 9));
	sleepy_apps_destroy(apps);
}

static void sleepy_test_overflow(struct kunit *test)
{
	struct sleepy_apps *apps = sleepy_apps_create(2);
	struct sleepy_app_change change;

	KUNIT_ASSERT_NOT_NULL(test, apps);
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 1, "a", true, NULL,
						 &change));
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 2, "a", true, NULL,
						 &change));
	KUNIT_EXPECT_EQ(test, -ENOSPC, sleepy_apps_add(apps, 3, "a",
						       true, NULL, &change));
	KUNIT_EXPECT_EQ(test, 1ULL, apps->overflows);
	KUNIT_EXPECT_EQ(test, 0U, sleepy_apps_lookup(apps, 3));

	/* A third name does not fit into the name table either. */
	sleepy_apps_remove(apps, 2);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, 0, sleepy_apps_add(apps, 3, "b", true, NULL,
						 &change));
	KUNIT_EXPECT_EQ(test, -ENOSPC, sleepy_apps_add(apps, 4, "c",
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
	/* Completed by the reader once it has seen a mapping. */
	struct completion *reader_saw;
	int errors;
	/* The appid each pid should map to now, 0 after a removal. */
	u32 expected[SLEEPY_TEST_PIDS];
	/* The pid each appid was given to; 0 until the writer wrote it. */
	pid_t *owner;
};

static int sleepy_test_writer_fn(void *data)
{
	struct sleepy_test_writer *writer = data;
	struct sleepy_app_change change;
	int i;

	for (i = 0; i < SLEEPY_TEST_ROUNDS; i++) {
		pid_t pid = writer->first_pid + i % SLEEPY_TEST_PIDS;

		if (sleepy_apps_add(writer->apps, pid, "w", true, NULL,
				    &change)) {
			writer->errors++;
			continue;
		}
		WRITE_ONCE(writer->owner[change.appid], pid);
		writer->expected[i % SLEEPY_TEST_PIDS] = change.appid;
		if (i % 3 == 0) {
			if (sleepy_apps_remove(writer->apps, pid) != change.appid)
				writer->errors++;
			writer->expected[i % SLEEPY_TEST_PIDS] = 0;
		}
		/*
		 * Halfway, wait until the reader has found a mapping, so that
		 * it reads while the table changes however the threads are
		 * scheduled; the timeout lets the test fail rather than hang.
		 */
		if (i == SLEEPY_TEST_ROUNDS / 2)
			wait_for_completion_timeout(writer->reader_saw, 10 * HZ);
		cond_resched();
	}
	complete(&writer->done);
	return 0;
}

/*
 * Two writers and a reader on one table.  The reader never sees an appid
 * that was given to another pid; at the end every pid maps to the appid
 * of its last add, or to nothing if its last round removed it.
 */
static void sleepy_test_concurrent(struct kunit *test)
{
	struct sleepy_test_writer *writers;
	struct completion reader_saw;
	struct sleepy_apps *apps;
	struct task_struct *task;
	unsigned long hits = 0;
	u32 live = 0;
	pid_t *owner;
	int i, w;

	writers = kunit_kcalloc(test, 2, sizeof(*writers), GFP_KERNEL);
	owner = kunit_kcalloc(test, 2 * SLEEPY_TEST_ROUNDS + 1, sizeof(*owner),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, writers);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	/* Retired entries return after a grace period: room for all. */
	apps = sleepy_apps_create(2 * SLEEPY_TEST_ROUNDS + 2 * SLEEPY_TEST_PIDS);
	KUNIT_ASSERT_NOT_NULL(test, apps);
	init_completion(&reader_saw);
	for (w = 0; w < 2; w++) {
		writers[w].apps = apps;
		writers[w].first_pid = 1000 + w * SLEEPY_TEST_PIDS;
		writers[w].owner = owner;
		writers[w].reader_saw = &reader_saw;
		init_completion(&writers[w].done);
		task = kthread_run(sleepy_test_writer_fn, &writers[w],
				   "sleepy_test%d", w);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	while (!completion_done(&writers[0].done) ||
	       !completion_done(&writers[1].done)) {
		for (i = 1000; i < 1000 + 2 * SLEEPY_TEST_PIDS; i++) {
			u32 appid = sleepy_apps_lookup(apps, i);
			pid_t given_to;

			if (!appid)
				continue;
			hits++;
			if (appid > 2 * SLEEPY_TEST_ROUNDS) {
				KUNIT_FAIL(test, "pid %d: appid %u out of range",
					   i, appid);
				continue;
			}
			given_to = READ_ONCE(owner[appid]);
			if (given_to && given_to != i)
				KUNIT_FAIL(test, "pid %d: appid %u of pid %d",
					   i, appid, given_to);
		}
		if (hits)
			complete_all(&reader_saw);
		cond_resched();
	}
	wait_for_completion(&writers[0].done);
	wait_for_completion(&writers[1].done);

	KUNIT_EXPECT_EQ(test, 0, writers[0].errors + writers[1].errors);
	KUNIT_EXPECT_EQ(test, 2U * SLEEPY_TEST_ROUNDS, apps->next_appid);
	for (w = 0; w < 2; w++) {
		for (i = 0; i < SLEEPY_TEST_PIDS; i++) {
			KUNIT_EXPECT_EQ_MSG(test, writers[w].expected[i],
					    sleepy_apps_lookup(apps, writers[w].first_pid + i),
					    "pid %d", writers[w].first_pid + i);
			live += !!writers[w].expected[i];
		}
	}
	KUNIT_EXPECT_EQ(test, live, sleepy_apps_live(apps));
	KUNIT_EXPECT_EQ(test, 0ULL, apps->overflows);
	/* The writers waited for the reader, or it checked nothing. */
	KUNIT_EXPECT_GT(test, hits, 0UL);
	sleepy_apps_destroy(apps);
}

static struct kunit_case sleepy_apps_test_cases[] = {
	KUNIT_CASE(sleepy_test_instances),
	KUNIT_CASE(sleepy_test_pid_reuse),
	KUNIT_CASE(sleepy_test_dead_not_mapped),
	KUNIT_CASE(sleepy_test_overflow),
	KUNIT_CASE(sleepy_test_concurrent),
	{}
};

static struct kunit_suite sleepy_apps_test_suite = {
	.name = "sleepy_apps",
	.test_cases = sleepy_apps_test_cases,
};

kunit_test_suite(sleepy_apps_test_suite);
