/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function symbols of ELF files (elfutils libelf): of one executable
 * given with -s, for the user instruction pointers of a non-position-
 * independent program such as the static benchmarks; and of the files a
 * recording's mappings name, for those of any program and library.
 */
#ifndef SLEEPY_SYMBOLS_H
#define SLEEPY_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/profile.h"

struct sleepy_symbol {
	uint64_t start;
	uint64_t size;
	char *name;
	/*
	 * Had no size (assembly without .size, in a mapped file), or is a
	 * PLT section's [plt]: reaches to its section's end, unless another
	 * symbol starts before.
	 */
	bool unsized;
	uint8_t binding;	/* STB_LOCAL, STB_GLOBAL, STB_WEAK */
};

struct sleepy_symbols {
	char *path;
	char app_name[16];	/* comm the program runs under */
	struct sleepy_symbol *syms;
	size_t count;
	struct sleepy_start_index index;	/* of @syms, once sorted */
};

/*
 * Loads @path, its C++ and Rust names demangled if @demangle; returns 0,
 * or -1 with a message in @error.
 */
int sleepy_symbols_load(struct sleepy_symbols *symbols, const char *path,
			bool demangle, char *error, size_t error_size);
void sleepy_symbols_free(struct sleepy_symbols *symbols);
/* Function containing @addr, or NULL. */
const struct sleepy_symbol *sleepy_symbols_find(const struct sleepy_symbols *symbols,
						uint64_t addr);

/*
 * The files a recording's mappings name, each read once, on first use:
 * what the symbol lookup of a mapped IP needs of it.  A file that cannot
 * be used is named once on @warnings.
 */
struct sleepy_dsos {
	const char *symfs;	/* prefix of the recorded paths, or NULL */
	FILE *warnings;
	bool mangled;		/* --no-demangle: names as the files hold them */
	/* The recording's vDSO image (SLEEPY_REC_VDSO), for "[vdso]"; or NULL. */
	const void *vdso;
	size_t vdso_size;
	struct sleepy_table files;	/* path -> struct sleepy_dso */
	unsigned int opened;		/* files read (or tried) */
	double open_seconds;		/* CPU time reading them */
};

void sleepy_dsos_init(struct sleepy_dsos *dsos, const char *symfs,
		      FILE *warnings);
void sleepy_dsos_free(struct sleepy_dsos *dsos);
/*
 * Function at @ip in @map (of a profile: its path is the profile's one
 * copy), or NULL; *@dso_name is @map's file's name either way.
 */
const struct sleepy_symbol *sleepy_dsos_find(struct sleepy_dsos *dsos,
					     const struct sleepy_mapping *map,
					     uint64_t ip, const char **dso_name);

/*
 * The name of @map's file, as the reports give it, whether or not it can
 * be read: what an IP no symbol names is attributed to, as perf does.
 */
const char *sleepy_dsos_name(struct sleepy_dsos *dsos,
			     const struct sleepy_mapping *map);

/*
 * "file.c:LINE" of @ip in @map into @buf, from the DWARF line table of its
 * file (the file's base name, as perf's srcline shows it); false if the
 * file has no line table or none covers @ip.
 */
bool sleepy_dsos_srcline(struct sleepy_dsos *dsos,
			 const struct sleepy_mapping *map, uint64_t ip,
			 char *buf, size_t size);

#endif
