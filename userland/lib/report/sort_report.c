// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-parse --sort: one report of the samples grouped by the keys asked
 * for, in their order, as perf report --sort does.  Each IP count of the
 * profile (per application, and per thread with tid) gets a cell per key;
 * rows with the same cells add up, and come out by samples, then by their
 * cells' texts.  cpu is a report of its own: the samples each CPU's buffer
 * held, beside what that CPU counted.
 *
 * Cells are written out only for the rows printed: a cell is a text kept
 * once per distinct text (names), a number (pid, tid, ip) or both (an
 * unnamed IP under sym, "[.] 0x..."), so that rows are told apart and
 * ordered by pointers and numbers.  With millions of IPs, writing every
 * row's key as a string, then hashing, copying and comparing it took most
 * of a --sort report's time.  When the rows are by file and function
 * alone (perf's default comm,dso,sym), the IPs of a program's instances
 * are named once per place in its file, not once per instance (the
 * guest's recording: 427,000 IPs, 40,000 places).
 */
#define _GNU_SOURCE	/* qsort_r() */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/sort_report.h"

#define CELL		256	/* bytes of a cell's text, with its NUL */
#define ROW_BATCH	16	/* rows looked up together */
/*
 * Rows are read in sorted order, all over memory: the one this many
 * places ahead is fetched while the current one is worked on.
 */
#define ROW_AHEAD	16
/*
 * Rows of equal samples are in the order of their cells' texts joined by
 * this byte (which no name holds): a text that begins another comes
 * first, unless the other goes on with a control byte.
 */
#define SEPARATOR	'\x1f'

static const struct {
	const char *name;
	struct sleepy_column column;
} keys[SLEEPY_SORT_KEYS] = {
	[SLEEPY_SORT_APP] = { "app", { "app", "APPLICATION", -24, false } },
	[SLEEPY_SORT_COMM] = { "comm", { "comm", "COMMAND", -16, false } },
	[SLEEPY_SORT_PID] = { "pid", { "pid", "PID", 7, true } },
	[SLEEPY_SORT_TID] = { "tid", { "tid", "TID", 7, true } },
	[SLEEPY_SORT_DSO] = { "dso", { "dso", "DSO", -20, false } },
	[SLEEPY_SORT_SYM] = { "sym", { "sym", "SYMBOL", -32, false } },
	[SLEEPY_SORT_IP] = { "ip", { "ip", "IP", -18, false } },
	[SLEEPY_SORT_SRCLINE] = { "srcline", { "srcline", "SOURCE:LINE", -24, false } },
	[SLEEPY_SORT_CPU] = { "cpu", { "cpu", "CPU", 5, true } },
};

/* perf's marks of a function: [.] user mode, [k] kernel mode. */
static const char user_mark[] = "[.] ", kernel_mark[] = "[k] ";
/* The text of a cell that is a number alone. */
static const char no_text[] = "";

static const uint64_t decimal_powers[] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000, 10000000000ULL,
};

/*
 * A cell: @text, the one copy of it (struct sort.copies) or one of the
 * static texts above, then @number if its key writes one.  A cell of a
 * copy alone has the copy's index in struct sort.texts as its number,
 * which is not written: it ranks the texts without hashing them again.
 */
struct cell {
	const char *text;
	uint64_t number;
};

/*
 * A row: its samples and cells, but for rows in groups (add_rows()) the
 * first, which is their group's.
 */
struct sorted_row {
	uint64_t samples;
	struct cell cells[];
};

/* What same_cells() compares a row with. */
struct row_key {
	const struct sort *sort;
	const struct cell *cells;
};

/* A name's cell, its text after a mark ("" for none). */
struct named {
	const char *mark;
	const char *name;
	struct cell cell;
};

/* The one copy of a cell's text, and its index in struct sort.texts. */
struct text_copy {
	char *text;
	size_t index;
};

/* A --sort report being built. */
struct sort {
	const struct sleepy_report_options *opts;
	struct sleepy_profile *profile;
	unsigned int ncells;
	/*
	 * 1 if the rows are in groups (app or pid first, see add_rows()):
	 * their first cell is the group's, not stored in them.
	 */
	unsigned int first_stored;
	size_t row_size;		/* struct sorted_row and its cells */
	unsigned char *rows;		/* every row, a group after the other */
	uint32_t *row_group;		/* in groups, each row's group */
	size_t nrows;
	/*
	 * The rows of the group being built, by their cells' hash: the
	 * index of each in @rows, + 1.  The rows are written where they
	 * stay, and the entries are small.
	 */
	struct sleepy_table group;
	/* With app or pid first: each group's first cell and its rows' end. */
	struct group {
		struct cell first;
		size_t end;
	} *groups;
	size_t ngroups, groups_capacity;
	struct sleepy_table copies;	/* struct text_copy: the cells' texts */
	const char **texts;		/* the copies, by index */
	size_t ntexts, texts_capacity;
	struct sleepy_table names;	/* struct named */
	/*
	 * Whether the groups are of a program's instances (comm first, or
	 * no group) and every key after the group's is dso or sym: then an
	 * IP's row is that of its place (struct place), the same for each
	 * instance, and a place is named once in a group.  The processes of
	 * one pid (before and after an exec) are other programs: their
	 * places differ.  @group_by_place: so is the group's, one of
	 * several applications.
	 */
	bool by_place, group_by_place;
	/* Whether every key is app, comm or pid: a row per application. */
	bool by_app;
	struct sleepy_table places;	/* struct place, of the group */
	unsigned int places_opened;	/* files opened when @places began */
	struct sleepy_table files;	/* struct place_file */
	uint32_t *mapping_files;	/* per profile mapping: its file + 1 */
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
			snprintf(error, size, "unknown --sort key '%.*s' (app, comm, pid, tid, dso, sym, ip, srcline, cpu)",
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
		snprintf(error, size, "invalid --sort '%s' (keys separated by commas: app, comm, pid, tid, dso, sym, ip, srcline; or cpu alone)",
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

/* How a cell's number follows its text: "%u", "0x%x", or not at all. */
enum number_format { NO_NUMBER, DECIMAL, HEX };

static enum number_format number_format(enum sleepy_sort_key key,
					const struct cell *c)
{
	switch (key) {
	case SLEEPY_SORT_PID:
	case SLEEPY_SORT_TID:
		return DECIMAL;
	case SLEEPY_SORT_IP:
		return HEX;
	case SLEEPY_SORT_SYM:
		/* An unnamed IP: a named function's text is a copy. */
		return c->text == user_mark || c->text == kernel_mark ? HEX :
									NO_NUMBER;
	default:
		return NO_NUMBER;
	}
}

/*
 * strcmp() of @a and @b as if each went on with @end: the order of the
 * rows' texts, their cells joined by SEPARATOR (none after the last).
 */
static int cmp_text(const char *a, const char *b, char end)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)(*a ?: end) - (unsigned char)(*b ?: end);
}

/*
 * @n as @format writes it, left-aligned: such values compare as the
 * texts do, and of equal ones the shorter text (fewer *@digits) comes
 * first.  DECIMAL numbers are pids and tids, of 32 bits.
 */
static uint64_t aligned_number(uint64_t n, enum number_format format,
			       unsigned int *digits)
{
	unsigned int d = 1;

	if (format == HEX) {
		d = n ? (64 - __builtin_clzll(n) + 3) / 4 : 1;
		*digits = d;
		return n << (64 - 4 * d);
	}
	for (; d < 10 && n >= decimal_powers[d]; d++)
		;
	*digits = d;
	return n * decimal_powers[10 - d];
}

/* The order of @a and @b as @format writes them, without writing them. */
static int cmp_numbers(uint64_t a, uint64_t b, enum number_format format)
{
	unsigned int da, db;

	a = aligned_number(a, format, &da);
	b = aligned_number(b, format, &db);
	if (a != b)
		return a < b ? -1 : 1;
	return da < db ? -1 : da > db;
}

/*
 * Copies the text of a numbered cell, "" or a mark, to @buf: the end.  Not
 * by stpcpy(), whose call cost more than the copy, on every row.
 */
static char *copy_number_text(char *buf, const char *text)
{
	size_t len = text == no_text ? 0 : sizeof(user_mark) - 1;

	memcpy(buf, text, len);
	return buf + len;
}

/* @c as @key prints it: its text, or it and its number written in @buf. */
static const char *cell_text(enum sleepy_sort_key key, const struct cell *c,
			     char *buf)
{
	switch (number_format(key, c)) {
	case DECIMAL:
		sleepy_format_decimal(copy_number_text(buf, c->text), c->number);
		return buf;
	case HEX:
		sleepy_format_hex(copy_number_text(buf, c->text), c->number);
		return buf;
	default:
		return c->text;
	}
}

/* The order of cells @a and @b of @key, @end following them. */
static int cmp_cells(enum sleepy_sort_key key, const struct cell *a,
		     const struct cell *b, char end)
{
	enum number_format format = number_format(key, a);
	char x[CELL], y[CELL];

	/* One copy per text: the same text is the same pointer. */
	if (a->text == b->text)
		return format == NO_NUMBER ? 0 :
		       cmp_numbers(a->number, b->number, format);
	if (format == NO_NUMBER && number_format(key, b) == NO_NUMBER)
		return cmp_text(a->text, b->text, end);
	return cmp_text(cell_text(key, a, x), cell_text(key, b, y), end);
}

static struct sorted_row *row_at(const struct sort *s, size_t i)
{
	return (struct sorted_row *)(s->rows + i * s->row_size);
}

/* Cell @k of the row at index @i. */
static const struct cell *cell_of(const struct sort *s, size_t i,
				  unsigned int k)
{
	if (k < s->first_stored)
		return &s->groups[s->row_group[i]].first;
	return &row_at(s, i)->cells[k - s->first_stored];
}

/*
 * Fetches the row at index @i, which may straddle two cache lines, and
 * its group's number.
 */
static void prefetch_row(const struct sort *s, size_t i)
{
	const unsigned char *row = (const unsigned char *)row_at(s, i);

	__builtin_prefetch(row);
	__builtin_prefetch(row + s->row_size - 1);
	if (s->first_stored)
		__builtin_prefetch(&s->row_group[i]);
}

/* Rows at indexes @a and @b: most samples first, then by the cells' texts. */
static int cmp_row_indexes(const void *a, const void *b, const void *arg)
{
	const struct sort *s = arg;
	const struct sorted_row *x = row_at(s, (size_t)a), *y = row_at(s, (size_t)b);
	unsigned int k;
	int diff = 0;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	for (k = 0; k < s->ncells && !diff; k++)
		diff = cmp_cells(s->opts->sort[k], cell_of(s, (size_t)a, k),
				 cell_of(s, (size_t)b, k),
				 k + 1 < s->ncells ? SEPARATOR : '\0');
	return diff;
}

static int same_text(const void *slot, const void *arg)
{
	return !strcmp(((const struct text_copy *)slot)->text, arg);
}

/* The cell of the one copy of @text (at most CELL - 1 bytes) in @s. */
static struct cell text_cell(struct sort *s, const char *text)
{
	struct text_copy *copy = sleepy_table_get(&s->copies,
						  sleepy_hash_string(text),
						  same_text, text);

	if (!copy->text) {
		copy->text = strdup(text);
		if (!copy->text) {
			fprintf(stderr, "sleepy: out of memory\n");
			exit(1);
		}
		if (s->ntexts == s->texts_capacity) {
			s->texts_capacity = 2 * s->texts_capacity ?: 1024;
			s->texts = sleepy_xrealloc(s->texts, s->texts_capacity *
							     sizeof(*s->texts));
		}
		copy->index = s->ntexts;
		s->texts[s->ntexts++] = copy->text;
	}
	return (struct cell) { copy->text, copy->index };
}

static int same_name(const void *slot, const void *arg)
{
	const struct named *a = slot, *b = arg;

	return a->name == b->name && a->mark == b->mark;
}

/*
 * The cell of @mark followed by @name, cut to a cell: looked up by the
 * pointers first, as a name comes from one symbol table entry.
 */
static struct cell named_cell(struct sort *s, const char *mark,
			      const char *name)
{
	struct named key = { .mark = mark, .name = name }, *named;
	char text[CELL];

	named = sleepy_table_get(&s->names,
				 (uintptr_t)name * 31 + (uintptr_t)mark,
				 same_name, &key);
	if (!named->cell.text) {
		snprintf(text, sizeof(text), "%s%s", mark, name);
		*named = key;
		named->cell = text_cell(s, text);
	}
	return named->cell;
}

/* The cell of @key (app, comm or pid) for every count of @app. */
static struct cell app_cell(struct sort *s, enum sleepy_sort_key key,
			    const struct sleepy_app *app)
{
	if (key == SLEEPY_SORT_APP)
		return named_cell(s, "", app->label);
	if (key == SLEEPY_SORT_COMM)
		return named_cell(s, "", app->name);
	return (struct cell) { no_text, app->pid };
}

/*
 * The cell of @key for @count of @app, whose function is @function in
 * @dso; an unnamed one is @address of @dso.
 */
static struct cell key_cell(struct sort *s, enum sleepy_sort_key key,
			    const struct sleepy_app *app,
			    const struct sleepy_ip_count *count,
			    const char *function, const char *dso,
			    uint64_t address)
{
	const char *mark = count->in_kernel ? kernel_mark : user_mark;
	const struct sleepy_mapping *map;
	char text[CELL];

	switch (key) {
	case SLEEPY_SORT_APP:
	case SLEEPY_SORT_COMM:
	case SLEEPY_SORT_PID:
		return app_cell(s, key, app);
	case SLEEPY_SORT_TID:
		return (struct cell) { no_text, count->tid };
	case SLEEPY_SORT_DSO:
		return named_cell(s, "", dso ?: count->in_kernel ? "[kernel]" :
								  "[unknown]");
	case SLEEPY_SORT_SYM:
		if (function)
			return named_cell(s, mark, function);
		return (struct cell) { mark, address };
	case SLEEPY_SORT_SRCLINE:
		if (!count->in_kernel && s->opts->dsos &&
		    (map = sleepy_profile_mapping(s->profile, app, count->ip)) &&
		    sleepy_dsos_srcline(s->opts->dsos, map, count->ip, text,
					CELL))
			return text_cell(s, text);
		return named_cell(s, "", count->in_kernel ? "[kernel]" :
							    "[unknown]");
	default:
		return (struct cell) { no_text, count->ip };
	}
}

static int same_cells(const void *slot, const void *arg)
{
	const struct row_key *key = arg;
	const struct sort *s = key->sort;
	const struct sorted_row *row = row_at(s, *(const size_t *)slot - 1);
	unsigned int k;

	/* A group's rows share their first cell. */
	for (k = s->first_stored; k < s->ncells; k++)
		if (row->cells[k - s->first_stored].text != key->cells[k].text ||
		    row->cells[k - s->first_stored].number != key->cells[k].number)
			return 0;
	return 1;
}

/* The key of the row of @cells in s->group. */
static uint64_t row_hash(const struct sort *s, const struct cell *cells)
{
	uint64_t hash = 0;
	unsigned int k;

	for (k = s->first_stored; k < s->ncells; k++)
		hash = ((hash ^ (uintptr_t)cells[k].text) * 0x9e3779b97f4a7c15ULL ^
			cells[k].number) * 0x100000001b3ULL;
	return hash;
}

/* The row of @cells (whose key is @hash) in s->group, of 0 samples if new. */
static struct sorted_row *row_of(struct sort *s, const struct cell *cells,
				 uint64_t hash)
{
	struct row_key key = { s, cells };
	size_t *index = sleepy_table_get(&s->group, hash, same_cells, &key);
	struct sorted_row *row;

	if (*index)
		return row_at(s, *index - 1);
	row = row_at(s, s->nrows++);
	row->samples = 0;
	memcpy(row->cells, cells + s->first_stored,
	       (s->ncells - s->first_stored) * sizeof(*cells));
	*index = s->nrows;
	return row;
}

/*
 * The function of @count of @app, NULL if unknown; its file (*@dso) and,
 * for a user IP no function names, its address in that file (*@address).
 */
static const char *function_of(struct sort *s, const struct sleepy_app *app,
			       const struct sleepy_ip_count *count,
			       const char **dso, uint64_t *address)
{
	if (!count->in_kernel)
		return sleepy_report_place(s->opts, s->profile, app, count->ip,
					   dso, address);
	*address = count->ip;
	/* Without -k the IP is a user one: the kernel, unnamed. */
	if (count->entry_ip) {
		*dso = NULL;
		return "[kernel]";
	}
	return sleepy_report_kernel_function(s->profile, count->ip, dso);
}

/* IP counts' cells, waiting for their rows' entries to be fetched. */
struct row_batch {
	struct cell cells[ROW_BATCH][SLEEPY_SORT_KEYS];
	uint64_t hash[ROW_BATCH];
	uint64_t samples[ROW_BATCH];
	unsigned int n;
};

/*
 * Adds the batch's samples to their rows.  When the group is every row,
 * the table is far larger than the caches: the entries of a batch are
 * fetched together, so that the waits overlap.
 */
static void add_batch(struct sort *s, struct row_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++) {
		const void *entry = sleepy_table_probe(&s->group, b->hash[i]);

		if (entry)
			__builtin_prefetch(entry);
	}
	for (i = 0; i < b->n; i++)
		row_of(s, b->cells[i], b->hash[i])->samples += b->samples[i];
	b->n = 0;
}

/*
 * Where an IP is, as far as dso and sym can tell: in the kernel, or at an
 * offset of a file (a file of the recording's mappings, numbered from
 * PLACE_FILES by place_file_of()), or at an address no mapping holds.
 */
enum place_kind { PLACE_KERNEL, PLACE_KERNEL_ENTRY, PLACE_UNMAPPED, PLACE_FILES };

/* 24 bytes: a large program's places outgrow the caches. */
struct place {
	uint64_t offset;	/* in the file; the IP for the others */
	uint64_t samples;	/* not yet added to the row */
	uint32_t file;		/* enum place_kind, or a file's number */
	uint32_t row;		/* its row's index in s->rows, + 1 */
};

/*
 * A mapped file as naming tells files apart: by its path (the first it
 * is looked for at), identity and build-id.
 */
struct place_file {
	const struct sleepy_mapping *map;	/* the first mapping of it */
	uint32_t number;
};

static int same_file(const void *slot, const void *arg)
{
	const struct sleepy_mapping *a = ((const struct place_file *)slot)->map;
	const struct sleepy_mapping *b = arg;

	return a->path == b->path && a->ino == b->ino &&
	       a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->flags == b->flags && a->build_id_size == b->build_id_size &&
	       !memcmp(a->build_id, b->build_id, a->build_id_size);
}

/* The number of @map's file, the same for every mapping of that file. */
static uint32_t place_file_of(struct sort *s, const struct sleepy_mapping *map)
{
	size_t index = map - s->profile->mappings;
	struct place_file *file;
	uint64_t words[3] = { (uintptr_t)map->path, map->ino,
			      (uint64_t)map->dev_major << 32 | map->dev_minor };

	if (!s->mapping_files)
		s->mapping_files = sleepy_xcalloc(s->profile->nmappings,
						  sizeof(*s->mapping_files));
	if (s->mapping_files[index])
		return s->mapping_files[index] - 1;
	file = sleepy_table_get(&s->files,
				sleepy_fnv(sleepy_hash_words(map->flags, words, 3),
					   map->build_id, map->build_id_size),
				same_file, map);
	if (!file->map) {
		file->map = map;
		file->number = PLACE_FILES + s->files.used - 1;
	}
	s->mapping_files[index] = file->number + 1;
	return file->number;
}

static int same_place(const void *slot, const void *arg)
{
	const struct place *a = slot, *b = arg;

	return a->file == b->file && a->offset == b->offset;
}

/*
 * Adds the places' samples to their rows and forgets the places: the
 * rows are fetched once per place, not once per IP.
 */
static void end_places(struct sort *s)
{
	size_t i;

	for (i = 0; i < s->places.capacity; i++) {
		const struct place *place = sleepy_table_slot(&s->places, i);

		if (place)
			row_at(s, place->row - 1)->samples += place->samples;
	}
	sleepy_table_free(&s->places);
}

/* An IP count and where it is, waiting for its place to be fetched. */
struct placed_count {
	struct sleepy_ip_count count;
	const struct sleepy_mapping *map;
	struct place key;
	uint64_t hash;
};

/* @placed's place: its file and offset (@placed->count filled in). */
static void locate(struct sort *s, const struct sleepy_app *app,
		   struct placed_count *placed)
{
	const struct sleepy_ip_count *count = &placed->count;

	placed->map = NULL;
	placed->key = (struct place) { .file = PLACE_UNMAPPED, .offset = count->ip };
	if (count->in_kernel && count->entry_ip) {
		/* The kernel, whatever the user IP it was entered from. */
		placed->key = (struct place) { .file = PLACE_KERNEL_ENTRY };
	} else if (count->in_kernel) {
		placed->key.file = PLACE_KERNEL;
	} else if (s->opts->dsos &&
		   (placed->map = sleepy_profile_mapping(s->profile, app,
							 count->ip))) {
		placed->key.file = place_file_of(s, placed->map);
		placed->key.offset = count->ip - placed->map->start +
				     placed->map->pgoff;
	}
	placed->hash = sleepy_hash_words(placed->key.file,
					 &placed->key.offset, 1);
}

/*
 * Adds @placed's samples to its place, named and given its row the first
 * time the group meets the place.  A file first opened (or tried at
 * another path) may name places differently from then on: the places met
 * before are forgotten.
 */
static void add_placed_count(struct sort *s, const struct sleepy_app *app,
			     const struct placed_count *placed)
{
	const struct sleepy_report_options *opts = s->opts;
	const struct sleepy_ip_count *count = &placed->count;
	struct cell cells[SLEEPY_SORT_KEYS];
	const char *function, *dso = NULL;
	struct place *place;
	uint64_t address;
	unsigned int k;

	if (opts->dsos && opts->dsos->opened != s->places_opened) {
		end_places(s);
		s->places_opened = opts->dsos->opened;
	}
	place = sleepy_table_get(&s->places, placed->hash, same_place,
				 &placed->key);
	if (!place->row) {
		if (count->in_kernel)
			function = function_of(s, app, count, &dso, &address);
		else
			function = sleepy_report_mapped_place(opts, placed->map,
							      count->ip, &dso,
							      &address);
		for (k = 0; k < s->ncells; k++)
			cells[k] = key_cell(s, opts->sort[k], app, count,
					    function, dso, address);
		*place = placed->key;
		place->row = ((unsigned char *)row_of(s, cells, row_hash(s, cells)) -
			      s->rows) / s->row_size + 1;
	}
	place->samples += count->samples;
}

/*
 * Adds @app's IP counts to their places, ROW_BATCH at a time: the places
 * of a batch are fetched together, so that the waits overlap.
 */
static void add_app_places(struct sort *s, const struct sleepy_app *app)
{
	struct placed_count batch[ROW_BATCH];
	unsigned int n = 0, b;
	size_t i = 0;

	while (i < app->ips.capacity || n) {
		for (; i < app->ips.capacity && n < ROW_BATCH; i++) {
			if (!sleepy_app_ip_count(app, i, &batch[n].count))
				continue;
			locate(s, app, &batch[n]);
			__builtin_prefetch(sleepy_table_probe(&s->places,
							      batch[n].hash));
			n++;
		}
		for (b = 0; b < n; b++)
			add_placed_count(s, app, &batch[b]);
		n = 0;
	}
}

/* Adds the rows of every IP count of @app to s->group. */
static void add_app_rows(struct sort *s, struct sleepy_app *app,
			 struct row_batch *batch)
{
	const struct sleepy_report_options *opts = s->opts;
	bool by_function = sleepy_sort_has(opts, SLEEPY_SORT_DSO) ||
			   sleepy_sort_has(opts, SLEEPY_SORT_SYM);
	const char *function = NULL, *dso = NULL;
	uint64_t address = 0;
	unsigned int k;
	size_t i;

	if (s->group_by_place && !sleepy_report_named_by_s(opts, app)) {
		add_app_places(s, app);
		return;
	}
	/* Its IP counts add up to its samples: none need be read. */
	if (s->by_app) {
		struct cell *cells = batch->cells[batch->n];

		if (!app->samples)
			return;
		for (k = 0; k < s->ncells; k++)
			cells[k] = app_cell(s, opts->sort[k], app);
		batch->hash[batch->n] = row_hash(s, cells);
		batch->samples[batch->n++] = app->samples;
		if (batch->n == ROW_BATCH)
			add_batch(s, batch);
		return;
	}
	for (i = 0; i < app->ips.capacity; i++) {
		struct cell *cells = batch->cells[batch->n];
		struct sleepy_ip_count count;

		if (!sleepy_app_ip_count(app, i, &count))
			continue;
		if (by_function)
			function = function_of(s, app, &count, &dso, &address);
		for (k = 0; k < s->ncells; k++)
			cells[k] = key_cell(s, opts->sort[k], app, &count,
					    function, dso, address);
		batch->hash[batch->n] = row_hash(s, cells);
		batch->samples[batch->n++] = count.samples;
		if (batch->n == ROW_BATCH)
			add_batch(s, batch);
	}
}

/* Ends the group of rows whose first cell is @first. */
static void end_group(struct sort *s, struct row_batch *batch,
		      const struct cell *first)
{
	size_t row;

	add_batch(s, batch);
	sleepy_table_free(&s->group);
	end_places(s);
	if (!first)
		return;
	for (row = s->ngroups ? s->groups[s->ngroups - 1].end : 0;
	     row < s->nrows; row++)
		s->row_group[row] = s->ngroups;
	if (s->ngroups == s->groups_capacity) {
		s->groups_capacity = 2 * s->groups_capacity ?: 64;
		s->groups = sleepy_xrealloc(s->groups, s->groups_capacity *
						       sizeof(*s->groups));
	}
	s->groups[s->ngroups++] = (struct group) { *first, s->nrows };
}

/* A selected application, the first cell of its rows, its IP counts. */
struct grouped_app {
	struct cell first;
	struct sleepy_app *app;
	size_t counts;
};

static bool same_group(const struct grouped_app *a,
		       const struct grouped_app *b)
{
	return a->first.text == b->first.text &&
	       a->first.number == b->first.number;
}

/* The IP counts of the group that begins at @first (@end past the last). */
static size_t group_counts(const struct grouped_app *first,
			   const struct grouped_app *end)
{
	const struct grouped_app *a = first;
	size_t counts = 0;

	do
		counts += a->counts;
	while (++a < end && same_group(first, a));
	return counts;
}

/*
 * An order that keeps a group together, then by appid: by the first
 * cell's number (a pid, or the copy index of an application's label or
 * name) before its pointer.  The groups' order is the order the files are
 * first looked up in, which decides what a file reached by two paths is
 * opened and warned about by: in the order of pointers, that changed with
 * the build's memory layout.
 */
static int cmp_grouped_apps(const void *a, const void *b)
{
	const struct grouped_app *x = a, *y = b;

	if (x->first.number != y->first.number)
		return x->first.number < y->first.number ? -1 : 1;
	if (x->first.text != y->first.text)
		return (uintptr_t)x->first.text < (uintptr_t)y->first.text ? -1 : 1;
	return sleepy_cmp_u64(x->app->appid, y->app->appid);
}

/*
 * The rows of every selected application's IP counts, keyed by
 * @opts->sort, in s->rows.  When the first key is app, comm or pid, a
 * row's first cell is its application's, and applications whose first cells
 * differ share no row: their rows are built a group at a time, in a
 * table of the group's size.  One table of every row outgrew the caches
 * and took most of a large report's time.  The rows are sorted once
 * built, so neither the groups nor the counts need an order of their own.
 */
static void add_rows(struct sort *s)
{
	enum sleepy_sort_key first = s->opts->sort[0];
	bool grouped = s->first_stored;
	struct sleepy_table *apps = &s->profile->apps;
	struct row_batch batch = { .n = 0 };
	struct grouped_app *selected;
	size_t napps = 0, most_rows = 0, a;

	selected = sleepy_xcalloc(apps->used ?: 1, sizeof(*selected));
	for (a = 0; a < apps->capacity; a++) {
		struct sleepy_app *app = sleepy_table_slot(apps, a);

		if (!app || !sleepy_report_app_selected(s->opts, app))
			continue;
		selected[napps].app = app;
		selected[napps].counts = app->ips.used;
		if (grouped)
			selected[napps].first = app_cell(s, first, app);
		most_rows += app->ips.used;
		napps++;
	}
	/* Places hold 32-bit file numbers and row indexes. */
	if (most_rows >= UINT32_MAX ||
	    s->profile->nmappings >= UINT32_MAX - PLACE_FILES)
		s->by_place = false;
	/*
	 * Room for a row per IP count, the most there can be, at once:
	 * grown by doubling, the rows were copied to new memory each time,
	 * and faulting it in took a tenth of a large report.  The pages
	 * beyond the rows there are stay untouched, outside the RSS.
	 */
	s->rows = sleepy_xrealloc(NULL, (most_rows ?: 1) * s->row_size);
	if (grouped)
		s->row_group = sleepy_xrealloc(NULL, (most_rows ?: 1) *
						     sizeof(*s->row_group));
	qsort(selected, napps, sizeof(*selected), cmp_grouped_apps);
	for (a = 0; a < napps; a++) {
		bool several = a + 1 < napps &&
			       same_group(&selected[a], &selected[a + 1]);

		/* The next one's counts, far from this one's in memory. */
		if (a + 1 < napps)
			__builtin_prefetch(selected[a + 1].app->ips.entries);
		/*
		 * At a group's start: by place if the group is of several
		 * applications (one's places are its IPs), else room for
		 * the rows, so that the table need not grow.
		 */
		if (!a || !same_group(&selected[a - 1], &selected[a]))
			s->group_by_place = s->by_place && several;
		if (!s->group.capacity && grouped && !s->group_by_place)
			sleepy_table_reserve(&s->group, group_counts(selected + a,
								    selected + napps));
		add_app_rows(s, selected[a].app, &batch);
		if (a + 1 == napps || !same_group(&selected[a], &selected[a + 1]))
			end_group(s, &batch, grouped ? &selected[a].first : NULL);
	}
	free(selected);
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

static void sort_init(struct sort *s, const struct sleepy_report_options *opts,
		      struct sleepy_profile *profile)
{
	unsigned int k;

	memset(s, 0, sizeof(*s));
	s->opts = opts;
	s->profile = profile;
	s->ncells = opts->nsort;
	s->first_stored = opts->sort[0] == SLEEPY_SORT_APP ||
			  opts->sort[0] == SLEEPY_SORT_COMM ||
			  opts->sort[0] == SLEEPY_SORT_PID;
	s->row_size = sizeof(struct sorted_row) +
		      (s->ncells - s->first_stored) * sizeof(struct cell);
	s->by_place = (!s->first_stored || opts->sort[0] == SLEEPY_SORT_COMM) &&
		      s->first_stored < s->ncells;
	for (k = s->first_stored; k < s->ncells; k++)
		s->by_place &= opts->sort[k] == SLEEPY_SORT_DSO ||
			       opts->sort[k] == SLEEPY_SORT_SYM;
	s->by_app = true;
	for (k = 0; k < s->ncells; k++)
		s->by_app &= opts->sort[k] == SLEEPY_SORT_APP ||
			     opts->sort[k] == SLEEPY_SORT_COMM ||
			     opts->sort[k] == SLEEPY_SORT_PID;
	s->places_opened = opts->dsos ? opts->dsos->opened : 0;
	sleepy_table_init(&s->places, sizeof(struct place));
	sleepy_table_init(&s->files, sizeof(struct place_file));
	sleepy_table_init(&s->group, sizeof(size_t));
	sleepy_table_init(&s->copies, sizeof(struct text_copy));
	sleepy_table_init(&s->names, sizeof(struct named));
}

static void sort_free(struct sort *s)
{
	size_t i;

	for (i = 0; i < s->ntexts; i++)
		free((char *)s->texts[i]);
	free(s->texts);
	sleepy_table_free(&s->copies);
	sleepy_table_free(&s->names);
	sleepy_table_free(&s->places);
	sleepy_table_free(&s->files);
	free(s->mapping_files);
	free(s->rows);
	free(s->row_group);
	free(s->groups);
}

/* A distinct text of one key's cells without a number, and its index. */
struct ranked_text {
	const char *text;
	size_t index;
};

static int cmp_ranked_texts(const void *a, const void *b, void *end)
{
	return cmp_text(((const struct ranked_text *)a)->text,
			((const struct ranked_text *)b)->text, *(char *)end);
}

/*
 * A numbered cell as an order: sorted as orders are (most samples
 * first), the lowest @samples is the cell that comes first.  Its text
 * first (the texts of a key's numbered cells differ before their
 * numbers: "" alone, or the marks, "[.] " before "[k] "), then its
 * digits left-aligned, then how many; the item is the index of its row.
 */
static struct sleepy_order numbered_order(const struct cell *c,
					  enum number_format format, size_t row)
{
	uint64_t text = c->text == kernel_mark ? 2 : c->text == user_mark;
	unsigned int digits;
	uint64_t aligned = aligned_number(c->number, format, &digits);

	return (struct sleepy_order) {
		.samples = ~(text << 8 | aligned >> 56),
		.ranks = aligned << 8 | digits,
		.item = (const void *)row,
	};
}

/*
 * The cell of numbered_order() @o, of @format: read back from the order,
 * not from its row, which is elsewhere in memory for each.
 */
static struct cell order_cell(const struct sleepy_order *o,
			      enum number_format format)
{
	static const char *const texts[] = { no_text, user_mark, kernel_mark };
	uint64_t aligned = (~o->samples & 0xff) << 56 | o->ranks >> 8;
	unsigned int digits = o->ranks & 0xff;

	return (struct cell) {
		texts[~o->samples >> 8 & 3],
		format == HEX ? aligned >> (64 - 4 * digits) :
				aligned / decimal_powers[10 - digits],
	};
}

/*
 * cmp_cells() of the text cell @text and the numbered cell @c of @key:
 * most texts differ from @c's text and "0x" before its digits, and
 * need no digits written.
 */
static int cmp_text_number(enum sleepy_sort_key key, const char *text,
			   const struct cell *c, char end)
{
	const char *prefix = c->text;
	const char *t = text;
	struct cell named = { text, 0 };

	for (; *prefix && *t == *prefix; t++, prefix++)
		;
	if (*prefix)
		return (unsigned char)(*t ?: end) - (unsigned char)*prefix;
	if (number_format(key, c) == HEX && t[0] != '0')
		return (unsigned char)(t[0] ?: end) - '0';
	if (number_format(key, c) == HEX && t[1] != 'x')
		return (unsigned char)(t[1] ?: end) - 'x';
	return cmp_cells(key, &named, c, end);
}

/*
 * Ranks key @k's cells of every row into @rank (one per row): equal
 * ranks for cells that order as equals.  Returns how many ranks.  Text
 * cells are few (names), ranked by sorting the distinct ones, known by
 * their copies' indexes; numbered cells are about one per row (an
 * unnamed IP's), sorted as numbers by a radix sort; the two orders are
 * then merged.  Hashing and sorting every distinct cell as text took a
 * fifth of a large report's time.
 */
static uint64_t rank_cells(struct sort *s, unsigned int k, uint32_t *rank)
{
	enum sleepy_sort_key key = s->opts->sort[k];
	char end = k + 1 < s->ncells ? SEPARATOR : '\0';
	/* By a copy's index: its rank + 1, 0 if no cell of @k has it. */
	uint32_t *text_rank = sleepy_xcalloc(s->ntexts ?: 1, sizeof(*text_rank));
	struct ranked_text *sorted;
	struct sleepy_order *numbered;
	struct cell previous = { NULL, 0 };
	/* One for all of a key's numbered cells: the key's, or HEX for sym. */
	enum number_format numbered_format = NO_NUMBER;
	const struct cell *c;
	size_t ntexts = 0, nnumbered = 0, i = 0, j = 0, row;
	uint64_t r = 0;

	sorted = sleepy_xcalloc(s->ntexts ?: 1, sizeof(*sorted));
	numbered = sleepy_xcalloc(s->nrows ?: 1, sizeof(*numbered));
	for (row = 0; row < s->nrows; row++) {
		c = cell_of(s, row, k);
		if (number_format(key, c) != NO_NUMBER) {
			numbered_format = number_format(key, c);
			numbered[nnumbered++] = numbered_order(c,
				numbered_format, row);
		} else if (!text_rank[c->number]) {
			text_rank[c->number] = 1;
			sorted[ntexts++] = (struct ranked_text) { c->text, c->number };
		}
	}
	qsort_r(sorted, ntexts, sizeof(*sorted), cmp_ranked_texts, &end);
	sleepy_sort_orders(numbered, nnumbered, NULL, NULL);

	while (i < ntexts || j < nnumbered) {
		struct cell numbered_cell = { NULL, 0 };
		bool text_first;
		struct cell cell;

		if (j < nnumbered)
			numbered_cell = order_cell(&numbered[j], numbered_format);
		text_first = j == nnumbered ||
			     (i < ntexts &&
			      cmp_text_number(key, sorted[i].text,
					      &numbered_cell, end) <= 0);
		cell = text_first ? (struct cell) { sorted[i].text, 0 } :
				    numbered_cell;
		if (previous.text && cmp_cells(key, &previous, &cell, end))
			r++;
		previous = cell;
		if (text_first)
			text_rank[sorted[i++].index] = r + 1;
		else
			rank[(size_t)numbered[j].item] = r;
		j += !text_first;
	}
	for (row = 0; row < s->nrows; row++) {
		c = cell_of(s, row, k);
		if (number_format(key, c) == NO_NUMBER)
			rank[row] = text_rank[c->number] - 1;
	}
	free(numbered);
	free(sorted);
	free(text_rank);
	return r + 1;
}

/* The index of @g's first row in s->rows. */
static size_t group_start(const struct sort *s, const struct group *g)
{
	return g == s->groups ? 0 : g[-1].end;
}

/* The key and the byte after it that cmp_groups() orders groups by. */
struct rank_context {
	enum sleepy_sort_key key;
	char end;
};

static int cmp_groups(const void *a, const void *b, void *arg)
{
	const struct rank_context *c = arg;

	return cmp_cells(c->key, &(*(struct group *const *)a)->first,
			 &(*(struct group *const *)b)->first, c->end);
}

/*
 * rank_cells() of the first key when the rows are in groups (add_rows()):
 * the groups' cells are ranked, a few thousand rather than every row's.
 */
static uint64_t rank_groups(struct sort *s, uint32_t *rank)
{
	struct rank_context context = {
		s->opts->sort[0], s->ncells > 1 ? SEPARATOR : '\0',
	};
	struct group **sorted = sleepy_xcalloc(s->ngroups ?: 1, sizeof(*sorted));
	uint64_t r = 0;
	size_t i, row;

	for (i = 0; i < s->ngroups; i++)
		sorted[i] = &s->groups[i];
	qsort_r(sorted, s->ngroups, sizeof(*sorted), cmp_groups, &context);
	for (i = 0; i < s->ngroups; i++) {
		const struct group *g = sorted[i];

		if (i && cmp_groups(&sorted[i - 1], &sorted[i], &context))
			r++;
		for (row = group_start(s, g); row < g->end; row++)
			rank[row] = r;
	}
	free(sorted);
	return r + 1;
}

/* Ranks sorted by counting: a bucket each, past that too much memory. */
#define COUNTED_RANKS_MAX (1 << 24)

/*
 * What cmp_run_rows() orders rows by: all of their keys, for the rows of
 * SLEEPY_SAMPLES_BUCKETS samples or more, which share a counting-sort bucket.
 */
struct run_context {
	const struct sort *sort;
	const uint32_t *group_rank;	/* by row */
	const uint32_t *rest;		/* by row: the other keys' ranks */
};

/*
 * Row indexes @a and @b in the report's order: by samples, the group's
 * rank, the other keys' ranks, then by index, as the stable sort of every
 * row kept rows that order as equals.
 */
static int cmp_run_rows(const void *a, const void *b, void *arg)
{
	const struct run_context *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx = row_at(c->sort, x)->samples, sy = row_at(c->sort, y)->samples;

	if (sx != sy)
		return sx < sy ? 1 : -1;
	if (c->group_rank[x] != c->group_rank[y])
		return c->group_rank[x] < c->group_rank[y] ? -1 : 1;
	if (c->rest[x] != c->rest[y])
		return c->rest[x] < c->rest[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The counting-sort key of @row: its rank in @ranks, or without ranks its
 * samples, most first (SLEEPY_SAMPLES_BUCKETS or more share the first key).
 */
static uint64_t count_key(const struct sort *s, const uint32_t *ranks,
			  size_t row)
{
	if (ranks)
		return ranks[row];
	return sleepy_samples_bucket(row_at(s, row)->samples);
}

/*
 * Stable counting sort of the @n row indexes at @from into @to by their
 * count_key() of @ranks, below @nkeys.
 */
static void count_sort(const struct sort *s, const uint32_t *from,
		       uint32_t *to, size_t n, uint64_t nkeys,
		       const uint32_t *ranks)
{
	size_t *place = sleepy_xcalloc(nkeys, sizeof(*place));
	size_t i, next = 0;

	for (i = 0; i < n; i++)
		place[count_key(s, ranks, i)]++;
	for (i = 0; i < nkeys; i++) {
		size_t here = place[i];

		place[i] = next;
		next += here;
	}
	for (i = 0; i < n; i++)
		to[place[count_key(s, ranks, from[i])]++] = from[i];
	free(place);
}

/*
 * sorted_rows() of rows in groups (add_rows()), whose groups' ranks
 * (@group_rank, below @ngroup_ranks) and other keys' ranks (@rest, below
 * @nrest) are small numbers: stable counting sorts by the other keys,
 * then the group, then the samples, and of the few rows of
 * SLEEPY_SAMPLES_BUCKETS samples or more a sort of their own.  Sorting every
 * row by samples and all ranks at once took a tenth of a large report,
 * and its memory twice over.
 */
static uint32_t *sorted_in_groups(struct sort *s, const uint32_t *group_rank,
				  uint64_t ngroup_ranks, const uint32_t *rest,
				  uint64_t nrest)
{
	struct run_context context = { s, group_rank, rest };
	uint32_t *order = sleepy_xcalloc(s->nrows ?: 1, sizeof(*order));
	uint32_t *tmp = sleepy_xcalloc(s->nrows ?: 1, sizeof(*tmp));
	size_t i, largest;

	for (i = 0; i < s->nrows; i++)
		tmp[i] = i;
	count_sort(s, tmp, order, s->nrows, nrest, rest);
	count_sort(s, order, tmp, s->nrows, ngroup_ranks, group_rank);
	count_sort(s, tmp, order, s->nrows, SLEEPY_SAMPLES_BUCKETS, NULL);
	free(tmp);
	for (largest = 0; largest < s->nrows &&
			  row_at(s, order[largest])->samples >= SLEEPY_SAMPLES_BUCKETS;
	     largest++)
		;
	qsort_r(order, largest, sizeof(*order), cmp_run_rows, &context);
	return order;
}

/*
 * The indexes of s->rows in the report's order, in an array the caller
 * frees.  Each key's cells are ranked once, and the rows ordered by their
 * samples and ranks, as many keys' as fit in 64 bits: comparing the
 * cells' texts row by row took most of a large report's time.  Indexes
 * and ranks are 32 bits (fewer than 2^32 rows and texts: 160 GiB of rows):
 * half the memory of the sort, faulted in anew each report.
 */
static uint32_t *sorted_rows(struct sort *s)
{
	uint64_t radix[SLEEPY_SORT_KEYS], span = 1;
	uint32_t *rank[SLEEPY_SORT_KEYS], *order;
	struct sleepy_order *orders;
	unsigned int nranked, k;
	size_t i;

	if (s->nrows >= UINT32_MAX - s->ntexts) {
		fprintf(stderr, "sleepy-parse: %zu rows, more than a --sort report can order\n",
			s->nrows);
		exit(1);
	}
	for (nranked = 0; nranked < s->ncells; nranked++) {
		rank[nranked] = sleepy_xcalloc(s->nrows ?: 1, sizeof(uint32_t));
		radix[nranked] = nranked == 0 && s->groups ?
				 rank_groups(s, rank[0]) :
				 rank_cells(s, nranked, rank[nranked]);
		if (__builtin_mul_overflow(span, radix[nranked], &span)) {
			free(rank[nranked]);
			break;
		}
	}
	if (s->groups && nranked && nranked == s->ncells &&
	    span / radix[0] <= COUNTED_RANKS_MAX && radix[0] <= COUNTED_RANKS_MAX) {
		/* The other keys' ranks, in the first of their arrays. */
		for (k = 2; k < nranked; k++)
			for (i = 0; i < s->nrows; i++)
				rank[1][i] = rank[1][i] * radix[k] + rank[k][i];
		order = sorted_in_groups(s, rank[0], radix[0],
					 nranked > 1 ? rank[1] : rank[0],
					 nranked > 1 ? span / radix[0] : radix[0]);
	} else {
		orders = sleepy_xcalloc(s->nrows ?: 1, sizeof(*orders));
		for (i = 0; i < s->nrows; i++) {
			uint64_t ranks = 0;

			for (k = 0; k < nranked; k++)
				ranks = ranks * radix[k] + rank[k][i];
			orders[i] = (struct sleepy_order) {
				row_at(s, i)->samples, ranks, (void *)i,
			};
		}
		/* Past the keys ranked, the cells themselves. */
		sleepy_sort_orders(orders, s->nrows,
				   nranked < s->ncells ? cmp_row_indexes : NULL, s);
		order = sleepy_xcalloc(s->nrows ?: 1, sizeof(*order));
		for (i = 0; i < s->nrows; i++)
			order[i] = (size_t)orders[i].item;
		free(orders);
	}
	for (k = 0; k < nranked; k++)
		free(rank[k]);
	return order;
}

void sleepy_sort_report(struct sleepy_output *out,
			const struct sleepy_report_options *opts,
			struct sleepy_profile *profile, uint64_t total)
{
	struct sleepy_column columns[2 + SLEEPY_SORT_KEYS] = {
		{ "samples", "SAMPLES", 10, true },
		{ "percent", "%", 7, true },
	};
	char cells[2 + SLEEPY_SORT_KEYS][CELL], title[128] = "By";
	const char *ptrs[2 + SLEEPY_SORT_KEYS];
	const struct sorted_row *row;
	uint64_t previous_samples = 0;
	uint32_t group = 0;	/* of the row before, with s.first_stored */
	unsigned int same;	/* leading cells the row before had too */
	struct sort s;
	uint32_t *order;
	size_t i;
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
	sort_init(&s, opts, profile);
	add_rows(&s);
	order = sorted_rows(&s);
	sleepy_output_table(out, "sorted", title, columns, 2 + opts->nsort);
	for (i = 0; i < s.nrows && (!opts->top || i < opts->top); i++) {
		if (i + ROW_AHEAD < s.nrows)
			prefetch_row(&s, order[i + ROW_AHEAD]);
		row = row_at(&s, order[i]);
		/*
		 * Rows come by samples: most repeat the one before's; and
		 * those of equal samples by group, which most repeat too.
		 * What a row repeats is written once.
		 */
		same = 0;
		if (i && row->samples == previous_samples)
			same = 2;
		else {
			sleepy_format_decimal(cells[0], row->samples);
			snprintf(cells[1], CELL, out->format == SLEEPY_FORMAT_TEXT ?
				 "%.2f%%" : "%.4f", 100.0 * row->samples / total);
			previous_samples = row->samples;
		}
		ptrs[0] = cells[0];
		ptrs[1] = cells[1];
		k = 0;
		if (s.first_stored && i && s.row_group[order[i]] == group) {
			k = s.first_stored;
			same += same ? s.first_stored : 0;
		} else if (s.first_stored) {
			group = s.row_group[order[i]];
		}
		for (; k < opts->nsort; k++)
			ptrs[2 + k] = cell_text(opts->sort[k],
						cell_of(&s, order[i], k),
						cells[2 + k]);
		sleepy_output_cells_after(out, ptrs, same);
	}
	free(order);
	sort_free(&s);
}
