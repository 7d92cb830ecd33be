// SPDX-License-Identifier: GPL-2.0
/*
 * Function symbol tables read with libelf; source lines from the DWARF
 * line tables with libdw, opened only when a line is first asked for.
 * A mapped file's functions come from its .symtab; if it has none, from
 * the .symtab of its separate debug file, found by build-id as gdb and
 * perf find it (/usr/lib/debug/.build-id/xx/rest.debug, under --symfs),
 * whose build-id must be the file's; else from its .dynsym.  Its source
 * lines come from whichever of the two has them.  C++ and Rust names are
 * demangled as they are read (libiberty's, as perf's): once per symbol,
 * however many samples name it.
 */
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/symbols.h"

/* A PT_LOAD segment: where file offsets appear in the address space. */
struct sleepy_load {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
};

/* A file the mappings name: struct sleepy_dsos' table slot. */
#define DSO_PATHS_TRIED 4

struct sleepy_dso {
	const char *key;	/* the profile's copy of the first path seen */
	uint64_t ino;		/* 0: known by @key */
	uint32_t dev_major;
	uint32_t dev_minor;
	/* The recorded paths it was looked for at (the profile's copies). */
	const char *tried[DSO_PATHS_TRIED];
	unsigned int ntried;
	char *path;		/* as opened, under the symfs */
	char *debug_path;	/* its separate debug file, NULL if none */
	bool debug_tried;
	char *name;		/* of the recorded path */
	bool usable;
	bool build_id_warned;
	struct sleepy_symbols symbols;
	struct sleepy_load *loads;
	size_t nloads;
	uint8_t build_id[SLEEPY_BUILD_ID_MAX];
	uint32_t build_id_size;
	/* Its DWARF, kept open once looked for (NULL: none). */
	bool dwarf_tried;
	int dwarf_fd;
	Elf *dwarf_elf;
	Dwarf *dwarf;
};

static size_t leading_underscores(const char *name)
{
	return strspn(name, "_");
}

/*
 * By address; of the names of one address (aliases: getdelim and
 * __getdelim, memcpy's and memmove's code) the lookup takes the last, so
 * the one perf's choose_best_symbol() shows comes last: a sized one, a
 * strong one, a global one, the one of fewest leading underscores, the
 * longest; of names alike in all that, the first in strcmp() order.
 */
static int cmp_syms(const void *a, const void *b)
{
	const struct sleepy_symbol *x = a, *y = b;
	size_t nx, ny;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->unsized != y->unsized)
		return x->unsized ? -1 : 1;
	if ((x->binding == STB_WEAK) != (y->binding == STB_WEAK))
		return x->binding == STB_WEAK ? -1 : 1;
	if ((x->binding == STB_GLOBAL) != (y->binding == STB_GLOBAL))
		return x->binding == STB_GLOBAL ? 1 : -1;
	nx = leading_underscores(x->name);
	ny = leading_underscores(y->name);
	if (nx != ny)
		return nx > ny ? -1 : 1;
	nx = strlen(x->name);
	ny = strlen(y->name);
	if (nx != ny)
		return nx < ny ? -1 : 1;
	return strcmp(y->name, x->name);
}

/*
 * Sorted for lookups, and indexed: a report looks up millions of IPs.  By
 * start in linear time (sleepy_sort_orders()), then the few names of one
 * address by cmp_syms(): qsort() by cmp_syms() took a third of reading a
 * large program's symbols.
 */
static void symbols_sort(struct sleepy_symbols *symbols)
{
	size_t n = symbols->count, i, j;
	struct sleepy_order *orders = sleepy_xcalloc(n ?: 1, sizeof(*orders));
	struct sleepy_symbol *sorted = sleepy_xcalloc(n ?: 1, sizeof(*sorted));

	for (i = 0; i < n; i++)
		orders[i] = (struct sleepy_order) {
			.ranks = symbols->syms[i].start,
			.item = (const void *)i,
		};
	sleepy_sort_orders(orders, n, NULL, NULL);
	for (i = 0; i < n; i++)
		sorted[i] = symbols->syms[(size_t)orders[i].item];
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && sorted[j].start == sorted[i].start; j++)
			;
		if (j - i > 1)
			qsort(sorted + i, j - i, sizeof(*sorted), cmp_syms);
	}
	free(orders);
	free(symbols->syms);
	symbols->syms = sorted;
	sleepy_start_index_build(&symbols->index, symbols->syms, symbols->count,
				 sizeof(*symbols->syms));
}

