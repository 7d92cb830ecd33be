// SPDX-License-Identifier: GPL-2.0
/* sleepy-parse: report a recording by application and by IP. */
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/diff.h"
#include "export/flamegraph.h"
#include "export/folded.h"
#include "session/intervals.h"
#include "session/options.h"
#include "report/output.h"
#include "export/pprof.h"
#include "model/profile.h"
#include "report/report.h"
#include "report/sort_report.h"
#include "export/speedscope.h"
#include "session/session.h"
#include "model/symbols.h"

#define MAX_SYMBOL_FILES 16

static const char usage[] =
"USAGE: sleepy-parse diff [--top N] [--format FMT] A B\n"
"       sleepy-parse [--top N] [--app NAME[#INSTANCE]] [--format FMT]\n"
"                    [--sort KEY[,KEY]...]\n"
"                    [--children | --callers FUNCTION | --callees FUNCTION]\n"
"                    [-s BINARY]... [--symfs DIR] [--no-demangle]\n"
"                    [--chain NAME[#INSTANCE] [--depth N]]\n"
"                    [--irq-by-app] [--irq-per-cpu] [--irq-intervals]\n"
"                    [--times] FILE\n"
"       sleepy-parse --folded|--flamegraph|--speedscope cpu|offcpu [--top N] [--app NAME[#INSTANCE]]\n"
"                    [--instances] [-s BINARY]... [--symfs DIR] [--no-demangle] FILE\n"
"       sleepy-parse --pprof OUT [--top N] [--app NAME[#INSTANCE]]\n"
"                    [-s BINARY]... [--symfs DIR] [--no-demangle] FILE\n"
"       sleepy-parse [--from TIME] [--to TIME] [--top N] [--app NAME[#INSTANCE]]\n"
"                    [--format FMT] DIR\n"
"\n"
"Report a recording made by sleepy-start/sleepy-record: samples by\n"
"application instance, and by application instance and instruction\n"
"pointer, most samples first.  User IPs are named by function and file\n"
"from the executable mappings in the recording (PIE programs, shared\n"
"libraries), and a report by function is added; -s names those of the\n"
"program BINARY instead (a non-PIE ELF file).\n"
"\n"
"With --sort, one report instead: the samples grouped by the keys given,\n"
"as perf report --sort groups them (app, comm, pid, tid, dso, sym, ip,\n"
"srcline; comm is the program's name, its instances as one; sym marks\n"
"kernel-mode samples [k] and user-mode ones [.], and shows an IP no\n"
"function names as its offset in its file; srcline is file:line from the\n"
"mapped file's DWARF line table).\n"
"\n"
"A recording made with -g has call stacks.  --children reports each\n"
"function's samples with the functions it called (CHILDREN: samples with\n"
"it anywhere on the stack) and alone (SELF: samples in it), as perf report\n"
"--children does; --callers FUNCTION: who called FUNCTION in the samples\n"
"that have it on the stack, --callees FUNCTION: what it called ([none]:\n"
"the samples in FUNCTION itself).  Kernel functions are [k], user ones [.].\n"
"The folded stacks, flame graph, speedscope and pprof outputs then hold\n"
"whole stacks; a stack cut at --max-stack starts with a [cut] frame.\n"
"\n"
"A recording made with --sched also gets: off-CPU time by application,\n"
"reason and site (user IP, and kernel IP with -k); the wall-clock account\n"
"of each application instance (on CPU + off CPU by reason + run-queue wait\n"
"= its lifetime, with what could not be accounted); and wakeups, waker ->\n"
"wakee.  A recording made with --irq gets hard interrupt and softirq\n"
"handler times per interrupt (count, total, average, log2 histogram in ns,\n"
"as BCC's hardirqs -d and softirqs -d) and softirqs' delay from raise to\n"
"run.  Times are ms in text, ns in CSV and JSON.\n"
"\n"
"With --folded, the output is folded stacks for flame graphs (FlameGraph,\n"
"speedscope) instead of the reports: one line per stack, frames root\n"
"first joined by ';', then a space and the weight.  cpu: PROGRAM;FUNCTION\n"
"(or user IP, or kernel IP_[k]) and its samples; offcpu (a --sched\n"
"recording): PROGRAM;[REASON];USER SITE;KERNEL SITE_[k] and its off-CPU ns.\n"
"The root frame is the program's name, its instances as one, as perf's\n"
"stackcollapse and BCC's profile -f show the command; --instances makes\n"
"it the application instance, NAME#INSTANCE, as in the reports.\n"
"\n"
"With --flamegraph, the same stacks are drawn as an interactive SVG flame\n"
"graph on standard output (open it in a browser: hover for a frame's\n"
"weight, click to zoom, Search to highlight by regular expression); with\n"
"--speedscope, as a speedscope file (one profile per root frame).\n"
"\n"
"With --pprof, the samples go to OUT as a pprof profile (gzip-compressed\n"
"protobuf) for go tool pprof, Pyroscope, Parca or any pprof store: one\n"
"sample per application instance, thread and IP (or stack), values\n"
"samples/count and cpu/nanoseconds, labels app, pid and tid, functions\n"
"named as in the reports,\n"
"file mappings with their build-ids.\n"
"\n"
"EXAMPLES:\n"
"    sleepy-parse sleepy.data\n"
"    sleepy-parse --top 10 --app btree#1 -s ./btree sleepy.data\n"
"    sleepy-parse --format json sleepy.data > report.json\n"
"    sleepy-parse --sort dso,sym sleepy.data\n"
"    sleepy-parse --sort sym,srcline --app myprog sleepy.data\n"
"    sleepy-parse --sort app,tid --app worker sleepy.data\n"
"    sleepy-parse --children --top 20 stacks.data\n"
"    sleepy-parse --callers malloc --app myprog stacks.data\n"
"    sleepy-parse --chain reader#1 --depth 3 sched.data\n"
"    sleepy-parse --folded cpu -s ./btree sleepy.data | flamegraph.pl > cpu.svg\n"
"    sleepy-parse --folded offcpu sched.data |\n"
"        flamegraph.pl --countname=ns > offcpu.svg\n"
"    sleepy-parse --flamegraph cpu sleepy.data > cpu.svg\n"
"    sleepy-parse --speedscope cpu sleepy.data > cpu.speedscope.json\n"
"    sleepy-parse --pprof profile.pb.gz sleepy.data && go tool pprof -top profile.pb.gz\n"
"    sleepy-parse diff before.data after.data    # see diff --help\n"
"    sleepy-parse --from 10:02 --to 10:05 /var/lib/sleepy  # sleepy-agent's\n"
"\n"
"OPTIONS:\n"
"    -t, --top N          at most N rows per report (default: all)\n"
"    -a, --app NAME[#I]   only application NAME (instance I)\n"
"    -f, --format FMT     text (default), csv or json\n"
"        --sort KEYS      one report by KEYS, comma-separated: app, comm,\n"
"                         pid, tid, dso, sym, ip, srcline (default: the\n"
"                         reports by app and by app,ip; perf's default is\n"
"                         comm,dso,sym); or cpu alone (samples per\n"
"                         CPU, and what each counted: idle, missed,\n"
"                         dropped); not with --chain or --irq-by-app\n"
"        --children       with -g stacks: one report, by function with\n"
"                         and without its callees\n"
"        --callers FUNC   with -g stacks: one report of FUNC's callers\n"
"        --callees FUNC   with -g stacks: one report of what FUNC called\n"
"    -s, --symbols BIN    function names for the program BIN (non-PIE ELF),\n"
"                         matched to applications by file name\n"
"        --symfs DIR      read the mapped files under DIR (a copy of the\n"
"                         recorded machine's root)\n"
"        --no-demangle    C++ and Rust function names as the files hold\n"
"                         them (default: demangled, as perf shows them)\n"
"    -c, --chain NAME[#I] with --sched: who NAME waited for, recursively\n"
"    -d, --depth N        levels of --chain (1..16, default 4)\n"
"        --irq-by-app     with --irq: interrupt time taken from each app\n"
"        --irq-per-cpu    with --irq: the interrupts of each CPU apart\n"
"        --irq-intervals  with --irq-interval: each interval apart (TO s:\n"
"                         its end, from the session start)\n"
"        --folded WHAT    folded stacks, cpu or offcpu, instead of the\n"
"                         reports; --top N keeps the N heaviest; not with\n"
"                         --format, --chain or --irq-by-app\n"
"        --flamegraph WHAT the same stacks as an SVG flame graph on\n"
"                         standard output; options as with --folded\n"
"        --speedscope WHAT the same stacks as a speedscope JSON file on\n"
"                         standard output; options as with --folded\n"
"        --instances      with --folded, --flamegraph, --speedscope: a\n"
"                         root frame per application instance (NAME#I),\n"
"                         not per program name\n"
"        --pprof OUT      a pprof profile to OUT ('-': standard output)\n"
"                         instead of the reports; --top N keeps the N\n"
"                         heaviest samples; not with --folded,\n"
"                         --flamegraph, --speedscope, --format,\n"
"                         --chain or --irq-by-app\n"
"        --from TIME      with DIR: the profiles of sleepy-agent (sleepy.service)\n"
"        --to TIME        in DIR whose interval overlaps FROM..TO, whole;\n"
"                         TIME is local, as journalctl takes it:\n"
"                         'YYYY-MM-DD HH:MM[:SS]', 'HH:MM[:SS]' (today),\n"
"                         YYYY-MM-DD, or @SECONDS since the epoch\n"
"        --times          after the output, the CPU time of reading the\n"
"                         recording, of reading symbol files (-s and the\n"
"                         mapped files) and of the rest, on standard error\n"
"    -h, --help           show this help\n"
"    -V, --version        show the version\n"
"\n"
"Given a directory DIR, the reports by application and by application and\n"
"function of the interval profiles in it (sleepy-agent's *.pb.gz files).\n"
"\n"
"Exit status: 0 ok, 1 unreadable or damaged recording (what could be read\n"
"is still reported), offcpu stacks without --sched, --children, --callers\n"
"or --callees without -g stacks, or --pprof OUT not written, 2 bad usage.\n";

