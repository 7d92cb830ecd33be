// SPDX-License-Identifier: GPL-2.0
/* Aggregating a recording into per-application and per-IP counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
#include "model/irq.h"
#include "model/sched.h"

#define INSERTION_SORT_MAX 16

/* For a table of applications made anew, or one that moved them. */
static void forget_recent_apps(struct sleepy_profile *profile)
{
	memset(profile->recent_apps, 0, sizeof(profile->recent_apps));
	profile->recent_capacity = profile->apps.capacity;
}

void sleepy_profile_init(struct sleepy_profile *profile)
{
	memset(profile, 0, sizeof(*profile));
	sleepy_table_init(&profile->apps, sizeof(struct sleepy_app));
	sleepy_table_init(&profile->exited, sizeof(struct sleepy_exited));
	sleepy_table_init(&profile->ips_by_name, sizeof(uint64_t));
	sleepy_table_init(&profile->paths, sizeof(char *));
	sleepy_table_init(&profile->stacks, sizeof(struct sleepy_stack));
}

void sleepy_profile_free(struct sleepy_profile *profile)
{
	size_t i;

	for (i = 0; i < profile->apps.capacity; i++) {
		struct sleepy_app *app = sleepy_table_slot(&profile->apps, i);

		if (app)
			sleepy_table_free(&app->ips);
	}
	sleepy_table_free(&profile->apps);
	sleepy_table_free(&profile->exited);
	sleepy_table_free(&profile->ips_by_name);
	forget_recent_apps(profile);
	free(profile->to_pack);
	profile->to_pack = NULL;
	profile->to_pack_first = profile->to_pack_end = profile->to_pack_size = 0;
	sleepy_intern_free(&profile->paths);
	for (i = 0; i < profile->stacks.capacity; i++) {
		struct sleepy_stack *stack = sleepy_table_slot(&profile->stacks, i);

		if (stack)
			free(stack->ips);
	}
	sleepy_table_free(&profile->stacks);
	free(profile->cpus);
	profile->cpus = NULL;
	profile->ncpus = 0;
	free(profile->mappings);
	profile->mappings = NULL;
	profile->nmappings = profile->mappings_size = 0;
	sleepy_ksyms_free(&profile->ksyms);
	free(profile->vdso);
	profile->vdso = NULL;
	if (profile->sched) {
		sleepy_sched_free(profile->sched);
		free(profile->sched);
		profile->sched = NULL;
	}
	if (profile->irqs) {
		sleepy_irqs_free(profile->irqs);
		free(profile->irqs);
		profile->irqs = NULL;
	}
}

/* Where @appid's application is remembered, if it was looked up last. */
static struct sleepy_app **recent_app(struct sleepy_profile *profile,
				      uint32_t appid)
{
	if (profile->recent_capacity != profile->apps.capacity)
		forget_recent_apps(profile);
	return &profile->recent_apps[appid & (SLEEPY_RECENT_APPS - 1)];
}

/*
 * An IP count as its application's table keeps it.  The key is the IP and
 * the slot @word alone, its samples and how the IP was hit: 16 bytes an
 * entry, half of what a whole struct sleepy_ip_count took.  A recording of
 * many processes has hundreds of thousands of counts, and faulting their
 * memory in was a large part of its report's time.  Counted by thread,
 * threads at one IP would share a key: the key mixes the thread in, and
 * the slot holds the IP and the thread as well (@word first: the slot of
 * a table not by thread has it alone).
 */
struct ip_slot {
	uint64_t word;		/* samples << IP_KIND_BITS | IP_* */
	uint64_t ip;		/* by thread only, as is @tid */
	uint32_t tid;
};

#define IP_IN_KERNEL	1	/* struct sleepy_ip_count.in_kernel */
#define IP_ENTRY	2	/* struct sleepy_ip_count.entry_ip */
#define IP_ALL_ONES	4	/* the IP is UINT64_MAX, whose key reads as 0 */
#define IP_KIND_BITS	3
#define IP_KIND		((1 << IP_KIND_BITS) - 1)

/* A table of IP counts for @by_tid. */
static void ip_table_init(struct sleepy_table *ips, bool by_tid)
{
	sleepy_table_init(ips, by_tid ? sizeof(struct ip_slot) :
					sizeof(uint64_t));
}

static bool ip_table_by_tid(const struct sleepy_table *ips)
{
	return ips->slot_size > sizeof(uint64_t);
}