/*
 * A copy of @name to show: demangled if @demangle and it is a C++ or Rust
 * name, without the parameters, as perf report shows it; NULL if out of
 * memory.
 */
static char *symbol_name(const char *name, bool demangle)
{
	char *demangled;

	if (demangle && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')) {
		demangled = cplus_demangle(name, DMGL_AUTO);
		if (demangled)
			return demangled;
	}
	return strdup(name);
}

/*
 * @mapped: a file of the mappings, where a symbol without a size (of
 * hand-written assembly, mostly) still names the code after it.
 */
static int read_symtab(struct sleepy_symbols *symbols, Elf *elf,
		       Elf_Scn *scn, GElf_Shdr *shdr, bool mapped,
		       bool demangle)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	struct sleepy_symbol *syms;
	size_t i, n;

	if (!data)
		return -1;
	/*
	 * By the data read, not the header's size; none: nothing to add
	 * (realloc() to 0 bytes would free the array, found by fuzz_elf).
	 */
	n = shdr->sh_entsize ? data->d_size / shdr->sh_entsize : 0;
	if (!n)
		return 0;
	syms = realloc(symbols->syms, (symbols->count + n) * sizeof(*syms));
	if (!syms)
		return -1;
	symbols->syms = syms;
	for (i = 0; i < n; i++) {
		struct sleepy_symbol *s = &syms[symbols->count];
		GElf_Shdr section;
		const char *name;
		GElf_Sym sym;

		/*
		 * An undefined function's value, if any, is its PLT stub in
		 * a program that takes its address: the stub's, not its.
		 */
		if (!gelf_getsym(data, i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		*s = (struct sleepy_symbol) {
			.start = sym.st_value,
			.size = sym.st_size,
			.name = symbol_name(name, demangle),
			.binding = GELF_ST_BIND(sym.st_info),
		};
		if (!s->name)
			return -1;
		sleepy_sanitise_name(s->name);
		symbols->count++;
		if (!mapped || sym.st_size || sym.st_shndx >= SHN_LORESERVE ||
		    !gelf_getshdr(elf_getscn(elf, sym.st_shndx), &section) ||
		    sym.st_value - section.sh_addr >= section.sh_size)
			continue;
		s->size = section.sh_addr + section.sh_size - sym.st_value;
		s->unsized = true;
	}
	return 0;
}

/* Reads the function symbols of every section of @type. */
static int read_functions(struct sleepy_symbols *symbols, Elf *elf,
			  GElf_Word type, bool mapped, bool demangle)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == type &&
		    read_symtab(symbols, elf, scn, &shdr, mapped, demangle))
			return -1;
	}
	return 0;
}

/* Adds @sym, whose name the table then owns; -1 if out of memory. */
static int add_symbol(struct sleepy_symbols *symbols, struct sleepy_symbol sym)
{
	struct sleepy_symbol *syms;

	if (!sym.name)
		return -1;
	syms = realloc(symbols->syms, (symbols->count + 1) * sizeof(*syms));
	if (!syms) {
		free(sym.name);
		return -1;
	}
	symbols->syms = syms;
	syms[symbols->count++] = sym;
	return 0;
}

/* An x86-64 PLT stub's size, and the size of .plt's header (PLT0). */
#define PLT_STUB_SIZE	16

/* "NAME@plt", NAME as symbol_name() shows it; NULL if out of memory. */
static char *stub_name(const char *name, bool demangle)
{
	char *shown = symbol_name(name, demangle), *stub;
	size_t size;

	if (!shown)
		return NULL;
	size = strlen(shown) + sizeof("@plt");
	stub = malloc(size);
	if (stub) {
		snprintf(stub, size, "%s@plt", shown);
		sleepy_sanitise_name(stub);
	}
	free(shown);
	return stub;
}

