/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function symbols of one executable (elfutils libelf), for resolving the
 * user instruction pointers of a non-position-independent program such as
 * the static benchmarks.
 */
#ifndef SLEEPY_SYMBOLS_H
#define SLEEPY_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct sleepy_symbol {
	uint64_t start;
	uint64_t size;
	char *name;
};

struct sleepy_symbols {
	char *path;
	char app_name[16];	/* comm the program runs under */
	struct sleepy_symbol *syms;
	size_t count;
};

/* Loads @path; returns 0, or -1 with a message in @error. */
int sleepy_symbols_load(struct sleepy_symbols *symbols, const char *path,
			char *error, size_t error_size);
void sleepy_symbols_free(struct sleepy_symbols *symbols);
/* Function containing @addr, or NULL. */
const struct sleepy_symbol *sleepy_symbols_find(const struct sleepy_symbols *symbols,
						uint64_t addr);

#endif