struct sleepy_app *sleepy_profile_app(struct sleepy_profile *profile,
				      uint32_t appid)
{
	struct sleepy_app *app = *recent_app(profile, appid);

	if (app && app->appid == appid)
		return app;
	app = sleepy_table_get(&profile->apps, appid, NULL, NULL);
	/* After the get, which may have grown the table. */
	*recent_app(profile, appid) = app;
	if (!app->label[0]) {
		app->appid = appid;
		snprintf(app->label, sizeof(app->label), "%s",
			 appid == SLEEPY_APPID_UNKNOWN ? "[unknown]" :
			 "[unannounced]");
		ip_table_init(&app->ips, profile->by_tid);
	}
	return app;
}

/* What tells an IP count from the others of its key. */
struct ip_key {
	uint64_t ip;
	uint64_t kind;		/* IP_* */
	uint32_t tid;
	bool by_tid;
};

static int ip_match(const void *slot, const void *arg)
{
	const struct ip_slot *a = slot;
	const struct ip_key *b = arg;

	return (a->word & IP_KIND) == b->kind &&
	       (!b->by_tid || (a->ip == b->ip && a->tid == b->tid));
}

/* What a kernel-mode sample is charged to: the kernel IP when known. */
static bool charged_to_kernel_ip(const struct sleepy_sample *sample)
{
	return (sample->flags & SLEEPY_SAMPLE_IN_KERNEL) && sample->kernel_ip;
}

/* The IP count @sample adds to. */
static struct ip_key ip_key_of(const struct sleepy_sample *sample,
			       bool by_tid)
{
	bool in_kernel = sample->flags & SLEEPY_SAMPLE_IN_KERNEL;
	uint64_t ip = charged_to_kernel_ip(sample) ? sample->kernel_ip :
						     sample->user_ip;

	return (struct ip_key) {
		.ip = ip,
		.kind = (in_kernel ? IP_IN_KERNEL : 0) |
			(in_kernel && !sample->kernel_ip ? IP_ENTRY : 0) |
			(ip == UINT64_MAX ? IP_ALL_ONES : 0),
		.tid = by_tid ? sample->tid & 0x3fffffff : 0,
		.by_tid = by_tid,
	};
}

/* The key of @key's count in its application's table. */
static uint64_t ip_table_key(const struct ip_key *key)
{
	if (!key->by_tid)
		return key->ip;
	return (key->ip * 2 + (key->kind & IP_IN_KERNEL)) ^
	       key->tid * 0x9e3779b97f4a7c15ULL;
}

bool sleepy_app_ip_count(const struct sleepy_app *app, size_t index,
			 struct sleepy_ip_count *count)
{
	const struct ip_slot *slot = sleepy_table_slot(&app->ips, index);
	bool by_tid = ip_table_by_tid(&app->ips);
	uint64_t ip;

	if (!slot)
		return false;
	if (by_tid)
		ip = slot->ip;
	else
		ip = slot->word & IP_ALL_ONES ? UINT64_MAX :
						sleepy_table_key(slot);
	*count = (struct sleepy_ip_count) {
		.appid = app->appid,
		.in_kernel = !!(slot->word & IP_IN_KERNEL),
		.entry_ip = !!(slot->word & IP_ENTRY),
		.tid = by_tid ? slot->tid : 0,
		.ip = ip,
		.samples = slot->word >> IP_KIND_BITS,
	};
	return true;
}

static int stack_match(const void *slot, const void *arg)
{
	const struct sleepy_stack *a = slot, *b = arg;

	return a->appid == b->appid && a->tid == b->tid &&
	       a->in_kernel == b->in_kernel &&
	       a->flags == b->flags && a->nr_kernel == b->nr_kernel &&
	       a->nr_user == b->nr_user &&
	       !memcmp(a->ips, b->ips, (a->nr_kernel + a->nr_user) * sizeof(*a->ips));
}

static void add_stack(struct sleepy_profile *profile,
		      const struct sleepy_sample *sample, uint32_t appid,
		      const struct sleepy_callchain *chain)
{
	unsigned int frames = chain->nr_kernel + chain->nr_user;
	struct sleepy_stack key = {
		.appid = appid,
		.tid = profile->by_tid ? sample->tid : 0,
		.nr_kernel = chain->nr_kernel,
		.nr_user = chain->nr_user,
		.flags = chain->flags & (SLEEPY_CALLCHAIN_KERNEL_CUT |
					 SLEEPY_CALLCHAIN_USER_CUT |
					 SLEEPY_CALLCHAIN_USER_FAULT),
		.in_kernel = !!(sample->flags & SLEEPY_SAMPLE_IN_KERNEL),
		.ips = (uint64_t *)chain->ips,
	};
	const uint64_t fields[] = {
		(uint64_t)key.tid << 32 | key.appid,
		(uint64_t)key.nr_kernel << 16 | key.nr_user,
		(uint64_t)key.flags << 1 | key.in_kernel,
	};
	uint64_t hash = sleepy_hash_words(SLEEPY_FNV_BASIS, fields, 3);
	struct sleepy_stack *stack;

	hash = sleepy_hash_words(hash, chain->ips, frames);
	stack = sleepy_table_get(&profile->stacks, hash, stack_match, &key);
	if (!stack->ips) {
		*stack = key;
		stack->ips = sleepy_xrealloc(NULL, frames * sizeof(*stack->ips) ?: 1);
		memcpy(stack->ips, chain->ips, frames * sizeof(*stack->ips));
	}
	stack->samples++;
	profile->stack_samples++;
	if (key.flags & (SLEEPY_CALLCHAIN_KERNEL_CUT | SLEEPY_CALLCHAIN_USER_CUT))
		profile->stacks_cut++;
	if (key.flags & SLEEPY_CALLCHAIN_USER_FAULT)
		profile->stacks_unwalkable++;
	if (frames > profile->max_frames)
		profile->max_frames = frames;
}

