/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sleepy-parse's reports of an aggregated recording: by application, by
 * application and instruction pointer and, with function names, by
 * application and function.  In the library so that sleepy-parse and the
 * fuzzer (userland/fuzz/) run the same code.
 */
#ifndef SLEEPY_REPORT_H
#define SLEEPY_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"
#include "profile.h"
#include "recording.h"
#include "symbols.h"

/* --sort keys, as perf report names them. */
enum sleepy_sort_key {
	SLEEPY_SORT_APP,	/* name#instance */
	SLEEPY_SORT_PID,
	SLEEPY_SORT_TID,	/* needs sleepy_profile.by_tid */
	SLEEPY_SORT_DSO,	/* file, [kernel.kallsyms] or [module] */
	SLEEPY_SORT_SYM,	/* [.] user or [k] kernel function, else IP */
	SLEEPY_SORT_IP,
	SLEEPY_SORT_SRCLINE,	/* file:line from DWARF */
	SLEEPY_SORT_CPU,	/* alone: samples per CPU, with its counters */
	SLEEPY_SORT_KEYS
};

/* Reports of the call stacks, instead of the others. */
enum sleepy_stack_view {
	SLEEPY_STACKS_NONE,
	SLEEPY_STACKS_CHILDREN,	/* --children: inclusive cost per function */
	SLEEPY_STACKS_CALLERS,	/* --callers FUNCTION */
	SLEEPY_STACKS_CALLEES,	/* --callees FUNCTION */
};

struct sleepy_report_options {
	const char *path;	/* named in the text summary */
	uint64_t top;		/* rows per report, 0 = all */
	const char *app_name;	/* only this application, NULL = all */
	uint32_t app_instance;	/* with app_name: 0 = every instance */
	enum sleepy_format format;
	/* Matched to applications by name; any adds the report by function. */
	const struct sleepy_symbols *symbols;
	unsigned int nsymbols;
	/*
	 * Names the IPs of the other applications from the recording's
	 * mappings, NULL for none; the report by function is added if any
	 * IP gets a name.
	 */
	struct sleepy_dsos *dsos;
	/* --chain NAME[#INSTANCE]: wakeup chain of that application. */
	const char *chain_name;
	uint32_t chain_instance;
	unsigned int chain_depth;	/* 1..SLEEPY_CHAIN_MAX_DEPTH */
	bool irq_by_app;		/* --irq-by-app */
	bool irq_per_cpu;		/* --irq-per-cpu */
	bool irq_intervals;		/* --irq-intervals */
	/* --sort: one report by these keys instead of all; nsort 0: none. */
	enum sleepy_sort_key sort[SLEEPY_SORT_KEYS];
	unsigned int nsort;
	enum sleepy_stack_view stack_view;
	const char *stack_function;	/* of --callers and --callees */
};

#define SLEEPY_CHAIN_MAX_DEPTH	16

/* Whether --app lets @app's rows through. */
bool sleepy_report_app_selected(const struct sleepy_report_options *opts,
				const struct sleepy_app *app);

/*
 * The function of @app's user IP @ip, from -s or the recording's mappings
 * (then *@dso names the file); NULL if unknown.
 */
const char *sleepy_report_function(const struct sleepy_report_options *opts,
				   struct sleepy_profile *profile,
				   const struct sleepy_app *app, uint64_t ip,
				   const char **dso);

/*
 * The kernel function at @ip, from the symbols the recording kept, or
 * NULL; *@dso is its module, "[kernel.kallsyms]" if none.
 */
const char *sleepy_report_kernel_function(struct sleepy_profile *profile,
					  uint64_t ip, const char **dso);

/*
 * Parses --sort's comma-separated keys into @opts; false with a message
 * in @error (unknown or repeated key, empty).
 */
bool sleepy_sort_parse(const char *arg, struct sleepy_report_options *opts,
		       char *error, size_t size);
bool sleepy_sort_has(const struct sleepy_report_options *opts,
		     enum sleepy_sort_key key);
/* The --sort report of @ips (sleepy_profile_ips()), @total samples shown. */
void sleepy_sort_report(struct sleepy_output *out,
			const struct sleepy_report_options *opts,
			struct sleepy_profile *profile,
			struct sleepy_ip_count **ips, size_t nips,
			uint64_t total);

/*
 * Writes every report of @profile, read from @rec, to @out; with --sort,
 * the summary and that one report.
 */
void sleepy_report(FILE *out, const struct sleepy_report_options *opts,
		   struct sleepy_profile *profile,
		   const struct sleepy_recording *rec);

/*
 * The reports of a --sched recording (sched_report.c), after replaying its
 * switches and wakeups over the session from @begin_ns to @end_ns.
 */
void sleepy_sched_report(struct sleepy_output *out,
			 const struct sleepy_report_options *opts,
			 struct sleepy_profile *profile,
			 uint64_t begin_ns, uint64_t end_ns);

/* The reports of a --irq recording (irq_report.c). */
void sleepy_irq_report(struct sleepy_output *out,
		       const struct sleepy_report_options *opts,
		       struct sleepy_profile *profile, uint64_t start_ns);

#endif
