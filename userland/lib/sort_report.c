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
 * of a --sort report's time.
 */
#define _GNU_SOURCE	/* qsort_r() */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sort_report.h"

#define CELL		256	/* bytes of a cell's text, with its NUL */
#define ROW_BATCH	16	/* rows looked up together */
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
 * static texts above, then @number if its key writes one.
 */
struct cell {
	const char *text;
	uint64_t number;	/* 0 if not written */
};

struct sorted_row {
	uint64_t samples;
	struct cell cells[];	/* one per key */
};

/* What same_cells() compares a row with. */
struct row_key {
	const struct cell *cells;
	unsigned int ncells;
};

/* A name's text in a cell, after a mark ("" for none). */
struct named {
	const char *mark;
	const char *name;
	const char *text;
};

/* A --sort report being built. */
struct sort {
	const struct sleepy_report_options *opts;
	struct sleepy_profile *profile;
	unsigned int ncells;
	struct sleepy_table rows;	/* struct sorted_row and its cells */
	struct sleepy_table copies;	/* char *: the cells' texts */
	struct sleepy_table names;	/* struct named */
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
 * The order of @a and @b as @format writes them, without writing them:
 * their digits left-aligned compare as the texts do, and of equal ones
 * the shorter text (fewer digits) comes first.  DECIMAL numbers are pids
 * and tids, of 32 bits.
 */
static int cmp_numbers(uint64_t a, uint64_t b, enum number_format format)
{
	unsigned int da = 1, db = 1;

	if (format == HEX) {
		da = a ? (64 - __builtin_clzll(a) + 3) / 4 : 1;
		db = b ? (64 - __builtin_clzll(b) + 3) / 4 : 1;
		a <<= 64 - 4 * da;
		b <<= 64 - 4 * db;
	} else {
		for (; da < 10 && a >= decimal_powers[da]; da++)
			;
		for (; db < 10 && b >= decimal_powers[db]; db++)
			;
		a *= decimal_powers[10 - da];
		b *= decimal_powers[10 - db];
	}
	if (a != b)
		return a < b ? -1 : 1;
	return da < db ? -1 : da > db;
}

/* @c as @key prints it: its text, or it and its number written in @buf. */
static const char *cell_text(enum sleepy_sort_key key, const struct cell *c,
			     char *buf)
{
	switch (number_format(key, c)) {
	case DECIMAL:
		sleepy_format_decimal(stpcpy(buf, c->text), c->number);
		return buf;
	case HEX:
		sleepy_format_hex(stpcpy(buf, c->text), c->number);
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

/* Most samples first, then by the cells' texts. */
static int cmp_rows(const void *a, const void *b, const void *arg)
{
	const struct sorted_row *x = a, *y = b;
	const struct sort *s = arg;
	unsigned int k;
	int diff = 0;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	for (k = 0; k < s->ncells && !diff; k++)
		diff = cmp_cells(s->opts->sort[k], &x->cells[k], &y->cells[k],
				 k + 1 < s->ncells ? SEPARATOR : '\0');
	return diff;
}

/* The one copy of @text (at most CELL - 1 bytes) in @s. */
static const char *text_copy(struct sort *s, const char *text)
{
	return sleepy_intern(&s->copies, text);
}

static int same_name(const void *slot, const void *arg)
{
	const struct named *a = slot, *b = arg;

	return a->name == b->name && a->mark == b->mark;
}

/*
 * The copy of @mark followed by @name, cut to a cell: looked up by the
 * pointers first, as a name comes from one symbol table entry.
 */
static const char *named_text(struct sort *s, const char *mark,
			      const char *name)
{
	struct named key = { .mark = mark, .name = name }, *named;
	char text[CELL];

	named = sleepy_table_get(&s->names,
				 (uintptr_t)name * 31 + (uintptr_t)mark,
				 same_name, &key);
	if (!named->text) {
		snprintf(text, sizeof(text), "%s%s", mark, name);
		*named = key;
		named->text = text_copy(s, text);
	}
	return named->text;
}

/* The cell of @key for @count of @app, whose function is @function. */
static struct cell key_cell(struct sort *s, enum sleepy_sort_key key,
			    const struct sleepy_app *app,
			    const struct sleepy_ip_count *count,
			    const char *function, const char *dso)
{
	const char *mark = count->in_kernel ? kernel_mark : user_mark;
	const struct sleepy_mapping *map;
	char text[CELL];

	switch (key) {
	case SLEEPY_SORT_APP:
		return (struct cell) { .text = named_text(s, "", app->label) };
	case SLEEPY_SORT_PID:
		return (struct cell) { no_text, app->pid };
	case SLEEPY_SORT_TID:
		return (struct cell) { no_text, count->tid };
	case SLEEPY_SORT_DSO:
		return (struct cell) {
			.text = named_text(s, "", dso ?: count->in_kernel ?
						  "[kernel]" : "[unknown]"),
		};
	case SLEEPY_SORT_SYM:
		if (function)
			return (struct cell) { .text = named_text(s, mark, function) };
		return (struct cell) { mark, count->ip };
	case SLEEPY_SORT_SRCLINE:
		if (!count->in_kernel && s->opts->dsos &&
		    (map = sleepy_profile_mapping(s->profile, app, count->ip)) &&
		    sleepy_dsos_srcline(s->opts->dsos, map, count->ip, text,
					CELL))
			return (struct cell) { .text = text_copy(s, text) };
		return (struct cell) {
			.text = named_text(s, "", count->in_kernel ? "[kernel]" :
								     "[unknown]"),
		};
	default:
		return (struct cell) { no_text, count->ip };
	}
}

static int same_cells(const void *slot, const void *arg)
{
	const struct sorted_row *row = slot;
	const struct row_key *key = arg;
	unsigned int k;

	for (k = 0; k < key->ncells; k++)
		if (row->cells[k].text != key->cells[k].text ||
		    row->cells[k].number != key->cells[k].number)
			return 0;
	return 1;
}

/* The key of the row of @cells in s->rows. */
static uint64_t row_hash(const struct sort *s, const struct cell *cells)
{
	uint64_t hash = 0;
	unsigned int k;

	for (k = 0; k < s->ncells; k++)
		hash = ((hash ^ (uintptr_t)cells[k].text) * 0x9e3779b97f4a7c15ULL ^
			cells[k].number) * 0x100000001b3ULL;
	return hash;
}

/* The row of @cells (whose key is @hash) in s->rows, of 0 samples if new. */
static struct sorted_row *row_of(struct sort *s, const struct cell *cells,
				 uint64_t hash)
{
	struct row_key key = { cells, s->ncells };
	struct sorted_row *row;

	row = sleepy_table_get(&s->rows, hash, same_cells, &key);
	if (!row->cells[0].text)
		memcpy(row->cells, cells, s->ncells * sizeof(*cells));
	return row;
}

/* The function of @count of @app and its file (*@dso), NULL if unknown. */
static const char *function_of(struct sort *s, const struct sleepy_app *app,
			       const struct sleepy_ip_count *count,
			       const char **dso)
{
	if (!count->in_kernel)
		return sleepy_report_function(s->opts, s->profile, app,
					      count->ip, dso);
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
 * Adds the batch's samples to their rows.  With a row per IP the table
 * is far larger than the caches: the entries of a batch are fetched
 * together, so that the waits overlap.
 */
static void add_batch(struct sort *s, struct row_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++) {
		const void *entry = sleepy_table_probe(&s->rows, b->hash[i]);

		if (entry)
			__builtin_prefetch(entry);
	}
	for (i = 0; i < b->n; i++)
		row_of(s, b->cells[i], b->hash[i])->samples += b->samples[i];
	b->n = 0;
}

/*
 * The rows of every selected application's IP counts, keyed by
 * @opts->sort, in s->rows.  Taken from the tables as they are: the rows
 * are sorted once built, so the counts need no order of their own.
 */
static void add_rows(struct sort *s)
{
	const struct sleepy_report_options *opts = s->opts;
	struct sleepy_table *apps = &s->profile->apps;
	bool by_function = sleepy_sort_has(opts, SLEEPY_SORT_DSO) ||
			   sleepy_sort_has(opts, SLEEPY_SORT_SYM);
	const char *function = NULL, *dso = NULL;
	struct row_batch batch = { .n = 0 };
	unsigned int k;
	size_t a, i;

	for (a = 0; a < apps->capacity; a++) {
		struct sleepy_app *app = sleepy_table_slot(apps, a);

		if (!app || !sleepy_report_app_selected(opts, app))
			continue;
		for (i = 0; i < app->ips.capacity; i++) {
			const struct sleepy_ip_count *count =
				sleepy_table_slot(&app->ips, i);
			struct cell *cells = batch.cells[batch.n];

			if (!count)
				continue;
			if (by_function)
				function = function_of(s, app, count, &dso);
			for (k = 0; k < s->ncells; k++)
				cells[k] = key_cell(s, opts->sort[k], app, count,
						    function, dso);
			batch.hash[batch.n] = row_hash(s, cells);
			batch.samples[batch.n++] = count->samples;
			if (batch.n == ROW_BATCH)
				add_batch(s, &batch);
		}
	}
	add_batch(s, &batch);
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
	memset(s, 0, sizeof(*s));
	s->opts = opts;
	s->profile = profile;
	s->ncells = opts->nsort;
	sleepy_table_init(&s->rows, sizeof(struct sorted_row) +
				    s->ncells * sizeof(struct cell));
	sleepy_table_init(&s->copies, sizeof(char *));
	sleepy_table_init(&s->names, sizeof(struct named));
}

static void sort_free(struct sort *s)
{
	sleepy_intern_free(&s->copies);
	sleepy_table_free(&s->names);
	sleepy_table_free(&s->rows);
}

/* A distinct cell of one key, and its place among that key's cells. */
struct ranked_cell {
	struct cell cell;
	uint64_t rank;
};

/* The key and the byte after it that cmp_ranked() orders cells by. */
struct rank_context {
	enum sleepy_sort_key key;
	char end;
};

static int cmp_ranked(const void *a, const void *b, void *arg)
{
	const struct ranked_cell *x = a, *y = b;
	const struct rank_context *c = arg;

	return cmp_cells(c->key, &x->cell, &y->cell, c->end);
}

static uint64_t cell_hash(const struct cell *c)
{
	return ((uintptr_t)c->text * 0x9e3779b97f4a7c15ULL) ^ c->number;
}

static int same_cell(const void *slot, const void *arg)
{
	const struct cell *a = slot, *b = arg;

	return a->text == b->text && a->number == b->number;
}

/*
 * Ranks the distinct cells of key @k in @ranked (struct ranked_cell):
 * equal ranks for cells that order as equals.  Returns how many ranks.
 */
static uint64_t rank_cells(struct sort *s, unsigned int k,
			   struct sleepy_table *ranked)
{
	struct rank_context context = {
		s->opts->sort[k], k + 1 < s->ncells ? SEPARATOR : '\0',
	};
	struct ranked_cell *cells, *slot;
	uint64_t rank = 0;
	size_t n = 0, i;

	sleepy_table_init(ranked, sizeof(struct ranked_cell));
	for (i = 0; i < s->rows.capacity; i++) {
		const struct sorted_row *row = sleepy_table_slot(&s->rows, i);

		if (row) {
			slot = sleepy_table_get(ranked, cell_hash(&row->cells[k]),
						same_cell, &row->cells[k]);
			slot->cell = row->cells[k];
		}
	}
	cells = sleepy_xcalloc(ranked->used ?: 1, sizeof(*cells));
	for (i = 0; i < ranked->capacity; i++) {
		slot = sleepy_table_slot(ranked, i);
		if (slot)
			cells[n++] = *slot;
	}
	qsort_r(cells, n, sizeof(*cells), cmp_ranked, &context);
	for (i = 0; i < n; i++) {
		if (i && cmp_ranked(&cells[i - 1], &cells[i], &context))
			rank++;
		slot = sleepy_table_find(ranked, cell_hash(&cells[i].cell),
					 same_cell, &cells[i].cell);
		slot->rank = rank;
	}
	free(cells);
	return rank + 1;
}

/*
 * s->rows in the report's order, in an array the caller frees.  Each
 * key's distinct cells are ranked once (a few hundred thousand names at
 * most, where rows are millions), and the rows ordered by their samples
 * and ranks, as many keys' as fit in 64 bits: comparing the cells' texts
 * row by row took most of a large report's time.
 */
static struct sleepy_order *sorted_rows(struct sort *s, size_t *n)
{
	struct sleepy_table ranked[SLEEPY_SORT_KEYS];
	uint64_t radix[SLEEPY_SORT_KEYS], span = 1;
	struct sleepy_order *orders;
	unsigned int nranked = 0, k;
	size_t i;

	for (k = 0; k < s->ncells; k++) {
		radix[k] = rank_cells(s, k, &ranked[k]);
		if (nranked == k && !__builtin_mul_overflow(span, radix[k], &span))
			nranked++;
	}
	orders = sleepy_xcalloc(s->rows.used ?: 1, sizeof(*orders));
	for (i = 0, *n = 0; i < s->rows.capacity; i++) {
		const struct sorted_row *row = sleepy_table_slot(&s->rows, i);
		uint64_t ranks = 0;

		if (!row)
			continue;
		for (k = 0; k < nranked; k++)
			ranks = ranks * radix[k] +
				((struct ranked_cell *)sleepy_table_find(&ranked[k],
					cell_hash(&row->cells[k]), same_cell,
					&row->cells[k]))->rank;
		orders[(*n)++] = (struct sleepy_order) { row->samples, ranks, row };
	}
	for (k = 0; k < s->ncells; k++)
		sleepy_table_free(&ranked[k]);
	/* Past the keys ranked, the cells themselves. */
	sleepy_sort_orders(orders, *n, nranked < s->ncells ? cmp_rows : NULL, s);
	return orders;
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
	struct sleepy_order *rows;
	uint64_t previous_samples = 0;
	struct sort s;
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
	sort_init(&s, opts, profile);
	add_rows(&s);
	rows = sorted_rows(&s, &n);
	sleepy_output_table(out, "sorted", title, columns, 2 + opts->nsort);
	for (i = 0; i < n && (!opts->top || i < opts->top); i++) {
		row = rows[i].item;
		/* Rows come by samples: most repeat the one before's. */
		if (!i || row->samples != previous_samples) {
			sleepy_format_decimal(cells[0], row->samples);
			snprintf(cells[1], CELL, out->format == SLEEPY_FORMAT_TEXT ?
				 "%.2f%%" : "%.4f", 100.0 * row->samples / total);
			previous_samples = row->samples;
		}
		ptrs[0] = cells[0];
		ptrs[1] = cells[1];
		for (k = 0; k < opts->nsort; k++)
			ptrs[2 + k] = cell_text(opts->sort[k], &row->cells[k],
						cells[2 + k]);
		sleepy_output_cells(out, ptrs);
	}
	free(rows);
	sort_free(&s);
}
