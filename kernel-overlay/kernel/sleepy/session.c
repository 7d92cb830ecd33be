// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: sessions and their system calls.
 *
 * sleepy_start() creates a session and returns a file descriptor that owns
 * it; sleepy_stop() ends sampling, and closing the last reference to the
 * descriptor stops the session if it still runs and frees its buffers and
 * counters (a reader's buffer descriptors keep their buffer until they are
 * closed too).  So a session never outlives its tools: if every process
 * holding the descriptor dies, sampling stops and the memory comes back.
 *
 * One session runs at a time.  Start and stop run in process context under
 * sleepy_session_lock and cpus_read_lock(), so they never interleave with
 * each other or with CPU hotplug.  While a session runs, the hooks find it
 * through the RCU pointer sleepy_live.  The stop turns the key off, clears
 * the pointer and waits for a grace period: every hook that still saw the
 * session has returned, and none can restart a timer behind the cancel.
 *
 * Start order: tables and buffers, and the probes on the scheduler's and
 * the interrupts' tracepoints for a session that asks (they record
 * nothing until it samples), then the pointer and the key (the process
 * hooks run from here on, so no process escapes the walk), then the file
 * descriptor is handed out while the start walk (walk.c) announces the
 * existing processes and their mappings at the reader's pace; once it is
 * done, the walk sets sampling and starts the timers
 * (sleepy_sampling_begin()).
 * The start itself never waits for the walk, and the stop ends the walk
 * before anything else (kthread_stop(), under the session lock, which
 * the walk never takes), so sampling is either fully started or not at
 * all when the stop tears it down.  A CPU that comes online during the
 * walk starts no timer (the session does not sample yet) and
 * sampling_start() starts it with the others.  A CPU that parks its
 * timer has therefore always seen the session sampling, and the switch
 * away from the idle task restarts it.  The stop unregisters the probes
 * and writes the interrupt histograms into the stream once no hook or
 * probe runs; a flush
 * (SLEEPY_IOC_IRQ_FLUSH) writes them earlier, under the session lock,
 * which also keeps a live hand-over of the buffers (SLEEPY_IOC_FLUSH)
 * apart from the stop's flush.
 *
 * Who may: the caller needs what perf needs for a CPU-wide event
 * (perf_allow_cpu(): CAP_PERFMON, or kernel.perf_event_paranoid <= 0, and
 * the LSM hook perf uses); switches, wakeups and interrupt times what it
 * needs for tracepoints (perf_allow_tracepoint(): CAP_PERFMON, or the
 * paranoid level at -1); kernel IPs what perf_allow_kernel() asks and
 * kallsyms_show_value() (kptr_restrict).  sleepy_stop() asks the same
 * as a start without kernel IPs, and stops only a session its caller's
 * effective uid started, unless it has CAP_SYS_ADMIN.  The buffers are
 * charged as perf charges its ring buffers, for every possible CPU (one
 * brought online during the session gets its buffer): to the starter's
 * locked_vm up to kernel.perf_event_mlock_kb per online CPU, the rest to
 * its mm's pinned_vm within RLIMIT_MEMLOCK (both waived by CAP_IPC_LOCK
 * or a paranoid level of -1), refused with -EPERM.  Records carry global
 * pids and the names of every process, so a caller in a child pid
 * namespace is refused.  Frequencies are bounded by the sysctl
 * kernel.sleepy_max_frequency, as perf's by perf_event_max_sample_rate.
 */
#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched/mm.h>
#include <linux/sched/user.h>
#include <linux/security.h>
#include <linux/sleepy.h>
#include <linux/slab.h>
#include <linux/syscalls.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>

#include "sleepy.h"

/* Most live processes and distinct program names one session tracks. */
#define SLEEPY_TABLE_CAPACITY	32768

/* Serialises start, stop and flushes; protects sleepy_running. */
static DEFINE_MUTEX(sleepy_session_lock);
static struct sleepy_session *sleepy_running;

/* Between the start and the stop of @session. */
static bool sleepy_session_is_running(const struct sleepy_session *session)
{
	lockdep_assert_held(&sleepy_session_lock);
	return sleepy_running == session;
}

