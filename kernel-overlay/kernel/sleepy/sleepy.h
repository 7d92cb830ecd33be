/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of the sleepy profiler: the appid tables (apps.c),
 * the per-CPU record buffer (buffer.c), the session (session.c) with its
 * start walk (walk.c), sampling timers (sampling.c) and stacks (stack.c),
 * process and mapping hooks (process.c, maps.c), scheduler hooks
 * (sched.c) and interrupt histograms (irq.c), and what the KUnit tests
 * reach.
 */
#ifndef _KERNEL_SLEEPY_SLEEPY_H
#define _KERNEL_SLEEPY_SLEEPY_H

#include <linux/hashtable.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>
#include <linux/uidgid_types.h>
#include <linux/workqueue.h>
#include <uapi/linux/sleepy.h>

struct mm_struct;
struct pid;
struct pt_regs;
struct rchan;
struct task_struct;
struct user_struct;

#define SLEEPY_PID_HASH_BITS	12
#define SLEEPY_NAME_HASH_BITS	10

/* One live process: thread group id -> appid.  Read under RCU. */
struct sleepy_app {
	struct hlist_node pid_node;
	struct llist_node free_node;
	struct rcu_head rcu;
	struct sleepy_apps *apps;
	pid_t pid;
	u32 appid;
};

/* One program name -> how many instances it had.  Process context only. */
struct sleepy_name {
	struct hlist_node name_node;
	u32 instances;
	char name[SLEEPY_APP_NAME_LEN];
};

/**
 * struct sleepy_apps - the pid_appid and max_appid tables of one session
 * @lock: serialises every change; taken in process context only, never
 *	by the sampling interrupt, which looks up under RCU
 * @next_appid: last appid handed out
 * @live: mappings in @by_pid
 * @overflows: tasks that found the tables full and were left unmapped
 * @app_pool: @capacity preallocated entries; freed ones return through
 *	call_rcu() to @free_apps, so a reader never sees one reused under it
 * @name_pool: @capacity name entries, @names_used of them in use
 */
struct sleepy_apps {
	raw_spinlock_t lock;	/* process context, preemption off */
	u32 next_appid;
	u32 capacity;
	u32 names_used;
	u32 live;
	u64 overflows;
	struct llist_head free_apps;
	struct sleepy_app *app_pool;
	struct sleepy_name *name_pool;
	DECLARE_HASHTABLE(by_pid, SLEEPY_PID_HASH_BITS);
	DECLARE_HASHTABLE(by_name, SLEEPY_NAME_HASH_BITS);
};

/* What sleepy_apps_add() did, for the records the caller writes. */
struct sleepy_app_change {
	u32 appid;
	u32 instance;
	u32 old_appid;	/* mapping it replaced or removed, 0 if none */
};

struct sleepy_apps *sleepy_apps_create(u32 capacity);
void sleepy_apps_destroy(struct sleepy_apps *apps);
u32 sleepy_apps_lookup(struct sleepy_apps *apps, pid_t pid);
int sleepy_apps_add(struct sleepy_apps *apps, pid_t pid, const char *name,
		    bool replace, const atomic_t *live,
		    struct sleepy_app_change *change);
u32 sleepy_apps_remove(struct sleepy_apps *apps, pid_t pid);
u32 sleepy_apps_live(struct sleepy_apps *apps);

/*
 * Counters of one CPU, written by that CPU only with interrupts off, read
 * by any CPU (SLEEPY_IOC_CPU_COUNTERS): u64_stats keeps 32-bit readers
 * from seeing a torn value.
 */
struct sleepy_buffer_stats {
	struct u64_stats_sync syncp;
	u64_stats_t samples;
	u64_stats_t dropped;
	u64_stats_t idle;
	u64_stats_t unknown;
	u64_stats_t missed;
	u64 lost_pending;	/* dropped but not yet reported; own CPU only */
};

/**
 * struct sleepy_buffer - per-CPU relay channel holding sleepy records
 * @chan: the relay channel, without files: one buffer per CPU, read
 *	through file descriptors the session hands out
 * @size: bytes of buffer per CPU
 * @stats: per-CPU counters
 */
struct sleepy_buffer {
	struct rchan *chan;
	size_t size;
	struct sleepy_buffer_stats __percpu *stats;
};