/* Records of a CPU number past this are counted as none's. */
#define SLEEPY_MAX_CPUS		65536

/* @cpu's counts, NULL for a CPU number beyond any machine's. */
static struct sleepy_cpu_count *cpu_count(struct sleepy_profile *profile,
					  uint32_t cpu)
{
	if (cpu >= SLEEPY_MAX_CPUS)
		return NULL;
	if (cpu >= profile->ncpus) {
		uint32_t n = cpu + 1;

		profile->cpus = sleepy_xrealloc(profile->cpus,
						n * sizeof(*profile->cpus));
		memset(profile->cpus + profile->ncpus, 0,
		       (n - profile->ncpus) * sizeof(*profile->cpus));
		profile->ncpus = n;
	}
	return &profile->cpus[cpu];
}

/*
 * @sample's appid; for one taken after its process's exit hook, that of
 * the instance that exited.
 */
static uint32_t appid_of(const struct sleepy_profile *profile,
			 const struct sleepy_sample *sample)
{
	const struct sleepy_exited *exited;

	if (sample->appid != SLEEPY_APPID_UNKNOWN)
		return sample->appid;
	exited = sleepy_table_find(&profile->exited, sample->tid, NULL, NULL);
	return exited ? exited->appid : SLEEPY_APPID_UNKNOWN;
}

static void add_sample(struct sleepy_profile *profile,
		       const struct sleepy_sample *sample)
{
	struct sleepy_cpu_count *cpu = cpu_count(profile, sample->header.cpu);
	const struct sleepy_callchain *chain = sleepy_sample_callchain(sample);
	uint32_t appid = appid_of(profile, sample);
	struct ip_key key = ip_key_of(sample, profile->by_tid);
	struct ip_slot *count;
	struct sleepy_app *app;

	if (!profile->samples || sample->time_ns < profile->first_ns)
		profile->first_ns = sample->time_ns;
	if (sample->time_ns > profile->last_ns)
		profile->last_ns = sample->time_ns;
	profile->samples++;
	if (cpu)
		cpu->samples++;
	profile->kernel_samples += key.kind & IP_IN_KERNEL;
	app = sleepy_profile_app(profile, appid);
	app->samples++;

	count = sleepy_table_get(&app->ips, ip_table_key(&key), ip_match, &key);
	if (!count->word) {
		count->word = key.kind;
		if (key.by_tid) {
			count->ip = key.ip;
			count->tid = key.tid;
		}
	}
	count->word += 1 << IP_KIND_BITS;
	if (chain)
		add_stack(profile, sample, appid, chain);
}

/*
 * Keeps the folded stacks' separator, control bytes and bytes past ASCII
 * out of reports.  A table, not four comparisons a byte: every name of
 * every symbol file read goes through.
 */
void sleepy_sanitise_name(char *name)
{
	static const bool replaced[256] = {
		[0x01 ... 0x1f] = true, [';'] = true, [0x7f ... 0xff] = true,
	};

	for (; *name; name++)
		if (replaced[(unsigned char)*name])
			*name = '_';
}

static void add_app_start(struct sleepy_profile *profile,
			  const struct sleepy_app_start *start)
{
	struct sleepy_app *app = sleepy_profile_app(profile, start->appid);
	const uint64_t *guessed;

	memcpy(app->name, start->name, SLEEPY_APP_NAME_LEN);
	app->name[SLEEPY_APP_NAME_LEN] = '\0';
	sleepy_sanitise_name(app->name);
	/* It may be the one an exec's mappings belong to. */
	profile->mappings_indexed = false;
	app->parent_appid = start->parent_appid;
	app->pid = start->pid;
	app->instance = start->instance;
	app->start_ns = start->time_ns;
	snprintf(app->label, sizeof(app->label), "%s#%u", app->name,
		 app->instance);
	guessed = sleepy_table_find(&profile->ips_by_name,
				    sleepy_hash_string(app->name), NULL, NULL);
	if (guessed)
		sleepy_table_reserve(&app->ips, *guessed);
}

