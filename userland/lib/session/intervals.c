// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-parse DIR; see intervals.h.  Each selected profile is unpacked
 * with protobuf-c, its samples summed into tables keyed by interned
 * strings (application label, function, file), and freed before the next
 * one, so a day of profiles takes the memory of one plus the totals.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "session/intervals.h"
#include "pprof.pb-c.h"
#include "model/profile.h"
#include "session/session.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;

/* Larger than any profile an agent writes: a bound, not a limit. */
#define MAX_PROFILE_BYTES	(1ULL << 30)

struct app_total {
	const char *label;	/* interned */
	uint32_t pid;
	uint64_t samples;
};

struct function_total {
	const char *label, *function, *dso;	/* interned */
	uint32_t pid;
	uint64_t samples;
};

struct totals {
	struct sleepy_table strings;	/* char * */
	struct sleepy_table apps;	/* struct app_total */
	struct sleepy_table functions;	/* struct function_total */
	uint64_t samples, profiles;
	int64_t first_ns, last_ns;	/* of the intervals read */
};

static const char *intern(struct totals *t, const char *s)
{
	return sleepy_intern(&t->strings, s);
}

static int app_match(const void *slot, const void *arg)
{
	const struct app_total *a = slot, *b = arg;

	return a->label == b->label && a->pid == b->pid;
}

static int function_match(const void *slot, const void *arg)
{
	const struct function_total *a = slot, *b = arg;

	return a->label == b->label && a->pid == b->pid &&
	       a->function == b->function && a->dso == b->dso;
}

