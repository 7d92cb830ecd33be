// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-parse --sort: one report of the samples grouped by the keys asked
 * for, in their order, as perf report --sort does.  Each IP count of the
 * profile (per application, and per thread with tid) gets its key values
 * as strings, joined into one row key; rows with the same key add up, and
 * come out by samples, then by key.  cpu is a report of its own: the
 * samples each CPU's buffer held, beside what that CPU counted.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define CELL		256
#define SEPARATOR	'\x1f'	/* between a row key's values; never in a name */

static const struct {
	const char *name;
	struct sleepy_column column;
} keys[SLEEPY_SORT_KEYS] = {
	[SLEEPY_SORT_APP] = { "app", { "app", "APPLICATION", -24, false } },
	[SLEEPY_SORT_PID] = { "pid", { "pid", "PID", 7, true } },
	[SLEEPY_SORT_TID] = { "tid", { "tid", "TID", 7, true } },
	[SLEEPY_SORT_DSO] = { "dso", { "dso", "DSO", -20, false } },
	[SLEEPY_SORT_SYM] = { "sym", { "sym", "SYMBOL", -32, false } },
	[SLEEPY_SORT_IP] = { "ip", { "ip", "IP", -18, false } },
	[SLEEPY_SORT_SRCLINE] = { "srcline", { "srcline", "SOURCE:LINE", -24, false } },
	[SLEEPY_SORT_CPU] = { "cpu", { "cpu", "CPU", 5, true } },
};

struct sorted_row {
	char *key;
	uint64_t samples;
};

bool sleepy_sort_parse(const char *arg, struct sleepy_report_options *opts,
		       char *error, size_t size)
{
	const char *p = arg;
	unsigned int i, k;

	opts->nsort = 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		for (k = 0; k < SLEEPY_SORT_KEYS; k++)
			if (strlen(keys[k].name) == len &&
			    !strncmp(p, keys[k].name, len))
				break;
		if (k == SLEEPY_SORT_KEYS) {
			snprintf(error, size, "unknown --sort key '%.*s' (app, pid, tid, dso, sym, ip, srcline, cpu)",
				 (int)len, p);
			return false;
		}
		for (i = 0; i < opts->nsort; i++) {
			if (opts->sort[i] == k) {
				snprintf(error, size, "--sort key '%s' twice", keys[k].name);
				return false;
			}
		}
		opts->sort[opts->nsort++] = k;
		p += len;
		if (*p == ',' && !*++p)
			break;
	}
	if (!opts->nsort || p[-1] == ',') {
		snprintf(error, size, "invalid --sort '%s' (keys separated by commas: app, pid, tid, dso, sym, ip, srcline; or cpu alone)",
			 arg);
		return false;
	}
	if (opts->nsort > 1 && sleepy_sort_has(opts, SLEEPY_SORT_CPU)) {
		snprintf(error, size, "--sort cpu is a report of its own, not with other keys");
		return false;
	}
	return true;
}

bool sleepy_sort_has(const struct sleepy_report_options *opts,
		     enum sleepy_sort_key key)
{
	unsigned int i;

	for (i = 0; i < opts->nsort; i++)
		if (opts->sort[i] == key)
			return true;
	return false;
}

/* The value of @key for @count of @app, in @cell. */
static void key_value(char *cell, enum sleepy_sort_key key,
		      const struct sleepy_report_options *opts,
		      struct sleepy_profile *profile,
		      const struct sleepy_app *app,
		      const struct sleepy_ip_count *count)
{
	const char *function = NULL, *dso = NULL;
	const struct sleepy_mapping *map;

	if ((key == SLEEPY_SORT_DSO || key == SLEEPY_SORT_SYM) && !count->in_kernel)
		function = sleepy_report_function(opts, profile, app, count->ip, &dso);
	else if (key == SLEEPY_SORT_DSO || key == SLEEPY_SORT_SYM)
		/* Without -k the IP is a user one: the kernel, unnamed. */
		function = count->entry_ip ? "[kernel]" :
			   sleepy_report_kernel_function(profile, count->ip, &dso);
	switch (key) {
	case SLEEPY_SORT_APP:
		snprintf(cell, CELL, "%s", app->label);
		break;
	case SLEEPY_SORT_PID:
		snprintf(cell, CELL, "%" PRIu32, app->pid);
		break;
	case SLEEPY_SORT_TID:
		snprintf(cell, CELL, "%" PRIu32, (uint32_t)count->tid);
		break;
	case SLEEPY_SORT_DSO:
		snprintf(cell, CELL, "%s", dso ?: count->in_kernel ? "[kernel]" :
						 "[unknown]");
		break;
	case SLEEPY_SORT_SYM:
		/* perf's marks: [k] kernel mode, [.] user mode. */
		if (function)
			snprintf(cell, CELL, "%s %s", count->in_kernel ? "[k]" : "[.]",
				 function);
		else
			snprintf(cell, CELL, "%s 0x%" PRIx64,
				 count->in_kernel ? "[k]" : "[.]", count->ip);
		break;
	case SLEEPY_SORT_SRCLINE:
		if (!count->in_kernel && opts->dsos &&
		    (map = sleepy_profile_mapping(profile, app, count->ip)) &&
		    sleepy_dsos_srcline(opts->dsos, map, count->ip, cell, CELL))
			break;
		snprintf(cell, CELL, "%s", count->in_kernel ? "[kernel]" : "[unknown]");
		break;
	default:
		snprintf(cell, CELL, "0x%" PRIx64, count->ip);
		break;
	}
}