/*
 * Each x86-64 PLT stub named NAME@plt, for the function it calls, as perf
 * names it: one 16-byte stub per .rela.plt entry, in their order, from
 * @first on (in .plt.sec in a file built for IBT, else after .plt's
 * header).  An entry of no symbol (an ifunc's) leaves its stub to [plt].
 */
static int read_plt_stubs(struct sleepy_symbols *symbols, Elf *elf,
			  Elf_Scn *rela_plt, const GElf_Shdr *stubs,
			  uint64_t first, bool demangle)
{
	GElf_Shdr rela_shdr, dynsym_shdr;
	Elf_Data *relas, *dynsyms;
	Elf_Scn *dynsym;
	size_t i, n;

	if (!gelf_getshdr(rela_plt, &rela_shdr) ||
	    rela_shdr.sh_type != SHT_RELA || !rela_shdr.sh_entsize ||
	    !(dynsym = elf_getscn(elf, rela_shdr.sh_link)) ||
	    !gelf_getshdr(dynsym, &dynsym_shdr) ||
	    !(relas = elf_getdata(rela_plt, NULL)) ||
	    !(dynsyms = elf_getdata(dynsym, NULL)))
		return 0;
	n = relas->d_size / rela_shdr.sh_entsize;
	for (i = 0; i < n && first + (i + 1) * PLT_STUB_SIZE <= stubs->sh_size;
	     i++) {
		const char *name;
		GElf_Rela rela;
		GElf_Sym sym;

		if (!gelf_getrela(relas, i, &rela) || !GELF_R_SYM(rela.r_info) ||
		    !gelf_getsym(dynsyms, GELF_R_SYM(rela.r_info), &sym) ||
		    !(name = elf_strptr(elf, dynsym_shdr.sh_link, sym.st_name)) ||
		    !*name)
			continue;
		if (add_symbol(symbols, (struct sleepy_symbol) {
			.start = stubs->sh_addr + first + i * PLT_STUB_SIZE,
			.size = PLT_STUB_SIZE,
			.name = stub_name(name, demangle),
		}))
			return -1;
	}
	return 0;
}

/*
 * The PLT stubs have no symbols of their own: one [plt] function over
 * each PLT section, so that time in them is named as what it is rather
 * than as a bare address, and on x86-64 each stub of .rela.plt as perf
 * names it (NAME@plt).  [plt] is unsized: a stub at its start wins.
 */
static int read_plt(struct sleepy_symbols *symbols, Elf *elf, bool demangle)
{
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.got", ".iplt" };
	GElf_Shdr plt = { 0 }, plt_sec = { 0 };
	Elf_Scn *scn = NULL, *rela_plt = NULL;
	size_t strndx, i;
	GElf_Ehdr ehdr;

	if (elf_getshdrstrndx(elf, &strndx) || !gelf_getehdr(elf, &ehdr))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr) ||
		    !(name = elf_strptr(elf, strndx, shdr.sh_name)))
			continue;
		if (!strcmp(name, ".rela.plt"))
			rela_plt = scn;
		if (!(shdr.sh_flags & SHF_EXECINSTR) || !shdr.sh_size)
			continue;
		for (i = 0; i < sizeof(plts) / sizeof(plts[0]); i++)
			if (!strcmp(name, plts[i]))
				break;
		if (i == sizeof(plts) / sizeof(plts[0]))
			continue;
		if (!strcmp(name, ".plt"))
			plt = shdr;
		else if (!strcmp(name, ".plt.sec"))
			plt_sec = shdr;
		if (add_symbol(symbols, (struct sleepy_symbol) {
			.start = shdr.sh_addr, .size = shdr.sh_size,
			.name = strdup("[plt]"), .unsized = true,
		}))
			return -1;
	}
	if (ehdr.e_machine != EM_X86_64 || !rela_plt)
		return 0;
	if (plt_sec.sh_size)
		return read_plt_stubs(symbols, elf, rela_plt, &plt_sec, 0,
				      demangle);
	if (plt.sh_size)
		return read_plt_stubs(symbols, elf, rela_plt, &plt,
				      PLT_STUB_SIZE, demangle);
	return 0;
}

