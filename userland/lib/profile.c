// SPDX-License-Identifier: GPL-2.0
/* Aggregating a recording into per-application and per-IP counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

#define SLEEPY_TABLE_MIN 1024

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "sleepy: out of memory\n");
		exit(1);
	}
	return p;
}

void sleepy_table_init(struct sleepy_table *table, size_t slot_size)
{
	memset(table, 0, sizeof(*table));
	table->slot_size = slot_size;
}

void sleepy_table_free(struct sleepy_table *table)
{
	free(table->slots);
	free(table->keys);
	memset(table, 0, sizeof(*table));
}

void *sleepy_table_slot(struct sleepy_table *table, size_t index)
{
	if (!table->keys[index])
		return NULL;
	return (char *)table->slots + index * table->slot_size;
}

static uint64_t mix(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key;
}

/* Index of the slot for @key: the matching one or the first empty one. */
static size_t table_find(const struct sleepy_table *table, uint64_t key,
			 int (*match)(const void *slot, const void *arg),
			 const void *arg)
{
	size_t mask = table->capacity - 1, i;

	for (i = mix(key) & mask;; i = (i + 1) & mask) {
		void *slot = (char *)table->slots + i * table->slot_size;

		if (!table->keys[i] ||
		    (table->keys[i] == key + 1 && (!match || match(slot, arg))))
			return i;
	}
}

static void table_grow(struct sleepy_table *table)
{
	struct sleepy_table old = *table;
	size_t i, j;

	table->capacity = old.capacity ? old.capacity * 2 : SLEEPY_TABLE_MIN;
	table->slots = xcalloc(table->capacity, table->slot_size);
	table->keys = xcalloc(table->capacity, sizeof(uint64_t));
	for (i = 0; i < old.capacity; i++) {
		if (!old.keys[i])
			continue;
		/* Keys may repeat (hash collisions): take the first empty. */
		for (j = mix(old.keys[i] - 1) & (table->capacity - 1);
		     table->keys[j]; j = (j + 1) & (table->capacity - 1))
			;
		table->keys[j] = old.keys[i];
		memcpy((char *)table->slots + j * table->slot_size,
		       (char *)old.slots + i * old.slot_size, old.slot_size);
	}
	free(old.slots);
	free(old.keys);
}

void *sleepy_table_get(struct sleepy_table *table, uint64_t key,
		       int (*match)(const void *slot, const void *arg),
		       const void *arg)
{
	size_t i;

	if ((table->used + 1) * 4 > table->capacity * 3)
		table_grow(table);
	i = table_find(table, key, match, arg);
	if (!table->keys[i]) {
		table->keys[i] = key + 1;
		table->used++;
	}
	return (char *)table->slots + i * table->slot_size;
}

void sleepy_profile_init(struct sleepy_profile *profile)
{
	memset(profile, 0, sizeof(*profile));
	sleepy_table_init(&profile->apps, sizeof(struct sleepy_app));
	sleepy_table_init(&profile->ips, sizeof(struct sleepy_ip_count));
}

void sleepy_profile_free(struct sleepy_profile *profile)
{
	sleepy_table_free(&profile->apps);
	sleepy_table_free(&profile->ips);
}

struct sleepy_app *sleepy_profile_app(struct sleepy_profile *profile,
				      uint32_t appid)
{
	struct sleepy_app *app = sleepy_table_get(&profile->apps, appid,
						  NULL, NULL);

	if (!app->label[0]) {
		app->appid = appid;
		snprintf(app->label, sizeof(app->label), "%s",
			 appid == SLEEPY_APPID_UNKNOWN ? "[unknown]" :
			 "[unannounced]");
	}
	return app;
}

static int ip_match(const void *slot, const void *arg)
{
	const struct sleepy_ip_count *a = slot, *b = arg;

	return a->appid == b->appid && a->ip == b->ip &&
	       a->in_kernel == b->in_kernel;
}

static void add_sample(struct sleepy_profile *profile,
		       const struct sleepy_sample *sample)
{
	struct sleepy_ip_count key = {
		.appid = sample->appid,
		.in_kernel = !!(sample->flags & SLEEPY_SAMPLE_IN_KERNEL),
	};
	struct sleepy_ip_count *count;

	/* A kernel-mode sample is charged to the kernel IP when known. */
	key.ip = key.in_kernel && sample->kernel_ip ? sample->kernel_ip :
						      sample->user_ip;
	if (!profile->samples || sample->time_ns < profile->first_ns)
		profile->first_ns = sample->time_ns;
	if (sample->time_ns > profile->last_ns)
		profile->last_ns = sample->time_ns;
	profile->samples++;
	profile->kernel_samples += key.in_kernel;
	sleepy_profile_app(profile, sample->appid)->samples++;

	count = sleepy_table_get(&profile->ips,
				 key.ip * 31 + key.appid * 2 + key.in_kernel,
				 ip_match, &key);
	if (!count->samples)
		*count = key;
	count->samples++;
}