struct parse_options {
	struct sleepy_report_options report;	/* .symbols points below */
	struct sleepy_symbols symbols[MAX_SYMBOL_FILES];
	const char *symbol_paths[MAX_SYMBOL_FILES];	/* -s, read once parsed */
	/* --folded, --flamegraph or --speedscope of folded_kind; NULL: none */
	const char *stacks_option;
	int (*write_stacks)(FILE *stream, const struct sleepy_report_options *opts,
			    enum sleepy_folded_kind kind,
			    struct sleepy_profile *profile,
			    const struct sleepy_recording *rec);
	enum sleepy_folded_kind folded_kind;
	const char *pprof;			/* --pprof OUT */
	int64_t from_ns, to_ns;			/* --from, --to (wall clock) */
	const char *range_option;		/* given, of the two */
	const char *report_option;		/* given, of the reports only */
	const char *symfs;
	bool mangled;				/* --no-demangle */
	bool times;				/* --times */
	double symbols_seconds;			/* CPU time of -s loads */
};

/* NAME or NAME#INSTANCE, split in place; -1 if INSTANCE is no number. */
static int parse_app(char *arg, const char **name, uint32_t *instance)
{
	char *hash = strrchr(arg, '#');
	uint64_t value;

	*name = arg;
	*instance = 0;
	if (!*arg)
		return -1;
	if (!hash)
		return 0;
	if (hash == arg || !sleepy_parse_u64(hash + 1, &value) || !value ||
	    value > UINT32_MAX)
		return -1;
	*hash = '\0';
	*instance = value;
	return 0;
}