/* Opens @path as ELF; NULL with a message in @error. */
static Elf *open_elf(const char *path, int *fd, GElf_Ehdr *ehdr,
		     char *error, size_t error_size)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		snprintf(error, error_size, "%s: %s", path, strerror(errno));
		return NULL;
	}
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, ehdr)) {
		snprintf(error, error_size, "%s: not an ELF file", path);
		elf_end(elf);
		close(*fd);
		return NULL;
	}
	return elf;
}

int sleepy_symbols_load(struct sleepy_symbols *symbols, const char *path,
			bool demangle, char *error, size_t error_size)
{
	const char *base;
	GElf_Ehdr ehdr;
	Elf *elf;
	int fd;

	memset(symbols, 0, sizeof(*symbols));
	elf = open_elf(path, &fd, &ehdr, error, error_size);
	if (!elf)
		return -1;
	if (ehdr.e_type != ET_EXEC) {
		snprintf(error, error_size,
			 "%s: position-independent (ET_DYN); symbols need a non-PIE build (-no-pie or -static)",
			 path);
		goto fail;
	}
	if (read_functions(symbols, elf, SHT_SYMTAB, false, demangle)) {
		snprintf(error, error_size, "%s: bad symbol table", path);
		goto fail;
	}
	if (!symbols->count) {
		snprintf(error, error_size, "%s: no function symbols (stripped?)",
			 path);
		goto fail;
	}
	if (read_plt(symbols, elf, demangle)) {
		snprintf(error, error_size, "%s: out of memory", path);
		goto fail;
	}
	symbols_sort(symbols);
	symbols->path = strdup(path);
	base = strrchr(path, '/');
	snprintf(symbols->app_name, sizeof(symbols->app_name), "%s",
		 base ? base + 1 : path);
	elf_end(elf);
	close(fd);
	return 0;
fail:
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
	sleepy_start_index_free(&symbols->index);
	memset(symbols, 0, sizeof(*symbols));
}

const struct sleepy_symbol *sleepy_symbols_find(const struct sleepy_symbols *symbols,
						uint64_t addr)
{
	size_t n = sleepy_start_index_count(&symbols->index, symbols->syms,
					    symbols->count,
					    sizeof(*symbols->syms), addr);

	if (!n)
		return NULL;
	if (addr - symbols->syms[n - 1].start >= (symbols->syms[n - 1].size ?: 1))
		return NULL;
	return &symbols->syms[n - 1];
}

void sleepy_dsos_init(struct sleepy_dsos *dsos, const char *symfs,
		      FILE *warnings)
{
	*dsos = (struct sleepy_dsos) { .symfs = symfs, .warnings = warnings };
	sleepy_table_init(&dsos->files, sizeof(struct sleepy_dso));
}

void sleepy_dsos_free(struct sleepy_dsos *dsos)
{
	size_t i;

	for (i = 0; i < dsos->files.capacity; i++) {
		struct sleepy_dso *dso = sleepy_table_slot(&dsos->files, i);

		if (!dso)
			continue;
		if (dso->dwarf) {
			dwarf_end(dso->dwarf);
			elf_end(dso->dwarf_elf);
			close(dso->dwarf_fd);
		}
		free(dso->path);
		free(dso->debug_path);
		free(dso->name);
		free(dso->loads);
		sleepy_symbols_free(&dso->symbols);
	}
	sleepy_table_free(&dsos->files);
}