static void add_app_start(struct sleepy_profile *profile,
			  const struct sleepy_app_start *start)
{
	struct sleepy_app *app = sleepy_profile_app(profile, start->appid);
	size_t i;

	memcpy(app->name, start->name, SLEEPY_APP_NAME_LEN);
	app->name[SLEEPY_APP_NAME_LEN] = '\0';
	/* Keep separators and control bytes out of reports. */
	for (i = 0; app->name[i]; i++)
		if (app->name[i] < ' ' || app->name[i] == ';' ||
		    app->name[i] == ',' || app->name[i] == '"' ||
		    app->name[i] == '\\' || app->name[i] == 0x7f)
			app->name[i] = '_';
	app->parent_appid = start->parent_appid;
	app->pid = start->pid;
	app->instance = start->instance;
	app->start_ns = start->time_ns;
	snprintf(app->label, sizeof(app->label), "%s#%u", app->name,
		 app->instance);
}

void sleepy_profile_add(struct sleepy_profile *profile,
			const struct sleepy_record_header *record)
{
	const struct sleepy_cpu_stats *stats;
	const struct sleepy_end *end;

	switch (record->type) {
	case SLEEPY_REC_SAMPLE:
		add_sample(profile, (const void *)record);
		break;
	case SLEEPY_REC_APP_START:
		add_app_start(profile, (const void *)record);
		break;
	case SLEEPY_REC_APP_EXIT:
		sleepy_profile_app(profile,
				   ((const struct sleepy_app_exit *)record)->appid)
			->exit_ns = ((const struct sleepy_app_exit *)record)->time_ns;
		break;
	case SLEEPY_REC_LOST:
		profile->lost_in_stream +=
			((const struct sleepy_lost *)record)->count;
		break;
	case SLEEPY_REC_CPU_STATS:
		stats = (const void *)record;
		profile->stats_cpus++;
		profile->totals.samples += stats->samples;
		profile->totals.dropped += stats->dropped;
		profile->totals.idle += stats->idle;
		profile->totals.unknown += stats->unknown;
		break;
	case SLEEPY_REC_END:
		end = (const void *)record;
		profile->end_ns = end->time_ns;
		profile->table_overflows = end->table_overflows;
		break;
	default:
		break;	/* newer record types: skipped by size */
	}
}

int sleepy_profile_read(struct sleepy_profile *profile,
			struct sleepy_recording *rec)
{
	const struct sleepy_record_header *record;

	while ((record = sleepy_recording_next(rec)))
		sleepy_profile_add(profile, record);
	return rec->error[0] ? -1 : 0;
}

static int cmp_apps(const void *a, const void *b)
{
	const struct sleepy_app *x = *(const void **)a, *y = *(const void **)b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->appid < y->appid ? -1 : x->appid > y->appid;
}

static int cmp_ips(const void *a, const void *b)
{
	const struct sleepy_ip_count *x = *(const void **)a;
	const struct sleepy_ip_count *y = *(const void **)b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->appid != y->appid)
		return x->appid < y->appid ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static void **sorted(struct sleepy_table *table, size_t *count,
		     int (*cmp)(const void *, const void *))
{
	void **out = xcalloc(table->used + 1, sizeof(void *));
	size_t i, n = 0;

	for (i = 0; i < table->capacity; i++) {
		void *slot = sleepy_table_slot(table, i);

		if (slot)
			out[n++] = slot;
	}
	qsort(out, n, sizeof(void *), cmp);
	*count = n;
	return out;
}

struct sleepy_app **sleepy_profile_apps(struct sleepy_profile *profile,
					size_t *count)
{
	return (struct sleepy_app **)sorted(&profile->apps, count, cmp_apps);
}

struct sleepy_ip_count **sleepy_profile_ips(struct sleepy_profile *profile,
					    size_t *count)
{
	return (struct sleepy_ip_count **)sorted(&profile->ips, count,
						  cmp_ips);
}
