// SPDX-License-Identifier: GPL-2.0
/* The generic hash table, string interning and allocation; see table.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model/table.h"

/* Small: every application has a table of IPs, most have few. */
#define SLEEPY_TABLE_MIN 16
#define CACHE_LINE	64
/*
 * Tables from this size on are mapped rather than allocated: see
 * table_alloc().
 */
#define TABLE_MAP_MIN	(2 << 20)

void *sleepy_xrealloc(void *p, size_t bytes)
{
	p = realloc(p, bytes ?: 1);
	if (!p) {
		fprintf(stderr, "sleepy: out of memory\n");
		exit(1);
	}
	return p;
}

uint64_t sleepy_fnv(uint64_t hash, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len--)
		hash = (hash ^ *p++) * 0x100000001b3ULL;
	return hash;
}

uint64_t sleepy_hash_words(uint64_t hash, const void *words, size_t n)
{
	const unsigned char *p = words;
	uint64_t word;

	for (; n--; p += sizeof(word)) {
		memcpy(&word, p, sizeof(word));
		hash = (hash ^ word) * 0x9e3779b97f4a7c15ULL;
	}
	return hash;
}

void *sleepy_xcalloc(size_t n, size_t size)
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
	table->entry_size = sizeof(uint64_t) +
			    (slot_size + sizeof(uint64_t) - 1) /
			    sizeof(uint64_t) * sizeof(uint64_t);
}

/*
 * Zeroed entries for @bytes of table.  A large recording's tables take
 * hundreds of MiB, grown by doubling: clearing each new one, and faulting
 * it in 4 KiB at a time as that went, took a fifth of the time.  Mapped,
 * the pages come zeroed, and in 2 MiB ones where the kernel gives huge
 * pages on request (transparent_hugepage "madvise", a common default).
 */
static void *table_alloc(size_t bytes)
{
	void *entries;

	if (bytes < TABLE_MAP_MIN) {
		/* Entries do not straddle cache lines more than they must. */
		entries = aligned_alloc(CACHE_LINE, bytes);
		if (entries)
			memset(entries, 0, bytes);
	} else {
		entries = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (entries == MAP_FAILED)
			entries = NULL;
		else
			madvise(entries, bytes, MADV_HUGEPAGE);	/* a hint */
	}
	if (!entries) {
		fprintf(stderr, "sleepy: out of memory\n");
		exit(1);
	}
	return entries;
}

static void table_release(const struct sleepy_table *table)
{
	size_t bytes = table->capacity * table->entry_size;

	if (table->packed || bytes < TABLE_MAP_MIN)
		free(table->entries);
	else
		munmap(table->entries, bytes);
}

void sleepy_table_free(struct sleepy_table *table)
{
	size_t slot_size = table->slot_size;

	table_release(table);
	sleepy_table_init(table, slot_size);
}

static uint64_t *entry_key(const struct sleepy_table *table, size_t index)
{
	return (uint64_t *)(table->entries + index * table->entry_size);
}

static void *entry_slot(const struct sleepy_table *table, size_t index)
{
	return entry_key(table, index) + 1;
}

void *sleepy_table_slot(const struct sleepy_table *table, size_t index)
{
	if (!*entry_key(table, index))
		return NULL;
	return entry_slot(table, index);
}

uint64_t sleepy_table_key(const void *slot)
{
	/* An entry is its stored key, then its slot. */
	return ((const uint64_t *)slot)[-1] - 1;
}

size_t sleepy_table_index(const struct sleepy_table *table, const void *slot)
{
	return ((const unsigned char *)slot - sizeof(uint64_t) - table->entries) /
	       table->entry_size;
}

void *sleepy_table_sorted(struct sleepy_table *table, size_t *n,
			  int (*cmp)(const void *, const void *))
{
	size_t size = table->slot_size, i;
	char *rows = sleepy_xcalloc(table->used ?: 1, size);

	for (i = 0, *n = 0; i < table->capacity; i++) {
		const void *slot = sleepy_table_slot(table, i);

		if (slot)
			memcpy(rows + (*n)++ * size, slot, size);
	}
	qsort(rows, *n, size, cmp);
	return rows;
}

