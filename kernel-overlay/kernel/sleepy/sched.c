// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: context switches and wakeups, for sessions that ask for them
 * (SLEEPY_FLAG_SCHED).  From them the tools compute exact off-CPU time
 * (switch to minus switch away, not sampled), its reason, run-queue waits
 * and who woke whom.
 *
 * Writers: the scheduler of each CPU, into that CPU's buffer, through
 * probes on the sched_switch, sched_waking and sched_wakeup_new
 * tracepoints.  sched_switch fires in __schedule() just before
 * context_switch(), runqueue locked and interrupts off; sched_waking in
 * try_to_wake_up(), in the waker's context with the wakee's pi_lock held
 * and interrupts off; sched_wakeup_new in wake_up_new_task() with the
 * runqueue locked.  Nothing here sleeps, allocates, takes a lock or wakes
 * a task: a record is copied into the local relay buffer with interrupts
 * off (buffer.c), and relay defers the reader's wakeup to an irq_work, so
 * it never takes a runqueue lock from under one.  A full buffer drops and
 * counts, as for samples.
 *
 * Which session: sleepy_live, as for the other hooks; interrupts off is an
 * RCU read-side section, and the appid lookup is the sampling interrupt's
 * lock-free one.  The probes are registered only for a session that asks
 * (SLEEPY_FLAG_SCHED), when it is created, so other sessions and no
 * session at all cost the tracepoints' own static branches; they record
 * once the session samples, and are unregistered at its stop, after
 * which tracepoint_synchronize_unregister() waits for any still running.
 */
#include <linux/cpu.h>
#include <linux/interrupt.h>
#include <linux/lockdep.h>
#include <linux/kallsyms.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/sched/task_stack.h>
#include <linux/sleepy.h>
#include <linux/stacktrace.h>
#include <trace/events/sched.h>

#include "sleepy.h"

/* Frames searched for the first caller outside the scheduler. */
#define SLEEPY_BLOCKED_DEPTH	16

/* The session recording the scheduler, if one runs. */
static struct sleepy_session *sleepy_sched_session(void)
{
	struct sleepy_session *session = rcu_dereference_sched(sleepy_live);

	if (!session || !READ_ONCE(session->sampling) ||
	    !(session->attr.flags & SLEEPY_FLAG_SCHED))
		return NULL;
	return session;
}

static u32 sleepy_task_appid(struct sleepy_session *session,
			     struct task_struct *task)
{
	if (is_idle_task(task))
		return SLEEPY_APPID_UNKNOWN;
	return sleepy_apps_lookup(session->apps, task->tgid);
}

/* The user IP @task entered the kernel from; 0 if it has no user side. */
static u64 sleepy_task_user_ip(struct task_struct *task)
{
	if (task->flags & (PF_KTHREAD | PF_IDLE))
		return 0;
	return instruction_pointer(task_pt_regs(task));
}

/* The global tid of @task, 0 for an idle task (every CPU has one). */
static u32 sleepy_task_tid(struct task_struct *task)
{
	return is_idle_task(task) ? 0 : task->pid;
}

static u32 sleepy_switch_reason(bool preempt, struct task_struct *prev,
				unsigned int prev_state)
{
	if (preempt || prev_state == TASK_RUNNING)
		return SLEEPY_SWITCH_PREEMPTED;
	if (prev_state & TASK_DEAD)
		return SLEEPY_SWITCH_EXITING;
	/* PREEMPT_RT's sleeping spinlocks: lock contention. */
	if (prev_state & TASK_RTLOCK_WAIT)
		return SLEEPY_SWITCH_BLOCKED;
	if (prev->in_iowait)
		return SLEEPY_SWITCH_IO;
	if ((prev_state & TASK_UNINTERRUPTIBLE) && !(prev_state & TASK_NOLOAD))
		return SLEEPY_SWITCH_BLOCKED;
	if (prev_state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE))
		return SLEEPY_SWITCH_SLEEP;
	return SLEEPY_SWITCH_STOPPED;
}

/* The tracepoint's iterator, seen between the probe and __schedule(). */
static unsigned long sleepy_traceiter_start, sleepy_traceiter_size;

static void sleepy_find_traceiter(void)
{
	unsigned long offset;

	if (sleepy_traceiter_size)
		return;
	sleepy_traceiter_start = (unsigned long)__traceiter_sched_switch;
	if (!kallsyms_lookup_size_offset(sleepy_traceiter_start,
					 &sleepy_traceiter_size, &offset))
		sleepy_traceiter_size = 0;
}

static bool sleepy_in_traceiter(unsigned long addr)
{
	return addr - sleepy_traceiter_start < sleepy_traceiter_size;
}

/*
 * Where the current task blocked: the first return address outside the
 * scheduler once the walk has reached it, as get_wchan() finds it for a
 * task that is off the CPU.  __sched, so the walk sees this frame as part
 * of the scheduler; the tracepoint's iterator, which calls the probe when
 * more than one is registered, is taken for part of it too.
 */
static unsigned long __sched sleepy_blocked_at(void)
{
	unsigned long entries[SLEEPY_BLOCKED_DEPTH];
	bool in_scheduler = false;
	unsigned int n, i;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++) {
		if (in_sched_functions(entries[i]))
			in_scheduler = true;
		else if (in_scheduler && !sleepy_in_traceiter(entries[i]))
			return entries[i];
	}
	return 0;
}