/* The file's GNU build-id note into @id and *@size; *@size 0 if none. */
static void read_build_id(Elf *elf, uint8_t *id, uint32_t *size)
{	Elf_Scn *scn = NULL;

	*size = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		size_t offset = 0, name, desc;
		Elf_Data *data;
		GElf_Shdr shdr;
		GElf_Nhdr note;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data &&
		       (offset = gelf_getnote(data, offset, &note, &name, &desc))) {
			const char *bytes = data->d_buf;

			if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
			    !memcmp(bytes + name, "GNU", 4) &&
			    note.n_descsz <= SLEEPY_BUILD_ID_MAX) {
				memcpy(id, bytes + desc, note.n_descsz);
				*size = note.n_descsz;
				return;
			}
		}
	}
}

/*
 * The separate debug file of @dso by its build-id, under the symfs,
 * opened; NULL if there is none, or (said once on the warnings) if it
 * cannot be read or its build-id differs.
 */
static Elf *open_debug_file(struct sleepy_dsos *dsos, struct sleepy_dso *dso,
			    int *fd)
{
	char path[PATH_MAX], error[PATH_MAX + 64];
	uint8_t id[SLEEPY_BUILD_ID_MAX];
	uint32_t id_size, i;
	size_t len;
	GElf_Ehdr ehdr;
	Elf *elf;

	if (dso->debug_path)
		return open_elf(dso->debug_path, fd, &ehdr, error, sizeof(error));
	if (dso->debug_tried || dso->build_id_size < 2)
		return NULL;
	dso->debug_tried = true;
	len = snprintf(path, sizeof(path), "%s/usr/lib/debug/.build-id/%02x/",
		       dsos->symfs ?: "", dso->build_id[0]);
	for (i = 1; i < dso->build_id_size && len < sizeof(path); i++)
		len += snprintf(path + len, sizeof(path) - len, "%02x",
				dso->build_id[i]);
	if (len + sizeof(".debug") > sizeof(path))
		return NULL;
	strcat(path, ".debug");
	if (access(path, F_OK))
		return NULL;
	elf = open_elf(path, fd, &ehdr, error, sizeof(error));
	if (!elf) {
		fprintf(dsos->warnings, "sleepy-parse: %s; not used for symbols\n",
			error);
		return NULL;
	}
	read_build_id(elf, id, &id_size);
	if (id_size != dso->build_id_size ||
	    memcmp(id, dso->build_id, id_size)) {
		fprintf(dsos->warnings,
			"sleepy-parse: %s: build-id differs from %s's; not used for symbols\n",
			path, dso->path);
		elf_end(elf);
		close(*fd);
		return NULL;
	}
	dso->debug_path = strdup(path);
	return elf;
}

/* .symtab of @dso's separate debug file, if it has one; 0 if none. */
static int read_debug_functions(struct sleepy_dsos *dsos,
				struct sleepy_dso *dso)
{
	int fd, ret;
	Elf *elf = open_debug_file(dsos, dso, &fd);

	if (!elf)
		return 0;
	ret = read_functions(&dso->symbols, elf, SHT_SYMTAB, true,
			     !dsos->mangled);
	elf_end(elf);
	close(fd);
	return ret;
}

/* Reads what the lookup needs of @dso from @elf; -1 with a message in @error. */
static int dso_read(struct sleepy_dsos *dsos, struct sleepy_dso *dso, Elf *elf,
		    char *error, size_t error_size)
{
	bool demangle = !dsos->mangled;
	size_t n, i;

	if (elf_getphdrnum(elf, &n)) {
		snprintf(error, error_size, "%s: bad program headers", dso->path);
		return -1;
	}
	dso->loads = calloc(n + 1, sizeof(*dso->loads));
	if (!dso->loads) {
		snprintf(error, error_size, "%s: out of memory", dso->path);
		return -1;
	}
	for (i = 0; i < n; i++) {
		GElf_Phdr phdr;

		if (gelf_getphdr(elf, i, &phdr) && phdr.p_type == PT_LOAD)
			dso->loads[dso->nloads++] = (struct sleepy_load) {
				phdr.p_offset, phdr.p_vaddr, phdr.p_filesz,
			};
	}
	read_build_id(elf, dso->build_id, &dso->build_id_size);
	/*
	 * Stripped: the debug file's .symtab, else .dynsym, the exported
	 * functions at least.
	 */
	if (read_functions(&dso->symbols, elf, SHT_SYMTAB, true, demangle) ||
	    (!dso->symbols.count && read_debug_functions(dsos, dso)) ||
	    (!dso->symbols.count &&
	     read_functions(&dso->symbols, elf, SHT_DYNSYM, true, demangle))) {
		snprintf(error, error_size, "%s: bad symbol table", dso->path);
		return -1;
	}
	if (!dso->symbols.count) {
		snprintf(error, error_size, "%s: no function symbols", dso->path);
		return -1;
	}
	if (read_plt(&dso->symbols, elf, demangle)) {
		snprintf(error, error_size, "%s: out of memory", dso->path);
		return -1;
	}
	symbols_sort(&dso->symbols);
	return 0;
}

