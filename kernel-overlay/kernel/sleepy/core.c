// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: sessions, sampling and the process hooks.
 *
 * One session at a time, started and stopped by sleepy_start() and
 * sleepy_stop() under sleepy_session_lock.  While it runs:
 *
 *  - the sampling interrupt (scheduler tick, or a pinned hard-irq hrtimer
 *    per CPU when a frequency is asked for) records the interrupted context
 *    of its own CPU: it looks the process up in the appid tables under RCU
 *    and writes a sample into this CPU's buffer;
 *  - the hrtimer rearms at least half a period ahead on its grid, so a
 *    CPU too slow for the frequency (or an interrupt held off too long)
 *    skips and counts periods instead of sampling back to back: sampling
 *    can never starve the CPU;
 *  - an hrtimer that finds its CPU idle twice in a row does not rearm (the
 *    tick does not run on idle CPUs either): it parks, and the idle loop's
 *    exit restarts it on its grid, on the same CPU with interrupts off, so
 *    both only ever touch their own CPU's timer and flags;
 *  - the fork, exec and exit hooks (process context) keep the appid tables
 *    and announce application instances in the stream.
 *
 * All of them run only while the static key sleepy_active is on, and act
 * only if they find the session's tables through the RCU pointer
 * sleepy_live_apps inside their read-side section (hard-irq is one): a hook
 * preempted between the key and that section finds NULL once the session
 * stopped.  sleepy_stop() turns the key off, clears the pointer and waits
 * for a grace period (so no hook still restarts a timer), then cancels the
 * timers, frees the tables and flushes the buffers: no hook can see a
 * half-torn session.
 * The buffers and the statistics outlive the session until the next start,
 * so the drainer can read what is left after the stop.
 */
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/sleepy.h>
#include <linux/syscalls.h>
#include <linux/timekeeping.h>
#include <asm/irq_regs.h>

#include "sleepy.h"

/* Most live processes and distinct program names one session tracks. */
#define SLEEPY_TABLE_CAPACITY	32768

DEFINE_STATIC_KEY_FALSE(sleepy_active);

/**
 * struct sleepy_session - the running (or last) session
 * @apps: appid tables, only while running (owned here, published to the
 *	hooks as sleepy_live_apps)
 * @buffer: per-CPU buffers, kept after stop until the next start
 * @attr: what was asked for, validated
 * @filter_pid: global thread group id of attr.pid, 0 for none
 * @period: sampling period of the hrtimers, 0 on the tick
 * @sampling: the tables are filled, samples may be taken
 * @running: between a successful start and its stop
 * @start_ns: CLOCK_MONOTONIC of the start
 * @stop_ns: CLOCK_MONOTONIC of the stop, 0 while running
 * @table_overflows: copy of apps->overflows kept after stop
 */
struct sleepy_session {
	struct sleepy_apps *apps;
	struct sleepy_buffer buffer;
	struct sleepy_attr attr;
	pid_t filter_pid;
	ktime_t period;
	bool sampling;
	bool running;
	u64 start_ns;
	u64 stop_ns;
	u64 table_overflows;
};

static DEFINE_MUTEX(sleepy_session_lock);
static struct sleepy_session session;
static struct sleepy_apps __rcu *sleepy_live_apps;
static DEFINE_PER_CPU(struct hrtimer, sleepy_hrtimer);
static DEFINE_PER_CPU(bool, sleepy_hrtimer_parked);
static DEFINE_PER_CPU(unsigned int, sleepy_idle_periods);
static struct dentry *sleepy_debugfs_dir;

static u64 sleepy_now(void)
{
	return ktime_get_mono_fast_ns();
}

/* Hard-irq context: an RCU read-side section of its own. */
static void sleepy_sample(struct pt_regs *regs)
{
	struct sleepy_apps *apps = rcu_dereference_sched(sleepy_live_apps);
	struct task_struct *task = current;
	struct sleepy_sample sample = {};
	bool selected;

	if (!apps || !READ_ONCE(session.sampling) || !regs)
		return;
	if (is_idle_task(task)) {
		this_cpu_inc(session.buffer.stats->idle);
		return;
	}

	sample.appid = sleepy_apps_lookup(apps, task->tgid, &selected);
	if (session.filter_pid && !selected)
		return;

	sample.time_ns = sleepy_now();
	sample.tid = task->pid;
	if (!user_mode(regs)) {
		sample.flags |= SLEEPY_SAMPLE_IN_KERNEL;
		if (session.attr.flags & SLEEPY_FLAG_KERNEL)
			sample.kernel_ip = instruction_pointer(regs);
	}
	if (task->flags & PF_KTHREAD)
		sample.flags |= SLEEPY_SAMPLE_KERNEL_THREAD;
	else
		sample.user_ip = instruction_pointer(user_mode(regs) ? regs :
						     task_pt_regs(task));

	if (sleepy_buffer_write(&session.buffer, &sample, SLEEPY_REC_SAMPLE,
				sizeof(sample)) &&
	    sample.appid == SLEEPY_APPID_UNKNOWN)
		this_cpu_inc(session.buffer.stats->unknown);
}