static void pack_later(struct sleepy_profile *profile, uint32_t appid)
{
	size_t waiting = profile->to_pack_end - profile->to_pack_first;

	/* Full: into the room of those packed already, or into more. */
	if (profile->to_pack_end == profile->to_pack_size &&
	    profile->to_pack_first && waiting * 2 <= profile->to_pack_size) {
		memmove(profile->to_pack, profile->to_pack + profile->to_pack_first,
			waiting * sizeof(*profile->to_pack));
		profile->to_pack_first = 0;
		profile->to_pack_end = waiting;
	} else if (profile->to_pack_end == profile->to_pack_size) {
		profile->to_pack_size = 2 * profile->to_pack_size ?: 256;
		profile->to_pack = sleepy_xrealloc(profile->to_pack,
						   profile->to_pack_size *
						   sizeof(*profile->to_pack));
	}
	profile->to_pack[profile->to_pack_end++] = (struct sleepy_exited_app) {
		.appid = appid,
		.records = profile->records,
	};
}

/* The IP counts of those that exited SLEEPY_PACK_AFTER records ago. */
static void pack_exited(struct sleepy_profile *profile)
{
	while (profile->to_pack_first < profile->to_pack_end) {
		const struct sleepy_exited_app *exited =
			&profile->to_pack[profile->to_pack_first];
		struct sleepy_app *app;

		if (profile->records - exited->records < SLEEPY_PACK_AFTER)
			return;
		app = sleepy_table_find(&profile->apps, exited->appid, NULL, NULL);
		if (app)
			sleepy_table_pack(&app->ips);
		profile->to_pack_first++;
	}
}

static void add_app_exit(struct sleepy_profile *profile,
			 const struct sleepy_app_exit *exit)
{
	struct sleepy_app *app = sleepy_profile_app(profile, exit->appid);
	struct sleepy_exited *exited;

	app->exit_ns = exit->time_ns;
	/* Names may collide in the hash: a wrong guess costs room, no more. */
	*(uint64_t *)sleepy_table_get(&profile->ips_by_name,
				      sleepy_hash_string(app->name), NULL, NULL) =
		app->ips.used < SLEEPY_IPS_GUESS_MAX ? app->ips.used :
						       SLEEPY_IPS_GUESS_MAX;
	exited = sleepy_table_get(&profile->exited, exit->pid, NULL, NULL);
	*exited = (struct sleepy_exited) {
		.pid = exit->pid,
		.appid = exit->appid,
	};
	pack_later(profile, exit->appid);
}

/* One copy of each path: every process maps the same few libraries. */
static const char *intern_path(struct sleepy_profile *profile,
			       const char *path)
{
	return sleepy_intern(&profile->paths, path);
}

static void add_mmap(struct sleepy_profile *profile,
		     const struct sleepy_mmap *rec)
{
	struct sleepy_mapping *map;

	if (profile->nmappings == profile->mappings_size) {
		profile->mappings_size = profile->mappings_size * 2 ?: 64;
		profile->mappings = realloc(profile->mappings,
					    profile->mappings_size * sizeof(*map));
		if (!profile->mappings) {
			fprintf(stderr, "sleepy: out of memory\n");
			exit(1);
		}
	}
	map = &profile->mappings[profile->nmappings++];
	*map = (struct sleepy_mapping) {
		.start = rec->start,
		.len = rec->len,
		.pgoff = rec->pgoff,
		.time_ns = rec->time_ns,
		.path = intern_path(profile, rec->path),
		.pid = rec->pid,
		.appid = rec->appid,
		.flags = rec->flags,
		.build_id_size = rec->build_id_size,
		.dev_major = rec->dev_major,
		.dev_minor = rec->dev_minor,
		.ino = rec->ino,
	};
	memcpy(map->build_id, rec->build_id, sizeof(map->build_id));
	profile->mappings_indexed = false;
}