int sleepy_buffer_open(struct sleepy_buffer *buffer, size_t size);
size_t sleepy_buffer_max_record(size_t size);
void sleepy_buffer_close(struct sleepy_buffer *buffer);
void sleepy_buffer_flush(struct sleepy_buffer *buffer);
int sleepy_buffer_hand_over(struct sleepy_buffer *buffer);
bool sleepy_buffer_write(struct sleepy_buffer *buffer, void *record,
			 enum sleepy_record_type type, size_t size);
bool sleepy_buffer_try_write(struct sleepy_buffer *buffer, void *record,
			     enum sleepy_record_type type, size_t size);
bool sleepy_buffer_write_paced(struct sleepy_buffer *buffer, void *record,
			       enum sleepy_record_type type, size_t size);
bool sleepy_buffer_has_room(struct sleepy_buffer *buffer, unsigned int cpu);
int sleepy_buffer_open_reader(struct sleepy_buffer *buffer, unsigned int cpu);
void sleepy_buffer_count(struct sleepy_buffer *buffer, unsigned int cpu,
			 struct sleepy_cpu_counters *counters);
void sleepy_buffer_count_idle(struct sleepy_buffer *buffer);
void sleepy_buffer_count_missed(struct sleepy_buffer *buffer, u64 periods);

/**
 * struct sleepy_session - one session, from sleepy_start() until its file
 *	descriptor is closed
 * @apps: appid tables, only while running
 * @buffer: per-CPU buffers, kept after the stop until the file is closed
 * @attr: what was asked for, validated
 * @filter: thread group the session is limited to, NULL for every task;
 *	a reference, so a reused pid number never matches it
 * @period: sampling period of the hrtimers, 0 on the tick
 * @sampling: the tables are filled, samples may be taken
 * @start_ns: CLOCK_MONOTONIC of the start
 * @sample_start_ns: CLOCK_MONOTONIC of the end of the start walk, 0 before
 * @stop_ns: CLOCK_MONOTONIC of the stop, 0 while running
 * @table_overflows: copy of apps->overflows kept after the stop
 * @irq: per-CPU interrupt histograms, with SLEEPY_FLAG_IRQ
 * @irq_actions: the shared-line actions seen, with SLEEPY_FLAG_IRQ
 * @process_attached: process.c's probes are registered for the session
 * @sched_attached: sched.c's probes are registered for the session
 * @follow_attached: sampling.c's probe is registered for the session
 * @irq_attached: irq.c's probes are registered for the session
 * @stack_scratch: per-CPU sample with stacks, with SLEEPY_FLAG_CALLCHAIN
 * @walker: the start walk's kthread, until the stop (walk.c)
 * @walk_scratch: the start walk's mmap record
 * @sampled: the walk started sampling; read by the stop once it ended
 * @owner: effective uid of the starter, who may stop the session
 * @locked_user: the user the buffers are charged to, as perf charges
 *	its ring buffers: @locked_user_pages to its locked_vm, the rest,
 *	@locked_mm_pages, to the pinned_vm of @locked_mm
 */
struct sleepy_irq_actions;
struct sleepy_irq_cpu;

/* An mmap record with room for the longest path, and d_path()'s buffer. */
struct sleepy_mmap_scratch {
	struct {
		struct sleepy_mmap rec;
		char path[SLEEPY_MMAP_PATH_MAX];
	} record;
	char path[PATH_MAX];
};

struct sleepy_session {
	struct sleepy_apps *apps;
	struct sleepy_buffer buffer;
	struct sleepy_attr attr;
	struct pid *filter;
	ktime_t period;
	bool sampling;
	u64 start_ns;
	u64 sample_start_ns;
	u64 stop_ns;
	u64 table_overflows;
	struct sleepy_irq_cpu __percpu *irq;
	struct sleepy_irq_actions *irq_actions;
	bool process_attached;
	bool sched_attached;
	bool follow_attached;
	bool irq_attached;
	void * __percpu *stack_scratch;
	struct task_struct *walker;
	struct sleepy_mmap_scratch *walk_scratch;
	bool sampled;
	kuid_t owner;
	struct user_struct *locked_user;
	struct mm_struct *locked_mm;
	unsigned long locked_user_pages;
	unsigned long locked_mm_pages;
};

/* The running session for the hooks: published under RCU. */
extern struct sleepy_session __rcu *sleepy_live;

