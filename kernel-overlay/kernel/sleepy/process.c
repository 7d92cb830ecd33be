// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: the process hooks, which keep the appid tables of the running
 * session and announce application instances in the stream.
 *
 * Writers: probes on the sched_process_fork, sched_process_exec and
 * sched_process_exit tracepoints (process context, preemption off, the
 * task's own CPU buffer), registered with each session, and, at session
 * start, the walk over the existing processes (walk.c), which maps each
 * of them here and writes the announcement itself, at the pace of the
 * reader.  The tables serialise them (apps.c); the probes find the
 * session through the RCU pointer sleepy_live inside their read-side
 * section, so they do nothing before it is published or after the stop
 * cleared it, and the stop's grace period waits for the others.
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
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sleepy.h>
#include <trace/events/sched.h>

#include "sleepy.h"

/*
 * get_task_comm() takes the task lock, which sleeps on PREEMPT_RT, and the
 * probes run with preemption off.  A rename racing with the copy (prctl,
 * a write to /proc/PID/comm) may give a mix of the two names, always
 * terminated, as the lockless get_task_comm() of later kernels does.
 */
static void sleepy_task_comm(char *comm, struct task_struct *task)
{
	strscpy_pad(comm, task->comm, TASK_COMM_LEN);
}

static void sleepy_app_start_fill(struct sleepy_app_start *rec,
				  const struct sleepy_app_change *change,
				  pid_t pid, const char *comm,
				  u32 parent_appid, u64 time_ns)
{
	*rec = (struct sleepy_app_start) {
		.appid = change->appid,
		.parent_appid = parent_appid,
		.pid = pid,
		.instance = change->instance,
		.time_ns = time_ns,
	};
	strscpy_pad(rec->name, comm);
}

static void sleepy_write_app_start(struct sleepy_session *session,
				   const struct sleepy_app_change *change,
				   pid_t pid, const char *comm,
				   u32 parent_appid, u64 time_ns)
{
	struct sleepy_app_start rec;

	sleepy_app_start_fill(&rec, change, pid, comm, parent_appid, time_ns);
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

	sleepy_task_comm(comm, task);
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

/*
 * A new thread group gets an appid once it is visible to pid lookups and
 * before it first runs (sched_process_fork, in the parent's context).
 */
static void sleepy_probe_fork(void *unused, struct task_struct *parent,
			      struct task_struct *child)
{
	struct sleepy_session *session;
	u32 parent_appid;

	if (!thread_group_leader(child))
		return;

	rcu_read_lock();
	session = rcu_dereference(sleepy_live);
	if (session) {
		parent_appid = sleepy_apps_lookup(session->apps, parent->tgid);
		if (!session->filter || sleepy_is_filter(session, child) ||
		    (parent_appid != SLEEPY_APPID_UNKNOWN &&
		     (session->attr.flags & SLEEPY_FLAG_FOLLOW_CHILDREN)))
			sleepy_app_begin(session, child, parent_appid, false,
					 NULL, sleepy_now());
	}
	rcu_read_unlock();
}

/* A successful exec starts a new instance (sched_process_exec). */
static void sleepy_probe_exec(void *unused, struct task_struct *task,
			      pid_t old_pid, struct linux_binprm *bprm)
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

/*
 * The thread group's last live thread retires its appid before the pid
 * can be reused (sched_process_exit, after do_exit() counted the thread
 * out of signal->live).  A thread that finds the count at zero after the
 * last one retires it as well: the second removal finds nothing.
 */
static void sleepy_probe_exit(void *unused, struct task_struct *task)
{
	struct sleepy_session *session;

	if (atomic_read(&task->signal->live))
		return;
	rcu_read_lock();
	session = rcu_dereference(sleepy_live);
	if (session)
		sleepy_write_app_exit(session,
				      sleepy_apps_remove(session->apps,
							 task->tgid),
				      task->tgid);
	rcu_read_unlock();
}

SLEEPY_PROBE(sched_process_exit, sleepy_probe_exit)
SLEEPY_PROBE(sched_process_exec, sleepy_probe_exec)
SLEEPY_PROBE(sched_process_fork, sleepy_probe_fork)

static const struct sleepy_probe sleepy_process_probes[] = {
	SLEEPY_PROBE_OF(sched_process_exit),
	SLEEPY_PROBE_OF(sched_process_exec),
	SLEEPY_PROBE_OF(sched_process_fork),
};

/**
 * sleepy_process_attach - keep @session's appid tables from now on
 * @session: the session being created
 *
 * Registers the probes on fork, exec and exit; they do nothing until the
 * session is published.  Process context.  Returns 0 or a negative
 * errno.
 */
int sleepy_process_attach(struct sleepy_session *session)
{
	return sleepy_probes_attach(&session->process_attached,
				    sleepy_process_probes,
				    ARRAY_SIZE(sleepy_process_probes));
}

/* Once the session is unpublished; waits until no probe runs. */
void sleepy_process_detach(struct sleepy_session *session)
{
	sleepy_probes_detach(&session->process_attached, sleepy_process_probes,
			     ARRAY_SIZE(sleepy_process_probes));
}

/**
 * sleepy_app_map_existing - map a process that ran before the session
 * @session: the session, published to the hooks
 * @task: a thread group leader, referenced; under RCU
 * @rec: filled with its announcement, for the caller to write
 *
 * For the start walk (walk.c): a mapping the hooks made meanwhile is kept,
 * and a process whose exit hook ran is not mapped.  Returns whether @rec
 * is to be written.
 */
bool sleepy_app_map_existing(struct sleepy_session *session,
			     struct task_struct *task,
			     struct sleepy_app_start *rec)
{
	struct sleepy_app_change change;
	char comm[TASK_COMM_LEN];

	if (!sleepy_selected(session, task))
		return false;
	sleepy_task_comm(comm, task);
	if (sleepy_apps_add(session->apps, task->tgid, comm, false,
			    &task->signal->live, &change))
		return false;
	sleepy_app_start_fill(rec, &change, task->tgid, comm,
			      SLEEPY_APPID_UNKNOWN, session->start_ns);
	return true;
}
