/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line options shared by the tools that start a session. */
#ifndef SLEEPY_OPTIONS_H
#define SLEEPY_OPTIONS_H

#include <stdbool.h>
#include <linux/sleepy.h>

#include "report/output.h"

#define SLEEPY_SESSION_OPTIONS_HELP \
"    -F, --frequency HZ   samples per second and CPU (1.." \
			SLEEPY_STR(SLEEPY_MAX_FREQUENCY) "); default:\n" \
"                         every scheduler tick (CONFIG_HZ)\n" \
"    -k, --kernel         record kernel instruction pointers too\n" \
"    -g, --call-graph     record call stacks: the user stack by frame pointers,\n" \
"                         with -k the kernel stack too\n" \
"        --max-stack N    with -g, frames kept per stack (1 up to\n" \
"                         kernel.perf_event_max_stack, default " \
			SLEEPY_STR(SLEEPY_DEFAULT_MAX_STACK) ")\n" \
"    -p, --pid PID        only this process (with --follow, and its children)\n" \
"        --follow         with -p: follow children forked after the start\n" \
"        --sched          record context switches and wakeups too (off-CPU\n" \
"                         time, run-queue waits, wakeup links)\n" \
"        --irq            time interrupt and softirq handlers too (log2\n" \
"                         histograms per IRQ, time taken from each app)\n" \
"        --irq-interval SEC  with --irq: write the histograms into the\n" \
"                         recording every SEC seconds (0.01 or more;\n" \
"                         sleepy-parse --irq-intervals shows each), not\n" \
"                         only at the stop\n" \
"    -b, --buffer SIZE    kernel buffer per CPU, e.g. 256K, 4M (default 1M)\n" \
"    -o, --output FILE    recording to write (default sleepy.data)\n"

struct sleepy_session_options {
	struct sleepy_attr attr;
	const char *output;
	bool system_wide;	/* sleepy-record -a */
	unsigned int irq_interval_ms;	/* between histogram flushes, 0: none */
};

/* Prints --version output for @tool. */
void sleepy_print_version(const char *tool);

/*
 * Parses the session options; @for_record accepts -a and stops at the
 * command.  Returns -1 to go on, else the exit code (help, version, error).
 */
int sleepy_session_options_parse(struct sleepy_session_options *opts,
				 int argc, char **argv, const char *tool,
				 const char *usage, bool for_record);

#endif
