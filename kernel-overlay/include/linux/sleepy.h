/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks of the sleepy profiler in the timer tick, the scheduler, interrupt
 * and softirq handling, fork, exec and exit.
 *
 * Each hook is a static branch that stays a no-op until sleepy_start()
 * enables it, so with no session running the cost is one patched jump;
 * the context switch and wakeup hooks, and the interrupt hooks, have keys
 * of their own, on only while a session records them (SLEEPY_FLAG_SCHED,
 * SLEEPY_FLAG_IRQ).  With CONFIG_SLEEPY=n
 * the hooks compile away.
 */
#ifndef _LINUX_SLEEPY_H
#define _LINUX_SLEEPY_H

#include <linux/jump_label.h>
#include <uapi/linux/sleepy.h>

struct irqaction;
struct pt_regs;
struct task_struct;
struct vm_area_struct;

#ifdef CONFIG_SLEEPY
DECLARE_STATIC_KEY_FALSE(sleepy_active);
DECLARE_STATIC_KEY_FALSE(sleepy_sched_active);
DECLARE_STATIC_KEY_FALSE(sleepy_irq_active);

void __sleepy_tick(struct pt_regs *regs);
void __sleepy_idle_exit(void);
void __sleepy_switch(bool preempt, struct task_struct *prev,
		     struct task_struct *next, unsigned int prev_state);
void __sleepy_wakeup(struct task_struct *wakee, bool new_task);
void __sleepy_irq_entry(unsigned int kind, unsigned int number);
void __sleepy_irq_exit(unsigned int kind, unsigned int number);
void __sleepy_irq_action_entry(struct irqaction *action);
void __sleepy_irq_action_exit(struct irqaction *action);
void __sleepy_softirq_raise(unsigned int nr);
void __sleepy_softirq_entry(unsigned int nr);
void __sleepy_softirq_exit(unsigned int nr);
void __sleepy_fork(struct task_struct *child);
void __sleepy_exec(struct task_struct *task);
void __sleepy_exit(struct task_struct *task);
void __sleepy_mmap(struct vm_area_struct *vma);
void __sleepy_mprotect(struct vm_area_struct *vma, unsigned long oldflags);

/* Timer interrupt, hard-irq context, next to profile_tick(). */
static inline void sleepy_tick(struct pt_regs *regs)
{
	if (static_branch_unlikely(&sleepy_active))
		__sleepy_tick(regs);
}

/*
 * The scheduler switches this CPU from its idle task to another task
 * (put_prev_task_idle()); runqueue locked, interrupts off.
 */
static inline void sleepy_idle_exit(void)
{
	if (static_branch_unlikely(&sleepy_active))
		__sleepy_idle_exit();
}

/*
 * __schedule() is about to switch this CPU from @prev to @next; runqueue
 * locked, interrupts off.  @prev_state as __schedule() decided it.
 */
static inline void sleepy_switch(bool preempt, struct task_struct *prev,
				 struct task_struct *next,
				 unsigned int prev_state)
{
	if (static_branch_unlikely(&sleepy_sched_active))
		__sleepy_switch(preempt, prev, next, prev_state);
}

/*
 * try_to_wake_up() is waking @wakee, in the waker's context, before the
 * wakee is queued; @wakee's pi_lock held, interrupts off.
 */
static inline void sleepy_wakeup(struct task_struct *wakee)
{
	if (static_branch_unlikely(&sleepy_sched_active))
		__sleepy_wakeup(wakee, false);
}

/* wake_up_new_task() queued a new task; runqueue locked, interrupts off. */
static inline void sleepy_wakeup_new(struct task_struct *task)
{
	if (static_branch_unlikely(&sleepy_sched_active))
		__sleepy_wakeup(task, true);
}

/*
 * A hard interrupt handler is about to run, and has run; interrupts off.
 * @kind is SLEEPY_IRQ_HARDIRQ (an IRQ, all its actions) or
 * SLEEPY_IRQ_SYSVEC (an x86 system vector), @number the IRQ or the vector.
 */
