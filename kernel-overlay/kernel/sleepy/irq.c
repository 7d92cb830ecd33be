// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: what interrupts cost, for sessions that ask (SLEEPY_FLAG_IRQ):
 * per CPU, a log2 histogram of the handler time of every hard interrupt
 * (per IRQ number, and per x86 system vector: the local APIC timer,
 * irq_work, rescheduling and function-call IPIs), of every softirq
 * vector's run time and of its delay from raise to run, and the time
 * each interrupt took from the application it interrupted.  With
 * SLEEPY_FLAG_SCHED the same probes note which interrupt a CPU is
 * handling, so that a wakeup from interrupt context names it.
 * OSprof's latency histograms, kept in memory and written into the
 * stream at the stop and when the session's owner asks
 * (SLEEPY_IOC_IRQ_FLUSH), rather than a record per interrupt.
 *
 * Writers: probes on the tracepoints that already sit at each place
 * (irq_handler_entry/exit around each action, softirq_entry/exit/raise,
 * and x86's system vector ones), registered when a session that needs
 * them is created.  Each CPU updates only its own tables, from its
 * interrupt handlers (interrupts off) and its softirq handlers
 * (interrupts on: the update disables them, so a hard interrupt cannot
 * nest into it).  Softirqs do not nest on one CPU; hard interrupts do,
 * when a handler demultiplexes another IRQ, so their frames are a small
 * stack.  An IRQ is timed from its first action's entry to its last
 * action's exit, the way /proc/interrupts counts it; on a shared line
 * each action has a histogram of its own too, keyed by the action's
 * dev_id and named by the name it had when first seen, so that a line's
 * time can be told apart by device.
 *
 * Nesting: a time is the handler's own.  Each CPU sums the own time of
 * the hard interrupts it finished; a handler, softirq or action takes off
 * what that sum grew by while it ran, so a timer interrupt inside a
 * softirq, or a demultiplexed IRQ inside its parent, is counted once,
 * the way the kernel's irqtime accounting splits them.
 *
 * Readers: irq_flush.c, which writes the tables into the stream.
 *
 * The tables are open-addressed and fixed in size; an interrupt that
 * finds no room within a few slots of its own is counted in a catch-all
 * entry (number SLEEPY_IRQ_OTHER), never lost, and an update with
 * interrupts off never scans a whole table.
 */
#include <kunit/visibility.h>
#include <linux/cpu.h>
#include <linux/hash.h>
#include <linux/interrupt.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sleepy.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <trace/events/irq.h>
#include <asm/trace/irq_vectors.h>

#include "irq.h"
#include "sleepy.h"

/*
 * The hard interrupts and the softirq this CPU is handling, while the
 * probes are registered: for the times, and to name what woke a task from
 * interrupt context (sched.c).  Deeper hard interrupts than the stack
 * holds are counted but not timed.  Written by the CPU itself with
 * interrupts off.
 */
#define SLEEPY_IRQ_NESTING	4

struct sleepy_irq_frame {
	u32 kind;
	u32 number;
	struct sleepy_irq_run run;	/* start 0: no session timed it */
	u32 actions;		/* actions of the IRQ entered so far */
	u32 action;		/* the running action's id, if timed */
	struct sleepy_irq_run action_run; /* the running action's, if timed */
	/* Between two actions: the next one, and when the last ended. */
	const struct irqaction *next_action;
	u64 action_end_ns;	/* 0 if not timed */
};

struct sleepy_irq_source {
	u32 depth;		/* hard interrupts entered and not left */
	u32 softirq;		/* the softirq's number + 1, 0: none */
	struct sleepy_irq_run softirq_run; /* start 0: no session timed it */
	u64 nested_ns;		/* own time of the hard interrupts finished */
	struct sleepy_irq_frame hardirq[SLEEPY_IRQ_NESTING];
};

static DEFINE_PER_CPU(struct sleepy_irq_source, sleepy_irq_source);

/**
 * sleepy_irq_run_begin - a handler, softirq or action begins at @now
 * @run: its run
 * @nested_ns: the CPU's own time of the hard interrupts finished so far
 * @now: the time
 */
void sleepy_irq_run_begin(struct sleepy_irq_run *run, u64 nested_ns, u64 now)
{
	run->start_ns = now;
	run->nested_at_start = nested_ns;
}

/**
 * sleepy_irq_run_end - its own time, without what nested in it
 * @run: the run, begun
 * @nested_ns: the CPU's own time of the hard interrupts finished so far;
 *	a hard interrupt (@hardirq) adds its own time to it, so that what
 *	it nested in takes it off
 * @now: the end
 * @hardirq: whether the run is a hard interrupt's
 *
 * Interrupts off.
 */
u64 sleepy_irq_run_end(const struct sleepy_irq_run *run, u64 *nested_ns,
		       u64 now, bool hardirq)
{
	u64 wall = now - run->start_ns;
	u64 nested = *nested_ns - run->nested_at_start;
	u64 own = wall > nested ? wall - nested : 0;

	if (hardirq)
		*nested_ns += own;
	return own;
}

/**
 * sleepy_irq_current - what this CPU is handling in interrupt context
 * @kind: set to the enum sleepy_irq_kind of it
 *
 * Returns the IRQ, vector or softirq number, or SLEEPY_IRQ_OTHER if the
 * probes did not see it start (an interrupt without a tracepoint, or one
 * that began before the session).  Interrupts off, in hard-irq or
 * softirq context.
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

/* Whether a session wants the interrupts' start times. */
static bool sleepy_irq_timed(void)
{
	struct sleepy_irq_cpu *cpu;

	return sleepy_irq_session(&cpu);
}

VISIBLE_IF_KUNIT struct sleepy_irq_hist_slot *
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
	slot->action = kind == SLEEPY_IRQ_ACTION ? SLEEPY_IRQ_OTHER : 0;
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

/*
 * The id of @action of @irq in the session, given when it is first seen
 * with its name then; SLEEPY_IRQ_OTHER once the table is full.  Hard-irq
 * context.
 */
static u32 sleepy_irq_action_id(struct sleepy_irq_actions *actions, u32 irq,
				const struct irqaction *action)
{
	/* The slots up to the count: pairs with the release that adds one. */
	u32 i, count = smp_load_acquire(&actions->count);

	for (i = 0; i < count; i++)
		if (actions->slot[i].irq == irq &&
		    actions->slot[i].dev_id == action->dev_id)
			return i;
	raw_spin_lock(&actions->lock);
	for (; i < actions->count; i++)
		if (actions->slot[i].irq == irq &&
		    actions->slot[i].dev_id == action->dev_id)
			goto unlock;
	if (i == SLEEPY_IRQ_ACTIONS) {
		i = SLEEPY_IRQ_OTHER;
		goto unlock;
	}
	actions->slot[i].irq = irq;
	actions->slot[i].dev_id = action->dev_id;
	strscpy_pad(actions->slot[i].name, action->name ?: "");
	/* The slot before the count that covers it. */
	smp_store_release(&actions->count, i + 1);
unlock:
	raw_spin_unlock(&actions->lock);
	return i;
}

/* A hard interrupt begins: its frame.  Interrupts off. */
static void sleepy_irq_enter(u32 kind, u32 number)
{
	struct sleepy_irq_source *source = this_cpu_ptr(&sleepy_irq_source);
	struct sleepy_irq_frame *frame;

	if (source->depth++ >= SLEEPY_IRQ_NESTING)
		return;
	frame = &source->hardirq[source->depth - 1];
	frame->kind = kind;
	frame->number = number;
	frame->run.start_ns = 0;
	if (sleepy_irq_timed())
		sleepy_irq_run_begin(&frame->run, source->nested_ns,
				     sleepy_now());
	frame->actions = 0;
	frame->action_run.start_ns = 0;
	frame->next_action = NULL;
}

/* A hard interrupt ends at @end_ns (0: now): its own time, accounted. */
static void sleepy_irq_leave(u64 end_ns)
{
	struct sleepy_irq_source *source = this_cpu_ptr(&sleepy_irq_source);
	struct sleepy_irq_frame *frame;
	struct sleepy_session *session;
	struct sleepy_irq_cpu *cpu;
	u64 own;

	/* Zero: the probes came on while this handler ran. */
	if (!source->depth)
		return;
	if (source->depth-- > SLEEPY_IRQ_NESTING)
		return;
	frame = &source->hardirq[source->depth];
	session = sleepy_irq_session(&cpu);
	if (!session || !frame->run.start_ns)
		return;
	own = sleepy_irq_run_end(&frame->run, &source->nested_ns,
				 end_ns ?: sleepy_now(), true);
	sleepy_irq_account(session, cpu, frame->kind, frame->number, own, true);
}

/* The frame of the innermost hard interrupt, if it has one; else NULL. */
static struct sleepy_irq_frame *sleepy_irq_top(void)
{
	struct sleepy_irq_source *source = this_cpu_ptr(&sleepy_irq_source);

	if (!source->depth || source->depth > SLEEPY_IRQ_NESTING)
		return NULL;
	return &source->hardirq[source->depth - 1];
}

/* Whether @irq is the innermost hard interrupt with a frame. */
static bool sleepy_irq_on_top(u32 irq)
{
	struct sleepy_irq_frame *frame = sleepy_irq_top();

	return frame && frame->kind == SLEEPY_IRQ_HARDIRQ && frame->number == irq;
}

/*
 * A shared line's frame still waiting for the action after its last: the
 * handler loop ended there, as free_irq() unlinked that one after the
 * last exit looked.  No hard interrupt enters between two actions (they
 * run with interrupts off), so unless the next is @action, the frame ends
 * where its last action did.  Interrupts off.
 */
static void sleepy_irq_end_stale(const struct irqaction *action)
{
	struct sleepy_irq_frame *frame = sleepy_irq_top();

	if (!frame || !frame->next_action)
		return;
	if (frame->next_action == action)
		frame->next_action = NULL;
	else
		sleepy_irq_leave(frame->action_end_ns);
}

/*
 * The IRQ starts at its first action and ends after its last (an IRQ does
 * not nest in itself); without a frame (nested too deep) each action is
 * entered and left on its own.  Only a shared line's actions are timed on
 * their own: the first has a next, the others follow one.
 */
VISIBLE_IF_KUNIT void sleepy_probe_irq_entry(void *unused, int irq,
					     struct irqaction *action)
{
	struct sleepy_irq_source *source = this_cpu_ptr(&sleepy_irq_source);
	struct sleepy_irq_frame *frame;
	struct sleepy_irq_cpu *cpu;
	struct sleepy_session *session;

	sleepy_irq_end_stale(action);
	if (!sleepy_irq_on_top(irq))
		sleepy_irq_enter(SLEEPY_IRQ_HARDIRQ, irq);
	frame = sleepy_irq_top();
	if (!frame)
		return;
	frame->action_run.start_ns = 0;
	if (frame->run.start_ns && (frame->actions || action->next)) {
		session = sleepy_irq_session(&cpu);
		if (session) {
			frame->action = sleepy_irq_action_id(session->irq_actions,
							     irq, action);
			sleepy_irq_run_begin(&frame->action_run,
					     source->nested_ns, sleepy_now());
		}
	}
	frame->actions++;
}

VISIBLE_IF_KUNIT void sleepy_probe_irq_exit(void *unused, int irq,
					    struct irqaction *action, int ret)
{
	struct sleepy_irq_source *source = this_cpu_ptr(&sleepy_irq_source);
	struct sleepy_irq_frame *frame = sleepy_irq_top();
	struct irqaction *next = READ_ONCE(action->next);
	struct sleepy_irq_cpu *cpu;

	if (frame && frame->action_run.start_ns && sleepy_irq_session(&cpu))
		sleepy_irq_hist_add(sleepy_irq_hist_slot(cpu, SLEEPY_IRQ_ACTION,
							 frame->number,
							 frame->action),
				    sleepy_irq_run_end(&frame->action_run,
						       &source->nested_ns,
						       sleepy_now(), false));
	if (frame)
		frame->action_run.start_ns = 0;
	if (!next || !sleepy_irq_on_top(irq)) {
		sleepy_irq_leave(0);
		return;
	}
	frame->next_action = next;
	frame->action_end_ns = frame->run.start_ns ? sleepy_now() : 0;
}

static void sleepy_probe_softirq_raise(void *unused, unsigned int nr)
{
	struct sleepy_irq_cpu *cpu;

	if (nr < NR_SOFTIRQS && sleepy_irq_session(&cpu) &&
	    !cpu->raised_ns[nr])
		cpu->raised_ns[nr] = sleepy_now();
}

/* Softirq handlers run with interrupts on: the tables need them off. */
static void sleepy_probe_softirq_entry(void *unused, unsigned int nr)
{
	struct sleepy_irq_source *source;
	struct sleepy_session *session;
	struct sleepy_irq_cpu *cpu;
	unsigned long flags;
	u64 now, raised;

	if (nr >= NR_SOFTIRQS)
		return;
	local_irq_save(flags);
	source = this_cpu_ptr(&sleepy_irq_source);
	source->softirq = nr + 1;
	source->softirq_run.start_ns = 0;
	session = sleepy_irq_session(&cpu);
	if (session) {
		now = sleepy_now();
		raised = cpu->raised_ns[nr];
		cpu->raised_ns[nr] = 0;
		sleepy_irq_run_begin(&source->softirq_run, source->nested_ns,
				     now);
		if (raised)
			sleepy_irq_account(session, cpu,
					   SLEEPY_IRQ_SOFTIRQ_DELAY, nr,
					   now - raised, false);
	}
	local_irq_restore(flags);
}

static void sleepy_probe_softirq_exit(void *unused, unsigned int nr)
{
	struct sleepy_irq_source *source;
	struct sleepy_session *session;
	struct sleepy_irq_cpu *cpu;
	unsigned long flags;

	local_irq_save(flags);
	source = this_cpu_ptr(&sleepy_irq_source);
	source->softirq = 0;
	session = sleepy_irq_session(&cpu);
	if (session && source->softirq_run.start_ns && nr < NR_SOFTIRQS)
		sleepy_irq_account(session, cpu, SLEEPY_IRQ_SOFTIRQ, nr,
				   sleepy_irq_run_end(&source->softirq_run,
						      &source->nested_ns,
						      sleepy_now(), false),
				   true);
	source->softirq_run.start_ns = 0;
	local_irq_restore(flags);
}

/* The x86 system vectors with tracepoints that wake tasks or take time. */
VISIBLE_IF_KUNIT void sleepy_probe_vector_entry(void *unused, int vector)
{
	sleepy_irq_end_stale(NULL);
	sleepy_irq_enter(SLEEPY_IRQ_SYSVEC, vector);
}

VISIBLE_IF_KUNIT void sleepy_probe_vector_exit(void *unused, int vector)
{
	sleepy_irq_leave(0);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Hard interrupts this CPU entered and has not left, for the tests. */
u32 sleepy_irq_depth(void)
{
	return this_cpu_read(sleepy_irq_source.depth);
}
#endif

SLEEPY_PROBE(irq_handler_exit, sleepy_probe_irq_exit)
SLEEPY_PROBE(irq_handler_entry, sleepy_probe_irq_entry)
SLEEPY_PROBE(softirq_exit, sleepy_probe_softirq_exit)
SLEEPY_PROBE(softirq_entry, sleepy_probe_softirq_entry)
SLEEPY_PROBE(softirq_raise, sleepy_probe_softirq_raise)
SLEEPY_PROBE(local_timer_exit, sleepy_probe_vector_exit)
SLEEPY_PROBE(local_timer_entry, sleepy_probe_vector_entry)
SLEEPY_PROBE(irq_work_exit, sleepy_probe_vector_exit)
SLEEPY_PROBE(irq_work_entry, sleepy_probe_vector_entry)
SLEEPY_PROBE(reschedule_exit, sleepy_probe_vector_exit)
SLEEPY_PROBE(reschedule_entry, sleepy_probe_vector_entry)
SLEEPY_PROBE(call_function_exit, sleepy_probe_vector_exit)
SLEEPY_PROBE(call_function_entry, sleepy_probe_vector_entry)
SLEEPY_PROBE(call_function_single_exit, sleepy_probe_vector_exit)
SLEEPY_PROBE(call_function_single_entry, sleepy_probe_vector_entry)

/* Exits before entries: no entry a probe sees is left without its exit. */
static const struct sleepy_probe sleepy_irq_probes[] = {
	SLEEPY_PROBE_OF(irq_handler_exit),
	SLEEPY_PROBE_OF(irq_handler_entry),
	SLEEPY_PROBE_OF(softirq_exit),
	SLEEPY_PROBE_OF(softirq_entry),
	SLEEPY_PROBE_OF(softirq_raise),
	SLEEPY_PROBE_OF(local_timer_exit),
	SLEEPY_PROBE_OF(local_timer_entry),
	SLEEPY_PROBE_OF(irq_work_exit),
	SLEEPY_PROBE_OF(irq_work_entry),
	SLEEPY_PROBE_OF(reschedule_exit),
	SLEEPY_PROBE_OF(reschedule_entry),
	SLEEPY_PROBE_OF(call_function_exit),
	SLEEPY_PROBE_OF(call_function_entry),
	SLEEPY_PROBE_OF(call_function_single_exit),
	SLEEPY_PROBE_OF(call_function_single_entry),
};

/* Allocates the tables of a session that asked for them; process context. */
int sleepy_irq_create(struct sleepy_session *session)
{
	/* alloc_percpu() serves no more than that. */
	BUILD_BUG_ON(sizeof(struct sleepy_irq_cpu) > PCPU_MIN_UNIT_SIZE);
	if (!(session->attr.flags & SLEEPY_FLAG_IRQ))
		return 0;
	session->irq_actions = kzalloc(sizeof(*session->irq_actions),
				       GFP_KERNEL);
	if (!session->irq_actions)
		return -ENOMEM;
	raw_spin_lock_init(&session->irq_actions->lock);
	session->irq = alloc_percpu(struct sleepy_irq_cpu);
	return session->irq ? 0 : -ENOMEM;
}

void sleepy_irq_destroy(struct sleepy_session *session)
{
	free_percpu(session->irq);
	session->irq = NULL;
	kfree(session->irq_actions);
	session->irq_actions = NULL;
}

/*
 * Forgets what every CPU was handling, so that the next session neither
 * takes a handler it did not see start for the last one it saw nor keeps
 * a depth whose exit the probes, gone, did not see.  After the probes'
 * unregistration: no handler that saw them still runs.
 */
static void sleepy_irq_reset(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&sleepy_irq_source, cpu), 0,
		       sizeof(struct sleepy_irq_source));
}

/**
 * sleepy_irq_attach - time interrupts for @session, if it asks
 * @session: the session being created
 *
 * Registers the probes for the histograms or, with SLEEPY_FLAG_SCHED, to
 * name the interrupts that wake tasks; they time nothing until the
 * session samples.  Process context, sleepy_session_lock held.  Returns
 * 0 or a negative errno.
 */
int sleepy_irq_attach(struct sleepy_session *session)
{
	int err;

	if (!session->irq && !(session->attr.flags & SLEEPY_FLAG_SCHED))
		return 0;
	err = sleepy_probes_attach(&session->irq_attached, sleepy_irq_probes,
				   ARRAY_SIZE(sleepy_irq_probes));
	/* Probes that ran before the others failed may have left a frame. */
	if (err)
		sleepy_irq_reset();
	return err;
}

/*
 * Unregisters the probes of @session, once it stopped sampling (or never
 * did), waits until none runs, and forgets what the CPUs were handling.
 * Process context.
 */
void sleepy_irq_detach(struct sleepy_session *session)
{
	if (!session->irq_attached)
		return;
	sleepy_probes_detach(&session->irq_attached, sleepy_irq_probes,
			     ARRAY_SIZE(sleepy_irq_probes));
	sleepy_irq_reset();
}