void sleepy_table_pack(struct sleepy_table *table)
{
	struct sleepy_table old = *table;
	size_t i, n = 0;

	if (table->packed || !table->used)
		return;
	table->entries = sleepy_xrealloc(NULL, old.used * old.entry_size);
	for (i = 0; i < old.capacity; i++)
		if (*entry_key(&old, i))
			memcpy(entry_key(table, n++), entry_key(&old, i),
			       old.entry_size);
	table->capacity = old.used;
	table->packed = true;
	table_release(&old);
}

static uint64_t mix(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key;
}

/*
 * What an entry stores for @key: never 0, which marks an empty entry.
 * Keys 0 and UINT64_MAX store the same; tables that may see both tell
 * them apart with their match function, like any other keys that repeat.
 */
static uint64_t stored_key(uint64_t key)
{
	return key + 1 ?: 1;
}

/* Where the search for an entry that stores @stored starts. */
static size_t first_index(const struct sleepy_table *table, uint64_t stored)
{
	return mix(stored) & (table->capacity - 1);
}

/* Index of the slot for @key: the matching one or the first empty one. */
static size_t table_find(const struct sleepy_table *table, uint64_t key,
			 int (*match)(const void *slot, const void *arg),
			 const void *arg)
{
	uint64_t wanted = stored_key(key);
	size_t mask = table->capacity - 1, i;

	for (i = first_index(table, wanted);; i = (i + 1) & mask) {
		uint64_t stored = *entry_key(table, i);

		if (!stored || (stored == wanted &&
				(!match || match(entry_slot(table, i), arg))))
			return i;
	}
}

/* The least power of two that holds @entries within the load limit. */
static size_t capacity_for(size_t entries)
{
	size_t capacity = SLEEPY_TABLE_MIN;

	while (entries * 4 > capacity * 3)
		capacity *= 2;
	return capacity;
}

/*
 * To hold one more entry: twice the capacity of a full table, from a
 * packed one a table as full as if it had grown to there.
 */
static void table_grow(struct sleepy_table *table)
{
	struct sleepy_table old = *table;
	size_t i, j;

	table->capacity = capacity_for(old.used + 1);
	table->packed = false;
	table->entries = table_alloc(table->capacity * table->entry_size);
	for (i = 0; i < old.capacity; i++) {
		uint64_t stored = *entry_key(&old, i);

		if (!stored)
			continue;
		/* Keys may repeat (hash collisions): take the first empty. */
		for (j = first_index(table, stored); *entry_key(table, j);
		     j = (j + 1) & (table->capacity - 1))
			;
		memcpy(entry_key(table, j), entry_key(&old, i), old.entry_size);
	}
	table_release(&old);
}

void sleepy_table_reserve(struct sleepy_table *table, size_t entries)
{
	if (table->capacity)
		return;
	table->capacity = capacity_for(entries);
	table->entries = table_alloc(table->capacity * table->entry_size);
}

void *sleepy_table_get(struct sleepy_table *table, uint64_t key,
		       int (*match)(const void *slot, const void *arg),
		       const void *arg)
{
	size_t i;

	if ((table->used + 1) * 4 > table->capacity * 3)
		table_grow(table);
	i = table_find(table, key, match, arg);
	if (!*entry_key(table, i)) {
		*entry_key(table, i) = stored_key(key);
		table->used++;
	}
	return entry_slot(table, i);
}

void *sleepy_table_find(const struct sleepy_table *table, uint64_t key,
			int (*match)(const void *slot, const void *arg),
			const void *arg)
{
	uint64_t wanted = stored_key(key);
	size_t i;

	if (!table->capacity)
		return NULL;
	if (table->packed) {
		for (i = 0; i < table->capacity; i++)
			if (*entry_key(table, i) == wanted &&
			    (!match || match(entry_slot(table, i), arg)))
				return entry_slot(table, i);
		return NULL;
	}
	i = table_find(table, key, match, arg);
	return *entry_key(table, i) ? entry_slot(table, i) : NULL;
}

const void *sleepy_table_probe(const struct sleepy_table *table, uint64_t key)
{
	if (!table->capacity || table->packed)
		return NULL;
	return entry_key(table, first_index(table, stored_key(key)));
}

static uint64_t start_at(const void *base, size_t stride, size_t i)
{
	uint64_t start;

	memcpy(&start, (const unsigned char *)base + i * stride, sizeof(start));
	return start;
}

/*
 * sleepy_count_at_or_below() where the answer is known to be in [lo, hi].
 * Without a branch on the comparisons: looking millions of IPs up, each
 * one was a coin toss the processor guessed wrong half the time.
 */
