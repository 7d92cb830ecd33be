/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks of the sleepy profiler where no tracepoint sits: the timer tick,
 * the scheduler's switch away from the idle task, mmap and mprotect.
 * Fork, exec, exit, context switches, wakeups and interrupts are recorded
 * by probes on the tracepoints already there (kernel/sleepy/process.c,
 * sched.c, irq.c).
 *
 * Each hook is a static branch that stays a no-op until sleepy_start()
 * enables it, so with no session running the cost is one patched jump.
 * With CONFIG_SLEEPY=n the hooks compile away.
 */
#ifndef _LINUX_SLEEPY_H
#define _LINUX_SLEEPY_H

#include <linux/jump_label.h>
#include <uapi/linux/sleepy.h>

struct pt_regs;
struct vm_area_struct;

#ifdef CONFIG_SLEEPY
DECLARE_STATIC_KEY_FALSE(sleepy_active);

void __sleepy_tick(struct pt_regs *regs);
void __sleepy_idle_exit(void);
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
static inline void sleepy_mmap(struct vm_area_struct *vma) { }
static inline void sleepy_mprotect(struct vm_area_struct *vma,
				   unsigned long oldflags) { }
#endif

#endif /* _LINUX_SLEEPY_H */
