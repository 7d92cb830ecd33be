// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: call stacks of the samples (SLEEPY_FLAG_CALLCHAIN).
 *
 * Writer: the sampling interrupt of each CPU (hard-irq), which builds its
 * sample, stacks included, in its CPU's scratch record and copies that
 * into its buffer.  Hard interrupts do not nest, so a CPU's scratch record
 * has one user at a time.  It is allocated with the session, before any
 * hook can see it, and freed with the session, after the stop's grace
 * period, when no interrupt still samples for it.
 *
 * The kernel stack comes from the kernel's own unwinder, started at the
 * interrupted registers.  The user stack is walked by frame pointers with
 * copy_from_user_nofault(): page faults are off in interrupt context, so a
 * frame not in memory ends the walk, as does a frame pointer that does not
 * lead up the stack (code built without frame pointers) or a return
 * address that is no user address (a frame pointer register that held
 * data, as in libc's start-up code).  Each end, and a stack deeper than
 * the session's max_stack, is flagged in the record: a stack is never
 * shortened silently.
 *
 * A function interrupted at its first instruction or at its ret has not
 * made (or has already left) its frame: the frame pointer is still its
 * caller's, and the walk alone would skip the caller.  Its return address
 * is then read at the stack pointer, as the instructions at the IP tell.
 */
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>

#include "sleepy.h"

/* The user stack frame that a frame pointer points to. */
struct sleepy_user_frame {
	unsigned long next_fp;
	unsigned long return_ip;
};

struct sleepy_compat_frame {
	u32 next_fp;
	u32 return_ip;
};

/**
 * sleepy_stack_record_size - bytes of the largest sample with stacks
 * @max_stack: frames per stack
 */
size_t sleepy_stack_record_size(u32 max_stack)
{
	return sizeof(struct sleepy_sample) + sizeof(struct sleepy_callchain) +
	       2 * max_stack * sizeof(u64);
}

/*
 * The scratch record: the largest sample, then max_stack + 1 entries for
 * the unwinder (one more than kept, to tell a cut stack from one exactly
 * that deep).  Up to about 100 KiB, more than the per-CPU allocator gives
 * (32 KiB), so each CPU's is allocated on its node, as perf allocates its
 * callchain buffers, and found through a per-CPU pointer.
 */
int sleepy_stack_create(struct sleepy_session *session)
{
	u32 max_stack = session->attr.max_stack;
	size_t size = sleepy_stack_record_size(max_stack) +
		      (max_stack + 1) * sizeof(unsigned long);
	unsigned int cpu;

	if (!(session->attr.flags & SLEEPY_FLAG_CALLCHAIN))
		return 0;
	session->stack_scratch = alloc_percpu(void *);
	if (!session->stack_scratch)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		void *scratch = kvmalloc_node(size, GFP_KERNEL,
					      cpu_to_node(cpu));

		if (!scratch)
			return -ENOMEM;
		*per_cpu_ptr(session->stack_scratch, cpu) = scratch;
	}
	return 0;
}

void sleepy_stack_destroy(struct sleepy_session *session)
{
	unsigned int cpu;

	if (!session->stack_scratch)
		return;
	for_each_possible_cpu(cpu)
		kvfree(*per_cpu_ptr(session->stack_scratch, cpu));
	free_percpu(session->stack_scratch);
	session->stack_scratch = NULL;
}

/* This CPU's scratch sample, zeroed; NULL without SLEEPY_FLAG_CALLCHAIN. */
struct sleepy_sample *sleepy_stack_sample(struct sleepy_session *session)
{
	struct sleepy_sample *sample;

	if (!session->stack_scratch)
		return NULL;
	sample = this_cpu_read(*session->stack_scratch);
	memset(sample, 0, sizeof(*sample) + sizeof(struct sleepy_callchain));
	return sample;
}