static inline u64 sleepy_now(void)
{
	return ktime_get_mono_fast_ns();
}

/* sampling.c: the per-CPU hrtimers; the caller holds cpus_read_lock(). */
void sleepy_sampling_begin(struct sleepy_session *session);
void sleepy_sampling_start(struct sleepy_session *session);
void sleepy_sampling_stop(void);
int sleepy_sampling_attach(struct sleepy_session *session);
void sleepy_sampling_detach(struct sleepy_session *session);
int sleepy_sampling_init(void);

/* stack.c: call stacks of the samples, with SLEEPY_FLAG_CALLCHAIN. */
size_t sleepy_stack_record_size(u32 max_stack);
int sleepy_stack_create(struct sleepy_session *session);
void sleepy_stack_destroy(struct sleepy_session *session);
struct sleepy_sample *sleepy_stack_sample(struct sleepy_session *session);
size_t sleepy_stack_fill(struct sleepy_session *session,
			 struct sleepy_sample *sample, struct pt_regs *regs,
			 struct pt_regs *user_regs);

/* sched.c: context switches and wakeups, probes on the scheduler's tracepoints. */
int sleepy_sched_attach(struct sleepy_session *session);
void sleepy_sched_detach(struct sleepy_session *session);

/* irq.c: interrupt histograms, probes on the interrupts' tracepoints. */
struct sleepy_irq_run {
	u64 start_ns;
	u64 nested_at_start;
};

int sleepy_irq_create(struct sleepy_session *session);
void sleepy_irq_destroy(struct sleepy_session *session);
int sleepy_irq_attach(struct sleepy_session *session);
void sleepy_irq_detach(struct sleepy_session *session);
void sleepy_irq_write(struct sleepy_session *session, u64 time_ns);
void sleepy_irq_run_begin(struct sleepy_irq_run *run, u64 nested_ns, u64 now);
u64 sleepy_irq_run_end(const struct sleepy_irq_run *run, u64 *nested_ns,
		       u64 now, bool hardirq);
int sleepy_irq_flush(struct sleepy_session *session);
u32 sleepy_irq_current(u32 *kind);

/* probes.c: a tracepoint's probe, by functions SLEEPY_PROBE() makes. */
struct sleepy_probe {
	int (*reg)(void);
	void (*unreg)(void);
};

#define SLEEPY_PROBE(tp, fn)						\
static int sleepy_register_##tp(void)					\
{									\
	return register_trace_##tp(fn, NULL);				\
}									\
static void sleepy_unregister_##tp(void)				\
{									\
	unregister_trace_##tp(fn, NULL);				\
}

#define SLEEPY_PROBE_OF(tp)	{ sleepy_register_##tp, sleepy_unregister_##tp }

int sleepy_probes_register(const struct sleepy_probe *probes, unsigned int n);
void sleepy_probes_unregister(const struct sleepy_probe *probes,
			      unsigned int n);
int sleepy_probes_attach(bool *attached, const struct sleepy_probe *probes,
			 unsigned int n);
void sleepy_probes_detach(bool *attached, const struct sleepy_probe *probes,
			  unsigned int n);

/* process.c: probes on fork, exec and exit, and the walk's announcements. */
int sleepy_process_attach(struct sleepy_session *session);
void sleepy_process_detach(struct sleepy_session *session);
bool sleepy_selected(struct sleepy_session *session, struct task_struct *task);
bool sleepy_app_map_existing(struct sleepy_session *session,
			     struct task_struct *task,
			     struct sleepy_app_start *rec);

/* maps.c: executable mappings, and those of the start walk. */
int sleepy_walk_mappings(struct sleepy_session *session,
			 struct task_struct *task, u32 appid,
			 struct sleepy_mmap_scratch *scratch);

/* walk.c: the start walk, in a kthread of the session's own. */
int sleepy_walk_create(struct sleepy_session *session);
void sleepy_walk_start(struct sleepy_session *session);
void sleepy_walk_stop(struct sleepy_session *session);
void sleepy_walk_destroy(struct sleepy_session *session);
int sleepy_walk_wait_room(struct sleepy_session *session);
int sleepy_walk_lock_mm(struct mm_struct *mm);

#endif /* _KERNEL_SLEEPY_SLEEPY_H */
