// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: what interrupts cost, for sessions that ask (SLEEPY_FLAG_IRQ):
 * per CPU, a log2 histogram of the handler time of every hard interrupt
 * (per IRQ number, and the local APIC timer's system vector on x86), of
 * every softirq vector's run time and of its delay from raise to run,
 * and the time each interrupt took from the application it interrupted.
 * With SLEEPY_FLAG_SCHED the same hooks note which interrupt a CPU is
 * handling, so that a wakeup from interrupt context names it.
 * OSprof's latency histograms, kept in memory and written into the
 * stream at the stop and when the session's owner asks
 * (SLEEPY_IOC_IRQ_FLUSH), rather than a record per interrupt.
 *
 * Writers: each CPU updates only its own tables, from its interrupt
 * handlers (interrupts off) and its softirq handlers (interrupts on:
 * the update disables them, so a hard interrupt cannot nest into it).
 * Softirqs do not nest on one CPU; hard interrupts do, when a handler
 * demultiplexes another IRQ, so their start times are a small stack.
 * Hard interrupts are timed per IRQ, over all its actions, the way
 * /proc/interrupts counts them; on a shared line each action's handler
 * has a histogram of its own too (its place in the IRQ's list names
 * it), so that a line's time can be told apart by device.  Readers: a
 * flush, on each online CPU in an IPI (interrupts off, so no handler of
 * that CPU is halfway through an update), and for a CPU that is offline
 * (no handler runs there) from the flushing CPU under cpus_read_lock();
 * the flush writes what the slots hold and zeroes what it wrote.  The
 * session stop, after the hooks' static key is off and a grace period
 * has passed, so no writer runs any more.  The session lock keeps
 * flushes and the stop apart.
 *
 * The tables are open-addressed and fixed in size; an interrupt that
 * finds no room within a few slots of its own is counted in a catch-all
 * entry (number SLEEPY_IRQ_OTHER), never lost, and an update with
 * interrupts off never scans a whole table.
 *
 * Calls, as for the scheduler (sched.c); on a kernel with tracepoints,
 * sleepy.irq_probes=1 has the same functions run from probes on
 * irq_handler_entry/exit, softirq_entry/exit/raise and x86's
 * local_timer_entry/exit instead, to compare the two.  Those see the
 * actions, not the IRQ: its time runs from its first action's entry to
 * its last action's exit.  Exits are registered before entries and
 * unregistered after them, and the stop forgets what every CPU was
 * handling only once no probe runs, so no entry is left without its
 * exit.
 */
#include <linux/cpu.h>
#include <linux/hash.h>
#include <linux/interrupt.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sleepy.h>
#include <trace/events/irq.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/trace/irq_vectors.h>
#endif

#include "sleepy.h"

DEFINE_STATIC_KEY_FALSE(sleepy_irq_active);

#define SLEEPY_IRQ_HIST_SLOTS	128	/* power of two */
#define SLEEPY_IRQ_APP_SLOTS	256	/* power of two */
/* Slots an update probes before it takes the catch-all entry. */
#define SLEEPY_IRQ_PROBES	16

struct sleepy_irq_hist_slot {
	u32 kind;		/* enum sleepy_irq_kind, + 1: 0 is free */
	u32 number;
	u32 action;		/* SLEEPY_IRQ_ACTION's place in its list */
	u64 count;
	u64 total_ns;
	u32 log2_ns[SLEEPY_IRQ_BUCKETS];
};

struct sleepy_irq_app_slot {
	u32 kind;		/* enum sleepy_irq_kind, + 1: 0 is free */
	u32 number;
	u32 appid;
	u64 count;
	u64 total_ns;
};

/* One CPU's tables. */
struct sleepy_irq_cpu {
	u64 softirq_start_ns;
	u64 raised_ns[NR_SOFTIRQS];	/* 0: not raised since its last run */
	struct sleepy_irq_hist_slot hist[SLEEPY_IRQ_HIST_SLOTS];
	struct sleepy_irq_app_slot apps[SLEEPY_IRQ_APP_SLOTS];
	/* What found a full table, per kind, as number SLEEPY_IRQ_OTHER. */
	struct sleepy_irq_hist_slot hist_other[SLEEPY_IRQ_KINDS];
	struct sleepy_irq_app_slot apps_other[SLEEPY_IRQ_KINDS];
};

/*
 * The hard interrupts and the softirq this CPU is handling, while the
 * hooks are on: for the histograms' start times, and to name what woke a
 * task from interrupt context (sched.c).  Hard interrupts nest when a
 * demultiplexing handler calls another IRQ's, so they are a small stack;
 * deeper ones are counted but not timed.  Written by the CPU itself with
 * interrupts off.
 */
#define SLEEPY_IRQ_NESTING	4

struct sleepy_irq_frame {
	u32 kind;
	u32 number;
	u64 start_ns;		/* 0: no session timed its start */
	u32 actions;		/* actions of the IRQ entered so far */
	u64 action_start_ns;	/* the running action's, if timed; else 0 */
};

struct sleepy_irq_source {
	u32 depth;		/* hard interrupts entered and not left */
	u32 softirq;		/* the softirq's number + 1, 0: none */
	struct sleepy_irq_frame hardirq[SLEEPY_IRQ_NESTING];
};

static DEFINE_PER_CPU(struct sleepy_irq_source, sleepy_irq_source);

/**
 * sleepy_irq_current - what this CPU is handling in interrupt context
 * @kind: set to the enum sleepy_irq_kind of it
 *
 * Returns the IRQ, vector or softirq number, or SLEEPY_IRQ_OTHER if the
 * hooks did not see it start (an interrupt they do not wrap, or one that
 * began before the session).  Interrupts off, in hard-irq or softirq
 * context.
 */
u32 sleepy_irq_current(u32 *kind)
{
	struct sleepy_irq_source *source = this_cpu_ptr(&sleepy_irq_source);
	u32 depth = source->depth;

	if (in_hardirq()) {
		*kind = SLEEPY_IRQ_HARDIRQ;
		if (!depth || depth > SLEEPY_IRQ_NESTING)
			return SLEEPY_IRQ_OTHER;
		*kind = source->hardirq[depth - 1].kind;
		return source->hardirq[depth - 1].number;
	}
	*kind = SLEEPY_IRQ_SOFTIRQ;
	return source->softirq ? source->softirq - 1 : SLEEPY_IRQ_OTHER;
}

/* The session recording interrupts, if one runs, and this CPU's tables. */
static struct sleepy_session *sleepy_irq_session(struct sleepy_irq_cpu **cpu)
{
	struct sleepy_session *session = rcu_dereference_sched(sleepy_live);

	if (!session || !READ_ONCE(session->sampling) || !session->irq)
		return NULL;
	*cpu = this_cpu_ptr(session->irq);
	return session;
}

static struct sleepy_irq_hist_slot *
sleepy_irq_hist_slot(struct sleepy_irq_cpu *cpu, u32 kind, u32 number,
		     u32 action)
{
	u32 i = hash_32((kind << 24 ^ number) * 31 + action,
			ilog2(SLEEPY_IRQ_HIST_SLOTS));
	struct sleepy_irq_hist_slot *slot;
	u32 n;

	for (n = 0; n < SLEEPY_IRQ_PROBES; n++) {
		slot = &cpu->hist[i];

		if (!slot->kind) {
			slot->kind = kind + 1;
			slot->number = number;
			slot->action = action;
		}
		if (slot->kind == kind + 1 && slot->number == number &&
		    slot->action == action)
			return slot;
		i = (i + 1) & (SLEEPY_IRQ_HIST_SLOTS - 1);
	}
	slot = &cpu->hist_other[kind];
	slot->kind = kind + 1;
	slot->number = SLEEPY_IRQ_OTHER;
	return slot;
}

static struct sleepy_irq_app_slot *
sleepy_irq_app_slot(struct sleepy_irq_cpu *cpu, u32 kind, u32 number, u32 appid)
{
	u32 i = hash_32((kind << 24 ^ number) * 31 + appid,
			ilog2(SLEEPY_IRQ_APP_SLOTS));
	struct sleepy_irq_app_slot *slot;
	u32 n;

	for (n = 0; n < SLEEPY_IRQ_PROBES; n++) {
		slot = &cpu->apps[i];

		if (!slot->kind) {
			slot->kind = kind + 1;
			slot->number = number;
			slot->appid = appid;
		}
		if (slot->kind == kind + 1 && slot->number == number &&
		    slot->appid == appid)
			return slot;
		i = (i + 1) & (SLEEPY_IRQ_APP_SLOTS - 1);
	}
	slot = &cpu->apps_other[kind];
	slot->kind = kind + 1;
	slot->number = SLEEPY_IRQ_OTHER;
	return slot;
}

/* Adds one run of @ns to @hist; interrupts off. */
static void sleepy_irq_hist_add(struct sleepy_irq_hist_slot *hist, u64 ns)
{
	lockdep_assert_irqs_disabled();
	hist->count++;
	hist->total_ns += ns;
	hist->log2_ns[min(ns ? ilog2(ns) : 0, SLEEPY_IRQ_BUCKETS - 1)]++;
}

/*
 * Adds one handler run of @ns to this CPU's histogram of @kind/@number
 * and, if @charge and it interrupted an application, to that
 * application's account.  Interrupts off.
 */
static void sleepy_irq_account(struct sleepy_session *session,
			       struct sleepy_irq_cpu *cpu, u32 kind, u32 number,
			       u64 ns, bool charge)
{
	struct sleepy_irq_app_slot *app;
	struct task_struct *task = current;
	u32 appid;

	sleepy_irq_hist_add(sleepy_irq_hist_slot(cpu, kind, number, 0), ns);
	if (!charge || is_idle_task(task))
		return;
	appid = sleepy_apps_lookup(session->apps, task->tgid);
	if (!appid)
		return;
	app = sleepy_irq_app_slot(cpu, kind, number, appid);
	app->count++;
	app->total_ns += ns;
}

void __sleepy_irq_entry(unsigned int kind, unsigned int number)
{
	struct sleepy_irq_source *source = this_cpu_ptr(&sleepy_irq_source);
	struct sleepy_irq_frame *frame;
	struct sleepy_irq_cpu *cpu;

	if (source->depth++ >= SLEEPY_IRQ_NESTING)
		return;
	frame = &source->hardirq[source->depth - 1];
	frame->kind = kind;
	frame->number = number;
	frame->start_ns = sleepy_irq_session(&cpu) ? sleepy_now() : 0;
	frame->actions = 0;
	frame->action_start_ns = 0;
}

void __sleepy_irq_exit(unsigned int kind, unsigned int number)
{
	struct sleepy_irq_source *source = this_cpu_ptr(&sleepy_irq_source);
	struct sleepy_session *session;
	struct sleepy_irq_cpu *cpu;
	u64 start;

	/* Zero: the hooks came on while this handler ran. */
	if (!source->depth)
		return;
	if (source->depth-- > SLEEPY_IRQ_NESTING)
		return;
	start = source->hardirq[source->depth].start_ns;
	session = sleepy_irq_session(&cpu);
	if (session && start && kind < SLEEPY_IRQ_KINDS)
		sleepy_irq_account(session, cpu, kind, number,
				   sleepy_now() - start, true);
}

/* The frame of the innermost hard interrupt, if it has one; else NULL. */
static struct sleepy_irq_frame *sleepy_irq_top(void)
{
	struct sleepy_irq_source *source = this_cpu_ptr(&sleepy_irq_source);

	if (!source->depth || source->depth > SLEEPY_IRQ_NESTING)
		return NULL;
	return &source->hardirq[source->depth - 1];
}

/*
 * An action of the innermost IRQ is about to run, and has run.  Only a
 * shared line's actions are timed: the first has a next, the others
 * follow one.  Interrupts off.
 */
void __sleepy_irq_action_entry(struct irqaction *action)
{
	struct sleepy_irq_frame *frame = sleepy_irq_top();

	if (!frame)
		return;
	frame->action_start_ns = 0;
	if (frame->start_ns && (frame->actions || action->next))
		frame->action_start_ns = sleepy_now();
	frame->actions++;
}

void __sleepy_irq_action_exit(struct irqaction *action)
{
	struct sleepy_irq_frame *frame = sleepy_irq_top();
	struct sleepy_irq_cpu *cpu;
	u64 start;

	if (!frame || !frame->action_start_ns)
		return;
	start = frame->action_start_ns;
	frame->action_start_ns = 0;
	if (sleepy_irq_session(&cpu))
		sleepy_irq_hist_add(sleepy_irq_hist_slot(cpu, SLEEPY_IRQ_ACTION,
							 frame->number,
							 frame->actions - 1),
				    sleepy_now() - start);
}

void __sleepy_softirq_raise(unsigned int nr)
{
	struct sleepy_irq_cpu *cpu;

	if (nr < NR_SOFTIRQS && sleepy_irq_session(&cpu) &&
	    !cpu->raised_ns[nr])
		cpu->raised_ns[nr] = sleepy_now();
}

/* Softirq handlers run with interrupts on: the tables need them off. */
void __sleepy_softirq_entry(unsigned int nr)
{
	struct sleepy_session *session;
	struct sleepy_irq_cpu *cpu;
	unsigned long flags;
	u64 now, raised;

	if (nr >= NR_SOFTIRQS)
		return;
	local_irq_save(flags);
	__this_cpu_write(sleepy_irq_source.softirq, nr + 1);
	session = sleepy_irq_session(&cpu);
	if (session) {
		now = sleepy_now();
		raised = cpu->raised_ns[nr];
		cpu->raised_ns[nr] = 0;
		cpu->softirq_start_ns = now;
		if (raised)
			sleepy_irq_account(session, cpu,
					   SLEEPY_IRQ_SOFTIRQ_DELAY, nr,
					   now - raised, false);
	}
	local_irq_restore(flags);
}

void __sleepy_softirq_exit(unsigned int nr)
{
	struct sleepy_session *session;
	struct sleepy_irq_cpu *cpu;
	unsigned long flags;
	u64 start;

	local_irq_save(flags);
	__this_cpu_write(sleepy_irq_source.softirq, 0);
	session = sleepy_irq_session(&cpu);
	if (session) {
		start = cpu->softirq_start_ns;
		cpu->softirq_start_ns = 0;
		if (start)
			sleepy_irq_account(session, cpu, SLEEPY_IRQ_SOFTIRQ, nr,
					   sleepy_now() - start, true);
	}
	local_irq_restore(flags);
}

/* Allocates the tables of a session that asked for them; process context. */
int sleepy_irq_create(struct sleepy_session *session)
{
	/* alloc_percpu() serves no more than that. */
	BUILD_BUG_ON(sizeof(struct sleepy_irq_cpu) > PCPU_MIN_UNIT_SIZE);
	if (!(session->attr.flags & SLEEPY_FLAG_IRQ))
		return 0;
	session->irq = alloc_percpu(struct sleepy_irq_cpu);
	return session->irq ? 0 : -ENOMEM;
}

void sleepy_irq_destroy(struct sleepy_session *session)
{
	free_percpu(session->irq);
	session->irq = NULL;
}

static bool sleepy_irq_wanted(const struct sleepy_session *session)
{
	return session->irq || (session->attr.flags & SLEEPY_FLAG_SCHED);
}

#ifdef CONFIG_TRACEPOINTS
#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "sleepy."
static bool sleepy_irq_probes;
module_param_named(irq_probes, sleepy_irq_probes, bool, 0644);
MODULE_PARM_DESC(irq_probes, "time interrupts through tracepoint probes, not calls");

/*
 * Whether @irq is the innermost hard interrupt with a frame: the probes
 * then see an action after its first (an IRQ does not nest in itself).
 */
static bool sleepy_irq_on_top(u32 irq)
{
	struct sleepy_irq_frame *frame = sleepy_irq_top();

	return frame && frame->kind == SLEEPY_IRQ_HARDIRQ && frame->number == irq;
}

/*
 * The IRQ starts at its first action and ends after its last; without a
 * frame (nested too deep) each action is entered and left on its own.
 */
static void sleepy_probe_irq_entry(void *unused, int irq,
				   struct irqaction *action)
{
	if (!sleepy_irq_on_top(irq))
		__sleepy_irq_entry(SLEEPY_IRQ_HARDIRQ, irq);
	__sleepy_irq_action_entry(action);
}

static void sleepy_probe_irq_exit(void *unused, int irq,
				  struct irqaction *action, int ret)
{
	__sleepy_irq_action_exit(action);
	if (!action->next || !sleepy_irq_on_top(irq))
		__sleepy_irq_exit(SLEEPY_IRQ_HARDIRQ, irq);
}

static void sleepy_probe_softirq_entry(void *unused, unsigned int nr)
{
	__sleepy_softirq_entry(nr);
}

static void sleepy_probe_softirq_exit(void *unused, unsigned int nr)
{
	__sleepy_softirq_exit(nr);
}

static void sleepy_probe_softirq_raise(void *unused, unsigned int nr)
{
	__sleepy_softirq_raise(nr);
}

#ifdef CONFIG_X86_LOCAL_APIC
static void sleepy_probe_timer_entry(void *unused, int vector)
{
	__sleepy_irq_entry(SLEEPY_IRQ_SYSVEC, vector);
}

static void sleepy_probe_timer_exit(void *unused, int vector)
{
	__sleepy_irq_exit(SLEEPY_IRQ_SYSVEC, vector);
}

static int sleepy_register_timer_probes(void)
{
	int err = register_trace_local_timer_exit(sleepy_probe_timer_exit, NULL);

	if (err)
		return err;
	err = register_trace_local_timer_entry(sleepy_probe_timer_entry, NULL);
	if (err)
		unregister_trace_local_timer_exit(sleepy_probe_timer_exit, NULL);
	return err;
}

static void sleepy_unregister_timer_probes(void)
{
	unregister_trace_local_timer_entry(sleepy_probe_timer_entry, NULL);
	unregister_trace_local_timer_exit(sleepy_probe_timer_exit, NULL);
}
#else
static int sleepy_register_timer_probes(void)
{
	return 0;
}

static void sleepy_unregister_timer_probes(void) { }
#endif

/* Whether the probes are registered, under sleepy_session_lock. */
static bool sleepy_irq_probes_registered;

/*
 * Registers the probes for @session if it needs the hooks and
 * sleepy.irq_probes is set; process context, sleepy_session_lock held,
 * cpus_read_lock() not.  If one cannot be registered, the session uses
 * the calls.
 */
void sleepy_irq_probes_register(struct sleepy_session *session)
{
	int err;

	if (!sleepy_irq_wanted(session) || !READ_ONCE(sleepy_irq_probes))
		return;
	err = register_trace_irq_handler_exit(sleepy_probe_irq_exit, NULL);
	if (err)
		goto fail;
	err = register_trace_irq_handler_entry(sleepy_probe_irq_entry, NULL);
	if (err)
		goto irq_exit_registered;
	err = register_trace_softirq_exit(sleepy_probe_softirq_exit, NULL);
	if (err)
		goto irq_entry_registered;
	err = register_trace_softirq_entry(sleepy_probe_softirq_entry, NULL);
	if (err)
		goto softirq_exit_registered;
	err = register_trace_softirq_raise(sleepy_probe_softirq_raise, NULL);
	if (err)
		goto softirq_entry_registered;
	err = sleepy_register_timer_probes();
	if (err)
		goto raise_registered;
	sleepy_irq_probes_registered = true;
	return;

raise_registered:
	unregister_trace_softirq_raise(sleepy_probe_softirq_raise, NULL);
softirq_entry_registered:
	unregister_trace_softirq_entry(sleepy_probe_softirq_entry, NULL);
softirq_exit_registered:
	unregister_trace_softirq_exit(sleepy_probe_softirq_exit, NULL);
irq_entry_registered:
	unregister_trace_irq_handler_entry(sleepy_probe_irq_entry, NULL);
irq_exit_registered:
	unregister_trace_irq_handler_exit(sleepy_probe_irq_exit, NULL);
	tracepoint_synchronize_unregister();
fail:
	pr_warn_ratelimited("sleepy: interrupt probes not registered (%d), using the calls\n",
			    err);
}

/* After the session stopped sampling: the probes then time nothing. */
void sleepy_irq_probes_unregister(void)
{
	if (!sleepy_irq_probes_registered)
		return;
	sleepy_unregister_timer_probes();
	unregister_trace_softirq_raise(sleepy_probe_softirq_raise, NULL);
	unregister_trace_softirq_entry(sleepy_probe_softirq_entry, NULL);
	unregister_trace_softirq_exit(sleepy_probe_softirq_exit, NULL);
	unregister_trace_irq_handler_entry(sleepy_probe_irq_entry, NULL);
	unregister_trace_irq_handler_exit(sleepy_probe_irq_exit, NULL);
	tracepoint_synchronize_unregister();
	sleepy_irq_probes_registered = false;
}
#else
static const bool sleepy_irq_probes_registered;
#endif

/*
 * Turns the hooks on for the histograms or, with SLEEPY_FLAG_SCHED, to
 * name the interrupts that wake tasks, unless probes do it; the caller
 * holds cpus_read_lock().
 */
void sleepy_irq_start(struct sleepy_session *session)
{
	lockdep_assert_cpus_held();
	if (sleepy_irq_wanted(session) && !sleepy_irq_probes_registered)
		static_branch_enable_cpuslocked(&sleepy_irq_active);
}

/* Turns the hooks off; the caller holds cpus_read_lock(). */
void sleepy_irq_stop(void)
{
	lockdep_assert_cpus_held();
	if (static_key_enabled(&sleepy_irq_active))
		static_branch_disable_cpuslocked(&sleepy_irq_active);
}

/*
 * Forgets what every CPU was handling, so that the next session neither
 * takes a handler it did not see start for the last one it saw nor keeps
 * a depth whose exit the hooks, turned off, did not see.  After the stop's
 * grace period and the probes' unregistration: no handler that saw the
 * hooks on still runs.
 */
void sleepy_irq_reset(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&sleepy_irq_source, cpu), 0,
		       sizeof(struct sleepy_irq_source));
}

