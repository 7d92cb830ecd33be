// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-parse --pprof; see pprof.h.  The profile is built in growing
 * arrays of protobuf-c messages, deduplicated through tables keyed by
 * what makes an entry distinct (a string's text; a mapping record; a
 * location's mapping, address and function; a function's name and file),
 * and linked into the message tree only once every array has stopped
 * moving.  protobuf-c packs it; zlib compresses it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "export/pprof.h"
#include "pprof.pb-c.h"
#include "model/symbols.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

#define MAX_VALUES	2	/* samples/count, cpu/nanoseconds */
#define MAX_LABELS	3	/* app, pid and, per thread, tid */

struct sample_entry {
	Sample sample;
	uint64_t location_id;		/* the one location of a sample... */
	uint64_t *location_ids;		/* ...or its stack's, leaf first */
	size_t nlocations;
	int64_t values[MAX_VALUES];
	Label labels[MAX_LABELS];
	Label *label_ptrs[MAX_LABELS];
};

struct location_entry {
	Location location;
	Line line;
	Line *line_ptr;
};

/* A growing array of @size-byte elements. */
struct vec {
	void *data;
	size_t count, capacity, size;
};

struct builder {
	const struct sleepy_report_options *opts;
	struct sleepy_profile *profile;
	struct vec strings;		/* char *, [0] = "" */
	struct vec samples;		/* struct sample_entry */
	struct vec mappings;		/* Mapping */
	struct vec locations;		/* struct location_entry */
	struct vec functions;		/* Function */
	struct sleepy_table string_ids;	/* struct string_slot */
	struct sleepy_table mapping_ids;	/* struct id_slot */
	struct sleepy_table location_ids;	/* struct id_slot */
	struct sleepy_table function_ids;	/* struct id_slot */
	int64_t str_app, str_pid, str_tid;
	uint64_t kernel_mapping;	/* id of [kernel.kallsyms], 0 = none yet */
};

struct string_slot {
	const char *text;
	int64_t index;
};

/* What makes a mapping, location or function distinct, and its id. */
struct id_slot {
	uint64_t a, b, c;
	uint64_t id;
};

static void vec_init(struct vec *v, size_t size)
{
	memset(v, 0, sizeof(*v));
	v->size = size;
}

/* A new zeroed element at the end; valid until the next push. */
static void *vec_push(struct vec *v)
{
	void *elem;

	if (v->count == v->capacity) {
		v->capacity = v->capacity ? v->capacity * 2 : 64;
		v->data = sleepy_xrealloc(v->data, v->capacity * v->size);
	}
	elem = (char *)v->data + v->count++ * v->size;
	memset(elem, 0, v->size);
	return elem;
}

static void *vec_at(const struct vec *v, size_t i)
{
	return (char *)v->data + i * v->size;
}

static int same_string(const void *slot, const void *arg)
{
	return !strcmp(((const struct string_slot *)slot)->text, arg);
}

/* The string table index of @text, added if new. */
static int64_t string_id(struct builder *b, const char *text)
{
	struct string_slot *slot;
	char **entry;

	slot = sleepy_table_get(&b->string_ids, sleepy_hash_string(text),
				same_string, text);
	if (slot->text)
		return slot->index;
	entry = vec_push(&b->strings);
	*entry = strdup(text);
	if (!*entry) {
		fprintf(stderr, "sleepy: out of memory\n");
		exit(1);
	}
	slot->text = *entry;
	slot->index = b->strings.count - 1;
	return slot->index;
}

static int same_ids(const void *slot, const void *arg)
{
	const struct id_slot *x = slot, *y = arg;

	return x->a == y->a && x->b == y->b && x->c == y->c;
}

/*
 * The id slot of key (@a, @b, @c) in @table; its id is 0 if it is new,
 * for the caller to set.
 */
static struct id_slot *id_of(struct sleepy_table *table, uint64_t a,
			     uint64_t b, uint64_t c)
{
	struct id_slot key = { a, b, c, 0 }, *slot;
	uint64_t h = sleepy_fnv(SLEEPY_FNV_BASIS, &key, 3 * sizeof(uint64_t));

	slot = sleepy_table_get(table, h, same_ids, &key);
	if (!slot->id) {
		slot->a = a;
		slot->b = b;
		slot->c = c;
	}
	return slot;
}

