/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every part of the model keeps its data in: a generic hash table
 * from 64-bit keys to fixed-size slots, string interning on it, and
 * allocation that ends the program when memory runs out.  The bottom of
 * the library: it includes nothing of it.
 */
#ifndef SLEEPY_TABLE_H
#define SLEEPY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * An open-addressing table from a 64-bit key to a slot of @slot_size.
 * Each entry is the key + 1 (0 = empty; UINT64_MAX is stored as 1, like
 * 0) followed by its slot, so that a lookup in a table larger than the
 * caches misses it once, not twice.  A packed table (sleepy_table_pack())
 * has its entries side by side, without empty ones, until a lookup
 * spreads them out again.
 */
struct sleepy_table {
	unsigned char *entries;
	size_t slot_size;
	size_t entry_size;
	size_t capacity;
	size_t used;
	bool packed;
};

/*
 * How many of the @n elements at @base (@stride bytes each, sorted by a
 * uint64_t start as their first member) start at or below @key: the last
 * of them is the one that may contain @key.
 */
size_t sleepy_count_at_or_below(const void *base, size_t n, size_t stride,
				uint64_t key);

/*
 * Where sleepy_count_at_or_below() of an array sorted by start may end,
 * by the key's high bits: buckets of 1 << @shift keys from the lowest
 * start, each with the number of elements that start before it.  A report
 * looks millions of IPs up in the same symbols; a dozen probes through an
 * array past the caches become one or two in one bucket.
 */
struct sleepy_start_index {
	uint64_t base;
	unsigned int shift;
	size_t nbuckets;	/* 0: no index, search the whole array */
	uint32_t *below;
};

/* Indexes the @n elements at @base (as sleepy_count_at_or_below()). */
void sleepy_start_index_build(struct sleepy_start_index *index,
			      const void *base, size_t n, size_t stride);
void sleepy_start_index_free(struct sleepy_start_index *index);
/* sleepy_count_at_or_below() of the array @index was built on. */
size_t sleepy_start_index_count(const struct sleepy_start_index *index,
				const void *base, size_t n, size_t stride,
				uint64_t key);

/* realloc() and calloc() that exit with a message when memory runs out. */
void *sleepy_xrealloc(void *p, size_t bytes);
void *sleepy_xcalloc(size_t n, size_t size);

/* FNV-1a over @len bytes at @data, continuing from @hash. */
#define SLEEPY_FNV_BASIS	0xcbf29ce484222325ULL
uint64_t sleepy_fnv(uint64_t hash, const void *data, size_t len);

/*
 * A hash of the @n 64-bit words at @words (any alignment), continuing
 * from @hash: a word at a time, for keys of many words (call stacks),
 * where FNV's byte at a time is slow.  Mixed again by the table, like
 * every key.
 */
uint64_t sleepy_hash_words(uint64_t hash, const void *words, size_t n);

/*
 * Counting sorts of rows by samples, most first: a bucket per count of
 * samples below SLEEPY_SAMPLES_BUCKETS, and the first bucket for all the
 * larger ones (few), which are then sorted among themselves.
 */
#define SLEEPY_SAMPLES_BUCKETS	65536

/* The bucket of @samples (at least one). */
static inline size_t sleepy_samples_bucket(uint64_t samples)
{
	return samples >= SLEEPY_SAMPLES_BUCKETS ? 0 :
	       SLEEPY_SAMPLES_BUCKETS - samples;
}

/* -1, 0 or 1 as @a is below, equal to or above @b: for qsort()'s. */
static inline int sleepy_cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static inline uint64_t sleepy_hash_string(const char *s)
{
	return sleepy_fnv(SLEEPY_FNV_BASIS, s, __builtin_strlen(s));
}

/*
 * The one copy of @s in @strings (a table of char *, which owns them),
 * made on first use.
 */
const char *sleepy_intern(struct sleepy_table *strings, const char *s);
/* Frees the copies in @strings and the table. */
void sleepy_intern_free(struct sleepy_table *strings);

void sleepy_table_init(struct sleepy_table *table, size_t slot_size);
void sleepy_table_free(struct sleepy_table *table);
/*
 * Room for @entries in a table that has none yet, so that it need not
 * grow to hold them: for a size known or guessed beforehand.
 */
void sleepy_table_reserve(struct sleepy_table *table, size_t entries);
/* Slot of @key (and @match on the slot); a zeroed new one if absent. */
void *sleepy_table_get(struct sleepy_table *table, uint64_t key,
		       int (*match)(const void *slot, const void *arg),
		       const void *arg);
/*
 * Slot of @key (and @match on the slot), or NULL if absent; in a packed
 * table, found by reading every entry.
 */
void *sleepy_table_find(const struct sleepy_table *table, uint64_t key,
			int (*match)(const void *slot, const void *arg),
			const void *arg);
void *sleepy_table_slot(const struct sleepy_table *table, size_t index);
/*
 * The key of @slot, a slot of any table, for tables whose keys are data,
 * not hashes: 0 for keys 0 and UINT64_MAX, which are stored alike.
 */
uint64_t sleepy_table_key(const void *slot);
/*
 * Moves @table's entries, in their order, to memory of their own size,
 * for a table done growing: one of a large recording's many tables, kept
 * to the end, then takes 3/8 to 3/4 of the memory it took spread out,
 * and the memory it leaves serves the tables still growing.  Its slots
 * move, and their indexes change.
 */
void sleepy_table_pack(struct sleepy_table *table);
/* The index of @slot, a slot of @table: a dense number for its entry. */
size_t sleepy_table_index(const struct sleepy_table *table, const void *slot);
/*
 * The entry where a lookup of @key in @table starts, to prefetch it before
 * the lookup; NULL if the table is empty or packed.
 */
const void *sleepy_table_probe(const struct sleepy_table *table, uint64_t key);
/*
 * Copies of the table's slots, sorted by @cmp, in an array the caller
 * frees; *n is set to their number.
 */
void *sleepy_table_sorted(struct sleepy_table *table, size_t *n,
			  int (*cmp)(const void *, const void *));

/*
 * What orders a report's row: most samples first, then the lowest ranks
 * (its texts' places, see below), then what @tie says of the items.
 */
struct sleepy_order {
	uint64_t samples;
	uint64_t ranks;
	const void *item;
};

/*
 * Stable sort of @n @orders; @tie (NULL: equal) orders items whose
 * samples and ranks are equal.  Comparing integers, not texts, row by row:
 * a large report has millions of rows and a few hundred thousand names.
 */
void sleepy_sort_orders(struct sleepy_order *orders, size_t n,
			int (*tie)(const void *a, const void *b, const void *arg),
			const void *arg);

/*
 * Texts' places in strcmp() order: a table of struct sleepy_text_rank
 * keyed by the text's pointer, equal texts at equal ranks.
 */
struct sleepy_text_rank {
	const char *text;
	uint64_t rank;
};

void sleepy_rank_add(struct sleepy_table *ranks, const char *text);
/* Ranks the texts added; every rank is below the number returned. */
uint64_t sleepy_rank_texts(struct sleepy_table *ranks);
uint64_t sleepy_text_rank(const struct sleepy_table *ranks, const char *text);

#endif