static size_t count_between(const void *base, size_t stride, size_t lo,
			    size_t hi, uint64_t key)
{
	size_t n = hi - lo;

	if (!n)
		return lo;
	/* The answer stays in [lo, lo + n]. */
	while (n > 1) {
		size_t half = n / 2;

		lo = start_at(base, stride, lo + half) <= key ? lo + half : lo;
		n -= half;
	}
	return lo + (start_at(base, stride, lo) <= key);
}

size_t sleepy_count_at_or_below(const void *base, size_t n, size_t stride,
				uint64_t key)
{
	return count_between(base, stride, 0, n, key);
}

/*
 * Buckets: twice as many as elements (a lookup mostly finds one or two
 * to compare), and no narrower than 16 keys.
 */
#define START_INDEX_MIN_SHIFT	4

void sleepy_start_index_build(struct sleepy_start_index *index,
			      const void *base, size_t n, size_t stride)
{
	uint64_t span;
	size_t b, i = 0;

	memset(index, 0, sizeof(*index));
	if (n < 2 || n > UINT32_MAX)
		return;
	index->base = start_at(base, stride, 0);
	span = start_at(base, stride, n - 1) - index->base;
	index->shift = START_INDEX_MIN_SHIFT;
	while (index->shift < 63 && (span >> index->shift) >= n * 2)
		index->shift++;
	index->nbuckets = (span >> index->shift) + 1;
	index->below = sleepy_xcalloc(index->nbuckets, sizeof(*index->below));
	for (b = 0; b < index->nbuckets; b++) {
		uint64_t bucket_start = index->base + ((uint64_t)b << index->shift);

		while (i < n && start_at(base, stride, i) < bucket_start)
			i++;
		index->below[b] = i;
	}
}

void sleepy_start_index_free(struct sleepy_start_index *index)
{
	free(index->below);
	memset(index, 0, sizeof(*index));
}

size_t sleepy_start_index_count(const struct sleepy_start_index *index,
				const void *base, size_t n, size_t stride,
				uint64_t key)
{
	size_t b;

	if (!index->nbuckets)
		return count_between(base, stride, 0, n, key);
	if (key < index->base)
		return 0;
	b = (key - index->base) >> index->shift;
	if (b >= index->nbuckets)
		return n;
	/*
	 * What starts before the bucket is at or below @key, what starts at
	 * or past the next one is above it.
	 */
	return count_between(base, stride, index->below[b],
			     b + 1 < index->nbuckets ? index->below[b + 1] : n,
			     key);
}

static int string_match(const void *slot, const void *arg)
{
	return !strcmp(*(char *const *)slot, arg);
}

const char *sleepy_intern(struct sleepy_table *strings, const char *s)
{
	char **slot = sleepy_table_get(strings, sleepy_hash_string(s),
				       string_match, s);

	if (!*slot) {
		*slot = strdup(s);
		if (!*slot) {
			fprintf(stderr, "sleepy: out of memory\n");
			exit(1);
		}
	}
	return *slot;
}

void sleepy_intern_free(struct sleepy_table *strings)
{
	size_t i;

	for (i = 0; i < strings->capacity; i++) {
		char **s = sleepy_table_slot(strings, i);

		if (s)
			free(*s);
	}
	sleepy_table_free(strings);
}

#define INSERTION_SORT_MAX 16

static int cmp_orders(const struct sleepy_order *a, const struct sleepy_order *b,
		      int (*tie)(const void *, const void *, const void *),
		      const void *arg)
{
	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	if (a->ranks != b->ranks)
		return a->ranks < b->ranks ? -1 : 1;
	return tie ? tie(a->item, b->item, arg) : 0;
}