/* The mapping of a user IP's file mapping @map. */
static uint64_t user_mapping_id(struct builder *b,
				const struct sleepy_mapping *map, bool has_lines)
{
	struct id_slot *slot = id_of(&b->mapping_ids, (uintptr_t)map, 0, 0);
	char build_id[2 * SLEEPY_BUILD_ID_MAX + 1];
	Mapping *m;
	uint32_t i;

	if (slot->id) {
		m = vec_at(&b->mappings, slot->id - 1);
		m->has_filenames |= has_lines;
		m->has_line_numbers |= has_lines;
		return slot->id;
	}
	m = vec_push(&b->mappings);
	perftools__profiles__mapping__init(m);
	m->id = slot->id = b->mappings.count;
	m->has_filenames = m->has_line_numbers = has_lines;
	m->memory_start = map->start;
	m->memory_limit = map->start + map->len;
	m->file_offset = map->pgoff;
	m->filename = string_id(b, map->path);
	for (i = 0; i < map->build_id_size && i < SLEEPY_BUILD_ID_MAX; i++)
		snprintf(build_id + 2 * i, 3, "%02x", map->build_id[i]);
	if (map->build_id_size)
		m->build_id = string_id(b, build_id);
	m->has_functions = true;
	return m->id;
}

/*
 * The one mapping of kernel addresses, widened to each address that
 * lands in it: the recording keeps symbols, not the kernel's layout.
 */
static uint64_t kernel_mapping_id(struct builder *b, uint64_t ip)
{
	Mapping *m;

	if (!b->kernel_mapping) {
		m = vec_push(&b->mappings);
		perftools__profiles__mapping__init(m);
		m->id = b->kernel_mapping = b->mappings.count;
		m->memory_start = ip;
		m->memory_limit = ip + 1;
		m->filename = string_id(b, "[kernel.kallsyms]");
		m->has_functions = true;
	}
	m = vec_at(&b->mappings, b->kernel_mapping - 1);
	if (ip < m->memory_start)
		m->memory_start = ip;
	if (ip >= m->memory_limit)
		m->memory_limit = ip + 1;
	return b->kernel_mapping;
}

/*
 * The function @name in file @dso (NULL: none), from source file @source
 * (NULL: unknown, the first one given stays); 0 for no name.
 */
static uint64_t function_id(struct builder *b, const char *name,
			    const char *dso, const char *source)
{
	int64_t name_id, dso_id;
	struct id_slot *slot;
	Function *f;

	if (!name)
		return 0;
	name_id = string_id(b, name);
	dso_id = dso ? string_id(b, dso) : 0;
	slot = id_of(&b->function_ids, name_id, dso_id, 0);
	if (slot->id) {
		f = vec_at(&b->functions, slot->id - 1);
		if (source && !f->filename)
			f->filename = string_id(b, source);
		return slot->id;
	}
	f = vec_push(&b->functions);
	perftools__profiles__function__init(f);
	f->id = slot->id = b->functions.count;
	f->name = f->system_name = name_id;
	if (source)
		f->filename = string_id(b, source);
	return f->id;
}

static uint64_t location_id(struct builder *b, uint64_t mapping,
			    uint64_t address, uint64_t function, int64_t line)
{
	struct id_slot *slot = id_of(&b->location_ids, mapping, address, function);
	struct location_entry *e;

	if (slot->id)
		return slot->id;
	e = vec_push(&b->locations);
	perftools__profiles__location__init(&e->location);
	perftools__profiles__line__init(&e->line);
	e->location.id = slot->id = b->locations.count;
	e->location.mapping_id = mapping;
	e->location.address = address;
	e->line.function_id = function;
	e->line.line = line;
	return e->location.id;
}

/*
 * The source line of @ip in @map, its file's name in @file; 0 if the
 * mapped file has no line for it.
 */
static int64_t source_line(struct builder *b, const struct sleepy_mapping *map,
			   uint64_t ip, char *file, size_t size)
{
	char *colon;

	if (!b->opts->dsos ||
	    !sleepy_dsos_srcline(b->opts->dsos, map, ip, file, size))
		return 0;
	colon = strrchr(file, ':');
	if (!colon)
		return 0;
	*colon = '\0';
	return strtoll(colon + 1, NULL, 10);
}

/*
 * The location of @app's @ip: a kernel one if @in_kernel.  A return
 * address is named, and its line found, by the call before it.
 */