static unsigned int sleepy_max_frequency = SLEEPY_MAX_FREQUENCY;
static const unsigned int sleepy_max_frequency_limit = SLEEPY_MAX_FREQUENCY;

/*
 * Checks @attr and settles its depth: with SLEEPY_FLAG_CALLCHAIN and no
 * max_stack, the default within kernel.perf_event_max_stack, read once so
 * that the check and the session see one value.  A depth above that
 * sysctl is refused with -EOVERFLOW, as perf_event_open() refuses it,
 * once the attributes are valid.
 */
static int sleepy_check_attr(struct sleepy_attr *attr)
{
	u32 stack_limit = READ_ONCE(sysctl_perf_event_max_stack);
	u64 size = attr->buffer_size;

	if (attr->flags & ~SLEEPY_FLAGS_ALL)
		return -EINVAL;
	if (attr->max_stack && !(attr->flags & SLEEPY_FLAG_CALLCHAIN))
		return -EINVAL;
	if (attr->frequency > READ_ONCE(sleepy_max_frequency))
		return -EINVAL;
	if (size && (size < SLEEPY_MIN_BUFFER_SIZE ||
		     size > SLEEPY_MAX_BUFFER_SIZE || !PAGE_ALIGNED(size)))
		return -EINVAL;
	if (attr->pid > PID_MAX_LIMIT)
		return -EINVAL;
	if ((attr->flags & SLEEPY_FLAG_FOLLOW_CHILDREN) && !attr->pid)
		return -EINVAL;
	if (!(attr->flags & SLEEPY_FLAG_CALLCHAIN))
		return 0;
	if (!attr->max_stack)
		attr->max_stack = min_t(u32, SLEEPY_DEFAULT_MAX_STACK,
					stack_limit);
	/* The largest sample with stacks must fit into a sub-buffer. */
	if (sleepy_stack_record_size(attr->max_stack) >
	    sleepy_buffer_max_record(size ?: SLEEPY_DEFAULT_BUFFER_SIZE))
		return -EINVAL;
	if (attr->max_stack > stack_limit)
		return -EOVERFLOW;
	return 0;
}

/*
 * What perf asks of a CPU-wide sampling event with the same reach, and of
 * the scheduler's and the interrupts' tracepoints for what they would
 * tell (which task ran, woke or was interrupted, when); and the caller
 * must see every pid the records carry.
 */
static int sleepy_check_permission(const struct sleepy_attr *attr)
{
	int err;

	if (task_active_pid_ns(current) != &init_pid_ns)
		return -EPERM;
	err = perf_allow_cpu();
	if (err || !attr)
		return err;
	if (attr->flags & (SLEEPY_FLAG_SCHED | SLEEPY_FLAG_IRQ)) {
		err = perf_allow_tracepoint();
		if (err)
			return err;
	}
	if (!(attr->flags & SLEEPY_FLAG_KERNEL))
		return 0;
	err = perf_allow_kernel();
	if (err)
		return err;
	return kallsyms_show_value(current_cred()) ? 0 : -EACCES;
}

/* The thread group of @vpid in the caller's namespace, referenced. */
static struct pid *sleepy_get_tgid(pid_t vpid)
{
	struct task_struct *task;
	struct pid *pid = NULL;

	rcu_read_lock();
	task = find_task_by_vpid(vpid);
	if (task)
		pid = get_pid(task_tgid(task));
	rcu_read_unlock();
	return pid;
}

/*
 * Charges @pages of buffer to the caller the way perf_mmap() charges a
 * ring buffer; -EPERM beyond what the caller may lock.
 */