static int bad_option(const char *option, const char *value)
{
	fprintf(stderr, "sleepy-parse: invalid %s '%s' (NAME or NAME#INSTANCE)\n",
		option, value);
	return SLEEPY_EXIT_USAGE;
}

static const char *stack_view_option(enum sleepy_stack_view view)
{
	static const char *const names[] = {
		[SLEEPY_STACKS_CHILDREN] = "--children",
		[SLEEPY_STACKS_CALLERS] = "--callers",
		[SLEEPY_STACKS_CALLEES] = "--callees",
	};

	return names[view];
}

static int parse_args(struct parse_options *opts, int argc, char **argv)
{
	enum { OPT_FOLDED = 256, OPT_PPROF, OPT_FLAMEGRAPH, OPT_SPEEDSCOPE, OPT_SORT,
	       OPT_CHILDREN, OPT_CALLERS, OPT_CALLEES, OPT_IRQ_PER_CPU,
	       OPT_IRQ_INTERVALS, OPT_FROM, OPT_TO, OPT_TIMES, OPT_NO_DEMANGLE,
	       OPT_INSTANCES };
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, 't' },
		{ "app", required_argument, NULL, 'a' },
		{ "format", required_argument, NULL, 'f' },
		{ "symbols", required_argument, NULL, 's' },
		{ "chain", required_argument, NULL, 'c' },
		{ "depth", required_argument, NULL, 'd' },
		{ "irq-by-app", no_argument, NULL, 'I' },
		{ "irq-per-cpu", no_argument, NULL, OPT_IRQ_PER_CPU },
		{ "irq-intervals", no_argument, NULL, OPT_IRQ_INTERVALS },
		{ "folded", required_argument, NULL, OPT_FOLDED },
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ "flamegraph", required_argument, NULL, OPT_FLAMEGRAPH },
		{ "speedscope", required_argument, NULL, OPT_SPEEDSCOPE },
		{ "instances", no_argument, NULL, OPT_INSTANCES },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "callers", required_argument, NULL, OPT_CALLERS },
		{ "callees", required_argument, NULL, OPT_CALLEES },
		{ "symfs", required_argument, NULL, 'S' },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "times", no_argument, NULL, OPT_TIMES },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	const char *output, *one_report, *irq_option;
	char error[512];
	uint64_t value;
	double start;
	unsigned int i;
	int c;

	opts->from_ns = INT64_MIN;
	opts->to_ns = INT64_MAX;
	while ((c = getopt_long(argc, argv, "t:a:f:s:c:d:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!sleepy_parse_u64(optarg, &opts->report.top) || !opts->report.top) {
				fprintf(stderr, "sleepy-parse: invalid --top '%s' (a positive number)\n",
					optarg);
				return SLEEPY_EXIT_USAGE;
			}
			break;
		case OPT_FROM:
		case OPT_TO:
			if (!sleepy_parse_wall_time(optarg, c == OPT_FROM ?
						    &opts->from_ns : &opts->to_ns)) {
				fprintf(stderr, "sleepy-parse: invalid time '%s' (YYYY-MM-DD HH:MM[:SS], HH:MM[:SS] or @SECONDS)\n",
					optarg);
				return SLEEPY_EXIT_USAGE;
			}
			opts->range_option = c == OPT_FROM ? "--from" : "--to";
			break;
		case 'a':
			if (parse_app(optarg, &opts->report.app_name,
				      &opts->report.app_instance))
				return bad_option("--app", optarg);
			break;
		case 'c':
			if (parse_app(optarg, &opts->report.chain_name,
				      &opts->report.chain_instance))
				return bad_option("--chain", optarg);
			opts->report_option = "--chain";
			break;
		case 'I':
			opts->report.irq_by_app = true;
			opts->report_option = "--irq-by-app";
			break;
		case OPT_IRQ_PER_CPU:
			opts->report.irq_per_cpu = true;
			opts->report_option = "--irq-per-cpu";
			break;
		case OPT_IRQ_INTERVALS:
			opts->report.irq_intervals = true;
			opts->report_option = "--irq-intervals";
			break;
		case OPT_FOLDED:
		case OPT_FLAMEGRAPH:
		case OPT_SPEEDSCOPE:
			if (opts->stacks_option) {
				fprintf(stderr, "sleepy-parse: one of --folded, --flamegraph and --speedscope at a time\n");
				return SLEEPY_EXIT_USAGE;
			}
			opts->stacks_option = c == OPT_FOLDED ? "--folded" :
					      c == OPT_FLAMEGRAPH ? "--flamegraph" :
					      "--speedscope";
			opts->write_stacks = c == OPT_FOLDED ? sleepy_folded :
					     c == OPT_FLAMEGRAPH ? sleepy_flamegraph :
					     sleepy_speedscope;
			if (!sleepy_folded_parse(optarg, &opts->folded_kind)) {
				fprintf(stderr, "sleepy-parse: unknown %s '%s' (cpu or offcpu)\n",
					opts->stacks_option, optarg);
				return SLEEPY_EXIT_USAGE;
			}
			break;
		case OPT_INSTANCES:
			opts->report.stacks_by_instance = true;
			break;
		case OPT_TIMES:
			opts->times = true;
			break;
		case OPT_SORT:
			if (!sleepy_sort_parse(optarg, &opts->report, error,
					       sizeof(error))) {
				fprintf(stderr, "sleepy-parse: %s\n", error);
				return SLEEPY_EXIT_USAGE;
			}
			opts->report_option = "--sort";
			break;
		case OPT_CHILDREN:
		case OPT_CALLERS:
		case OPT_CALLEES:
			if (opts->report.stack_view) {
				fprintf(stderr, "sleepy-parse: one of --children, --callers and --callees at a time\n");
				return SLEEPY_EXIT_USAGE;
			}
			if (c != OPT_CHILDREN && !*optarg) {
				fprintf(stderr, "sleepy-parse: %s needs a function name\n",
					c == OPT_CALLERS ? "--callers" : "--callees");
				return SLEEPY_EXIT_USAGE;
			}
			opts->report.stack_view = c == OPT_CHILDREN ? SLEEPY_STACKS_CHILDREN :
						  c == OPT_CALLERS ? SLEEPY_STACKS_CALLERS :
						  SLEEPY_STACKS_CALLEES;
			opts->report.stack_function = c == OPT_CHILDREN ? NULL : optarg;
			opts->report_option = stack_view_option(opts->report.stack_view);
			break;
		case OPT_PPROF:
			if (!*optarg) {
				fprintf(stderr, "sleepy-parse: --pprof needs a file name ('-' for standard output)\n");
				return SLEEPY_EXIT_USAGE;
			}
			opts->pprof = optarg;
			break;
		case 'S':
			opts->symfs = optarg;
			break;
		case OPT_NO_DEMANGLE:
			opts->mangled = true;
			break;
		case 'd':
			if (!sleepy_parse_u64(optarg, &value) || !value ||
			    value > SLEEPY_CHAIN_MAX_DEPTH) {
				fprintf(stderr, "sleepy-parse: invalid --depth '%s' (1..%d)\n",
					optarg, SLEEPY_CHAIN_MAX_DEPTH);
				return SLEEPY_EXIT_USAGE;
			}
			opts->report.chain_depth = value;
			break;
		case 'f':
			if (!sleepy_format_parse(optarg, &opts->report.format)) {
				fprintf(stderr, "sleepy-parse: unknown format '%s' (text, csv or json)\n",
					optarg);
				return SLEEPY_EXIT_USAGE;
			}
			opts->report_option = "--format";
			break;
		case 's':
			if (opts->report.nsymbols == MAX_SYMBOL_FILES) {
				fprintf(stderr, "sleepy-parse: at most %d -s options\n",
					MAX_SYMBOL_FILES);
				return SLEEPY_EXIT_USAGE;
			}
			opts->symbol_paths[opts->report.nsymbols++] = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return SLEEPY_EXIT_OK;
		case 'V':
			sleepy_print_version("sleepy-parse");
			return SLEEPY_EXIT_OK;
		default:
			return SLEEPY_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "sleepy-parse: %s (see --help)\n",
			optind == argc ? "no recording given" : "only one recording at a time");
		return SLEEPY_EXIT_USAGE;
	}
	if (opts->report.chain_depth && !opts->report.chain_name) {
		fprintf(stderr, "sleepy-parse: --depth needs --chain\n");
		return SLEEPY_EXIT_USAGE;
	}
	if (opts->report.stacks_by_instance && !opts->stacks_option) {
		fprintf(stderr, "sleepy-parse: --instances needs --folded, --flamegraph or --speedscope\n");
		return SLEEPY_EXIT_USAGE;
	}
	output = opts->stacks_option ?: opts->pprof ? "--pprof" : NULL;
	if (opts->stacks_option && opts->pprof) {
		fprintf(stderr, "sleepy-parse: %s and --pprof: one output at a time\n",
			output);
		return SLEEPY_EXIT_USAGE;
	}
	one_report = opts->report.nsort ? "--sort" :
		     stack_view_option(opts->report.stack_view);
	irq_option = opts->report.irq_by_app ? "--irq-by-app" :
		     opts->report.irq_per_cpu ? "--irq-per-cpu" :
		     opts->report.irq_intervals ? "--irq-intervals" : NULL;
	if (one_report && (opts->report.chain_name || irq_option ||
			   (opts->report.nsort && opts->report.stack_view))) {
		fprintf(stderr, "sleepy-parse: %s prints one report: %s does not go with it\n",
			one_report, opts->report.chain_name ? "--chain" :
			irq_option ?: stack_view_option(opts->report.stack_view));
		return SLEEPY_EXIT_USAGE;
	}
	if (sleepy_sort_has(&opts->report, SLEEPY_SORT_CPU) && opts->report.app_name) {
		fprintf(stderr, "sleepy-parse: --sort cpu counts every sample: --app does not go with it\n");
		return SLEEPY_EXIT_USAGE;
	}
	if (output && opts->report_option) {
		fprintf(stderr, "sleepy-parse: %s prints no reports: %s does not go with it\n",
			output, opts->report_option);
		return SLEEPY_EXIT_USAGE;
	}
	if (!opts->report.chain_depth)
		opts->report.chain_depth = 4;
	opts->report.path = argv[optind];
	/* Once --no-demangle, wherever it was given, is known. */
	start = sleepy_cpu_seconds();
	for (i = 0; i < opts->report.nsymbols; i++) {
		if (sleepy_symbols_load(&opts->symbols[i], opts->symbol_paths[i],
					!opts->mangled, error, sizeof(error))) {
			fprintf(stderr, "sleepy-parse: %s\n", error);
			return SLEEPY_EXIT_ERROR;
		}
	}
	opts->symbols_seconds = sleepy_cpu_seconds() - start;
	return -1;
}