static uint64_t ip_location(struct builder *b, const struct sleepy_app *app,
			    uint64_t ip, bool in_kernel, bool return_address)
{
	uint64_t lookup = return_address && ip ? ip - 1 : ip;
	const struct sleepy_mapping *map;
	const char *name, *dso;
	char file[256];
	int64_t line;

	if (!in_kernel) {
		name = sleepy_report_function(b->opts, b->profile, app, lookup,
					      &dso);
		map = sleepy_profile_mapping(b->profile, app, lookup);
		if (!map)
			return location_id(b, 0, ip,
					   function_id(b, name, dso, NULL), 0);
		line = source_line(b, map, lookup, file, sizeof(file));
		return location_id(b, user_mapping_id(b, map, line), ip,
				   function_id(b, name, dso, line ? file : NULL),
				   line);
	}
	name = sleepy_report_kernel_function(b->profile, lookup, &dso);
	return location_id(b, kernel_mapping_id(b, ip), ip,
			   function_id(b, name, dso, NULL), 0);
}

static struct sample_entry *add_sample(struct builder *b,
				       const struct sleepy_app *app, uint32_t tid,
				       uint64_t samples, uint64_t period_ns)
{
	struct sample_entry *e = vec_push(&b->samples);

	perftools__profiles__sample__init(&e->sample);
	e->values[0] = samples;
	e->values[1] = samples * period_ns;
	e->sample.n_value = period_ns ? 2 : 1;
	perftools__profiles__label__init(&e->labels[0]);
	e->labels[0].key = b->str_app;
	e->labels[0].str = string_id(b, app->label);
	perftools__profiles__label__init(&e->labels[1]);
	e->labels[1].key = b->str_pid;
	e->labels[1].num = app->pid;
	perftools__profiles__label__init(&e->labels[2]);
	e->labels[2].key = b->str_tid;
	e->labels[2].num = tid;
	e->sample.n_label = tid ? 3 : 2;
	return e;
}

/* One sample per application and IP: a recording without stacks. */
static void add_ips(struct builder *b, uint64_t period_ns)
{
	const struct sleepy_app *app = NULL;
	struct sleepy_ip_count *ips;
	size_t nips, i, kept = 0;

	ips = sleepy_profile_ips(b->profile, &nips);
	for (i = 0; i < nips && (!b->opts->top || kept < b->opts->top); i++) {
		struct sample_entry *e;

		if (!app || app->appid != ips[i].appid)
			app = sleepy_profile_app(b->profile, ips[i].appid);
		if (!sleepy_report_app_selected(b->opts, app))
			continue;
		e = add_sample(b, app, ips[i].tid, ips[i].samples, period_ns);
		/*
		 * Recorded without -k, the IP is where the task entered the
		 * kernel: one [kernel] location, as perf shows a sample with
		 * no kernel IP.
		 */
		e->location_id = ips[i].entry_ip ?
			location_id(b, 0, 0, function_id(b, "[kernel]", NULL, NULL), 0) :
			ip_location(b, app, ips[i].ip, ips[i].in_kernel, false);
		kept++;
	}
	free(ips);
}

/* Heaviest first; every field decides a tie, not the table's order. */
static int cmp_stacks(const void *a, const void *b)
{
	const struct sleepy_stack *x = a, *y = b;
	unsigned int i;
	int order = sleepy_cmp_u64(y->samples, x->samples) ?:
		    sleepy_cmp_u64(x->appid, y->appid) ?:
		    sleepy_cmp_u64(x->tid, y->tid) ?:
		    sleepy_cmp_u64(x->in_kernel, y->in_kernel) ?:
		    sleepy_cmp_u64(x->flags, y->flags) ?:
		    sleepy_cmp_u64(x->nr_kernel, y->nr_kernel) ?:
		    sleepy_cmp_u64(x->nr_user, y->nr_user);

	for (i = 0; !order && i < x->nr_kernel + x->nr_user; i++)
		order = sleepy_cmp_u64(x->ips[i], y->ips[i]);
	return order;
}

