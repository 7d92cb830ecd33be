// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: taking samples, from the scheduler tick or a per-CPU hrtimer.
 *
 * Writers: the sampling interrupt of each CPU (hard-irq) records the
 * interrupted context of its own CPU, and its stacks if asked (stack.c),
 * into its own buffer; the scheduler, switching a CPU from its idle task
 * to a task, or for a session limited to a process (its filter) to one of
 * that process's tasks, restarts that CPU's parked timer with interrupts
 * off.  Neither ever touches another CPU's timer or flags.
 *
 * Each CPU's hrtimer is initialised once, at boot.  A CPU hotplug state
 * owns its lifetime during a session: the online callback (on the CPU that
 * comes up) starts it, the offline callback (on the CPU that goes down,
 * before the hrtimer core would migrate it) cancels it, and session start
 * and stop hold cpus_read_lock(), so they and hotplug never interleave.
 *
 * Which session: the interrupt and the idle hook find it through the RCU
 * pointer sleepy_live (a hard-irq handler and an interrupts-off section are
 * RCU readers); once the stop cleared it and waited for a grace period, no
 * callback restarts a timer, so cancelling every possible CPU's timer ends
 * sampling for good.
 *
 * Grid: CPU k's timer fires at the multiples of the period shifted by
 * k / nr_cpu_ids of a period (skew_tick=1 spreads the ticks the same way),
 * so that no CPU's timer expires just before another's or with it: where
 * several vCPUs share one host thread and it switches between them at
 * timer deadlines, two deadlines d apart would leave one vCPU only d of
 * every period, and where it serves their interrupts one after the
 * other, timers that fired together would wait for each other.
 *
 * Rate: after each sample the timer rearms on its grid at least half a
 * period ahead, and far enough ahead that the sample's time stays within
 * kernel.perf_cpu_time_max_percent of the CPU (by default 25: three times
 * as long as the sample took; perf measures its handlers the same way,
 * without the interrupt's entry and exit; 0 or 100 lift the limit).  A CPU
 * too slow for the frequency, or an interrupt held off, skips and counts
 * periods instead of sampling back to back.  A timer that finds nothing
 * to sample twice in a row does not rearm (the tick does not run on idle
 * CPUs either): it parks until the CPU leaves idle or, with a filter, a
 * followed task runs there (as with perf's per-task events, other tasks'
 * CPUs take no interrupt; a sched_switch probe looks up the next task).
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/sleepy.h>
#include <asm/irq_regs.h>
#include <trace/events/sched.h>

#include "sleepy.h"

/* The hooks' switch, and the running session, published by session.c. */
DEFINE_STATIC_KEY_FALSE(sleepy_active);
struct sleepy_session __rcu *sleepy_live;

static DEFINE_PER_CPU(struct hrtimer, sleepy_hrtimer);
static DEFINE_PER_CPU(bool, sleepy_hrtimer_parked);
static DEFINE_PER_CPU(unsigned int, sleepy_empty_periods);

/* The session whose timers run, if it samples at a frequency. */
static struct sleepy_session *sleepy_timer_session(void)
{
	struct sleepy_session *session = rcu_dereference_sched(sleepy_live);

	if (!session || !READ_ONCE(session->sampling) || !session->period)
		return NULL;
	return session;
}

/* Hard-irq context.  False when the CPU idles or runs a task not followed. */
static bool sleepy_sample(struct sleepy_session *session, struct pt_regs *regs)
{
	struct task_struct *task = current;
	struct sleepy_sample local, *sample;
	struct pt_regs *user_regs = NULL;
	size_t size = sizeof(local);
	u32 appid;

	if (is_idle_task(task)) {
		sleepy_buffer_count_idle(&session->buffer);
		return false;
	}

	appid = sleepy_apps_lookup(session->apps, task->tgid);
	/* With a pid filter, only the selected processes have an appid. */
	if (session->filter && appid == SLEEPY_APPID_UNKNOWN)
		return false;
	if (!regs)
		return true;

	sample = sleepy_stack_sample(session);
	if (!sample) {
		memset(&local, 0, sizeof(local));
		sample = &local;
	}
	sample->appid = appid;
	sample->time_ns = sleepy_now();
	sample->tid = task->pid;
	if (!user_mode(regs)) {
		sample->flags |= SLEEPY_SAMPLE_IN_KERNEL;
		if (session->attr.flags & SLEEPY_FLAG_KERNEL)
			sample->kernel_ip = instruction_pointer(regs);
	}
	if (task->flags & PF_KTHREAD) {
		sample->flags |= SLEEPY_SAMPLE_KERNEL_THREAD;
	} else {
		user_regs = user_mode(regs) ? regs : task_pt_regs(task);
		sample->user_ip = instruction_pointer(user_regs);
	}
	if (sample != &local)
		size = sleepy_stack_fill(session, sample, regs, user_regs);

	sleepy_buffer_write(&session->buffer, sample, SLEEPY_REC_SAMPLE, size);
	return true;
}

void __sleepy_tick(struct pt_regs *regs)
{
	struct sleepy_session *session = rcu_dereference_sched(sleepy_live);

	if (session && READ_ONCE(session->sampling) && !session->period)
		sleepy_sample(session, regs);
}

/*
 * Moves @timer to the first point of its grid at least half a period, and
 * long enough for the sample begun at @began to keep its share, from now.
 * On time and fast, that is the next point; a late or slow sample skips
 * points rather than firing again at once, and they are counted.
 */
static void sleepy_hrtimer_rearm(struct sleepy_session *session,
				 struct hrtimer *timer, ktime_t began)
{
	int percent = READ_ONCE(sysctl_perf_cpu_time_max_percent);
	ktime_t now = hrtimer_cb_get_time(timer);
	ktime_t rest = 0, earliest;
	u64 periods;

	/* perf's share of a CPU for its sampling; 0 or 100: no limit. */
	if (percent > 0 && percent < 100)
		rest = div_s64(ktime_sub(now, began) * (100 - percent), percent);
	earliest = ktime_add(now, max(rest, session->period / 2));
	periods = hrtimer_forward(timer, earliest, session->period);

	if (periods > 1)
		sleepy_buffer_count_missed(&session->buffer, periods - 1);
}

/*
 * A CPU whose timer found it idle runs no task until the scheduler switches
 * from the idle task to one, and that switch (put_prev_task_idle()) calls
 * sleepy_idle_exit(), which restarts the timer.  The exit of the idle loop
 * would not do: schedule_idle() may switch back to idle and, in the same
 * call, to a task again, with a timer that parked in between.
 * Only the second empty period in a row parks: restarting after every
 * short idle spell (a process waiting for its child) costs more than
 * the interrupts it saves.
 */
static enum hrtimer_restart sleepy_hrtimer_fn(struct hrtimer *timer)
{
	struct sleepy_session *session = sleepy_timer_session();
	ktime_t began;

	if (!session)
		return HRTIMER_NORESTART;
	began = hrtimer_cb_get_time(timer);
	if (sleepy_sample(session, get_irq_regs()) || need_resched()) {
		__this_cpu_write(sleepy_empty_periods, 0);
	} else if (__this_cpu_inc_return(sleepy_empty_periods) >= 2) {
		__this_cpu_write(sleepy_empty_periods, 0);
		__this_cpu_write(sleepy_hrtimer_parked, true);
		return HRTIMER_NORESTART;
	}
	sleepy_hrtimer_rearm(session, timer, began);
	return HRTIMER_RESTART;
}

/* Restarts this CPU's parked timer; interrupts off. */
static void sleepy_hrtimer_unpark(struct sleepy_session *session)
{
	struct hrtimer *timer = this_cpu_ptr(&sleepy_hrtimer);

	lockdep_assert_irqs_disabled();
	__this_cpu_write(sleepy_hrtimer_parked, false);
	/*
	 * Back on the timer's own grid, as if it had fired all along: a full
	 * period from now would never sample a task that runs for less than
	 * a period between two idle spells.
	 */
	hrtimer_forward_now(timer, session->period);
	hrtimer_start_expires(timer, HRTIMER_MODE_ABS_PINNED_HARD);
}

void __sleepy_idle_exit(void)
{
	struct sleepy_session *session = sleepy_timer_session();

	/* A filtered session's timer waits for a followed task instead. */
	if (session && !session->filter &&
	    __this_cpu_read(sleepy_hrtimer_parked))
		sleepy_hrtimer_unpark(session);
}

/* In __schedule(), runqueue locked, interrupts off. */
static void sleepy_probe_follow(void *unused, bool preempt,
				struct task_struct *prev,
				struct task_struct *next,
				unsigned int prev_state)
{
	struct sleepy_session *session = sleepy_timer_session();

	if (session && __this_cpu_read(sleepy_hrtimer_parked) &&
	    !is_idle_task(next) &&
	    sleepy_apps_lookup(session->apps, next->tgid) != SLEEPY_APPID_UNKNOWN)
		sleepy_hrtimer_unpark(session);
}

/*
 * Registers the probe that restarts a parked timer on a switch to a
 * followed task, for a session with a filter on hrtimers.  Process
 * context, sleepy_session_lock held.  Returns 0 or a negative errno.
 */
int sleepy_sampling_attach(struct sleepy_session *session)
{
	int err = 0;

	if (session->filter && session->period) {
		err = register_trace_sched_switch(sleepy_probe_follow, NULL);
		session->follow_attached = !err;
	}
	return err;
}

/*
 * Unregisters it without waiting for calls still running: the session was
 * never published, or the stop unpublished it and waited for a grace
 * period, so such a call finds no session, or a later one whose timers it
 * restarts as that one's own probe would.
 */
void sleepy_sampling_detach(struct sleepy_session *session)
{
	if (session->follow_attached)
		unregister_trace_sched_switch(sleepy_probe_follow, NULL);
	session->follow_attached = false;
}

/* The first point of @cpu's grid after @now. */
static ktime_t sleepy_grid_next(ktime_t now, ktime_t period, unsigned int cpu)
{
	u64 skew = div_u64((u64)period * cpu, nr_cpu_ids);
	u64 into_period;

	div64_u64_rem(now + period - skew, period, &into_period);
	return ktime_add_ns(now, period - into_period);
}

/* Starts this CPU's timer for the running session, if it has one. */
static void sleepy_hrtimer_start_local(void *unused)
{
	struct sleepy_session *session;

	lockdep_assert_irqs_disabled();
	session = sleepy_timer_session();
	if (!session)
		return;
	__this_cpu_write(sleepy_hrtimer_parked, false);
	__this_cpu_write(sleepy_empty_periods, 0);
	hrtimer_start(this_cpu_ptr(&sleepy_hrtimer),
		      sleepy_grid_next(ktime_get(), session->period,
				       smp_processor_id()),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

static int sleepy_cpu_online(unsigned int cpu)
{
	local_irq_disable();
	sleepy_hrtimer_start_local(NULL);
	local_irq_enable();
	return 0;
}

/*
 * On the CPU going down, before hrtimers_cpu_dying() would move its timer
 * to another CPU.  With interrupts off, this CPU's own hard-irq timer
 * cannot be running its callback, so the cancel cannot fail, and with the
 * flag cleared the scheduler does not restart it.
 */
static int sleepy_cpu_offline(unsigned int cpu)
{
	local_irq_disable();
	__this_cpu_write(sleepy_hrtimer_parked, false);
	hrtimer_try_to_cancel(this_cpu_ptr(&sleepy_hrtimer));
	local_irq_enable();
	return 0;
}

/**
 * sleepy_sampling_start - start the timers of @session on every online CPU
 * @session: the session, published and sampling
 *
 * The caller holds cpus_read_lock(); CPUs that come online later start
 * their timer from the hotplug state.  A CPU that parks its timer before
 * this returns finds the session sampling when it leaves idle.
 */
void sleepy_sampling_start(struct sleepy_session *session)
{
	lockdep_assert_cpus_held();
	if (session->period)
		on_each_cpu(sleepy_hrtimer_start_local, NULL, 1);
}

/**
 * sleepy_sampling_begin - start sampling, once the start walk is done
 * @session: the running session
 *
 * In the walk's kthread, which the stop waits for under the session lock.
 */
void sleepy_sampling_begin(struct sleepy_session *session)
{
	cpus_read_lock();
	WRITE_ONCE(session->sample_start_ns, sleepy_now());
	WRITE_ONCE(session->sampling, true);
	sleepy_sampling_start(session);
	cpus_read_unlock();
	session->sampled = true;
}

/*
 * Cancels every possible CPU's timer.  The caller holds cpus_read_lock()
 * and has unpublished the session and waited for a grace period.
 */
void sleepy_sampling_stop(void)
{
	unsigned int cpu;

	lockdep_assert_cpus_held();
	for_each_possible_cpu(cpu) {
		hrtimer_cancel(per_cpu_ptr(&sleepy_hrtimer, cpu));
		WRITE_ONCE(per_cpu(sleepy_hrtimer_parked, cpu), false);
		WRITE_ONCE(per_cpu(sleepy_empty_periods, cpu), 0);
	}
}

int __init sleepy_sampling_init(void)
{
	unsigned int cpu;
	int state;

	for_each_possible_cpu(cpu) {
		struct hrtimer *timer = per_cpu_ptr(&sleepy_hrtimer, cpu);

		hrtimer_init(timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		timer->function = sleepy_hrtimer_fn;
	}
	state = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					  "sleepy:sampling", sleepy_cpu_online,
					  sleepy_cpu_offline);
	return state < 0 ? state : 0;
}
