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
	const char *path;
	uint64_t top;
	const char *app_name;
	uint32_t app_instance;	/* 0 = every instance */
	enum sleepy_format format;
	struct sleepy_symbols symbols[MAX_SYMBOL_FILES];
	unsigned int nsymbols;
};

static bool app_selected(const struct parse_options *opts,
			 const struct sleepy_app *app)
{
	if (!opts->app_name)
		return true;
	return !strcmp(app->name, opts->app_name) &&
	       (!opts->app_instance || app->instance == opts->app_instance);
}

static const struct sleepy_symbols *symbols_for(const struct parse_options *opts,
						const struct sleepy_app *app)
{
	unsigned int i;

	for (i = 0; i < opts->nsymbols; i++)
		if (!strcmp(opts->symbols[i].app_name, app->name))
			return &opts->symbols[i];
	return NULL;
}

static const char *function_of(const struct parse_options *opts,
			       const struct sleepy_app *app,
			       const struct sleepy_ip_count *ip)
{
	const struct sleepy_symbols *symbols = symbols_for(opts, app);
	const struct sleepy_symbol *sym;

	if (!symbols || ip->in_kernel)
		return NULL;
	sym = sleepy_symbols_find(symbols, ip->ip);
	return sym ? sym->name : NULL;
}

struct function_count {
	const struct sleepy_app *app;
	const char *function;
	uint64_t samples;
};

static int function_match(const void *slot, const void *arg)
{
	const struct function_count *a = slot, *b = arg;

	return a->app == b->app && a->function == b->function;
}

static int cmp_functions(const void *a, const void *b)
{
	const struct function_count *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->app->label, y->app->label);
}

static void report_functions(struct sleepy_output *out,
			     struct parse_options *opts,
			     struct sleepy_profile *profile,
			     struct sleepy_ip_count **ips, size_t nips,
			     uint64_t total)
{
	struct function_count *rows, key;
	struct sleepy_table table;
	size_t i, n = 0;

	sleepy_table_init(&table, sizeof(key));
	for (i = 0; i < nips; i++) {
		struct sleepy_app *app = sleepy_profile_app(profile, ips[i]->appid);
		struct function_count *count;

		if (!app_selected(opts, app) || !symbols_for(opts, app))
			continue;
		key = (struct function_count) {
			.app = app,
			.function = function_of(opts, app, ips[i]) ?:
				    (ips[i]->in_kernel ? "[kernel]" : "[unknown]"),
		};
		count = sleepy_table_get(&table, (uintptr_t)key.function ^
					 ((uint64_t)app->appid << 40),
					 function_match, &key);
		if (!count->app)
			*count = key;
		count->samples += ips[i]->samples;
	}
	rows = calloc(table.used + 1, sizeof(*rows));
	for (i = 0; rows && i < table.capacity; i++)
		if (sleepy_table_slot(&table, i))
			rows[n++] = *(struct function_count *)sleepy_table_slot(&table, i);
	qsort(rows, n, sizeof(*rows), cmp_functions);

	sleepy_output_report(out, "by_function", "By application and function",
			     SLEEPY_COLUMNS_FUNCTION);
	for (i = 0; i < n && (!opts->top || i < opts->top); i++) {
		struct sleepy_row row = {
			.app = rows[i].app->label,
			.pid = rows[i].app->pid,
			.function = rows[i].function,
			.samples = rows[i].samples,
			.percent = 100.0 * rows[i].samples / total,
		};

		sleepy_output_row(out, &row);
	}
	free(rows);
	sleepy_table_free(&table);
}

