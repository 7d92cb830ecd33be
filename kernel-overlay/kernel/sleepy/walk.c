// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: the start walk, which announces the processes that ran before
 * the session and writes their executable mappings, at the pace of the
 * reader, before sampling begins.
 *
 * Writer: one kthread per session, started once the session is published
 * to the process hooks (so no process escapes both) and its file
 * descriptor handed out (so a reader can drain while it writes).  It finds
 * the processes one at a time by pid, each under a short RCU section and
 * then held by a reference, so the walk is linear in the processes, never
 * holds RCU for long and may sleep.  Records go into the buffer of the CPU
 * it runs on with sleepy_buffer_write_paced(): one that does not fit is no
 * loss, the walk moves to a CPU whose buffer has room or, with none, waits
 * a tick for the reader and writes it again.  A session on a busy machine
 * therefore loses nothing of its start, however small its buffers; one
 * whose reader never reads waits until it is stopped.
 *
 * Sleeping: never with an mmap_lock held (maps.c drops it to wait), and
 * the lock is taken with a trylock that polls, since a kthread gets no
 * fatal signal: a process whose mmap_lock hangs (a writer queued behind a
 * reader stuck on a dead network mount) delays its own mappings only.
 *
 * Stop: the session's stop, under the session lock, kthread_stop()s the
 * walk; every wait checks for it, so the stop waits at most for one
 * process's record or one tick.  The walk never takes the session lock.
 * When it is done it starts sampling (sleepy_sampling_begin()).
 */
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/mmap_lock.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "sleepy.h"

/**
 * sleepy_walk_wait_room - until a buffer may have room for the walk's record
 * @session: the session
 *
 * Moves the walk to another online CPU whose buffer has a free
 * sub-buffer, or sleeps a tick for the reader.  Returns 0 to try again,
 * or -EINTR if the session is stopping.
 */
int sleepy_walk_wait_room(struct sleepy_session *session)
{
	unsigned int cpu, here = raw_smp_processor_id();

	for_each_online_cpu(cpu) {
		if (cpu != here &&
		    sleepy_buffer_has_room(&session->buffer, cpu) &&
		    !set_cpus_allowed_ptr(current, cpumask_of(cpu)))
			return 0;
	}
	if (kthread_should_stop())
		return -EINTR;
	schedule_timeout_interruptible(1);
	return kthread_should_stop() ? -EINTR : 0;
}

/**
 * sleepy_walk_lock_mm - read-lock @mm, unless the session stops first
 * @mm: a process's mm
 *
 * Returns 0 with @mm read-locked, or -EINTR.
 */
int sleepy_walk_lock_mm(struct mm_struct *mm)
{
	while (!mmap_read_trylock(mm)) {
		if (kthread_should_stop())
			return -EINTR;
		schedule_timeout_interruptible(1);
	}
	return 0;
}

/* Writes @record, waiting for room; 0 or -EINTR. */
static int sleepy_walk_write(struct sleepy_session *session, void *record,
			     enum sleepy_record_type type, size_t size)
{
	while (!sleepy_buffer_write_paced(&session->buffer, record, type,
					  size)) {
		int err = sleepy_walk_wait_room(session);

		if (err)
			return err;
	}
	return 0;
}

/* Announces one existing process and its mappings; 0 or -EINTR. */
static int sleepy_walk_process(struct sleepy_session *session,
			       struct task_struct *task)
{
	struct sleepy_app_start rec;
	bool mapped;
	int err;

	rcu_read_lock();
	mapped = sleepy_app_map_existing(session, task, &rec);
	rcu_read_unlock();
	if (!mapped)
		return 0;
	err = sleepy_walk_write(session, &rec, SLEEPY_REC_APP_START,
				sizeof(rec));
	if (err)
		return err;
	return sleepy_walk_mappings(session, task, rec.appid,
				    session->walk_scratch);
}

/* The leader of the first thread group whose id is at least @nr, held. */
static struct task_struct *sleepy_walk_next(pid_t *nr)
{
	struct task_struct *task = NULL;
	struct pid *pid;

	rcu_read_lock();
	while (!task && (pid = find_ge_pid(*nr, &init_pid_ns))) {
		*nr = pid_nr(pid) + 1;
		task = pid_task(pid, PIDTYPE_TGID);
		if (task)
			get_task_struct(task);
	}
	rcu_read_unlock();
	return task;
}

static int sleepy_walk_thread(void *data)
{
	struct sleepy_session *session = data;
	struct task_struct *task;
	pid_t nr = 1;
	int err;

	while ((task = sleepy_walk_next(&nr))) {
		err = sleepy_walk_process(session, task);
		put_task_struct(task);
		if (err)
			return err;
		cond_resched();
	}
	sleepy_sampling_begin(session);
	return 0;
}

/**
 * sleepy_walk_create - the walk of @session, created but not running
 * @session: the session being created
 *
 * Process context.  Returns 0 or a negative errno.
 */
int sleepy_walk_create(struct sleepy_session *session)
{
	struct task_struct *walker;

	session->walk_scratch = kmalloc(sizeof(*session->walk_scratch),
					GFP_KERNEL);
	if (!session->walk_scratch)
		return -ENOMEM;
	walker = kthread_create(sleepy_walk_thread, session, "sleepy_walk");
	if (IS_ERR(walker))
		return PTR_ERR(walker);
	get_task_struct(walker);
	session->walker = walker;
	return 0;
}

/* Starts the walk of @session, published to the hooks. */
void sleepy_walk_start(struct sleepy_session *session)
{
	wake_up_process(session->walker);
}

/*
 * Ends the walk, at once if it still runs: then it has either started
 * sampling or will not.  Process context; also for a walk never started.
 */
void sleepy_walk_stop(struct sleepy_session *session)
{
	if (session->walker) {
		kthread_stop_put(session->walker);
		session->walker = NULL;
	}
}

void sleepy_walk_destroy(struct sleepy_session *session)
{
	sleepy_walk_stop(session);
	kfree(session->walk_scratch);
	session->walk_scratch = NULL;
}
