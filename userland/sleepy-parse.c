// SPDX-License-Identifier: GPL-2.0
/* sleepy-parse: report a recording by application and by IP. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/options.h"
#include "lib/output.h"
#include "lib/profile.h"
#include "lib/report.h"
#include "lib/session.h"
#include "lib/symbols.h"

#define MAX_SYMBOL_FILES 16

static const char usage[] =
"USAGE: sleepy-parse [--top N] [--app NAME[#INSTANCE]] [--format FMT]\n"
"                    [-s BINARY]... [--chain NAME[#INSTANCE] [--depth N]]\n"
"                    [--irq-by-app] FILE\n"
"\n"
"Report a recording made by sleepy-start/sleepy-record: samples by\n"
"application instance, and by application instance and instruction\n"
"pointer, most samples first.  With -s, IPs of the program BINARY are\n"
"named by function and a report by function is added.\n"
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
"EXAMPLES:\n"
"    sleepy-parse sleepy.data\n"
"    sleepy-parse --top 10 --app btree#1 -s ./btree sleepy.data\n"
"    sleepy-parse --format json sleepy.data > report.json\n"
"    sleepy-parse --chain reader#1 --depth 3 sched.data\n"
"\n"
"OPTIONS:\n"
"    -t, --top N          at most N rows per report (default: all)\n"
"    -a, --app NAME[#I]   only application NAME (instance I)\n"
"    -f, --format FMT     text (default), csv or json\n"
"    -s, --symbols BIN    function names for the program BIN (non-PIE ELF),\n"
"                         matched to applications by file name\n"
"    -c, --chain NAME[#I] with --sched: who NAME waited for, recursively\n"
"    -d, --depth N        levels of --chain (1..16, default 4)\n"
"        --irq-by-app     with --irq: interrupt time taken from each app\n"
"    -h, --help           show this help\n"
"    -V, --version        show the version\n"
"\n"
"Exit status: 0 ok, 1 unreadable or damaged recording (what could be read\n"
"is still reported), 2 bad usage.\n";

struct parse_options {
	struct sleepy_report_options report;	/* .symbols points below */
	struct sleepy_symbols symbols[MAX_SYMBOL_FILES];
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

static int parse_args(struct parse_options *opts, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, 't' },
		{ "app", required_argument, NULL, 'a' },
		{ "format", required_argument, NULL, 'f' },
		{ "symbols", required_argument, NULL, 's' },
		{ "chain", required_argument, NULL, 'c' },
		{ "depth", required_argument, NULL, 'd' },
		{ "irq-by-app", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	char error[512];
	uint64_t value;
	int c;

	while ((c = getopt_long(argc, argv, "t:a:f:s:c:d:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!sleepy_parse_u64(optarg, &opts->report.top) || !opts->report.top) {
				fprintf(stderr, "sleepy-parse: invalid --top '%s' (a positive number)\n",
					optarg);
				return SLEEPY_EXIT_USAGE;
			}
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
			break;
		case 'I':
			opts->report.irq_by_app = true;
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
			break;
		case 's':
			if (opts->report.nsymbols == MAX_SYMBOL_FILES) {
				fprintf(stderr, "sleepy-parse: at most %d -s options\n",
					MAX_SYMBOL_FILES);
				return SLEEPY_EXIT_USAGE;
			}
			if (sleepy_symbols_load(&opts->symbols[opts->report.nsymbols],
						optarg, error, sizeof(error))) {
				fprintf(stderr, "sleepy-parse: %s\n", error);
				return SLEEPY_EXIT_ERROR;
			}
			opts->report.nsymbols++;
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
	if (!opts->report.chain_depth)
		opts->report.chain_depth = 4;
	opts->report.path = argv[optind];
	return -1;
}

int main(int argc, char **argv)
{
	struct parse_options opts = {};
	struct sleepy_profile profile;
	struct sleepy_recording rec;
	int ret = SLEEPY_EXIT_OK;
	unsigned int i;

	opts.report.symbols = opts.symbols;
	ret = parse_args(&opts, argc, argv);
	if (ret >= 0)
		goto out;
	ret = SLEEPY_EXIT_OK;

	if (sleepy_recording_open(&rec, opts.report.path)) {
		fprintf(stderr, "sleepy-parse: %s: %s\n", opts.report.path, rec.error);
		sleepy_recording_close(&rec);
		ret = SLEEPY_EXIT_ERROR;
		goto out;
	}
	sleepy_profile_init(&profile);
	if (sleepy_profile_read(&profile, &rec)) {
		fprintf(stderr, "sleepy-parse: %s: %s; reporting the %" PRIu64
			" samples before it\n", opts.report.path, rec.error, profile.samples);
		ret = SLEEPY_EXIT_ERROR;
	} else if (!rec.finished) {
		fprintf(stderr, "sleepy-parse: %s: truncated at byte %zu: no trailer (was the session stopped with sleepy-stop?)\n",
			opts.report.path, rec.size);
		ret = SLEEPY_EXIT_ERROR;
	}
	if (profile.totals.dropped)
		fprintf(stderr, "sleepy-parse: warning: the kernel dropped %" PRIu64
			" records (buffer full); use a larger -b or a lower -F\n",
			profile.totals.dropped);
	if (profile.table_overflows)
		fprintf(stderr, "sleepy-parse: warning: %" PRIu64
			" processes found the kernel's appid tables full; their samples are [unknown]\n",
			profile.table_overflows);
	sleepy_report(stdout, &opts.report, &profile, &rec);
	sleepy_profile_free(&profile);
	sleepy_recording_close(&rec);
out:
	for (i = 0; i < opts.report.nsymbols; i++)
		sleepy_symbols_free(&opts.symbols[i]);
	return ret;
}