static int sleepy_session_charge(struct sleepy_session *session,
				 unsigned long pages)
{
	unsigned long user_limit, user_locked, extra = 0;
	struct user_struct *user = current_user();

	user_limit = (READ_ONCE(sysctl_perf_event_mlock) >> (PAGE_SHIFT - 10)) *
		     num_online_cpus();
	user_locked = min_t(unsigned long, atomic_long_read(&user->locked_vm),
			    user_limit) + pages;
	if (user_locked > user_limit)
		extra = user_locked - user_limit;
	if (extra && atomic64_read(&current->mm->pinned_vm) + extra >
		     rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT &&
	    perf_is_paranoid() && !capable(CAP_IPC_LOCK))
		return -EPERM;

	session->locked_user = get_uid(user);
	session->locked_user_pages = pages - extra;
	atomic_long_add(session->locked_user_pages, &user->locked_vm);
	if (extra) {
		mmgrab(current->mm);
		session->locked_mm = current->mm;
		session->locked_mm_pages = extra;
		atomic64_add(extra, &current->mm->pinned_vm);
	}
	return 0;
}

static void sleepy_session_uncharge(struct sleepy_session *session)
{
	if (!session->locked_user)
		return;
	atomic_long_sub(session->locked_user_pages,
			&session->locked_user->locked_vm);
	free_uid(session->locked_user);
	if (session->locked_mm) {
		atomic64_sub(session->locked_mm_pages,
			     &session->locked_mm->pinned_vm);
		mmdrop(session->locked_mm);
	}
}

static void sleepy_session_free(struct sleepy_session *session)
{
	sleepy_walk_destroy(session);
	sleepy_process_detach(session);
	sleepy_sched_detach(session);
	sleepy_sampling_detach(session);
	sleepy_irq_detach(session);
	sleepy_apps_destroy(session->apps);
	sleepy_irq_destroy(session);
	sleepy_stack_destroy(session);
	if (session->buffer.chan)
		sleepy_buffer_close(&session->buffer);
	sleepy_session_uncharge(session);
	put_pid(session->filter);
	kfree(session);
}

static struct sleepy_session *sleepy_session_create(const struct sleepy_attr *attr)
{
	size_t size = attr->buffer_size ?: SLEEPY_DEFAULT_BUFFER_SIZE;
	struct sleepy_session *session;
	int err = -ENOMEM;

	session = kzalloc(sizeof(*session), GFP_KERNEL);
	if (!session)
		return ERR_PTR(-ENOMEM);
	session->attr = *attr;
	session->owner = current_euid();
	if (attr->frequency)
		session->period = ns_to_ktime(NSEC_PER_SEC / attr->frequency);
	if (attr->pid) {
		session->filter = sleepy_get_tgid(attr->pid);
		if (!session->filter) {
			err = -ESRCH;
			goto fail;
		}
	}
	session->apps = sleepy_apps_create(SLEEPY_TABLE_CAPACITY);
	if (!session->apps)
		goto fail;
	err = sleepy_irq_create(session);
	if (err)
		goto fail;
	err = sleepy_process_attach(session);
	if (err)
		goto fail;
	err = sleepy_irq_attach(session);
	if (err)
		goto fail;
	err = sleepy_sched_attach(session);
	if (err)
		goto fail;
	err = sleepy_sampling_attach(session);
	if (err)
		goto fail;
	err = sleepy_stack_create(session);
	if (err)
		goto fail;
	err = sleepy_walk_create(session);
	if (err)
		goto fail;
	/* Relay gives a CPU brought online during the session its buffer. */
	err = sleepy_session_charge(session, (size >> PAGE_SHIFT) *
					     num_possible_cpus());
	if (err)
		goto fail;
	err = sleepy_buffer_open(&session->buffer, size);
	if (err)
		goto fail;
	return session;
fail:
	sleepy_session_free(session);
	return ERR_PTR(err);
}

/* Publishes @session to the hooks and starts its walk. */
static void sleepy_session_run(struct sleepy_session *session)
{
	lockdep_assert_held(&sleepy_session_lock);

	cpus_read_lock();
	session->start_ns = sleepy_now();
	rcu_assign_pointer(sleepy_live, session);
	static_branch_enable_cpuslocked(&sleepy_active);
	cpus_read_unlock();
	sleepy_running = session;
	sleepy_walk_start(session);
}

