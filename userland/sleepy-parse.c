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
"                    [-s BINARY]... FILE\n"
"\n"
"Report a recording made by sleepy-start/sleepy-record: samples by\n"
"application instance, and by application instance and instruction\n"
"pointer, most samples first.  With -s, IPs of the program BINARY are\n"
"named by function and a report by function is added.\n"
"\n"
"EXAMPLES:\n"
"    sleepy-parse sleepy.data\n"
"    sleepy-parse --top 10 --app btree#1 -s ./btree sleepy.data\n"
"    sleepy-parse --format json sleepy.data > report.json\n"
"\n"
"OPTIONS:\n"
"    -t, --top N          at most N rows per report (default: all)\n"
"    -a, --app NAME[#I]   only application NAME (instance I)\n"
"    -f, --format FMT     text (default), csv or json\n"
"    -s, --symbols BIN    function names for the program BIN (non-PIE ELF),\n"
"                         matched to applications by file name\n"
"    -h, --help           show this help\n"
"    -V, --version        show the version\n"
"\n"
"Exit status: 0 ok, 1 unreadable or damaged recording (what could be read\n"
"is still reported), 2 bad usage.\n";

struct parse_options {
	struct sleepy_report_options report;	/* .symbols points below */
	struct sleepy_symbols symbols[MAX_SYMBOL_FILES];
};

static int parse_args(struct parse_options *opts, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, 't' },
		{ "app", required_argument, NULL, 'a' },
		{ "format", required_argument, NULL, 'f' },
		{ "symbols", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	char error[512], *hash;
	uint64_t value;
	int c;

	while ((c = getopt_long(argc, argv, "t:a:f:s:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!sleepy_parse_u64(optarg, &opts->report.top) || !opts->report.top) {
				fprintf(stderr, "sleepy-parse: invalid --top '%s' (a positive number)\n",
					optarg);
				return SLEEPY_EXIT_USAGE;
			}
			break;
		case 'a':
			opts->report.app_name = optarg;
			hash = strrchr(optarg, '#');
			if (hash) {
				if (!sleepy_parse_u64(hash + 1, &value) || !value ||
				    value > UINT32_MAX) {
					fprintf(stderr, "sleepy-parse: invalid --app '%s' (NAME or NAME#INSTANCE)\n",
						optarg);
					return SLEEPY_EXIT_USAGE;
				}
				*hash = '\0';
				opts->report.app_instance = value;
			}
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