/*
 * sleepy-parse DIR: the interval profiles' reports; of the options, those
 * that apply to them.
 */
static int intervals_main(const struct parse_options *opts)
{
	const char *other = opts->pprof ? "--pprof" : opts->stacks_option ?:
			    opts->report.nsymbols ? "-s" :
			    opts->report.chain_name ? "--chain" :
			    opts->report.nsort ? "--sort" :
			    opts->report.stack_view ? stack_view_option(opts->report.stack_view) :
			    opts->report.irq_by_app ? "--irq-by-app" :
			    opts->report.irq_per_cpu ? "--irq-per-cpu" :
			    opts->report.irq_intervals ? "--irq-intervals" :
			    opts->symfs ? "--symfs" : NULL;
	struct sleepy_intervals_options iopts = {
		.dir = opts->report.path,
		.from_ns = opts->from_ns,
		.to_ns = opts->to_ns,
		.top = opts->report.top,
		.app_name = opts->report.app_name,
		.app_instance = opts->report.app_instance,
		.format = opts->report.format,
	};

	if (other) {
		fprintf(stderr, "sleepy-parse: %s is a directory of interval profiles: %s does not go with it\n",
			iopts.dir, other);
		return SLEEPY_EXIT_USAGE;
	}
	if (iopts.from_ns >= iopts.to_ns) {
		fprintf(stderr, "sleepy-parse: --from is not before --to\n");
		return SLEEPY_EXIT_USAGE;
	}
	return sleepy_intervals_report(stdout, &iopts) ? SLEEPY_EXIT_ERROR :
							 SLEEPY_EXIT_OK;
}