/* Reads what the lookup needs of @dso->path; -1 with a message in @error. */
static int dso_load(struct sleepy_dsos *dsos, struct sleepy_dso *dso,
		    char *error, size_t error_size)
{
	GElf_Ehdr ehdr;
	int fd, ret;
	Elf *elf;

	elf = open_elf(dso->path, &fd, &ehdr, error, error_size);
	if (!elf)
		return -1;
	ret = dso_read(dsos, dso, elf, error, error_size);
	elf_end(elf);
	close(fd);
	return ret;
}

/*
 * The vDSO from the recording's image of it; -1 with a message in @error.
 * libelf reads it in place: the image outlives the dsos (the profile's).
 */
static int dso_load_vdso(struct sleepy_dsos *dsos, struct sleepy_dso *dso,
			 char *error, size_t error_size)
{
	Elf *elf;
	int ret;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)dsos->vdso, dsos->vdso_size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(error, error_size, "[vdso]: the recording's image is no ELF file");
		elf_end(elf);
		return -1;
	}
	ret = dso_read(dsos, dso, elf, error, error_size);
	elf_end(elf);
	return ret;
}

/*
 * A file is known by its device and inode where the recording has them,
 * so that one binary seen under two paths (a bind mount, a container's
 * root) is one file, read once; else by its path.
 */
static uint64_t dso_hash(const struct sleepy_mapping *map)
{
	if (!map->ino)
		return (uintptr_t)map->path;
	return map->ino * 0x9e3779b97f4a7c15ULL ^
	       ((uint64_t)map->dev_major << 32 | map->dev_minor);
}

static int dso_match(const void *slot, const void *arg)
{
	const struct sleepy_dso *dso = slot;
	const struct sleepy_mapping *map = arg;

	if (!map->ino)
		return !dso->ino && dso->key == map->path;
	return dso->ino == map->ino && dso->dev_major == map->dev_major &&
	       dso->dev_minor == map->dev_minor;
}

/* Opens @dso from @recorded, a path the recording gives it. */
static void dso_open_untimed(struct sleepy_dsos *dsos, struct sleepy_dso *dso,
		     const char *recorded, uint32_t flags)
{
	char error[PATH_MAX + 128];
	size_t size = strlen(dsos->symfs ?: "") + strlen(recorded) + 1;

	if (dso->ntried < DSO_PATHS_TRIED)
		dso->tried[dso->ntried++] = recorded;
	free(dso->path);
	dso->path = malloc(size);
	if (!dso->path) {
		snprintf(error, sizeof(error), "%s: out of memory", recorded);
	} else if (recorded[0] == '[') {
		/* No file: of such mappings the recording has the vDSO's image. */
		snprintf(dso->path, size, "%s", recorded);
		if (strcmp(recorded, "[vdso]") || !dsos->vdso)
			return;
		dso->usable = !dso_load_vdso(dsos, dso, error, sizeof(error));
	} else if (recorded[0] != '/' || (flags & SLEEPY_MMAP_PATH_TRUNCATED)) {
		/* A relative or cut path would name another file. */
		snprintf(error, sizeof(error),
			 "%s: not the whole path in the recording", recorded);
	} else {
		snprintf(dso->path, size, "%s%s", dsos->symfs ?: "", recorded);
		dso->usable = !dso_load(dsos, dso, error, sizeof(error));
	}
	if (!dso->usable)
		fprintf(dsos->warnings, "sleepy-parse: %s; not used for symbols\n",
			error);
}