/* One sample per application and stack (-g), heaviest first. */
static void add_stacks(struct builder *b, uint64_t period_ns)
{
	struct sleepy_stack *stacks;
	size_t n, i, kept = 0;

	stacks = sleepy_table_sorted(&b->profile->stacks, &n, cmp_stacks);
	for (i = 0; i < n && (!b->opts->top || kept < b->opts->top); i++) {
		const struct sleepy_stack *stack = &stacks[i];
		const struct sleepy_app *app = sleepy_profile_app(b->profile,
								  stack->appid);
		const uint64_t *user = stack->ips + stack->nr_kernel;
		struct sample_entry *e;
		size_t f;

		if (!sleepy_report_app_selected(b->opts, app))
			continue;
		e = add_sample(b, app, stack->tid, stack->samples, period_ns);
		e->location_ids = sleepy_xrealloc(NULL, (stack->nr_kernel +
					stack->nr_user + 3) * sizeof(uint64_t));
		for (f = 0; f < stack->nr_kernel; f++)
			e->location_ids[e->nlocations++] =
				ip_location(b, app, stack->ips[f], true, f > 0);
		if (stack->flags & SLEEPY_CALLCHAIN_KERNEL_CUT)
			e->location_ids[e->nlocations++] =
				location_id(b, 0, 0, function_id(b, "[cut]", NULL, NULL), 0);
		if (stack->in_kernel && !stack->nr_kernel)
			e->location_ids[e->nlocations++] =
				location_id(b, 0, 0, function_id(b, "[kernel]", NULL, NULL), 0);
		for (f = 0; f < stack->nr_user; f++)
			e->location_ids[e->nlocations++] =
				ip_location(b, app, user[f], false, f > 0);
		if (stack->flags & SLEEPY_CALLCHAIN_USER_CUT)
			e->location_ids[e->nlocations++] =
				location_id(b, 0, 0, function_id(b, "[cut]", NULL, NULL), 0);
		kept++;
	}
	free(stacks);
}

/* Points the messages at each other, now that no array moves. */
static void **link_all(struct builder *b, Profile *p)
{
	size_t n = b->samples.count + b->mappings.count +
		   b->locations.count + b->functions.count;
	void **ptrs = sleepy_xrealloc(NULL, n * sizeof(*ptrs)), **next = ptrs;
	size_t i, j;

	p->sample = (Sample **)next;
	p->n_sample = b->samples.count;
	for (i = 0; i < b->samples.count; i++) {
		struct sample_entry *e = vec_at(&b->samples, i);

		e->sample.location_id = e->location_ids ?: &e->location_id;
		e->sample.n_location_id = e->location_ids ? e->nlocations : 1;
		e->sample.value = e->values;
		for (j = 0; j < MAX_LABELS; j++)
			e->label_ptrs[j] = &e->labels[j];
		e->sample.label = e->label_ptrs;
		*next++ = &e->sample;
	}
	/* pprof takes mapping[0] for the main binary: the kernel goes last. */
	p->mapping = (Mapping **)next;
	p->n_mapping = b->mappings.count;
	for (i = 0; i < b->mappings.count; i++)
		if (i + 1 != b->kernel_mapping)
			*next++ = vec_at(&b->mappings, i);
	if (b->kernel_mapping)
		*next++ = vec_at(&b->mappings, b->kernel_mapping - 1);
	p->location = (Location **)next;
	p->n_location = b->locations.count;
	for (i = 0; i < b->locations.count; i++) {
		struct location_entry *e = vec_at(&b->locations, i);

		if (e->line.function_id) {
			e->line_ptr = &e->line;
			e->location.line = &e->line_ptr;
			e->location.n_line = 1;
		}
		*next++ = &e->location;
	}
	p->function = (Function **)next;
	p->n_function = b->functions.count;
	for (i = 0; i < b->functions.count; i++)
		*next++ = vec_at(&b->functions, i);
	p->string_table = b->strings.data;
	p->n_string_table = b->strings.count;
	return ptrs;
}

/* gzip of @len bytes at @buf to @path ("-": standard output). */
static int write_gzip(const char *path, const void *buf, size_t len)
{
	bool to_stdout = !strcmp(path, "-");
	gzFile gz;
	int err;

	gz = to_stdout ? gzdopen(dup(STDOUT_FILENO), "wb") : gzopen(path, "wb");
	if (!gz) {
		fprintf(stderr, "sleepy-parse: %s: %s\n", path,
			errno ? strerror(errno) : "cannot compress");
		return -1;
	}
	while (len) {
		unsigned int chunk = len > (1U << 30) ? 1U << 30 : len;

		if (gzwrite(gz, buf, chunk) != (int)chunk) {
			fprintf(stderr, "sleepy-parse: %s: %s\n", path,
				gzerror(gz, &err));
			gzclose(gz);
			return -1;
		}
		buf = (const char *)buf + chunk;
		len -= chunk;
	}
	err = gzclose(gz);
	if (err != Z_OK) {
		fprintf(stderr, "sleepy-parse: %s: %s\n", path,
			err == Z_ERRNO ? strerror(errno) : "cannot compress");
		return -1;
	}
	return 0;
}