/*
 * Opens and reads @path into @profile, saying on stderr what went wrong
 * or is missing; @report (or NULL) says how to split the interrupt
 * totals.  Returns the exit status; @rec stays open (for what could be
 * read) unless the file could not be opened at all (-1).
 */
static int read_recording(const char *path, struct sleepy_recording *rec,
			  struct sleepy_profile *profile, bool by_tid,
			  const struct sleepy_report_options *report)
{
	int ret = SLEEPY_EXIT_OK;

	if (sleepy_recording_open(rec, path)) {
		fprintf(stderr, "sleepy-parse: %s: %s\n", path, rec->error);
		sleepy_recording_close(rec);
		return -1;
	}
	sleepy_profile_init(profile);
	profile->by_tid = by_tid;
	profile->irq_by_cpu = report && report->irq_per_cpu;
	profile->irq_by_interval = report && report->irq_intervals;
	if (sleepy_profile_read(profile, rec)) {
		fprintf(stderr, "sleepy-parse: %s: %s; reporting the %" PRIu64
			" samples before it\n", path, rec->error, profile->samples);
		ret = SLEEPY_EXIT_ERROR;
	} else if (!rec->finished) {
		fprintf(stderr, "sleepy-parse: %s: truncated at byte %zu: no trailer (was the session stopped with sleepy-stop?)\n",
			path, rec->size);
		ret = SLEEPY_EXIT_ERROR;
	}
	if (profile->totals.dropped)
		fprintf(stderr, "sleepy-parse: warning: %s: the kernel dropped %" PRIu64
			" records (buffer full); use a larger -b or a lower -F\n",
			path, profile->totals.dropped);
	if (profile->table_overflows)
		fprintf(stderr, "sleepy-parse: warning: %s: %" PRIu64
			" processes found the kernel's appid tables full; their samples are [unknown]\n",
			path, profile->table_overflows);
	return ret;
}