/* One CPU's tables going into the stream, with the time they end at. */
/*
 * @final: the stop's write, after which the slots are gone: a record
 * without room is a loss, counted as such; before it, a slot without room
 * keeps its counts for the next flush, and nothing is lost.
 */
struct sleepy_irq_flush {
	struct sleepy_session *session;
	unsigned int cpu;
	u64 time_ns;
	bool final;
};

static bool sleepy_irq_write_record(const struct sleepy_irq_flush *flush,
				    void *rec, enum sleepy_record_type type,
				    size_t size)
{
	if (flush->final)
		return sleepy_buffer_write(&flush->session->buffer, rec, type,
					   size);
	return sleepy_buffer_try_write(&flush->session->buffer, rec, type,
				       size);
}

/*
 * Writes a slot that counted something and zeroes it, keeping its key; a
 * slot the buffer had no room for keeps its counts for the next write.
 */
static void sleepy_irq_write_hist(const struct sleepy_irq_flush *flush,
				  struct sleepy_irq_hist_slot *slot)
{
	struct sleepy_irq_hist rec = {
		.kind = slot->kind - 1,
		.number = slot->number,
		.cpu = flush->cpu,
		.action = slot->action,
		.count = slot->count,
		.total_ns = slot->total_ns,
		.time_ns = flush->time_ns,
	};