/* Merge sort of @n orders at @a, with @tmp for half as many. */
static void merge_sort_orders(struct sleepy_order *a, struct sleepy_order *tmp,
			      size_t n,
			      int (*tie)(const void *, const void *, const void *),
			      const void *arg)
{
	size_t half = n / 2, i = 0, j = half, k = 0;

	if (n <= INSERTION_SORT_MAX) {
		for (i = 1; i < n; i++) {
			struct sleepy_order x = a[i];

			for (j = i; j > 0 && cmp_orders(&x, &a[j - 1], tie, arg) < 0; j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
		return;
	}
	merge_sort_orders(a, tmp, half, tie, arg);
	merge_sort_orders(a + half, tmp, n - half, tie, arg);
	/* The left half moves out of the way; the merge fills in from the left. */
	memcpy(tmp, a, half * sizeof(*a));
	while (i < half && j < n) {
		if (cmp_orders(&a[j], &tmp[i], tie, arg) < 0)
			a[k++] = a[j++];
		else
			a[k++] = tmp[i++];
	}
	while (i < half)
		a[k++] = tmp[i++];
}

/* Byte @byte of @order's sort key: ranks, then samples inverted (most first). */
static unsigned int order_byte(const struct sleepy_order *order,
			       unsigned int byte)
{
	uint64_t word = byte < 8 ? order->ranks : ~order->samples;

	return word >> (byte % 8 * 8) & 0xff;
}

/*
 * Stable LSD radix sort of @n orders by samples (descending) and ranks, a
 * byte a time from the ranks' lowest, on the bytes that differ between
 * orders.  The same order as merge_sort_orders() without a tie (both are
 * stable), in linear time: a report of millions of rows spent a tenth of
 * its time merging them.
 */
static void radix_sort_orders(struct sleepy_order *orders, size_t n)
{
	struct sleepy_order *from = orders, *to, *swap;
	uint64_t ranks_differ = 0, samples_differ = 0;
	unsigned int bytes[16], nbytes = 0, b, k;
	size_t (*counts)[256];
	size_t i;

	for (i = 1; i < n; i++) {
		ranks_differ |= orders[i].ranks ^ orders[0].ranks;
		samples_differ |= orders[i].samples ^ orders[0].samples;
	}
	for (b = 0; b < 16; b++)
		if ((b < 8 ? ranks_differ : samples_differ) >> (b % 8 * 8) & 0xff)
			bytes[nbytes++] = b;
	if (!nbytes)
		return;
	to = sleepy_xcalloc(n, sizeof(*to));
	counts = sleepy_xcalloc(nbytes, sizeof(*counts));
	for (i = 0; i < n; i++)
		for (k = 0; k < nbytes; k++)
			counts[k][order_byte(&orders[i], bytes[k])]++;
	for (k = 0; k < nbytes; k++) {
		size_t *count = counts[k], next = 0;

		for (b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = next;
			next += c;
		}
		for (i = 0; i < n; i++)
			to[count[order_byte(&from[i], bytes[k])]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != orders)
		memcpy(orders, from, n * sizeof(*orders));
	free(from == orders ? to : from);
	free(counts);
}

void sleepy_sort_orders(struct sleepy_order *orders, size_t n,
			int (*tie)(const void *a, const void *b, const void *arg),
			const void *arg)
{
	struct sleepy_order *tmp;

	if (!tie) {
		radix_sort_orders(orders, n);
		return;
	}
	tmp = sleepy_xcalloc(n / 2 + 1, sizeof(*tmp));
	merge_sort_orders(orders, tmp, n, tie, arg);
	free(tmp);
}

void sleepy_rank_add(struct sleepy_table *ranks, const char *text)
{
	((struct sleepy_text_rank *)sleepy_table_get(ranks, (uintptr_t)text,
						     NULL, NULL))->text = text;
}

static int cmp_text_ranks(const void *a, const void *b)
{
	return strcmp(((const struct sleepy_text_rank *)a)->text,
		      ((const struct sleepy_text_rank *)b)->text);
}

uint64_t sleepy_rank_texts(struct sleepy_table *ranks)
{
	struct sleepy_text_rank *sorted;
	uint64_t rank = 0;
	size_t n, i;

	sorted = sleepy_table_sorted(ranks, &n, cmp_text_ranks);
	for (i = 0; i < n; i++) {
		/* Equal texts: the rank of the first of them. */
		if (i && strcmp(sorted[i - 1].text, sorted[i].text))
			rank = i;
		((struct sleepy_text_rank *)sleepy_table_find(ranks,
			(uintptr_t)sorted[i].text, NULL, NULL))->rank = rank;
	}
	free(sorted);
	return n;
}

uint64_t sleepy_text_rank(const struct sleepy_table *ranks, const char *text)
{
	return ((const struct sleepy_text_rank *)sleepy_table_find(ranks,
		(uintptr_t)text, NULL, NULL))->rank;
}