static unsigned int sleepy_kernel_stack(struct pt_regs *regs, u64 *ips,
					unsigned long *unwound, u32 max_stack,
					u32 *flags)
{
	unsigned int n = stack_trace_save_regs(regs, unwound, max_stack + 1, 0);
	unsigned int i;

	if (n > max_stack) {
		n = max_stack;
		*flags |= SLEEPY_CALLCHAIN_KERNEL_CUT;
	}
	for (i = 0; i < n; i++)
		ips[i] = unwound[i];
	return n;
}

/* A 32-bit task on a 64-bit kernel: its frames hold 32-bit pointers. */
static bool sleepy_user_compat(struct pt_regs *regs)
{
#ifdef CONFIG_IA32_EMULATION
	return !user_64bit_mode(regs);
#else
	return false;
#endif
}

static bool sleepy_read_user_frame(unsigned long fp, bool compat,
				   struct sleepy_user_frame *frame)
{
	struct sleepy_compat_frame frame32;

	if (!compat)
		return !copy_from_user_nofault(frame, (const void __user *)fp,
					       sizeof(*frame));
	if (copy_from_user_nofault(&frame32, (const void __user *)fp,
				   sizeof(frame32)))
		return false;
	frame->next_fp = frame32.next_fp;
	frame->return_ip = frame32.return_ip;
	return true;
}

/* A word of the user stack: 8 bytes, 4 in a 32-bit task. */
static bool sleepy_read_user_word(unsigned long addr, bool compat,
				  unsigned long *word)
{
	u32 word32;

	if (!compat)
		return !copy_from_user_nofault(word, (const void __user *)addr,
					       sizeof(*word));
	if (copy_from_user_nofault(&word32, (const void __user *)addr,
				   sizeof(word32)))
		return false;
	*word = word32;
	return true;
}

#define SLEEPY_PUSH_BP		0x55
#define SLEEPY_RET		0xc3
#define SLEEPY_RET_IMM16	0xc2
#define SLEEPY_REP_PREFIX	0xf3
#define SLEEPY_REX_W		0x48

/* endbr64 or, in a 32-bit task, endbr32 */
static bool sleepy_is_endbr(const u8 *insn, bool compat)
{
	return insn[0] == 0xf3 && insn[1] == 0x0f && insn[2] == 0x1e &&
	       insn[3] == (compat ? 0xfb : 0xfa);
}

/* mov %rsp,%rbp (mov %esp,%ebp in a 32-bit task), in either encoding */
static bool sleepy_is_mov_sp_bp(const u8 *insn, bool compat)
{
	if (!compat && *insn++ != SLEEPY_REX_W)
		return false;
	return (insn[0] == 0x89 && insn[1] == 0xe5) ||
	       (insn[0] == 0x8b && insn[1] == 0xec);
}

/*
 * Where the interrupted function's return address is while its frame
 * pointer is still its caller's: at the stack pointer on its first
 * instruction (push %rbp, after an endbr or not) and on a ret; one word
 * above it between push %rbp and mov %rsp,%rbp, where the word at the
 * stack pointer is the frame pointer just pushed.  0 when the frame
 * pointer is the function's own, or the code is not recognised.
 */
static unsigned long sleepy_leaf_return_slot(struct pt_regs *regs,
					     bool compat)
{
	unsigned long sp = user_stack_pointer(regs), pushed_fp;
	u8 insn[5];

	if (copy_from_user_nofault(insn,
				   (const void __user *)instruction_pointer(regs),
				   sizeof(insn)))
		return 0;
	if (insn[0] == SLEEPY_PUSH_BP ||
	    (sleepy_is_endbr(insn, compat) && insn[4] == SLEEPY_PUSH_BP) ||
	    insn[0] == SLEEPY_RET || insn[0] == SLEEPY_RET_IMM16 ||
	    (insn[0] == SLEEPY_REP_PREFIX && insn[1] == SLEEPY_RET))
		return sp;
	if (sleepy_is_mov_sp_bp(insn, compat) &&
	    sleepy_read_user_word(sp, compat, &pushed_fp) &&
	    pushed_fp == frame_pointer(regs))
		return sp + (compat ? sizeof(u32) : sizeof(unsigned long));
	return 0;
}

