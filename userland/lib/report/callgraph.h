/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call stacks of a recording made with -g (struct sleepy_stack): their
 * frames as names, root first, for the folded, flame graph and speedscope
 * writers, and the reports a perf user knows: --children (inclusive cost
 * per function) and --callers/--callees FUNCTION.
 */
#ifndef SLEEPY_CALLGRAPH_H
#define SLEEPY_CALLGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "report/output.h"
#include "model/profile.h"
#include "report/view.h"

/* Longest frame name: a function name, or 0x and 16 hex digits. */
#define SLEEPY_FRAME_MAX	256

/* One frame of a stack, named. */
struct sleepy_frame {
	const char *name;	/* function, else 0xIP; or [cut], [kernel] */
	const char *file;	/* of a user 0xIP, the file it lies in, or NULL */
	bool kernel;
};

/*
 * Room for the frames of any stack of @profile: its deepest, the marks of
 * stacks cut at --max-stack, and [kernel] for a kernel-mode sample
 * recorded without kernel stacks.
 */
static inline unsigned int sleepy_stack_room(const struct sleepy_profile *profile)
{
	return profile->max_frames + 3;
}

/*
 * The frames of @stack of @app, root first, into @frames, with the names
 * of unnamed frames written into @scratch (both sleepy_stack_room()
 * long); returns their number.  A stack cut at --max-stack starts (its
 * user part) or continues (its kernel part) with a [cut] frame: its root
 * is missing.  Return addresses are named by the call before them.
 */
unsigned int sleepy_stack_frames(const struct sleepy_report_options *opts,
				 struct sleepy_profile *profile,
				 const struct sleepy_app *app,
				 const struct sleepy_stack *stack,
				 struct sleepy_frame *frames,
				 char (*scratch)[SLEEPY_FRAME_MAX]);

/*
 * The report @opts->stack_view asks for, of the stacks of @profile.
 * Returns -1 (and writes nothing) if the recording has no stacks.
 */
int sleepy_callgraph_report(struct sleepy_output *out,
			    const struct sleepy_report_options *opts,
			    struct sleepy_profile *profile);

#endif