/* The gunzipped bytes of @path, NULL after saying why. */
static void *read_gzip(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t size = 1 << 16;
	unsigned char *buf;
	int n;

	if (!gz) {
		fprintf(stderr, "sleepy-parse: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	buf = sleepy_xrealloc(NULL, size);
	*len = 0;
	while ((n = gzread(gz, buf + *len, size - *len)) > 0) {
		*len += n;
		if (*len == size) {
			if (size >= MAX_PROFILE_BYTES) {
				n = -1;
				break;
			}
			size *= 2;
			buf = sleepy_xrealloc(buf, size);
		}
	}
	if (n < 0) {
		int err;

		fprintf(stderr, "sleepy-parse: %s: %s\n", path,
			*len >= MAX_PROFILE_BYTES ? "larger than 1G" :
			gzerror(gz, &err));
		gzclose(gz);
		free(buf);
		return NULL;
	}
	gzclose(gz);
	return buf;
}

/* @p's string @i, "" if out of range. */
static const char *string_at(const Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "";
}

/* Index of the "samples" value, else the first. */
static size_t samples_index(const Profile *p)
{
	size_t i;

	for (i = 0; i < p->n_sample_type; i++)
		if (!strcmp(string_at(p, p->sample_type[i]->type), "samples"))
			return i;
	return 0;
}

/* Entries of @n messages at @items by their id, for lookups. */
static void index_ids(struct sleepy_table *table, void **items, size_t n,
		      uint64_t (*id)(const void *))
{
	size_t i;

	sleepy_table_init(table, sizeof(void *));
	for (i = 0; i < n; i++)
		*(void **)sleepy_table_get(table, id(items[i]), NULL, NULL) = items[i];
}

static uint64_t location_id(const void *l) { return ((const Location *)l)->id; }
static uint64_t function_id(const void *f) { return ((const Function *)f)->id; }
static uint64_t mapping_id(const void *m) { return ((const Mapping *)m)->id; }

static void *find_id(const struct sleepy_table *table, uint64_t id)
{
	void **slot = sleepy_table_find(table, id, NULL, NULL);

	return slot ? *slot : NULL;
}

static bool app_selected(const struct sleepy_intervals_options *opts,
			 const char *label)
{
	size_t len;

	if (!opts->app_name)
		return true;
	len = strlen(opts->app_name);
	if (strncmp(label, opts->app_name, len) || label[len] != '#')
		return false;
	return !opts->app_instance ||
	       strtoul(label + len + 1, NULL, 10) == opts->app_instance;
}

static void add_profile(struct totals *t, const Profile *p,
			const struct sleepy_intervals_options *opts)
{
	struct sleepy_table locations, functions, mappings;
	size_t value = samples_index(p), i, j;

	index_ids(&locations, (void **)p->location, p->n_location, location_id);
	index_ids(&functions, (void **)p->function, p->n_function, function_id);
	index_ids(&mappings, (void **)p->mapping, p->n_mapping, mapping_id);
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		struct function_total fkey = { .function = "[unknown]", .dso = "" };
		struct app_total akey = { .label = "[unknown]" }, *app;
		struct function_total *function;
		const Location *loc;
		uint64_t n;

		if (value >= s->n_value || s->value[value] <= 0)
			continue;
		n = s->value[value];
		for (j = 0; j < s->n_label; j++) {
			const char *key = string_at(p, s->label[j]->key);

			if (!strcmp(key, "app"))
				akey.label = string_at(p, s->label[j]->str);
			else if (!strcmp(key, "pid"))
				akey.pid = s->label[j]->num;
		}
		if (!app_selected(opts, akey.label))
			continue;
		loc = s->n_location_id ? find_id(&locations, s->location_id[0]) : NULL;
		if (loc && loc->n_line) {
			const Function *f = find_id(&functions, loc->line[0]->function_id);

			if (f && *string_at(p, f->name))
				fkey.function = string_at(p, f->name);
		}
		if (loc && loc->mapping_id) {
			const Mapping *m = find_id(&mappings, loc->mapping_id);
			const char *base;

			/* The file's name, as the reports of a recording give it. */
			if (m) {
				fkey.dso = string_at(p, m->filename);
				base = strrchr(fkey.dso, '/');
				fkey.dso = base ? base + 1 : fkey.dso;
			}
		}
		akey.label = intern(t, akey.label);
		app = sleepy_table_get(&t->apps, sleepy_fnv((uintptr_t)akey.label,
							   &akey.pid, sizeof(akey.pid)),
				       app_match, &akey);
		if (!app->label)
			*app = akey;
		app->samples += n;

		fkey.label = akey.label;
		fkey.pid = akey.pid;
		fkey.function = intern(t, fkey.function);
		fkey.dso = intern(t, fkey.dso);
		function = sleepy_table_get(&t->functions,
					    (uintptr_t)fkey.label ^ fkey.pid ^
					    ((uintptr_t)fkey.function << 7) ^
					    ((uintptr_t)fkey.dso << 17),
					    function_match, &fkey);
		if (!function->label)
			*function = fkey;
		function->samples += n;
		t->samples += n;
	}
	sleepy_table_free(&locations);
	sleepy_table_free(&functions);
	sleepy_table_free(&mappings);
}

static bool is_profile_file(const struct dirent *d)
{
	size_t len = strlen(d->d_name);

	return d->d_name[0] != '.' && len > 6 &&
	       !strcmp(d->d_name + len - 6, ".pb.gz");
}

static int filter_profiles(const struct dirent *d)
{
	return is_profile_file(d);
}

/* Reads the profiles of the range into @t; 1 if one was unreadable. */
static int read_profiles(struct totals *t,
			 const struct sleepy_intervals_options *opts,
			 int *in_dir)
{
	struct dirent **names;
	int n, i, ret = 0;

	n = scandir(opts->dir, &names, filter_profiles, alphasort);
	if (n < 0) {
		fprintf(stderr, "sleepy-parse: %s: %s\n", opts->dir, strerror(errno));
		return 1;
	}
	*in_dir = n;
	for (i = 0; i < n; i++) {
		char path[4096];
		void *buf;
		Profile *p;
		size_t len;
		int64_t end;

		snprintf(path, sizeof(path), "%s/%s", opts->dir, names[i]->d_name);
		free(names[i]);
		buf = read_gzip(path, &len);
		if (!buf) {
			ret = 1;
			continue;
		}
		p = perftools__profiles__profile__unpack(NULL, len, buf);
		free(buf);
		if (!p) {
			fprintf(stderr, "sleepy-parse: %s: not a pprof profile\n", path);
			ret = 1;
			continue;
		}
		end = p->time_nanos + (p->duration_nanos > 0 ? p->duration_nanos : 0);
		if (end > opts->from_ns && p->time_nanos < opts->to_ns) {
			if (!t->profiles || p->time_nanos < t->first_ns)
				t->first_ns = p->time_nanos;
			if (!t->profiles || end > t->last_ns)
				t->last_ns = end;
			t->profiles++;
			add_profile(t, p, opts);
		}
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	free(names);
	return ret;
}

static int cmp_apps(const void *a, const void *b)
{
	const struct app_total *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->label, y->label);
}

static int cmp_functions(const void *a, const void *b)
{
	const struct function_total *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->function, y->function);
}

/* @ns as local "YYYY-MM-DD HH:MM:SS". */
static void format_time(char *out, size_t size, int64_t ns)
{
	time_t seconds = ns / 1000000000LL;
	struct tm tm;

	localtime_r(&seconds, &tm);
	strftime(out, size, "%Y-%m-%d %H:%M:%S", &tm);
}