static void sleepy_session_stop(struct sleepy_session *session)
{
	lockdep_assert_held(&sleepy_session_lock);

	sleepy_walk_stop(session);
	cpus_read_lock();
	WRITE_ONCE(session->sampling, false);
	static_branch_disable_cpuslocked(&sleepy_active);
	RCU_INIT_POINTER(sleepy_live, NULL);
	synchronize_rcu();
	if (session->sampled)
		sleepy_sampling_stop();
	cpus_read_unlock();
	sleepy_process_detach(session);
	sleepy_sched_detach(session);
	sleepy_sampling_detach(session);
	sleepy_irq_detach(session);

	session->stop_ns = sleepy_now();
	sleepy_irq_write(session, session->stop_ns);
	session->table_overflows = session->apps->overflows;
	sleepy_apps_destroy(session->apps);
	session->apps = NULL;
	sleepy_buffer_flush(&session->buffer);
	sleepy_running = NULL;
}

static int sleepy_session_release(struct inode *inode, struct file *file)
{
	struct sleepy_session *session = file->private_data;

	mutex_lock(&sleepy_session_lock);
	if (sleepy_session_is_running(session))
		sleepy_session_stop(session);
	mutex_unlock(&sleepy_session_lock);
	sleepy_session_free(session);
	return 0;
}

static long sleepy_ioctl_counters(struct sleepy_session *session,
				  struct sleepy_cpu_counters __user *ucounters)
{
	struct sleepy_cpu_counters counters = {};
	u32 cpu;

	if (get_user(cpu, &ucounters->cpu))
		return -EFAULT;
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	counters.cpu = cpu;
	sleepy_buffer_count(&session->buffer, cpu, &counters);
	return copy_to_user(ucounters, &counters, sizeof(counters)) ?
	       -EFAULT : 0;
}

static long sleepy_ioctl_info(struct sleepy_session *session,
			      struct sleepy_session_info __user *uinfo)
{
	struct sleepy_session_info info = {
		.buffer_size = session->buffer.size,
		.app_table_bytes = sizeof(struct sleepy_app) +
				   sizeof(struct sleepy_name),
	};

	mutex_lock(&sleepy_session_lock);
	info.start_ns = session->start_ns;
	info.stop_ns = session->stop_ns;
	info.running = sleepy_session_is_running(session);
	info.sample_start_ns = READ_ONCE(session->sample_start_ns);
	info.table_overflows = info.running ?
			       READ_ONCE(session->apps->overflows) :
			       session->table_overflows;
	mutex_unlock(&sleepy_session_lock);
	return copy_to_user(uinfo, &info, sizeof(info)) ? -EFAULT : 0;
}

static long sleepy_ioctl_irq_flush(struct sleepy_session *session)
{
	long err = -ESRCH;

	mutex_lock(&sleepy_session_lock);
	if (sleepy_session_is_running(session))
		err = sleepy_irq_flush(session);
	mutex_unlock(&sleepy_session_lock);
	return err;
}

static long sleepy_ioctl_flush(struct sleepy_session *session)
{
	long err = -ESRCH;

	mutex_lock(&sleepy_session_lock);
	if (sleepy_session_is_running(session))
		err = sleepy_buffer_hand_over(&session->buffer);
	mutex_unlock(&sleepy_session_lock);
	return err;
}

static long sleepy_session_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	struct sleepy_session *session = file->private_data;

	switch (cmd) {
	case SLEEPY_IOC_CPU_BUFFER:
		if (arg > UINT_MAX)
			return -ENODEV;
		return sleepy_buffer_open_reader(&session->buffer, arg);
	case SLEEPY_IOC_CPU_COUNTERS:
		return sleepy_ioctl_counters(session, (void __user *)arg);
	case SLEEPY_IOC_SESSION_INFO:
		return sleepy_ioctl_info(session, (void __user *)arg);
	case SLEEPY_IOC_IRQ_FLUSH:
		return arg ? -EINVAL : sleepy_ioctl_irq_flush(session);
	case SLEEPY_IOC_FLUSH:
		return arg ? -EINVAL : sleepy_ioctl_flush(session);
	default:
		return -ENOTTY;
	}
}