void __sleepy_tick(struct pt_regs *regs)
{
	if (!session.period)
		sleepy_sample(regs);
}

/*
 * Moves @timer to the first point of its grid at least half a period from
 * now.  On time, that is the next one; an interrupt that came late, or a
 * sample that took longer than half a period, skips points rather than
 * firing again at once, and the skipped points are counted.
 */
static void sleepy_hrtimer_rearm(struct hrtimer *timer)
{
	ktime_t earliest = ktime_add(hrtimer_cb_get_time(timer),
				     session.period / 2);
	u64 periods = hrtimer_forward(timer, earliest, session.period);

	if (periods > 1)
		this_cpu_add(session.buffer.stats->missed, periods - 1);
}

/*
 * An idle CPU stays idle until need_resched() is set, and the idle loop
 * passes sleepy_idle_exit() on its way out, which restarts the timer.
 * Only the second idle period in a row parks: restarting after every
 * short idle spell (a process waiting for its child) costs more than
 * the interrupts it saves.
 */
static enum hrtimer_restart sleepy_hrtimer_fn(struct hrtimer *timer)
{
	sleepy_sample(get_irq_regs());
	if (!is_idle_task(current) || need_resched()) {
		__this_cpu_write(sleepy_idle_periods, 0);
	} else if (__this_cpu_inc_return(sleepy_idle_periods) >= 2) {
		__this_cpu_write(sleepy_idle_periods, 0);
		__this_cpu_write(sleepy_hrtimer_parked, true);
		return HRTIMER_NORESTART;
	}
	sleepy_hrtimer_rearm(timer);
	return HRTIMER_RESTART;
}

void __sleepy_idle_exit(void)
{
	unsigned long flags;

	local_irq_save(flags);
	if (__this_cpu_read(sleepy_hrtimer_parked) &&
	    READ_ONCE(session.sampling)) {
		struct hrtimer *timer = this_cpu_ptr(&sleepy_hrtimer);

		__this_cpu_write(sleepy_hrtimer_parked, false);
		/*
		 * Back on the timer's own grid, as if it had fired all along:
		 * a full period from now would never sample a task that runs
		 * for less than a period between two idle spells.
		 */
		hrtimer_forward_now(timer, session.period);
		hrtimer_start_expires(timer, HRTIMER_MODE_ABS_PINNED_HARD);
	}
	local_irq_restore(flags);
}

static void sleepy_hrtimer_start(void *unused)
{
	struct hrtimer *timer = this_cpu_ptr(&sleepy_hrtimer);

	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	timer->function = sleepy_hrtimer_fn;
	hrtimer_start(timer, session.period, HRTIMER_MODE_REL_PINNED_HARD);
}

static void sleepy_write_app_start(const struct sleepy_app_change *change,
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
	sleepy_buffer_write(&session.buffer, &rec, SLEEPY_REC_APP_START,
			    sizeof(rec));
}

static void sleepy_write_app_exit(u32 appid, pid_t pid)
{
	struct sleepy_app_exit rec = {
		.appid = appid,
		.pid = pid,
		.time_ns = sleepy_now(),
	};

	if (appid != SLEEPY_APPID_UNKNOWN)
		sleepy_buffer_write(&session.buffer, &rec, SLEEPY_REC_APP_EXIT,
				    sizeof(rec));
}

/*
 * Maps @task's thread group to a new appid and announces it; @replace as
 * for sleepy_apps_add().  Process context, in an RCU read-side section.
 */
static void sleepy_app_begin(struct sleepy_apps *apps,
			     struct task_struct *task, u32 parent_appid,
			     bool selected, bool replace, u64 time_ns)
{
	struct sleepy_app_change change;
	char comm[TASK_COMM_LEN];
	int err;

	get_task_comm(comm, task);
	err = sleepy_apps_add(apps, task->tgid, comm, selected, replace,
			      &change);
	sleepy_write_app_exit(change.old_appid, task->tgid);
	if (!err)
		sleepy_write_app_start(&change, task->tgid, comm, parent_appid,
				       time_ns);
}