static const char diff_usage[] =
"USAGE: sleepy-parse diff [--top N] [--format FMT] A B\n"
"\n"
"Compare the latency histograms of two recordings, operation by operation:\n"
"interrupt and softirq handler times and softirq delays (--irq), and per\n"
"program the lengths of its sleeps, blocked and I/O waits, preemptions and\n"
"run-queue waits (--sched).  Operations are ranked by the Earth Mover's\n"
"Distance between their two distributions over log2 buckets (1.0: every\n"
"run moved by a factor of two); those with fewer than 10 runs in A or B\n"
"(too few to compare) come after the others, those in one recording only\n"
"last.\n"
"\n"
"EXAMPLES:\n"
"    sleepy-parse diff before.data after.data\n"
"    sleepy-parse diff --top 5 --format json a.data b.data\n"
"\n"
"Exit status: 0 ok, 1 a recording unreadable or damaged, 2 bad usage.\n";

static int diff_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct sleepy_diff_options opts = {};
	struct sleepy_profile a, b;
	struct sleepy_recording rec_a, rec_b;
	int c, ret_a, ret_b;

	while ((c = getopt_long(argc, argv, "t:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!sleepy_parse_u64(optarg, &opts.top) || !opts.top) {
				fprintf(stderr, "sleepy-parse: invalid --top '%s' (a positive number)\n",
					optarg);
				return SLEEPY_EXIT_USAGE;
			}
			break;
		case 'f':
			if (!sleepy_format_parse(optarg, &opts.format)) {
				fprintf(stderr, "sleepy-parse: unknown format '%s' (text, csv or json)\n",
					optarg);
				return SLEEPY_EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(diff_usage, stdout);
			return SLEEPY_EXIT_OK;
		default:
			return SLEEPY_EXIT_USAGE;
		}
	}
	if (optind + 2 != argc) {
		fprintf(stderr, "sleepy-parse: diff needs two recordings, A and B (see diff --help)\n");
		return SLEEPY_EXIT_USAGE;
	}
	opts.path_a = argv[optind];
	opts.path_b = argv[optind + 1];
	ret_a = read_recording(opts.path_a, &rec_a, &a, false, NULL);
	if (ret_a < 0)
		return SLEEPY_EXIT_ERROR;
	ret_b = read_recording(opts.path_b, &rec_b, &b, false, NULL);
	if (ret_b < 0) {
		sleepy_profile_free(&a);
		sleepy_recording_close(&rec_a);
		return SLEEPY_EXIT_ERROR;
	}
	sleepy_diff_report(stdout, &opts, &a, rec_a.header.start_time_ns,
			   &b, rec_b.header.start_time_ns);
	sleepy_profile_free(&a);
	sleepy_profile_free(&b);
	sleepy_recording_close(&rec_a);
	sleepy_recording_close(&rec_b);
	return ret_a || ret_b ? SLEEPY_EXIT_ERROR : SLEEPY_EXIT_OK;
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The warnings, one line per file, by file: the order the reports first
 * looked the files up in is no order a reader can use.
 */
static void print_sorted_lines(char *text, FILE *out)
{
	char **lines = NULL, *line, *end;
	size_t n = 0, i;

	for (line = text; *line; line = end + 1) {
		end = line + strcspn(line, "\n");
		lines = sleepy_xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = line;
		if (!*end)
			break;
		*end = '\0';
	}
	if (n)	/* lines is NULL then, which qsort() must not be given */
		qsort(lines, n, sizeof(*lines), cmp_lines);
	for (i = 0; i < n; i++)
		fprintf(out, "%s\n", lines[i]);
	free(lines);
}

int main(int argc, char **argv)
{
	struct parse_options opts = {};
	struct sleepy_profile profile;
	struct sleepy_dsos dsos;
	struct sleepy_recording rec;
	int ret = SLEEPY_EXIT_OK;
	FILE *warnings = NULL;
	char *warned = NULL;
	size_t warned_size;
	double read_start, read_seconds, symbols_seconds;
	unsigned int i, symbol_files;
	struct stat st;

	/*
	 * Memory freed during a run is used again, not handed back to the
	 * kernel to be faulted in anew, zeroed, by the next large array (a
	 * report's sort arrays after its rows): with glibc's defaults, blocks
	 * of 128 KiB and more are mapped and unmapped each time.  One run,
	 * then exit: nothing is kept longer than the process.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	opts.report.symbols = opts.symbols;
	ret = parse_args(&opts, argc, argv);
	if (ret >= 0)
		goto out;
	if (!stat(opts.report.path, &st) && S_ISDIR(st.st_mode)) {
		if (opts.times) {
			fprintf(stderr, "sleepy-parse: --times times the reading of a recording, not of a directory\n");
			ret = SLEEPY_EXIT_USAGE;
			goto out;
		}
		ret = intervals_main(&opts);
		goto out;
	}
	if (opts.range_option) {
		fprintf(stderr, "sleepy-parse: %s needs a directory of interval profiles (sleepy-agent's), not a recording\n",
			opts.range_option);
		ret = SLEEPY_EXIT_USAGE;
		goto out;
	}
	/* pprof labels each sample with its thread, as perf's converters do. */
	read_start = sleepy_cpu_seconds();
	ret = read_recording(opts.report.path, &rec, &profile,
			     sleepy_sort_has(&opts.report, SLEEPY_SORT_TID) ||
			     opts.pprof, &opts.report);
	read_seconds = sleepy_cpu_seconds() - read_start;
	if (ret < 0) {
		ret = SLEEPY_EXIT_ERROR;
		goto out;
	}
	/* Said after the report, not into the middle of its first table. */
	warnings = open_memstream(&warned, &warned_size);
	sleepy_dsos_init(&dsos, opts.symfs, warnings ?: stderr);
	dsos.mangled = opts.mangled;
	dsos.vdso = profile.vdso;
	dsos.vdso_size = profile.vdso_size;
	opts.report.dsos = &dsos;
	if (opts.pprof) {
		if (sleepy_pprof_write(opts.pprof, &opts.report, &profile, &rec))
			ret = SLEEPY_EXIT_ERROR;
	} else if (opts.report.stack_view && !profile.stacks.used) {
		fprintf(stderr, "sleepy-parse: %s has no call stacks (record with -g)\n",
			opts.report.path);
		ret = SLEEPY_EXIT_ERROR;
	} else if (!opts.write_stacks) {
		sleepy_report(stdout, &opts.report, &profile, &rec);
	} else if (opts.write_stacks(stdout, &opts.report, opts.folded_kind,
				     &profile, &rec)) {
		fprintf(stderr, "sleepy-parse: %s has no context switches (record with sleepy-start --sched)\n",
			opts.report.path);
		ret = SLEEPY_EXIT_ERROR;
	}
	symbols_seconds = opts.symbols_seconds + dsos.open_seconds;
	symbol_files = opts.report.nsymbols + dsos.opened;
	sleepy_dsos_free(&dsos);
	sleepy_profile_free(&profile);
	sleepy_recording_close(&rec);
	if (warnings) {
		fflush(stdout);
		fclose(warnings);
		print_sorted_lines(warned, stderr);
		free(warned);
	}
	if (opts.times) {
		double all = sleepy_cpu_seconds();

		fprintf(stderr, "sleepy-parse: CPU time %.3f s: reading the recording %.3f s, reading %u symbol files %.3f s, the rest %.3f s\n",
			all, read_seconds, symbol_files, symbols_seconds,
			all - read_seconds - symbols_seconds);
	}
out:
	for (i = 0; i < opts.report.nsymbols; i++)
		sleepy_symbols_free(&opts.symbols[i]);
	return ret;
}