#ifdef CONFIG_COMPAT
/* SLEEPY_IOC_CPU_BUFFER, _IRQ_FLUSH and _FLUSH take a number, not a pointer. */
static long sleepy_session_compat_ioctl(struct file *file, unsigned int cmd,
					unsigned long arg)
{
	if (cmd == SLEEPY_IOC_CPU_BUFFER || cmd == SLEEPY_IOC_IRQ_FLUSH ||
	    cmd == SLEEPY_IOC_FLUSH)
		return sleepy_session_ioctl(file, cmd, arg);
	return compat_ptr_ioctl(file, cmd, arg);
}
#endif

static const struct file_operations sleepy_session_fops = {
	.owner		= THIS_MODULE,
	.release	= sleepy_session_release,
	.unlocked_ioctl	= sleepy_session_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= sleepy_session_compat_ioctl,
#endif
};

/*
 * Copies the attributes as perf_copy_attr() does: size 0 is the first
 * version, a longer block must be zero past what this kernel knows, and
 * on E2BIG the size this kernel supports is written back.
 */
static int sleepy_copy_attr(struct sleepy_attr __user *uattr,
			    struct sleepy_attr *attr)
{
	u32 size;
	int err;

	if (get_user(size, &uattr->size))
		return -EFAULT;
	if (!size)
		size = SLEEPY_ATTR_SIZE_VER0;
	if (size < SLEEPY_ATTR_SIZE_VER0 || size > PAGE_SIZE)
		goto too_big;
	err = copy_struct_from_user(attr, sizeof(*attr), uattr, size);
	if (err == -E2BIG)
		goto too_big;
	if (err)
		return err;
	attr->size = sizeof(*attr);
	return 0;
too_big:
	put_user(sizeof(*attr), &uattr->size);
	return -E2BIG;
}

SYSCALL_DEFINE2(sleepy_start, struct sleepy_attr __user *, uattr,
		unsigned int, flags)
{
	struct sleepy_session *session;
	struct sleepy_attr attr;
	struct file *file;
	int err, fd;

	if (flags)
		return -EINVAL;
	err = sleepy_copy_attr(uattr, &attr);
	if (err)
		return err;
	err = sleepy_check_attr(&attr);
	if (err)
		return err;
	err = sleepy_check_permission(&attr);
	if (err)
		return err;

	fd = get_unused_fd_flags(O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fd;
	mutex_lock(&sleepy_session_lock);
	if (sleepy_running) {
		err = -EBUSY;
		goto unlock;
	}
	session = sleepy_session_create(&attr);
	if (IS_ERR(session)) {
		err = PTR_ERR(session);
		goto unlock;
	}
	file = anon_inode_getfile("[sleepy]", &sleepy_session_fops, session,
				  O_RDWR | O_CLOEXEC);
	if (IS_ERR(file)) {
		sleepy_session_free(session);
		err = PTR_ERR(file);
		goto unlock;
	}
	sleepy_session_run(session);
	mutex_unlock(&sleepy_session_lock);
	fd_install(fd, file);
	return fd;
unlock:
	mutex_unlock(&sleepy_session_lock);
	put_unused_fd(fd);
	return err;
}

SYSCALL_DEFINE1(sleepy_stop, unsigned int, flags)
{
	int err;

	if (flags)
		return -EINVAL;
	err = sleepy_check_permission(NULL);
	if (err)
		return err;

	mutex_lock(&sleepy_session_lock);
	if (!sleepy_running)
		err = -ESRCH;
	else if (!uid_eq(current_euid(), sleepy_running->owner) &&
		 !capable(CAP_SYS_ADMIN))
		err = -EPERM;
	else
		sleepy_session_stop(sleepy_running);
	mutex_unlock(&sleepy_session_lock);
	return err;
}

static struct ctl_table sleepy_sysctls[] = {
	{
		.procname	= "sleepy_max_frequency",
		.data		= &sleepy_max_frequency,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= (void *)&sleepy_max_frequency_limit,
	},
};

static int __init sleepy_init(void)
{
	register_sysctl_init("kernel", sleepy_sysctls);
	return sleepy_sampling_init();
}
late_initcall(sleepy_init);