void __sleepy_fork(struct task_struct *child)
{
	struct sleepy_apps *apps;
	u32 parent_appid;
	bool selected;

	if (!thread_group_leader(child))
		return;

	rcu_read_lock();
	apps = rcu_dereference(sleepy_live_apps);
	if (apps) {
		parent_appid = sleepy_apps_lookup(apps, current->tgid,
						  &selected);
		selected = child->tgid == session.filter_pid ||
			   (selected &&
			    (session.attr.flags & SLEEPY_FLAG_FOLLOW_CHILDREN));
		sleepy_app_begin(apps, child, parent_appid, selected, true,
				 sleepy_now());
	}
	rcu_read_unlock();
}

void __sleepy_exec(struct task_struct *task)
{
	struct sleepy_apps *apps;
	u32 old_appid;
	bool selected;

	rcu_read_lock();
	apps = rcu_dereference(sleepy_live_apps);
	if (apps) {
		old_appid = sleepy_apps_lookup(apps, task->tgid, &selected);
		selected = selected || task->tgid == session.filter_pid;
		sleepy_app_begin(apps, task, old_appid, selected, true,
				 sleepy_now());
	}
	rcu_read_unlock();
}

void __sleepy_exit(struct task_struct *task)
{
	struct sleepy_apps *apps;

	rcu_read_lock();
	apps = rcu_dereference(sleepy_live_apps);
	if (apps)
		sleepy_write_app_exit(sleepy_apps_remove(apps, task->tgid),
				      task->tgid);
	rcu_read_unlock();
}

/* Maps every process that already runs, keeping mappings hooks made. */
static void sleepy_map_existing(void)
{
	struct task_struct *task;
	bool selected;

	rcu_read_lock();
	for_each_process(task) {
		selected = task->tgid == session.filter_pid;
		if (session.attr.flags & SLEEPY_FLAG_FOLLOW_CHILDREN) {
			struct task_struct *parent;

			for (parent = task; parent->pid > 1 && !selected;
			     parent = rcu_dereference(parent->real_parent))
				selected = parent->tgid == session.filter_pid;
		}
		sleepy_app_begin(session.apps, task, SLEEPY_APPID_UNKNOWN,
				 selected, false, session.start_ns);
	}
	rcu_read_unlock();
}

static int sleepy_check_attr(const struct sleepy_attr *attr)
{
	u64 size = attr->buffer_size;

	if (attr->flags & ~SLEEPY_FLAGS_ALL || attr->__reserved)
		return -EINVAL;
	if (attr->frequency > SLEEPY_MAX_FREQUENCY)
		return -EINVAL;
	if (size && (size < SLEEPY_MIN_BUFFER_SIZE ||
		     size > SLEEPY_MAX_BUFFER_SIZE || !PAGE_ALIGNED(size)))
		return -EINVAL;
	if (attr->pid > PID_MAX_LIMIT)
		return -EINVAL;
	if ((attr->flags & SLEEPY_FLAG_FOLLOW_CHILDREN) && !attr->pid)
		return -EINVAL;
	return 0;
}

/* Global thread group id of @vpid in the caller's namespace, or 0. */
static pid_t sleepy_global_tgid(pid_t vpid)
{
	struct task_struct *task;
	pid_t tgid = 0;

	rcu_read_lock();
	task = find_task_by_vpid(vpid);
	if (task)
		tgid = task->tgid;
	rcu_read_unlock();
	return tgid;
}

static int sleepy_session_start(const struct sleepy_attr *attr)
{
	size_t size = attr->buffer_size ?: SLEEPY_DEFAULT_BUFFER_SIZE;
	pid_t filter_pid = 0;
	int err;

	if (attr->pid) {
		filter_pid = sleepy_global_tgid(attr->pid);
		if (!filter_pid)
			return -ESRCH;
	}

	if (session.buffer.chan)
		sleepy_buffer_close(&session.buffer);
	session = (struct sleepy_session) {
		.attr = *attr,
		.filter_pid = filter_pid,
		.period = attr->frequency ?
			  ns_to_ktime(NSEC_PER_SEC / attr->frequency) : 0,
		.start_ns = sleepy_now(),
	};

	session.apps = sleepy_apps_create(SLEEPY_TABLE_CAPACITY);
	if (!session.apps)
		return -ENOMEM;
	err = sleepy_buffer_open(&session.buffer, sleepy_debugfs_dir, size);
	if (err) {
		sleepy_apps_destroy(session.apps);
		session.apps = NULL;
		return err;
	}

	/* Hooks first, so no process escapes between the walk and them. */
	rcu_assign_pointer(sleepy_live_apps, session.apps);
	static_branch_enable(&sleepy_active);
	sleepy_map_existing();
	if (session.period) {
		cpus_read_lock();
		on_each_cpu(sleepy_hrtimer_start, NULL, 1);
		cpus_read_unlock();
	}
	WRITE_ONCE(session.sampling, true);
	session.running = true;
	return 0;
}