static void builder_init(struct builder *b,
			 const struct sleepy_report_options *opts,
			 struct sleepy_profile *profile)
{
	memset(b, 0, sizeof(*b));
	b->opts = opts;
	b->profile = profile;
	vec_init(&b->strings, sizeof(char *));
	vec_init(&b->samples, sizeof(struct sample_entry));
	vec_init(&b->mappings, sizeof(Mapping));
	vec_init(&b->locations, sizeof(struct location_entry));
	vec_init(&b->functions, sizeof(Function));
	sleepy_table_init(&b->string_ids, sizeof(struct string_slot));
	sleepy_table_init(&b->mapping_ids, sizeof(struct id_slot));
	sleepy_table_init(&b->location_ids, sizeof(struct id_slot));
	sleepy_table_init(&b->function_ids, sizeof(struct id_slot));
	string_id(b, "");
	b->str_app = string_id(b, "app");
	b->str_pid = string_id(b, "pid");
	b->str_tid = string_id(b, "tid");
}

static void builder_free(struct builder *b)
{
	size_t i;

	for (i = 0; i < b->strings.count; i++)
		free(*(char **)vec_at(&b->strings, i));
	free(b->strings.data);
	for (i = 0; i < b->samples.count; i++)
		free(((struct sample_entry *)vec_at(&b->samples, i))->location_ids);
	free(b->samples.data);
	free(b->mappings.data);
	free(b->locations.data);
	free(b->functions.data);
	sleepy_table_free(&b->string_ids);
	sleepy_table_free(&b->mapping_ids);
	sleepy_table_free(&b->location_ids);
	sleepy_table_free(&b->function_ids);
}

/*
 * The profile of @profile's samples, taken at @frequency (0: the tick),
 * over @duration_ns from @time_nanos (wall clock, 0 if unknown).
 */
static int write_profile(const char *path,
			 const struct sleepy_report_options *opts,
			 struct sleepy_profile *profile, uint32_t frequency,
			 uint64_t duration_ns, int64_t time_nanos,
			 const char *description)
{
	uint64_t period_ns = frequency ? 1000000000ULL / frequency : 0;
	ValueType types[MAX_VALUES], period_type;
	ValueType *type_ptrs[MAX_VALUES] = { &types[0], &types[1] };
	Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	struct builder b;
	size_t len;
	int64_t comment;
	void **ptrs;
	void *buf;
	int ret;

	builder_init(&b, opts, profile);
	perftools__profiles__value_type__init(&types[0]);
	types[0].type = string_id(&b, "samples");
	types[0].unit = string_id(&b, "count");
	perftools__profiles__value_type__init(&types[1]);
	types[1].type = string_id(&b, "cpu");
	types[1].unit = string_id(&b, "nanoseconds");
	p.sample_type = type_ptrs;
	p.n_sample_type = period_ns ? 2 : 1;
	if (period_ns) {
		period_type = types[1];
		p.period_type = &period_type;
		p.period = period_ns;
	}
	comment = string_id(&b, description);
	p.comment = &comment;
	p.n_comment = 1;
	p.duration_nanos = duration_ns;
	p.time_nanos = time_nanos;

	if (profile->stacks.used)
		add_stacks(&b, period_ns);
	else
		add_ips(&b, period_ns);

	ptrs = link_all(&b, &p);
	len = perftools__profiles__profile__get_packed_size(&p);
	buf = sleepy_xrealloc(NULL, len);
	perftools__profiles__profile__pack(&p, buf);
	ret = write_gzip(path, buf, len);
	free(buf);
	free(ptrs);
	builder_free(&b);
	return ret;
}

int sleepy_pprof_write(const char *path,
		       const struct sleepy_report_options *opts,
		       struct sleepy_profile *profile,
		       const struct sleepy_recording *rec)
{
	char description[512];

	snprintf(description, sizeof(description), "sleepy recording %s",
		 opts->path ?: "");
	return write_profile(path, opts, profile, rec->header.frequency,
			     profile->end_ns > rec->header.start_time_ns ?
			     profile->end_ns - rec->header.start_time_ns : 0,
			     0, description);
}

int sleepy_pprof_write_interval(const char *path,
				const struct sleepy_report_options *opts,
				struct sleepy_profile *profile,
				uint32_t frequency, int64_t wall_start_ns,
				uint64_t duration_ns)
{
	return write_profile(path, opts, profile, frequency, duration_ns,
			     wall_start_ns, "sleepy-agent interval");
}