/* dso_open_untimed(), timed: what reading files costs is told apart (--times). */
static void dso_open(struct sleepy_dsos *dsos, struct sleepy_dso *dso,
		     const char *recorded, uint32_t flags)
{
	double start = sleepy_cpu_seconds();

	dso_open_untimed(dsos, dso, recorded, flags);
	dsos->open_seconds += sleepy_cpu_seconds() - start;
	dsos->opened++;
}

/* Whether @dso could not be found at any path tried yet but @recorded. */
static bool dso_worth_trying(const struct sleepy_dso *dso,
			     const char *recorded)
{
	unsigned int i;

	if (dso->usable || dso->loads || dso->ntried == DSO_PATHS_TRIED)
		return false;
	for (i = 0; i < dso->ntried; i++)
		if (dso->tried[i] == recorded)
			return false;
	return true;
}

/*
 * The file of @map, read on first use (and named if it cannot be used);
 * a file not found at one of its paths is looked for at the next one a
 * mapping gives.
 */
static struct sleepy_dso *dso_of(struct sleepy_dsos *dsos,
				 const struct sleepy_mapping *map)
{
	struct sleepy_dso *dso = sleepy_table_get(&dsos->files, dso_hash(map),
						  dso_match, map);
	const char *base;

	if (dso->key) {
		if (dso_worth_trying(dso, map->path))
			dso_open(dsos, dso, map->path, map->flags);
		return dso;
	}
	base = strrchr(map->path, '/');
	dso->key = map->path;
	dso->ino = map->ino;
	dso->dev_major = map->dev_major;
	dso->dev_minor = map->dev_minor;
	dso->name = strdup(base ? base + 1 : map->path);
	if (!dso->name) {
		fprintf(stderr, "sleepy: out of memory\n");
		exit(1);
	}
	sleepy_sanitise_name(dso->name);
	dso_open(dsos, dso, map->path, map->flags);
	return dso;
}

/*
 * The address in @map's file's own layout of @ip, in *@vaddr: false if the
 * file cannot be used or does not hold @ip.
 */
static bool file_vaddr(struct sleepy_dsos *dsos, struct sleepy_dso *dso,
		       const struct sleepy_mapping *map, uint64_t ip,
		       uint64_t *vaddr)
{
	uint64_t offset = ip - map->start + map->pgoff;
	size_t i;

	if (!dso->usable)
		return false;
	if (map->build_id_size && dso->build_id_size &&
	    (map->build_id_size != dso->build_id_size ||
	     memcmp(map->build_id, dso->build_id, dso->build_id_size))) {
		if (!dso->build_id_warned)
			fprintf(dsos->warnings,
				"sleepy-parse: %s: build-id differs from the recording's; not used for symbols\n",
				dso->path);
		dso->build_id_warned = true;
		return false;
	}
	for (i = 0; i < dso->nloads; i++) {
		const struct sleepy_load *load = &dso->loads[i];

		if (offset - load->offset < load->filesz) {
			*vaddr = offset - load->offset + load->vaddr;
			return true;
		}
	}
	return false;
}

const char *sleepy_dsos_name(struct sleepy_dsos *dsos,
			     const struct sleepy_mapping *map)
{
	return dso_of(dsos, map)->name;
}

const struct sleepy_symbol *sleepy_dsos_find(struct sleepy_dsos *dsos,
					     const struct sleepy_mapping *map,
					     uint64_t ip, const char **dso_name)
{
	struct sleepy_dso *dso = dso_of(dsos, map);
	uint64_t vaddr;

	*dso_name = dso->name;
	if (!file_vaddr(dsos, dso, map, ip, &vaddr))
		return NULL;
	return sleepy_symbols_find(&dso->symbols, vaddr);
}