static int same_key(const void *slot, const void *arg)
{
	return !strcmp(((const struct sorted_row *)slot)->key, arg);
}

static int cmp_rows(const void *a, const void *b)
{
	const struct sorted_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* The rows of @ips, keyed by @opts->sort, in @table. */
static void add_rows(struct sleepy_table *table,
		     const struct sleepy_report_options *opts,
		     struct sleepy_profile *profile,
		     struct sleepy_ip_count **ips, size_t nips)
{
	char key[SLEEPY_SORT_KEYS * (CELL + 1)], cell[CELL];
	const struct sleepy_app *app = NULL;
	struct sorted_row *row;
	size_t i, len;
	unsigned int k;

	for (i = 0; i < nips; i++) {
		if (!app || app->appid != ips[i]->appid)
			app = sleepy_profile_app(profile, ips[i]->appid);
		if (!sleepy_report_app_selected(opts, app))
			continue;
		for (k = 0, len = 0; k < opts->nsort; k++) {
			key_value(cell, opts->sort[k], opts, profile, app, ips[i]);
			len += snprintf(key + len, sizeof(key) - len, "%s%c",
					cell, SEPARATOR);
		}
		key[len - 1] = '\0';
		row = sleepy_table_get(table, sleepy_hash_string(key), same_key, key);
		if (!row->key) {
			row->key = strdup(key);
			if (!row->key) {
				fprintf(stderr, "sleepy: out of memory\n");
				exit(1);
			}
		}
		row->samples += ips[i]->samples;
	}
}

/* --sort cpu: every CPU's samples in the recording and its counters. */
static void cpu_report(struct sleepy_output *out, struct sleepy_profile *profile,
		       uint64_t total)
{
	static const struct sleepy_column columns[] = {
		{ "samples", "SAMPLES", 10, true },
		{ "percent", "%", 7, true },
		{ "cpu", "CPU", 5, true },
		{ "counted", "COUNTED", 10, true },
		{ "idle", "IDLE", 10, true },
		{ "missed", "MISSED", 10, true },
		{ "dropped", "DROPPED", 10, true },
	};
	char cells[7][CELL];
	const char *ptrs[7];
	uint32_t cpu;
	int i;

	sleepy_output_table(out, "sorted", "By cpu", columns, 7);
	for (cpu = 0; cpu < profile->ncpus; cpu++) {
		const struct sleepy_cpu_count *c = &profile->cpus[cpu];

		snprintf(cells[0], CELL, "%" PRIu64, c->samples);
		snprintf(cells[1], CELL, out->format == SLEEPY_FORMAT_TEXT ?
			 "%.2f%%" : "%.4f", 100.0 * c->samples / total);
		snprintf(cells[2], CELL, "%" PRIu32, cpu);
		snprintf(cells[3], CELL, "%" PRIu64, c->counted);
		snprintf(cells[4], CELL, "%" PRIu64, c->idle);
		snprintf(cells[5], CELL, "%" PRIu64, c->missed);
		snprintf(cells[6], CELL, "%" PRIu64, c->dropped);
		for (i = 0; i < 7; i++)
			ptrs[i] = cells[i];
		sleepy_output_cells(out, ptrs);
	}
}

void sleepy_sort_report(struct sleepy_output *out,
			const struct sleepy_report_options *opts,
			struct sleepy_profile *profile,
			struct sleepy_ip_count **ips, size_t nips,
			uint64_t total)
{
	struct sleepy_column columns[2 + SLEEPY_SORT_KEYS] = {
		{ "samples", "SAMPLES", 10, true },
		{ "percent", "%", 7, true },
	};
	char cells[2][CELL], title[128] = "By", *key;
	const char *ptrs[2 + SLEEPY_SORT_KEYS];
	struct sleepy_table table;
	struct sorted_row *rows;
	size_t n, i;
	unsigned int k;

	if (opts->sort[0] == SLEEPY_SORT_CPU) {
		cpu_report(out, profile, total);
		return;
	}
	for (k = 0; k < opts->nsort; k++) {
		columns[2 + k] = keys[opts->sort[k]].column;
		snprintf(title + strlen(title), sizeof(title) - strlen(title),
			 "%s %s", k ? "," : "", keys[opts->sort[k]].name);
	}
	sleepy_table_init(&table, sizeof(struct sorted_row));
	add_rows(&table, opts, profile, ips, nips);
	rows = sleepy_table_sorted(&table, &n, cmp_rows);
	sleepy_table_free(&table);
	sleepy_output_table(out, "sorted", title, columns, 2 + opts->nsort);
	for (i = 0; i < n; i++) {
		if (!opts->top || i < opts->top) {
			snprintf(cells[0], CELL, "%" PRIu64, rows[i].samples);
			snprintf(cells[1], CELL, out->format == SLEEPY_FORMAT_TEXT ?
				 "%.2f%%" : "%.4f", 100.0 * rows[i].samples / total);
			ptrs[0] = cells[0];
			ptrs[1] = cells[1];
			for (k = 0, key = rows[i].key; k < opts->nsort; k++) {
				ptrs[2 + k] = key;
				key = strchr(key, SEPARATOR);
				if (key)
					*key++ = '\0';
			}
			sleepy_output_cells(out, ptrs);
		}
		free(rows[i].key);
	}
	free(rows);
}