/*
 * __sched, as sleepy_blocked_at(), so that the walk takes this probe for
 * part of the scheduler.
 */
static void __sched sleepy_probe_switch(void *unused, bool preempt,
					struct task_struct *prev,
					struct task_struct *next,
					unsigned int prev_state)
{
	struct sleepy_session *session;
	struct sleepy_switch rec = {};

	lockdep_assert_irqs_disabled();
	session = sleepy_sched_session();
	if (!session)
		return;
	rec.prev_appid = sleepy_task_appid(session, prev);
	rec.next_appid = sleepy_task_appid(session, next);
	rec.reason = sleepy_switch_reason(preempt, prev, prev_state);
	/*
	 * With a pid filter, only the selected processes have an appid.  The
	 * last thread of one has lost it in the exit hook before its last
	 * switch, which ends its life in the stream, and a released task
	 * cannot be asked whose it was: every exiting switch is written, and
	 * the reader knows the selected threads by their earlier records.
	 */
	if (session->filter && !rec.prev_appid && !rec.next_appid &&
	    rec.reason != SLEEPY_SWITCH_EXITING)
		return;

	rec.time_ns = sleepy_now();
	rec.prev_tid = sleepy_task_tid(prev);
	rec.next_tid = sleepy_task_tid(next);
	rec.user_ip = sleepy_task_user_ip(prev);
	if (rec.reason >= SLEEPY_SWITCH_SLEEP && rec.reason <= SLEEPY_SWITCH_IO &&
	    (session->attr.flags & SLEEPY_FLAG_KERNEL))
		rec.kernel_ip = sleepy_blocked_at();
	sleepy_buffer_write(&session->buffer, &rec, SLEEPY_REC_SWITCH,
			    sizeof(rec));
}

static void sleepy_record_wakeup(struct task_struct *wakee, bool new_task)
{
	struct task_struct *waker = current;
	struct sleepy_session *session;
	struct sleepy_wakeup rec = {};

	lockdep_assert_irqs_disabled();
	session = sleepy_sched_session();
	if (!session)
		return;

	if (new_task)
		rec.flags |= SLEEPY_WAKEUP_NEW_TASK;
	if (in_hardirq() || in_serving_softirq()) {
		u32 kind;

		rec.source = sleepy_irq_current(&kind);
		rec.flags |= kind == SLEEPY_IRQ_SOFTIRQ ? SLEEPY_WAKEUP_SOFTIRQ :
			     kind == SLEEPY_IRQ_SYSVEC ?
			     SLEEPY_WAKEUP_HARDIRQ | SLEEPY_WAKEUP_SYSVEC :
			     SLEEPY_WAKEUP_HARDIRQ;
	} else {
		rec.waker_tid = sleepy_task_tid(waker);
	}
	if (rec.waker_tid) {
		rec.waker_appid = sleepy_task_appid(session, waker);
		rec.waker_user_ip = sleepy_task_user_ip(waker);
	}
	rec.wakee_appid = sleepy_task_appid(session, wakee);
	if (session->filter && !rec.waker_appid && !rec.wakee_appid)
		return;

	rec.time_ns = sleepy_now();
	rec.wakee_tid = sleepy_task_tid(wakee);
	rec.cpu = task_cpu(wakee);
	sleepy_buffer_write(&session->buffer, &rec, SLEEPY_REC_WAKEUP,
			    sizeof(rec));
}

/*
 * try_to_wake_up() also fires sched_waking for a task waking itself
 * before it slept (p == current), with interrupts on: no wakeup.
 */
static void sleepy_probe_waking(void *unused, struct task_struct *wakee)
{
	if (wakee != current)
		sleepy_record_wakeup(wakee, false);
}

static void sleepy_probe_wakeup_new(void *unused, struct task_struct *task)
{
	sleepy_record_wakeup(task, true);
}

SLEEPY_PROBE(sched_switch, sleepy_probe_switch)
SLEEPY_PROBE(sched_waking, sleepy_probe_waking)
SLEEPY_PROBE(sched_wakeup_new, sleepy_probe_wakeup_new)

static const struct sleepy_probe sleepy_sched_probes[] = {
	SLEEPY_PROBE_OF(sched_switch),
	SLEEPY_PROBE_OF(sched_waking),
	SLEEPY_PROBE_OF(sched_wakeup_new),
};

/**
 * sleepy_sched_attach - record the scheduler for @session, if it asks
 * @session: the session being created
 *
 * Registers the probes; they record nothing until the session samples.
 * Process context, sleepy_session_lock held.  Returns 0 or a negative
 * errno.
 */
int sleepy_sched_attach(struct sleepy_session *session)
{
	if (!(session->attr.flags & SLEEPY_FLAG_SCHED))
		return 0;
	sleepy_find_traceiter();
	return sleepy_probes_attach(&session->sched_attached,
				    sleepy_sched_probes,
				    ARRAY_SIZE(sleepy_sched_probes));
}

/*
 * Unregisters the probes of @session, once it stopped sampling (or never
 * did), and waits until none runs.  Process context.
 */
void sleepy_sched_detach(struct sleepy_session *session)
{
	sleepy_probes_detach(&session->sched_attached, sleepy_sched_probes,
			     ARRAY_SIZE(sleepy_sched_probes));
}
