/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks of the sleepy profiler in the timer tick, the idle loop, fork, exec
 * and exit.
 *
 * Each hook is a static branch that stays a no-op until sleepy_start()
 * enables it, so with no session running the cost is one patched jump;
 * with CONFIG_SLEEPY=n the hooks compile away.
 */
#ifndef _LINUX_SLEEPY_H
#define _LINUX_SLEEPY_H

#include <linux/jump_label.h>

struct pt_regs;
struct task_struct;

#ifdef CONFIG_SLEEPY
DECLARE_STATIC_KEY_FALSE(sleepy_active);

void __sleepy_tick(struct pt_regs *regs);
void __sleepy_idle_exit(void);
void __sleepy_fork(struct task_struct *child);
void __sleepy_exec(struct task_struct *task);
void __sleepy_exit(struct task_struct *task);

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
#else
static inline void sleepy_tick(struct pt_regs *regs) { }
static inline void sleepy_idle_exit(void) { }
static inline void sleepy_fork(struct task_struct *child) { }
static inline void sleepy_exec(struct task_struct *task) { }
static inline void sleepy_exit(struct task_struct *task, bool group_dead) { }
#endif

#endif /* _LINUX_SLEEPY_H */