void sleepy_profile_add(struct sleepy_profile *profile,
			const struct sleepy_record_header *record)
{
	struct sleepy_cpu_count *cpu;
	struct sleepy_cpu_stats stats;
	struct sleepy_end end;

	profile->records++;
	pack_exited(profile);
	switch (record->type) {
	case SLEEPY_REC_SAMPLE:
		add_sample(profile, (const void *)record);
		break;
	case SLEEPY_REC_APP_START:
		add_app_start(profile, (const void *)record);
		break;
	case SLEEPY_REC_APP_EXIT:
		add_app_exit(profile, (const void *)record);
		break;
	case SLEEPY_REC_LOST:
		profile->lost_in_stream +=
			((const struct sleepy_lost *)record)->count;
		break;
	case SLEEPY_REC_SWITCH:
	case SLEEPY_REC_WAKEUP:
		if (!profile->sched) {
			profile->sched = sleepy_xcalloc(1, sizeof(*profile->sched));
			sleepy_sched_init(profile->sched);
		}
		sleepy_sched_add(profile->sched, record);
		break;
	case SLEEPY_REC_IRQ_HIST:
	case SLEEPY_REC_IRQ_APP:
	case SLEEPY_REC_IRQ_ACTION:
	case SLEEPY_REC_INTERRUPTS:
		if (!profile->irqs) {
			profile->irqs = sleepy_xcalloc(1, sizeof(*profile->irqs));
			sleepy_irqs_init(profile->irqs);
			profile->irqs->by_cpu = profile->irq_by_cpu;
			profile->irqs->by_interval = profile->irq_by_interval;
		}
		sleepy_irqs_add(profile->irqs, record);
		break;
	case SLEEPY_REC_MMAP:
		add_mmap(profile, (const void *)record);
		break;
	case SLEEPY_REC_VDSO:
		free(profile->vdso);
		profile->vdso_size = record->size - sizeof(*record);
		profile->vdso = sleepy_xrealloc(NULL, profile->vdso_size);
		memcpy(profile->vdso, record + 1, profile->vdso_size);
		break;
	case SLEEPY_REC_KERNEL_SYMBOLS:
		sleepy_ksyms_add_text(&profile->ksyms,
				      ((const struct sleepy_text *)record)->text,
				      record->size - sizeof(*record));
		break;
	case SLEEPY_REC_CPU_STATS:
		sleepy_cpu_stats_read(record, &stats);
		profile->stats_cpus++;
		profile->totals.samples += stats.samples;
		profile->totals.dropped += stats.dropped;
		profile->totals.idle += stats.idle;
		profile->totals.unknown += stats.unknown;
		profile->totals.missed += stats.missed;
		cpu = cpu_count(profile, record->cpu);
		if (cpu) {
			cpu->counted += stats.samples;
			cpu->dropped += stats.dropped;
			cpu->idle += stats.idle;
			cpu->missed += stats.missed;
		}
		break;
	case SLEEPY_REC_END:
		sleepy_end_read(record, &end);
		profile->end_ns = end.time_ns;
		profile->table_overflows = end.table_overflows;
		break;
	default:
		break;	/* newer record types: skipped by size */
	}
}

/*
 * Records one after the other: each application's IP counts are a table
 * of their own, sized from its program's last instance, small enough to
 * stay in the caches while the application runs.  Fetching the entries
 * of a batch of samples ahead, which paid when one table held every IP
 * count, now costs more than it saves.
 */
int sleepy_profile_read(struct sleepy_profile *profile,
			struct sleepy_recording *rec)
{
	const struct sleepy_record_header *record;

	while ((record = sleepy_recording_next(rec)))
		sleepy_profile_add(profile, record);
	return rec->error[0] ? -1 : 0;
}

/* An announced instance, to find the one an exec's mappings belong to. */
struct pid_start {
	uint32_t pid;
	uint32_t appid;
	uint64_t start_ns;
};

static int cmp_pid_starts(const void *a, const void *b)
{
	const struct pid_start *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->appid < y->appid ? -1 : x->appid > y->appid;
}

/*
 * An exec maps its image before it announces the new instance, and the
 * records of different CPUs are not in time order in the file: the
 * mappings go to the first instance of their pid announced at or after
 * them.
 */