	if (!slot->count)
		return;
	memcpy(rec.log2_ns, slot->log2_ns, sizeof(rec.log2_ns));
	if (!sleepy_irq_write_record(flush, &rec, SLEEPY_REC_IRQ_HIST,
				     sizeof(rec)))
		return;
	slot->count = 0;
	slot->total_ns = 0;
	memset(slot->log2_ns, 0, sizeof(slot->log2_ns));
}

static void sleepy_irq_write_app(const struct sleepy_irq_flush *flush,
				 struct sleepy_irq_app_slot *slot)
{
	struct sleepy_irq_app rec = {
		.kind = slot->kind - 1,
		.number = slot->number,
		.cpu = flush->cpu,
		.appid = slot->appid,
		.count = slot->count,
		.total_ns = slot->total_ns,
		.time_ns = flush->time_ns,
	};

	if (!slot->count)
		return;
	if (!sleepy_irq_write_record(flush, &rec, SLEEPY_REC_IRQ_APP,
				     sizeof(rec)))
		return;
	slot->count = 0;
	slot->total_ns = 0;
}

/* Writes flush->cpu's tables; no handler of that CPU may run meanwhile. */
static void sleepy_irq_write_cpu(const struct sleepy_irq_flush *flush)
{
	struct sleepy_irq_cpu *tables = per_cpu_ptr(flush->session->irq,
						    flush->cpu);
	unsigned int i;

	for (i = 0; i < SLEEPY_IRQ_HIST_SLOTS; i++)
		sleepy_irq_write_hist(flush, &tables->hist[i]);
	for (i = 0; i < SLEEPY_IRQ_APP_SLOTS; i++)
		sleepy_irq_write_app(flush, &tables->apps[i]);
	for (i = 0; i < SLEEPY_IRQ_KINDS; i++) {
		sleepy_irq_write_hist(flush, &tables->hist_other[i]);
		sleepy_irq_write_app(flush, &tables->apps_other[i]);
	}
}