static inline void sleepy_irq_entry(unsigned int kind, unsigned int number)
{
	if (static_branch_unlikely(&sleepy_irq_active))
		__sleepy_irq_entry(kind, number);
}

static inline void sleepy_irq_exit(unsigned int kind, unsigned int number)
{
	if (static_branch_unlikely(&sleepy_irq_active))
		__sleepy_irq_exit(kind, number);
}

/*
 * @action of the IRQ between sleepy_irq_entry() and sleepy_irq_exit() is
 * about to run, and has run; interrupts off.
 */
static inline void sleepy_irq_action_entry(struct irqaction *action)
{
	if (static_branch_unlikely(&sleepy_irq_active))
		__sleepy_irq_action_entry(action);
}

static inline void sleepy_irq_action_exit(struct irqaction *action)
{
	if (static_branch_unlikely(&sleepy_irq_active))
		__sleepy_irq_action_exit(action);
}

/* Softirq @nr raised on this CPU, interrupts off. */
static inline void sleepy_softirq_raise(unsigned int nr)
{
	if (static_branch_unlikely(&sleepy_irq_active))
		__sleepy_softirq_raise(nr);
}

/* Softirq @nr's handler is about to run, and has run; interrupts on. */
static inline void sleepy_softirq_entry(unsigned int nr)
{
	if (static_branch_unlikely(&sleepy_irq_active))
		__sleepy_softirq_entry(nr);
}

static inline void sleepy_softirq_exit(unsigned int nr)
{
	if (static_branch_unlikely(&sleepy_irq_active))
		__sleepy_softirq_exit(nr);
}

/* New task, process context, after it is visible to the pid lookup. */
static inline void sleepy_fork(struct task_struct *child)
{
	if (static_branch_unlikely(&sleepy_active))
		__sleepy_fork(child);
}

/* Successful exec of a new program image, process context. */
static inline void sleepy_exec(struct task_struct *task)
{
	if (static_branch_unlikely(&sleepy_active))
		__sleepy_exec(task);
}

/* Last thread of a thread group exits, before its pid can be reused. */
static inline void sleepy_exit(struct task_struct *task, bool group_dead)
{
	if (static_branch_unlikely(&sleepy_active) && group_dead)
		__sleepy_exit(task);
}

/* A new mapping, process context, the mm's mmap_lock held for writing. */
static inline void sleepy_mmap(struct vm_area_struct *vma)
{
	if (static_branch_unlikely(&sleepy_active))
		__sleepy_mmap(vma);
}

/* mprotect() changed @vma's flags from @oldflags; locked as above. */
static inline void sleepy_mprotect(struct vm_area_struct *vma,
				   unsigned long oldflags)
{
	if (static_branch_unlikely(&sleepy_active))
		__sleepy_mprotect(vma, oldflags);
}
#else
static inline void sleepy_tick(struct pt_regs *regs) { }
static inline void sleepy_idle_exit(void) { }
static inline void sleepy_switch(bool preempt, struct task_struct *prev,
				 struct task_struct *next,
				 unsigned int prev_state) { }
static inline void sleepy_wakeup(struct task_struct *wakee) { }
static inline void sleepy_wakeup_new(struct task_struct *task) { }
static inline void sleepy_irq_entry(unsigned int kind, unsigned int number) { }
static inline void sleepy_irq_exit(unsigned int kind, unsigned int number) { }
static inline void sleepy_irq_action_entry(struct irqaction *action) { }
static inline void sleepy_irq_action_exit(struct irqaction *action) { }
static inline void sleepy_softirq_raise(unsigned int nr) { }
static inline void sleepy_softirq_entry(unsigned int nr) { }
static inline void sleepy_softirq_exit(unsigned int nr) { }
static inline void sleepy_fork(struct task_struct *child) { }
static inline void sleepy_exec(struct task_struct *task) { }
static inline void sleepy_exit(struct task_struct *task, bool group_dead) { }
static inline void sleepy_mmap(struct vm_area_struct *vma) { }
static inline void sleepy_mprotect(struct vm_area_struct *vma,
				   unsigned long oldflags) { }
#endif

#endif /* _LINUX_SLEEPY_H */