static void attach_exec_mappings(struct sleepy_profile *profile)
{
	struct pid_start *starts = sleepy_xcalloc(profile->apps.used + 1,
					   sizeof(*starts));
	size_t n = 0, i;

	for (i = 0; i < profile->apps.capacity; i++) {
		const struct sleepy_app *app = sleepy_table_slot(&profile->apps, i);

		if (app && app->pid)
			starts[n++] = (struct pid_start) {
				app->pid, app->appid, app->start_ns,
			};
	}
	qsort(starts, n, sizeof(*starts), cmp_pid_starts);
	for (i = 0; i < profile->nmappings; i++) {
		struct sleepy_mapping *map = &profile->mappings[i];
		struct pid_start key = { map->pid, 0, map->time_ns };
		size_t lo = 0, hi = n;

		if (!(map->flags & SLEEPY_MMAP_EXEC))
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_pid_starts(&starts[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		map->appid = lo < n && starts[lo].pid == map->pid ?
			     starts[lo].appid : SLEEPY_APPID_UNKNOWN;
	}
	free(starts);
}

static int cmp_mappings(const void *a, const void *b)
{
	const struct sleepy_mapping *x = a, *y = b;

	if (x->appid != y->appid)
		return x->appid < y->appid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

static void index_mappings(struct sleepy_profile *profile)
{
	struct sleepy_mapping *maps = profile->mappings;
	size_t i;

	attach_exec_mappings(profile);
	qsort(maps, profile->nmappings, sizeof(*maps), cmp_mappings);
	for (i = 0; i < profile->nmappings; i++) {
		maps[i].max_end = maps[i].len > UINT64_MAX - maps[i].start ?
				  UINT64_MAX : maps[i].start + maps[i].len;
		if (i && maps[i - 1].appid == maps[i].appid &&
		    maps[i - 1].max_end > maps[i].max_end)
			maps[i].max_end = maps[i - 1].max_end;
	}
	memset(profile->mapping_ranges, 0, sizeof(profile->mapping_ranges));
	profile->mappings_indexed = true;
}

/* The first of the indexed mappings whose appid is @appid or above. */
static size_t first_of_appid(const struct sleepy_profile *profile,
			     uint64_t appid)
{
	size_t lo = 0, hi = profile->nmappings;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (profile->mappings[mid].appid < appid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Where the mappings of @appid are in the indexed mappings. */
static const struct sleepy_mapping_range *
mapping_range(struct sleepy_profile *profile, uint32_t appid)
{
	struct sleepy_mapping_range *range =
		&profile->mapping_ranges[appid & (SLEEPY_RECENT_APPS - 1)];

	if (!range->known || range->appid != appid)
		*range = (struct sleepy_mapping_range) {
			.appid = appid,
			.known = true,
			.first = first_of_appid(profile, appid),
			.end = first_of_appid(profile, (uint64_t)appid + 1),
		};
	return range;
}

/* The latest mapping of @appid containing @ip made at or before @until. */
static const struct sleepy_mapping *
find_mapping(struct sleepy_profile *profile, uint32_t appid, uint64_t ip,
	     uint64_t until)
{
	const struct sleepy_mapping_range *range = mapping_range(profile, appid);
	const struct sleepy_mapping *maps = profile->mappings, *best = NULL;
	size_t lo = range->first, hi = range->end, i;

	/* Past the last mapping of @appid that starts at or below @ip... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ...and back while an earlier one may still reach it. */
	for (i = lo; i-- > range->first && maps[i].max_end > ip;)
		if (ip - maps[i].start < maps[i].len && maps[i].time_ns <= until &&
		    (!best || maps[i].time_ns > best->time_ns))
			best = &maps[i];
	return best;
}

const struct sleepy_mapping *sleepy_profile_mapping(struct sleepy_profile *profile,
						    const struct sleepy_app *app,
						    uint64_t ip)
{
	uint64_t until = UINT64_MAX;
	size_t steps;

	if (!profile->nmappings)
		return NULL;
	if (!profile->mappings_indexed)
		index_mappings(profile);
	/* Bounded: a corrupt recording's parents may form a cycle. */
	for (steps = 0; app->appid != SLEEPY_APPID_UNKNOWN &&
			steps <= profile->apps.used; steps++) {
		const struct sleepy_mapping *map;
		const struct sleepy_app *parent;

		map = find_mapping(profile, app->appid, ip, until);
		if (map)
			return map;
		/* Not sleepy_profile_app(): the caller's pointers stay valid. */
		parent = sleepy_table_find(&profile->apps, app->parent_appid,
					   NULL, NULL);
		if (!parent)
			return NULL;
		/* An exec's image is new; a forked child has its parent's. */
		if (parent->pid == app->pid)
			return NULL;
		until = app->start_ns;
		app = parent;
	}
	return NULL;
}

/*
 * Marks in @needed (appid -> bool) the applications that must outlive the
 * interval: those running or that ended at or after @since_ns (a sample
 * from another CPU may follow its exit across the cut), and those one of
 * them descends from without an exec in between (it looks its mappings
 * up in theirs).  Placeholders of unannounced appids are not kept: an
 * announcement recreates them.
 */
static void mark_needed(struct sleepy_profile *profile,
			struct sleepy_table *needed, uint64_t since_ns)
{
	size_t i, steps;

	for (i = 0; i < profile->apps.capacity; i++) {
		const struct sleepy_app *app = sleepy_table_slot(&profile->apps, i);

		if (!app || !app->pid || (app->exit_ns && app->exit_ns < since_ns))
			continue;
		*(bool *)sleepy_table_get(needed, app->appid, NULL, NULL) = true;
		/* Bounded: a corrupt stream's parents may form a cycle. */
		for (steps = 0; steps <= profile->apps.used; steps++) {
			const struct sleepy_app *parent;
			bool *mark;

			parent = sleepy_table_find(&profile->apps,
						   app->parent_appid, NULL, NULL);
			if (!parent || parent->pid == app->pid)
				break;
			mark = sleepy_table_get(needed, parent->appid, NULL, NULL);
			if (*mark)
				break;
			*mark = true;
			app = parent;
		}
	}
}

/* Interns the mappings' paths anew, freeing those no mapping has. */
static void compact_paths(struct sleepy_profile *profile)
{
	struct sleepy_table old = profile->paths;
	size_t i;

	sleepy_table_init(&profile->paths, sizeof(char *));
	for (i = 0; i < profile->nmappings; i++)
		profile->mappings[i].path = intern_path(profile,
							profile->mappings[i].path);
	sleepy_intern_free(&old);
}

/*
 * A mapping an exec made whose instance is not announced yet (the cut fell
 * between the two) waits for its announcement in the next interval.
 */
/* Keeps the exits of the applications kept. */
static void forget_exits(struct sleepy_profile *profile)
{
	struct sleepy_table kept;
	size_t i;

	sleepy_table_init(&kept, sizeof(struct sleepy_exited));
	for (i = 0; i < profile->exited.capacity; i++) {
		const struct sleepy_exited *exited =
			sleepy_table_slot(&profile->exited, i);

		if (exited && sleepy_table_find(&profile->apps, exited->appid,
						NULL, NULL))
			*(struct sleepy_exited *)sleepy_table_get(&kept,
				exited->pid, NULL, NULL) = *exited;
	}
	sleepy_table_free(&profile->exited);
	profile->exited = kept;
}

static bool exec_pending(const struct sleepy_mapping *map, uint64_t since_ns)
{
	return (map->flags & SLEEPY_MMAP_EXEC) &&
	       map->appid == SLEEPY_APPID_UNKNOWN && map->time_ns >= since_ns;
}

bool sleepy_profile_next_interval(struct sleepy_profile *profile,
				  uint64_t since_ns)
{
	struct sleepy_table kept, needed;
	bool compact;
	size_t i, n;

	if (profile->nmappings && !profile->mappings_indexed)
		index_mappings(profile);
	sleepy_table_init(&needed, sizeof(bool));
	mark_needed(profile, &needed, since_ns);
	sleepy_table_init(&kept, sizeof(struct sleepy_app));
	for (i = 0; i < profile->apps.capacity; i++) {
		struct sleepy_app *app = sleepy_table_slot(&profile->apps, i);

		if (!app)
			continue;
		sleepy_table_free(&app->ips);
		if (sleepy_table_find(&needed, app->appid, NULL, NULL)) {
			struct sleepy_app *copy = sleepy_table_get(&kept, app->appid,
								   NULL, NULL);

			*copy = *app;
			copy->samples = 0;
			ip_table_init(&copy->ips, profile->by_tid);
		}
	}
	sleepy_table_free(&needed);
	sleepy_table_free(&profile->apps);
	profile->apps = kept;
	forget_recent_apps(profile);
	forget_exits(profile);
	/* Learnt again each interval: a long run meets ever more names. */
	sleepy_table_free(&profile->ips_by_name);

	for (i = n = 0; i < profile->nmappings; i++)
		if (sleepy_table_find(&profile->apps, profile->mappings[i].appid,
				      NULL, NULL) ||
		    exec_pending(&profile->mappings[i], since_ns))
			profile->mappings[n++] = profile->mappings[i];
	profile->nmappings = n;
	profile->mappings_indexed = false;
	compact = profile->paths.used > 2 * n + 1024;
	if (compact)
		compact_paths(profile);

	for (i = 0; i < profile->stacks.capacity; i++) {
		struct sleepy_stack *stack = sleepy_table_slot(&profile->stacks, i);

		if (stack)
			free(stack->ips);
	}
	sleepy_table_free(&profile->stacks);
	sleepy_table_init(&profile->stacks, sizeof(struct sleepy_stack));
	profile->max_frames = 0;
	profile->stack_samples = profile->stacks_cut = 0;
	profile->stacks_unwalkable = 0;
	profile->samples = profile->kernel_samples = 0;
	profile->lost_in_stream = 0;
	profile->first_ns = profile->last_ns = profile->end_ns = 0;
	profile->stats_cpus = 0;
	if (profile->ncpus)
		memset(profile->cpus, 0, profile->ncpus * sizeof(*profile->cpus));
	memset(&profile->totals, 0, sizeof(profile->totals));
	sleepy_ksyms_free(&profile->ksyms);
	return compact;
}

static int cmp_apps(const void *a, const void *b)
{
	const struct sleepy_app *x = *(const void **)a, *y = *(const void **)b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->appid < y->appid ? -1 : x->appid > y->appid;
}

static int cmp_appids(const void *a, const void *b)
{
	const struct sleepy_app *x = *(const void **)a, *y = *(const void **)b;

	return x->appid < y->appid ? -1 : x->appid > y->appid;
}

/*
 * The reports' order: most samples first, then by appid and IP, user
 * mode before kernel mode (an IP entered the kernel from, without
 * SLEEPY_FLAG_KERNEL).
 */
static bool ip_before(const struct sleepy_ip_count *x,
		      const struct sleepy_ip_count *y)
{
	if (x->samples != y->samples)
		return x->samples > y->samples;
	if (x->appid != y->appid)
		return x->appid < y->appid;
	if (x->ip != y->ip)
		return x->ip < y->ip;
	return x->in_kernel < y->in_kernel;
}

/* Merge sort of @n counts, with @tmp for half as many. */
static void sort_ips(struct sleepy_ip_count *a, struct sleepy_ip_count *tmp,
		     size_t n)
{
	size_t half = n / 2, i = 0, j = half, k = 0;

	if (n <= INSERTION_SORT_MAX) {
		for (i = 1; i < n; i++) {
			struct sleepy_ip_count x = a[i];

			for (j = i; j > 0 && ip_before(&x, &a[j - 1]); j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
		return;
	}
	sort_ips(a, tmp, half);
	sort_ips(a + half, tmp, n - half);
	/* The left half moves out of the way; the merge fills in from the left. */
	memcpy(tmp, a, half * sizeof(*a));
	while (i < half && j < n) {
		/* A coin toss on random IPs: taken without a branch. */
		bool right = ip_before(&a[j], &tmp[i]);

		a[k++] = *(right ? &a[j] : &tmp[i]);
		j += right;
		i += !right;
	}
	while (i < half)
		a[k++] = tmp[i++];
}

static void **sorted(struct sleepy_table *table, size_t *count,
		     int (*cmp)(const void *, const void *))
{
	void **out = sleepy_xcalloc(table->used + 1, sizeof(void *));
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

/*
 * End of the counts from @i on that are left to sort among themselves:
 * those of one application with equal samples, or all of
 * SLEEPY_SAMPLES_BUCKETS samples or more, which share a bucket.
 */
static size_t run_end(const struct sleepy_ip_count *c, size_t i, size_t n)
{
	size_t j = i + 1;

	if (c[i].samples >= SLEEPY_SAMPLES_BUCKETS)
		while (j < n && c[j].samples >= SLEEPY_SAMPLES_BUCKETS)
			j++;
	else
		while (j < n && c[j].samples == c[i].samples &&
		       c[j].appid == c[i].appid)
			j++;
	return j;
}

/*
 * The counts are placed by a counting sort on samples, application after
 * application by appid: then only the counts of one application with
 * equal samples need sorting among themselves, by IP (and the few with
 * SLEEPY_SAMPLES_BUCKETS samples or more by everything).  Several times
 * faster than qsort on pointers into the tables once there are millions
 * of IPs.
 */
struct sleepy_ip_count *sleepy_profile_ips(struct sleepy_profile *profile,
					   size_t *count)
{
	struct sleepy_ip_count *copies, *tmp;
	size_t napps, n = 0, longest = 0, i, j, *place;
	struct sleepy_app **apps;

	apps = (struct sleepy_app **)sorted(&profile->apps, &napps, cmp_appids);
	place = sleepy_xcalloc(SLEEPY_SAMPLES_BUCKETS, sizeof(*place));
	for (i = 0; i < napps; i++) {
		for (j = 0; j < apps[i]->ips.capacity; j++) {
			struct sleepy_ip_count count;

			if (sleepy_app_ip_count(apps[i], j, &count))
				place[sleepy_samples_bucket(count.samples)]++;
		}
		n += apps[i]->ips.used;
	}
	for (i = 0, j = 0; i < SLEEPY_SAMPLES_BUCKETS; i++) {
		size_t here = place[i];

		place[i] = j;
		j += here;
	}
	copies = sleepy_xcalloc(n + 1, sizeof(*copies));
	for (i = 0; i < napps; i++) {
		for (j = 0; j < apps[i]->ips.capacity; j++) {
			struct sleepy_ip_count count;

			if (sleepy_app_ip_count(apps[i], j, &count))
				copies[place[sleepy_samples_bucket(count.samples)]++] =
					count;
		}
	}
	free(place);
	free(apps);

	for (i = 0; i < n; i = j) {
		j = run_end(copies, i, n);
		if (j - i > longest)
			longest = j - i;
	}
	tmp = sleepy_xcalloc(longest / 2 + 1, sizeof(*tmp));
	for (i = 0; i < n; i = j) {
		j = run_end(copies, i, n);
		sort_ips(copies + i, tmp, j - i);
	}
	free(tmp);
	*count = n;
	return copies;
}