/* .debug_str, .debug_line_str, their .zdebug_ and .dwo variants */
static bool is_dwarf_string_section(const char *name)
{
	size_t len;

	if (!strncmp(name, ".zdebug_", 8))
		name += 8;
	else if (!strncmp(name, ".debug_", 7))
		name += 7;
	else
		return false;
	len = strlen(name);
	if (len >= 4 && !strcmp(name + len - 4, ".dwo"))
		len -= 4;
	return (len == 3 && !strncmp(name, "str", 3)) ||
	       (len == 8 && !strncmp(name, "line_str", 8));
}

/*
 * libdw checks a string's offset against its section's size, then reads
 * the string with strlen(): a string section that does not end with a NUL
 * (a corrupt or hostile file) lets it read past the section.  Checked on
 * the sections as libdw sees them, decompressed by dwarf_begin_elf().
 * False if any is not a NUL-terminated buffer.
 */
static bool dwarf_strings_terminated(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t strndx;

	if (elf_getshdrstrndx(elf, &strndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr) ||
		    !(name = elf_strptr(elf, strndx, shdr.sh_name)) ||
		    !is_dwarf_string_section(name))
			continue;
		data = elf_getdata(scn, NULL);
		/* No bytes for a size (SHT_NOBITS) is no string section either. */
		if (data && data->d_size &&
		    (!data->d_buf ||
		     ((const char *)data->d_buf)[data->d_size - 1]))
			return false;
	}
	return true;
}

/*
 * The DWARF of @elf (@path), or NULL (and @elf closed) if it has none or
 * none that libdw can read safely.
 */
static Dwarf *dwarf_or_close(struct sleepy_dsos *dsos, const char *path,
			     Elf *elf, int fd)
{
	Dwarf *dwarf = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;

	if (dwarf && !dwarf_strings_terminated(elf)) {
		fprintf(dsos->warnings,
			"sleepy-parse: %s: corrupt DWARF (a string section without its final NUL); no source lines from it\n",
			path);
		dwarf_end(dwarf);
		dwarf = NULL;
	}
	if (elf && !dwarf) {
		elf_end(elf);
		close(fd);
	}
	return dwarf;
}

/*
 * @dso's DWARF, opened on first use: the file's own, else its separate
 * debug file's; NULL if neither has any.
 */
static Dwarf *dwarf_of(struct sleepy_dsos *dsos, struct sleepy_dso *dso)
{
	char error[PATH_MAX + 64];
	GElf_Ehdr ehdr;

	if (dso->dwarf_tried)
		return dso->dwarf;
	dso->dwarf_tried = true;
	dso->dwarf_elf = open_elf(dso->path, &dso->dwarf_fd, &ehdr, error,
				  sizeof(error));
	dso->dwarf = dwarf_or_close(dsos, dso->path, dso->dwarf_elf,
				    dso->dwarf_fd);
	if (!dso->dwarf) {
		dso->dwarf_elf = open_debug_file(dsos, dso, &dso->dwarf_fd);
		/* Opened, it is dso->debug_path. */
		dso->dwarf = dwarf_or_close(dsos, dso->debug_path,
					    dso->dwarf_elf, dso->dwarf_fd);
	}
	return dso->dwarf;
}

bool sleepy_dsos_srcline(struct sleepy_dsos *dsos,
			 const struct sleepy_mapping *map, uint64_t ip,
			 char *buf, size_t size)
{
	struct sleepy_dso *dso = dso_of(dsos, map);
	const char *file, *base;
	Dwarf_Die cu;
	Dwarf_Line *line;
	uint64_t vaddr;
	Dwarf *dwarf;
	int lineno;

	if (!file_vaddr(dsos, dso, map, ip, &vaddr))
		return false;
	dwarf = dwarf_of(dsos, dso);
	if (!dwarf || !dwarf_addrdie(dwarf, vaddr, &cu))
		return false;
	line = dwarf_getsrc_die(&cu, vaddr);
	if (!line || dwarf_lineno(line, &lineno) ||
	    !(file = dwarf_linesrc(line, NULL, NULL)))
		return false;
	base = strrchr(file, '/');
	snprintf(buf, size, "%s:%d", base ? base + 1 : file, lineno);
	return true;
}
