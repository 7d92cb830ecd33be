/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What sleepy-parse is asked to show, shared by the text reports and the
 * exporters, and how they name what they show: the applications --app
 * selects, and the function (and file) of a user or kernel IP.  Above the
 * model (profile.h, symbols.h), below every report and exporter.
 */
#ifndef SLEEPY_VIEW_H
#define SLEEPY_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "report/output.h"
#include "model/profile.h"
#include "model/symbols.h"

/* --sort keys, as perf report names them. */
enum sleepy_sort_key {
	SLEEPY_SORT_APP,	/* name#instance */
	SLEEPY_SORT_COMM,	/* name: an application's instances as one */
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
	/*
	 * --instances: folded stacks, flame graphs and speedscope profiles
	 * start at the application instance (NAME#INSTANCE), not at the
	 * program's name.
	 */
	bool stacks_by_instance;
};

#define SLEEPY_CHAIN_MAX_DEPTH	16

/* Whether --app lets @app's rows through. */
bool sleepy_report_app_selected(const struct sleepy_report_options *opts,
				const struct sleepy_app *app);

/*
 * Where @app's user IP @ip is, as perf's sort keys show it: its function
 * (from -s or the recording's mappings; NULL if none names it), the file
 * it lies in (*@dso; NULL without a mapping, or with -s) and, when no
 * function names it, where that file holds it (*@address, perf's
 * map-relative address, so that the same code of two processes is one
 * row; @ip itself without a file).
 */
const char *sleepy_report_place(const struct sleepy_report_options *opts,
				struct sleepy_profile *profile,
				const struct sleepy_app *app, uint64_t ip,
				const char **dso, uint64_t *address);

/*
 * sleepy_report_place() of a user IP in @map (NULL: in none) of an
 * application -s does not name: the same for every IP at the same offset
 * of the same file.
 */
const char *sleepy_report_mapped_place(const struct sleepy_report_options *opts,
				       const struct sleepy_mapping *map,
				       uint64_t ip, const char **dso,
				       uint64_t *address);

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

/* Whether -s names @app's IPs (rather than the recording's mappings). */
bool sleepy_report_named_by_s(const struct sleepy_report_options *opts,
			      const struct sleepy_app *app);

/*
 * The file a user IP of @app no function names lies in, NULL if none: its
 * samples are "[unknown]" of that file, as perf gives them.
 */
const char *sleepy_report_unknown_dso(const struct sleepy_report_options *opts,
				      struct sleepy_profile *profile,
				      const struct sleepy_app *app, uint64_t ip);

#endif