/*
 * A return address the walk may keep: a user address past the first page.
 * Anything else came from a frame pointer register that held data.
 */
static bool sleepy_user_return_plausible(unsigned long ip)
{
	return ip >= PAGE_SIZE && ip < TASK_SIZE;
}

/*
 * Frame pointers from @regs outwards.  The outermost frame (_start, a new
 * thread's) has a zero frame pointer or return address; every other frame
 * lies above the one it was reached from, which also bounds the walk.
 */
static unsigned int sleepy_user_stack(struct pt_regs *regs, u64 *ips,
				      u32 max_stack, u32 *flags)
{
	bool compat = sleepy_user_compat(regs);
	size_t frame_size = compat ? sizeof(struct sleepy_compat_frame) :
				     sizeof(struct sleepy_user_frame);
	unsigned long fp = frame_pointer(regs);
	unsigned long lowest = user_stack_pointer(regs);
	unsigned long leaf_slot = sleepy_leaf_return_slot(regs, compat);
	unsigned int n = 0;

	/* kernel.perf_event_max_stack may be 0: not even the IP then. */
	if (!max_stack) {
		*flags |= SLEEPY_CALLCHAIN_USER_CUT;
		return 0;
	}
	ips[n++] = instruction_pointer(regs);
	while (fp || leaf_slot) {
		struct sleepy_user_frame frame;

		if (n == max_stack) {
			*flags |= SLEEPY_CALLCHAIN_USER_CUT;
			break;
		}
		if (leaf_slot) {
			/* The leaf's own return address; @fp is its caller's. */
			frame.next_fp = fp;
			if (!sleepy_read_user_word(leaf_slot, compat,
						   &frame.return_ip)) {
				*flags |= SLEEPY_CALLCHAIN_USER_FAULT;
				break;
			}
			lowest = leaf_slot + frame_size / 2;
			leaf_slot = 0;
		} else {
			if (fp < lowest || !IS_ALIGNED(fp, frame_size / 2) ||
			    !sleepy_read_user_frame(fp, compat, &frame)) {
				*flags |= SLEEPY_CALLCHAIN_USER_FAULT;
				break;
			}
			lowest = fp + frame_size;
		}
		if (!frame.return_ip)
			break;
		if (!sleepy_user_return_plausible(frame.return_ip)) {
			*flags |= SLEEPY_CALLCHAIN_USER_FAULT;
			break;
		}
		ips[n++] = frame.return_ip;
		fp = frame.next_fp;
	}
	return n;
}

/**
 * sleepy_stack_fill - add the stacks to a sample built by sleepy_stack_sample()
 * @session: the session
 * @sample: this CPU's scratch sample, its fixed part filled in
 * @regs: the interrupted registers
 * @user_regs: the task's user registers, NULL for a kernel thread
 *
 * Hard-irq context.  Returns the size of the record.
 */
size_t sleepy_stack_fill(struct sleepy_session *session,
			 struct sleepy_sample *sample, struct pt_regs *regs,
			 struct pt_regs *user_regs)
{
	struct sleepy_callchain *chain = (void *)(sample + 1);
	u32 max_stack = session->attr.max_stack;
	unsigned int nr_kernel = 0, nr_user = 0;
	u32 flags = 0;

	if (!user_mode(regs) && (session->attr.flags & SLEEPY_FLAG_KERNEL))
		nr_kernel = sleepy_kernel_stack(regs, chain->ips,
						(void *)sample +
						sleepy_stack_record_size(max_stack),
						max_stack, &flags);
	/* An exiting task that dropped its mm has no user stack left. */
	if (user_regs && current->mm)
		nr_user = sleepy_user_stack(user_regs, chain->ips + nr_kernel,
					    max_stack, &flags);
	chain->nr_kernel = nr_kernel;
	chain->nr_user = nr_user;
	chain->flags = flags;
	sample->flags |= SLEEPY_SAMPLE_CALLCHAIN;
	return sizeof(*sample) + sizeof(*chain) +
	       (nr_kernel + nr_user) * sizeof(u64);
}