static void sleepy_session_stop(void)
{
	unsigned int cpu;

	WRITE_ONCE(session.sampling, false);
	static_branch_disable(&sleepy_active);
	RCU_INIT_POINTER(sleepy_live_apps, NULL);
	/*
	 * Every hook that found the tables or saw the session sampling has
	 * returned after this, so no timer is restarted behind the cancel.
	 */
	synchronize_rcu();
	if (session.period) {
		cpus_read_lock();
		for_each_online_cpu(cpu) {
			hrtimer_cancel(per_cpu_ptr(&sleepy_hrtimer, cpu));
			/* A tick session must not find a timer to restart. */
			WRITE_ONCE(per_cpu(sleepy_hrtimer_parked, cpu), false);
			WRITE_ONCE(per_cpu(sleepy_idle_periods, cpu), 0);
		}
		cpus_read_unlock();
	}

	session.stop_ns = sleepy_now();
	session.table_overflows = session.apps->overflows;
	sleepy_apps_destroy(session.apps);
	session.apps = NULL;
	sleepy_buffer_flush(&session.buffer);
	session.running = false;
}

SYSCALL_DEFINE2(sleepy_start, const struct sleepy_attr __user *, uattr,
		unsigned int, size)
{
	struct sleepy_attr attr;
	int err;

	if (!perfmon_capable())
		return -EPERM;
	if (size < SLEEPY_ATTR_SIZE_VER0)
		return -EINVAL;
	if (size > PAGE_SIZE)
		return -E2BIG;
	err = copy_struct_from_user(&attr, sizeof(attr), uattr, size);
	if (err)
		return err;
	err = sleepy_check_attr(&attr);
	if (err)
		return err;

	mutex_lock(&sleepy_session_lock);
	err = session.running ? -EBUSY : sleepy_session_start(&attr);
	mutex_unlock(&sleepy_session_lock);
	return err;
}

SYSCALL_DEFINE1(sleepy_stop, unsigned int, flags)
{
	int err = 0;

	if (!perfmon_capable())
		return -EPERM;
	if (flags)
		return -EINVAL;

	mutex_lock(&sleepy_session_lock);
	if (session.running)
		sleepy_session_stop();
	else
		err = -ESRCH;
	mutex_unlock(&sleepy_session_lock);
	return err;
}

/* debugfs sleepy/stats: the counters of the running or last session. */
static int sleepy_stats_show(struct seq_file *m, void *unused)
{
	struct sleepy_buffer_stats *stats;
	unsigned int cpu;

	mutex_lock(&sleepy_session_lock);
	seq_printf(m, "version %u\nrunning %d\n", SLEEPY_FORMAT_VERSION,
		   session.running);
	if (!session.buffer.chan)
		goto unlock;

	seq_printf(m, "frequency %u\nflags %llu\nbuffer_bytes_per_cpu %zu\n",
		   session.attr.frequency, session.attr.flags,
		   session.buffer.size);
	seq_printf(m, "start_ns %llu\nstop_ns %llu\n", session.start_ns,
		   session.stop_ns);
	if (session.running) {
		seq_printf(m, "apps_live %u\n", sleepy_apps_live(session.apps));
		seq_printf(m, "table_overflows %llu\n",
			   READ_ONCE(session.apps->overflows));
	} else {
		seq_printf(m, "table_overflows %llu\n",
			   session.table_overflows);
	}
	seq_printf(m, "table_bytes_per_app %zu\n",
		   sizeof(struct sleepy_app) + sizeof(struct sleepy_name));
	for_each_possible_cpu(cpu) {
		stats = per_cpu_ptr(session.buffer.stats, cpu);
		seq_printf(m, "cpu %u samples %llu dropped %llu idle %llu unknown %llu missed %llu\n",
			   cpu, READ_ONCE(stats->samples),
			   READ_ONCE(stats->dropped), READ_ONCE(stats->idle),
			   READ_ONCE(stats->unknown), READ_ONCE(stats->missed));
	}
unlock:
	mutex_unlock(&sleepy_session_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sleepy_stats);

static int __init sleepy_init(void)
{
	sleepy_debugfs_dir = debugfs_create_dir("sleepy", NULL);
	debugfs_create_file("stats", 0400, sleepy_debugfs_dir, NULL,
			    &sleepy_stats_fops);
	return 0;
}
late_initcall(sleepy_init);
