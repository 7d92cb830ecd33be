// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: the process hooks, which keep the appid tables of the running
 * session and announce application instances in the stream.
 *
 * Writers: the fork, exec and exit hooks (process context, the task's own
 * CPU buffer) and, at session start, one walk over the existing processes
 * per online CPU (a kworker bound to that CPU), each walk taking its share
 * of the processes, so the announcements spread over every CPU's buffer
 * (maps.c walks the same way for the processes' mappings).
 * The tables serialise them (apps.c); the hooks find the session through
 * the RCU pointer sleepy_live inside their read-side section, so a hook
 * preempted between the static key and that section finds NULL once the
 * session stopped, and the stop's grace period waits for the others.
 *
 * Races with the start walk, which runs after the hooks are on:
 *  - a child the walk meets before its fork hook ran keeps the walk's
 *    mapping (the fork hook does not replace one);
 *  - a process whose exit hook ran (signal->live is zero) is never mapped
 *    by the walk: the check is made under the tables' lock, after which
 *    the exit hook's removal can only come later and undo the mapping;
 *  - an exec replaces the mapping either way, as it would after the start.
 * With a pid filter only the selected processes are mapped and announced,
 * so there a process is selected exactly when it has an appid.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sleepy.h>
#include <linux/workqueue.h>

#include "sleepy.h"

static void sleepy_write_app_start(struct sleepy_session *session,
				   const struct sleepy_app_change *change,
				   pid_t pid, const char *comm,
				   u32 parent_appid, u64 time_ns)
{
	struct sleepy_app_start rec = {
		.appid = change->appid,
		.parent_appid = parent_appid,
		.pid = pid,
		.instance = change->instance,
		.time_ns = time_ns,
	};

	strscpy_pad(rec.name, comm);
	sleepy_buffer_write(&session->buffer, &rec, SLEEPY_REC_APP_START,
			    sizeof(rec));
}

static void sleepy_write_app_exit(struct sleepy_session *session, u32 appid,
				  pid_t pid)
{
	struct sleepy_app_exit rec = {
		.appid = appid,
		.pid = pid,
		.time_ns = sleepy_now(),
	};

	if (appid != SLEEPY_APPID_UNKNOWN)
		sleepy_buffer_write(&session->buffer, &rec, SLEEPY_REC_APP_EXIT,
				    sizeof(rec));
}

/*
 * Maps @task's thread group to a new appid and announces it; @replace and
 * @live as for sleepy_apps_add().  Process context, RCU read-side.
 */
static void sleepy_app_begin(struct sleepy_session *session,
			     struct task_struct *task, u32 parent_appid,
			     bool replace, const atomic_t *live, u64 time_ns)
{
	struct sleepy_app_change change;
	char comm[TASK_COMM_LEN];
	int err;

	get_task_comm(comm, task);
	err = sleepy_apps_add(session->apps, task->tgid, comm, replace, live,
			      &change);
	sleepy_write_app_exit(session, change.old_appid, task->tgid);
	if (!err)
		sleepy_write_app_start(session, &change, task->tgid, comm,
				       parent_appid, time_ns);
}

/* Whether @task's process passes the pid filter by itself (RCU). */
static bool sleepy_is_filter(struct sleepy_session *session,
			     struct task_struct *task)
{
	return task_tgid(task) == session->filter;
}

/**
 * sleepy_selected - whether the process of @task is to be profiled
 * @session: the session
 * @task: a task, under RCU
 *
 * Every process without a pid filter; with one, the filtered process and,
 * with SLEEPY_FLAG_FOLLOW_CHILDREN, its descendants.
 */
bool sleepy_selected(struct sleepy_session *session, struct task_struct *task)
{
	struct task_struct *parent;

	if (!session->filter || sleepy_is_filter(session, task))
		return true;
	if (!(session->attr.flags & SLEEPY_FLAG_FOLLOW_CHILDREN))
		return false;
	for (parent = task; parent->pid > 1;
	     parent = rcu_dereference(parent->real_parent))
		if (sleepy_is_filter(session, parent))
			return true;
	return false;
}

void __sleepy_fork(struct task_struct *child)
{
	struct sleepy_session *session;
	u32 parent_appid;

	if (!thread_group_leader(child))
		return;

	rcu_read_lock();
	session = rcu_dereference(sleepy_live);
	if (session) {
		parent_appid = sleepy_apps_lookup(session->apps, current->tgid);
		if (!session->filter || sleepy_is_filter(session, child) ||
		    (parent_appid != SLEEPY_APPID_UNKNOWN &&
		     (session->attr.flags & SLEEPY_FLAG_FOLLOW_CHILDREN)))
			sleepy_app_begin(session, child, parent_appid, false,
					 NULL, sleepy_now());
	}
	rcu_read_unlock();
}

void __sleepy_exec(struct task_struct *task)
{
	struct sleepy_session *session;
	u32 old_appid;

	rcu_read_lock();
	session = rcu_dereference(sleepy_live);
	if (session) {
		old_appid = sleepy_apps_lookup(session->apps, task->tgid);
		if (old_appid != SLEEPY_APPID_UNKNOWN || !session->filter ||
		    sleepy_is_filter(session, task))
			sleepy_app_begin(session, task, old_appid, true, NULL,
					 sleepy_now());
	}
	rcu_read_unlock();
}

void __sleepy_exit(struct task_struct *task)
{
	struct sleepy_session *session;

	rcu_read_lock();
	session = rcu_dereference(sleepy_live);
	if (session)
		sleepy_write_app_exit(session,
				      sleepy_apps_remove(session->apps,
							 task->tgid),
				      task->tgid);
	rcu_read_unlock();
}

/* One CPU's share of the existing processes, on that CPU. */
static void sleepy_walk_share(struct work_struct *work)
{
	struct sleepy_walk *walk = container_of(work, struct sleepy_walk, work);
	struct sleepy_session *session = walk->session;
	struct task_struct *task;

	rcu_read_lock();
	for_each_process(task) {
		if ((unsigned int)task->tgid % walk->shares != walk->share ||
		    !sleepy_selected(session, task))
			continue;
		sleepy_app_begin(session, task, SLEEPY_APPID_UNKNOWN, false,
				 &task->signal->live, session->start_ns);
	}
	rcu_read_unlock();
}

/**
 * sleepy_walk_shares - run @fn on every online CPU, and wait for them
 * @session: the session
 * @fn: the work of one CPU, given a struct sleepy_walk: its share of the
 *	processes is those whose tgid modulo @shares is @share
 *
 * Spreads what the walks write over every CPU's buffer.  The CPUs are
 * those online at the call; a CPU that goes down meanwhile has its work
 * run elsewhere, so every share is walked.  Process context.
 */
void sleepy_walk_shares(struct sleepy_session *session, work_func_t fn)
{
	unsigned int cpu, shares, share = 0;
	struct sleepy_walk *walks;
	cpumask_var_t cpus;

	if (!alloc_cpumask_var(&cpus, GFP_KERNEL))
		goto one_walk;
	cpumask_copy(cpus, cpu_online_mask);
	shares = cpumask_weight(cpus);
	walks = kcalloc(shares, sizeof(*walks), GFP_KERNEL);
	if (!walks) {
		free_cpumask_var(cpus);
		goto one_walk;
	}
	for_each_cpu(cpu, cpus) {
		walks[share] = (struct sleepy_walk) {
			.session = session,
			.share = share,
			.shares = shares,
		};
		INIT_WORK(&walks[share].work, fn);
		schedule_work_on(cpu, &walks[share].work);
		share++;
	}
	for (share = 0; share < shares; share++)
		flush_work(&walks[share].work);
	kfree(walks);
	free_cpumask_var(cpus);
	return;

one_walk: {
		/* Still every process, from this CPU. */
		struct sleepy_walk walk = { .session = session, .shares = 1 };

		fn(&walk.work);
	}
}

/**
 * sleepy_announce_existing - map and announce every process already running
 * @session: the session, published to the hooks
 *
 * Mappings the hooks made meanwhile are kept.
 */
void sleepy_announce_existing(struct sleepy_session *session)
{
	sleepy_walk_shares(session, sleepy_walk_share);
}
