// SPDX-License-Identifier: GPL-2.0
/* Function symbol tables read with libelf. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

static int cmp_syms(const void *a, const void *b)
{
	const struct sleepy_symbol *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int read_symtab(struct sleepy_symbols *symbols, Elf *elf,
		       Elf_Scn *scn, GElf_Shdr *shdr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n = shdr->sh_entsize ? shdr->sh_size / shdr->sh_entsize : 0;
	struct sleepy_symbol *syms;

	if (!data)
		return -1;
	syms = realloc(symbols->syms, (symbols->count + n) * sizeof(*syms));
	if (!syms)
		return -1;
	symbols->syms = syms;
	for (i = 0; i < n; i++) {
		const char *name;
		GElf_Sym sym;

		if (!gelf_getsym(data, i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
			continue;
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		syms[symbols->count++] = (struct sleepy_symbol) {
			.start = sym.st_value,
			.size = sym.st_size,
			.name = strdup(name),
		};
	}
	return 0;
}

int sleepy_symbols_load(struct sleepy_symbols *symbols, const char *path,
			char *error, size_t error_size)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	const char *base;
	Elf *elf;
	int fd;

	memset(symbols, 0, sizeof(*symbols));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(error, error_size, "%s: %s", path, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &ehdr)) {
		snprintf(error, error_size, "%s: not an ELF file", path);
		goto fail;
	}
	if (ehdr.e_type != ET_EXEC) {
		snprintf(error, error_size,
			 "%s: position-independent (ET_DYN); symbols need a non-PIE build (-no-pie or -static)",
			 path);
		goto fail;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB &&
		    read_symtab(symbols, elf, scn, &shdr)) {
			snprintf(error, error_size, "%s: bad symbol table",
				 path);
			goto fail;
		}
	}
	if (!symbols->count) {
		snprintf(error, error_size, "%s: no function symbols (stripped?)",
			 path);
		goto fail;
	}
	qsort(symbols->syms, symbols->count, sizeof(*symbols->syms), cmp_syms);
	symbols->path = strdup(path);
	base = strrchr(path, '/');
	snprintf(symbols->app_name, sizeof(symbols->app_name), "%s",
		 base ? base + 1 : path);
	elf_end(elf);
	close(fd);
	return 0;
fail:
	if (elf)
		elf_end(elf);
	close(fd);
	sleepy_symbols_free(symbols);
	return -1;
}

void sleepy_symbols_free(struct sleepy_symbols *symbols)
{
	size_t i;

	for (i = 0; i < symbols->count; i++)
		free(symbols->syms[i].name);
	free(symbols->syms);
	free(symbols->path);
	memset(symbols, 0, sizeof(*symbols));
}

const struct sleepy_symbol *sleepy_symbols_find(const struct sleepy_symbols *symbols,
						uint64_t addr)
{
	size_t lo = 0, hi = symbols->count;

	/* Last symbol starting at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (symbols->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (addr - symbols->syms[lo - 1].start >= (symbols->syms[lo - 1].size ?: 1))
		return NULL;
	return &symbols->syms[lo - 1];
}