static void report(struct parse_options *opts, struct sleepy_profile *profile,
		   const struct sleepy_recording *rec)
{
	struct sleepy_app **apps;
	struct sleepy_ip_count **ips;
	struct sleepy_output out;
	char text[512], json[512], frequency[32] = "tick (CONFIG_HZ)";
	size_t napps, nips, i, shown;
	uint64_t total = 0;

	apps = sleepy_profile_apps(profile, &napps);
	ips = sleepy_profile_ips(profile, &nips);
	for (i = 0; i < napps; i++)
		if (app_selected(opts, apps[i]))
			total += apps[i]->samples;
	if (rec->header.frequency)
		snprintf(frequency, sizeof(frequency), "%u Hz",
			 rec->header.frequency);

	snprintf(text, sizeof(text),
		 "# %s: %" PRIu64 " samples shown of %" PRIu64 " (%" PRIu64
		 " in kernel mode), %u CPUs, %s, %.2f s, %" PRIu64 " dropped, %"
		 PRIu64 " idle",
		 opts->path, total, profile->samples, profile->kernel_samples,
		 rec->header.ncpus, frequency, profile->samples ?
		 (profile->last_ns - profile->first_ns) / 1e9 : 0.0,
		 profile->totals.dropped, profile->totals.idle);
	snprintf(json, sizeof(json),
		 "\n  \"samples\": %" PRIu64 ", \"samples_shown\": %" PRIu64
		 ", \"kernel_samples\": %" PRIu64 ", \"cpus\": %u, \"frequency\": %u"
		 ", \"counted_samples\": %" PRIu64 ", \"dropped\": %" PRIu64
		 ", \"idle\": %" PRIu64 ", \"table_overflows\": %" PRIu64
		 ", \"complete\": %s",
		 profile->samples, total, profile->kernel_samples,
		 rec->header.ncpus, rec->header.frequency,
		 profile->totals.samples, profile->totals.dropped,
		 profile->totals.idle, profile->table_overflows,
		 rec->finished && !rec->error[0] ? "true" : "false");
	sleepy_output_begin(&out, stdout, opts->format, text, json);
	if (!total)
		total = 1;

	sleepy_output_report(&out, "by_app", "By application", SLEEPY_COLUMNS_APP);
	for (i = 0, shown = 0; i < napps; i++) {
		struct sleepy_row row = {
			.app = apps[i]->label,
			.pid = apps[i]->pid,
			.samples = apps[i]->samples,
			.percent = 100.0 * apps[i]->samples / total,
		};

		if (!apps[i]->samples || !app_selected(opts, apps[i]))
			continue;
		if (opts->top && shown++ >= opts->top)
			break;
		sleepy_output_row(&out, &row);
	}

	sleepy_output_report(&out, "by_app_ip",
			     "By application and instruction pointer",
			     SLEEPY_COLUMNS_IP);
	for (i = 0, shown = 0; i < nips; i++) {
		struct sleepy_app *app = sleepy_profile_app(profile, ips[i]->appid);
		struct sleepy_row row = {
			.app = app->label,
			.pid = app->pid,
			.has_ip = true,
			.ip = ips[i]->ip,
			.in_kernel = ips[i]->in_kernel,
			.function = function_of(opts, app, ips[i]),
			.samples = ips[i]->samples,
			.percent = 100.0 * ips[i]->samples / total,
		};

		if (!app_selected(opts, app))
			continue;
		if (opts->top && shown++ >= opts->top)
			break;
		sleepy_output_row(&out, &row);
	}

	if (opts->nsymbols)
		report_functions(&out, opts, profile, ips, nips, total);
	sleepy_output_end(&out);
	free(apps);
	free(ips);
}

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
			if (!sleepy_parse_u64(optarg, &opts->top) || !opts->top) {
				fprintf(stderr, "sleepy-parse: invalid --top '%s' (a positive number)\n",
					optarg);
				return SLEEPY_EXIT_USAGE;
			}
			break;
		case 'a':
			opts->app_name = optarg;
			hash = strrchr(optarg, '#');
			if (hash) {
				if (!sleepy_parse_u64(hash + 1, &value) || !value ||
				    value > UINT32_MAX) {
					fprintf(stderr, "sleepy-parse: invalid --app '%s' (NAME or NAME#INSTANCE)\n",
						optarg);
					return SLEEPY_EXIT_USAGE;
				}
				*hash = '\0';
				opts->app_instance = value;
			}
			break;
		case 'f':
			if (!sleepy_format_parse(optarg, &opts->format)) {
				fprintf(stderr, "sleepy-parse: unknown format '%s' (text, csv or json)\n",
					optarg);
				return SLEEPY_EXIT_USAGE;
			}
			break;
		case 's':
			if (opts->nsymbols == MAX_SYMBOL_FILES) {
				fprintf(stderr, "sleepy-parse: at most %d -s options\n",
					MAX_SYMBOL_FILES);
				return SLEEPY_EXIT_USAGE;
			}
			if (sleepy_symbols_load(&opts->symbols[opts->nsymbols],
						optarg, error, sizeof(error))) {
				fprintf(stderr, "sleepy-parse: %s\n", error);
				return SLEEPY_EXIT_ERROR;
			}
			opts->nsymbols++;
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
	opts->path = argv[optind];
	return -1;
}

int main(int argc, char **argv)
{
	struct parse_options opts = {};
	struct sleepy_profile profile;
	struct sleepy_recording rec;
	int ret = SLEEPY_EXIT_OK;
	unsigned int i;

	ret = parse_args(&opts, argc, argv);
	if (ret >= 0)
		goto out;
	ret = SLEEPY_EXIT_OK;

	if (sleepy_recording_open(&rec, opts.path)) {
		fprintf(stderr, "sleepy-parse: %s: %s\n", opts.path, rec.error);
		sleepy_recording_close(&rec);
		ret = SLEEPY_EXIT_ERROR;
		goto out;
	}
	sleepy_profile_init(&profile);
	if (sleepy_profile_read(&profile, &rec)) {
		fprintf(stderr, "sleepy-parse: %s: %s; reporting the %" PRIu64
			" samples before it\n", opts.path, rec.error, profile.samples);
		ret = SLEEPY_EXIT_ERROR;
	} else if (!rec.finished) {
		fprintf(stderr, "sleepy-parse: %s: truncated at byte %zu: no trailer (was the session stopped with sleepy-stop?)\n",
			opts.path, rec.size);
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
	report(&opts, &profile, &rec);
	sleepy_profile_free(&profile);
	sleepy_recording_close(&rec);
out:
	for (i = 0; i < opts.nsymbols; i++)
		sleepy_symbols_free(&opts.symbols[i]);
	return ret;
}