static void print_reports(FILE *stream, const struct sleepy_intervals_options *opts,
			  struct totals *t, int in_dir)
{
	struct app_total *apps;
	struct function_total *functions;
	struct sleepy_output out;
	char text[1024], json[1024], from[32], to[32];
	size_t napps, nfunctions, i;
	uint64_t total = t->samples ?: 1;

	format_time(from, sizeof(from), t->first_ns);
	format_time(to, sizeof(to), t->last_ns);
	snprintf(text, sizeof(text), "# %s: %" PRIu64 " samples in %" PRIu64
		 " profiles of %d, from %s to %s", opts->dir, t->samples,
		 t->profiles, in_dir, from, to);
	snprintf(json, sizeof(json), "\n  \"samples\": %" PRIu64
		 ", \"profiles\": %" PRIu64 ", \"profiles_in_dir\": %d"
		 ", \"from\": \"%s\", \"to\": \"%s\"",
		 t->samples, t->profiles, in_dir, from, to);
	sleepy_output_begin(&out, stream, opts->format, text, json);

	apps = sleepy_table_sorted(&t->apps, &napps, cmp_apps);
	sleepy_output_report(&out, "by_app", "By application", SLEEPY_COLUMNS_APP);
	for (i = 0; i < napps && (!opts->top || i < opts->top); i++)
		sleepy_output_row(&out, &(struct sleepy_row) {
			.app = apps[i].label,
			.pid = apps[i].pid,
			.samples = apps[i].samples,
			.percent = 100.0 * apps[i].samples / total,
		});
	functions = sleepy_table_sorted(&t->functions, &nfunctions, cmp_functions);
	sleepy_output_report(&out, "by_function", "By application and function",
			     SLEEPY_COLUMNS_FUNCTION);
	for (i = 0; i < nfunctions && (!opts->top || i < opts->top); i++)
		sleepy_output_row(&out, &(struct sleepy_row) {
			.app = functions[i].label,
			.pid = functions[i].pid,
			.function = functions[i].function,
			.dso = *functions[i].dso ? functions[i].dso : NULL,
			.samples = functions[i].samples,
			.percent = 100.0 * functions[i].samples / total,
		});
	sleepy_output_end(&out);
	free(apps);
	free(functions);
}

int sleepy_intervals_report(FILE *out, const struct sleepy_intervals_options *opts)
{
	struct totals t = {};
	int ret, in_dir = 0;

	sleepy_table_init(&t.strings, sizeof(char *));
	sleepy_table_init(&t.apps, sizeof(struct app_total));
	sleepy_table_init(&t.functions, sizeof(struct function_total));
	ret = read_profiles(&t, opts, &in_dir);
	if (!t.profiles) {
		fprintf(stderr, "sleepy-parse: %s: no profile %s\n", opts->dir,
			in_dir ? "in the time range given" :
			"(sleepy-agent's *.pb.gz files)");
		ret = 1;
	} else {
		print_reports(out, opts, &t, in_dir);
	}
	sleepy_intern_free(&t.strings);
	sleepy_table_free(&t.apps);
	sleepy_table_free(&t.functions);
	return ret;
}

bool sleepy_parse_wall_time(const char *s, int64_t *ns)
{
	static const char *const formats[] = {
		"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S",
		"%Y-%m-%dT%H:%M", "%Y-%m-%d", "%H:%M:%S", "%H:%M",
	};
	time_t now = time(NULL), seconds;
	struct tm tm, today;
	uint64_t epoch;
	size_t i;

	if (*s == '@') {
		if (!sleepy_parse_u64(s + 1, &epoch) ||
		    epoch > INT64_MAX / 1000000000LL)
			return false;
		*ns = epoch * 1000000000LL;
		return true;
	}
	localtime_r(&now, &today);
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		const char *end;

		memset(&tm, 0, sizeof(tm));
		end = strptime(s, formats[i], &tm);
		if (!end || *end)
			continue;
		if (formats[i][1] == 'H') {	/* a time of today */
			tm.tm_year = today.tm_year;
			tm.tm_mon = today.tm_mon;
			tm.tm_mday = today.tm_mday;
		}
		tm.tm_isdst = -1;
		seconds = mktime(&tm);
		if (seconds == (time_t)-1)
			return false;
		*ns = (int64_t)seconds * 1000000000LL;
		return true;
	}
	return false;
}