/* IPI on flush->cpu: its tables, with interrupts off, into its own buffer. */
static void sleepy_irq_flush_local(void *info)
{
	sleepy_irq_write_cpu(info);
}

/**
 * sleepy_irq_flush - write the histograms so far into the stream
 * @session: a running session; the caller holds the session lock
 *
 * Process context.  Returns -EINVAL if the session keeps no histograms.
 */
int sleepy_irq_flush(struct sleepy_session *session)
{
	struct sleepy_irq_flush flush = {
		.session = session,
		.time_ns = sleepy_now(),
	};

	if (!session->irq)
		return -EINVAL;
	cpus_read_lock();
	for_each_possible_cpu(flush.cpu) {
		if (cpu_online(flush.cpu))
			smp_call_function_single(flush.cpu,
						 sleepy_irq_flush_local,
						 &flush, 1);
		else
			sleepy_irq_write_cpu(&flush);
	}
	cpus_read_unlock();
	return 0;
}

/*
 * Writes every CPU's tables into the stream, in the buffer of the CPU the
 * write runs on (each record is written with interrupts off).  The caller
 * has turned the hooks off and waited for a grace period: no handler
 * updates them any more.  A buffer too full for them counts the drops.
 */
void sleepy_irq_write(struct sleepy_session *session, u64 time_ns)
{
	struct sleepy_irq_flush flush = {
		.session = session,
		.time_ns = time_ns,
		.final = true,
	};

	if (!session->irq)
		return;
	for_each_possible_cpu(flush.cpu)
		sleepy_irq_write_cpu(&flush);
}
