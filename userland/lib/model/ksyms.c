// SPDX-License-Identifier: GPL-2.0
/* Kernel symbols: noted by the drainer, kept in the recording; see ksyms.h. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "model/ksyms.h"
#include "record/recording.h"
#include "model/table.h"

static void *grow(void *array, size_t *size, size_t elem)
{
	*size = *size * 2 ?: 256;
	array = realloc(array, *size * elem);
	if (!array) {
		fprintf(stderr, "sleepy: out of memory\n");
		exit(1);
	}
	return array;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts and deduplicates; returns the number of distinct IPs. */
static size_t ips_compact(struct sleepy_kernel_ips *set)
{
	size_t i, n = 0;

	qsort(set->ips, set->count, sizeof(*set->ips), cmp_u64);
	for (i = 0; i < set->count; i++)
		if (!n || set->ips[n - 1] != set->ips[i])
			set->ips[n++] = set->ips[i];
	set->count = n;
	return n;
}

static void ips_add(struct sleepy_kernel_ips *set, uint64_t ip)
{
	if (!ip)
		return;
	/* A hot loop repeats its last IPs: skip the cheap duplicates. */
	if (set->count && set->ips[set->count - 1] == ip)
		return;
	if (set->count == set->size) {
		/* Compacting frees room unless most IPs are distinct. */
		if (set->size && ips_compact(set) < set->size / 2)
			goto add;
		set->ips = grow(set->ips, &set->size, sizeof(*set->ips));
	}
add:
	set->ips[set->count++] = ip;
}

/*
 * A sample's kernel IP and its kernel stack's; a return address is named
 * by the call before it (callgraph.c), so that is the address kept.
 */
static void note_sample(struct sleepy_kernel_ips *set,
			const struct sleepy_sample *sample)
{
	const struct sleepy_callchain *chain = sleepy_sample_callchain(sample);
	unsigned int i;

	ips_add(set, sample->kernel_ip);
	if (!chain || sample->header.size < sizeof(*sample) + sizeof(*chain) +
					    chain->nr_kernel * sizeof(chain->ips[0]))
		return;
	for (i = 1; i < chain->nr_kernel; i++)
		ips_add(set, chain->ips[i] - 1);
}

void sleepy_kernel_ips_note(struct sleepy_kernel_ips *set,
			    const void *records, size_t len)
{
	const unsigned char *p = records;
	size_t off = 0;

	while (len - off >= sizeof(struct sleepy_record_header)) {
		const struct sleepy_record_header *h = (const void *)(p + off);

		if (h->size < sizeof(*h) || h->size > len - off)
			return;	/* the reader reports it */
		if (h->type == SLEEPY_REC_SAMPLE &&
		    h->size >= sizeof(struct sleepy_sample))
			note_sample(set, (const void *)h);
		else if (h->type == SLEEPY_REC_SWITCH &&
			 h->size >= sizeof(struct sleepy_switch))
			ips_add(set, ((const struct sleepy_switch *)h)->kernel_ip);
		off += h->size;
	}
}

void sleepy_kernel_ips_free(struct sleepy_kernel_ips *set)
{
	free(set->ips);
	*set = (struct sleepy_kernel_ips) {};
}

/* A kallsyms line: "ffffffff81000000 T name" or "... t name\t[module]". */
struct kallsym {
	uint64_t addr;
	char *name;
};

static int cmp_kallsyms(const void *a, const void *b)
{
	const struct kallsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name; /* file order */
}

/*
 * The text symbols of @path, sorted by address; NULL (and *@n 0) if none
 * or if every address reads as 0 (kptr_restrict hides them).
 */
static struct kallsym *read_kallsyms(const char *path, size_t *n,
				     char **text_out)
{
	FILE *f = fopen(path, "r");
	struct kallsym *syms = NULL;
	size_t size = 0, tlen = 0, tsize = 0, i;
	char line[512], *text = NULL;
	bool visible = false;

	*n = 0;
	if (!f)
		return NULL;
	/* Names go into one text block; name pointers are offsets until done. */
	while (fgets(line, sizeof(line), f)) {
		char type, name[256], module[128] = "";
		unsigned long long addr;
		int len;

		if (sscanf(line, "%llx %c %255s %127s", &addr, &type, name,
			   module) < 3 || !strchr("tTwW", type))
			continue;
		visible |= addr != 0;
		len = snprintf(line, sizeof(line), "%s%s%s", name,
			       module[0] ? " " : "", module);
		while (tlen + len + 1 > tsize)
			text = grow(text, &tsize, 1);
		memcpy(text + tlen, line, len + 1);
		if (*n == size)
			syms = grow(syms, &size, sizeof(*syms));
		syms[(*n)++] = (struct kallsym) {
			.addr = addr, .name = (char *)(uintptr_t)tlen,
		};
		tlen += len + 1;
	}
	fclose(f);
	if (!visible) {
		free(syms);
		free(text);
		*n = 0;
		return NULL;
	}
	for (i = 0; i < *n; i++)
		syms[i].name = text + (uintptr_t)syms[i].name;
	qsort(syms, *n, sizeof(*syms), cmp_kallsyms);
	*text_out = text;
	return syms;
}

/* Appends @line to @text, writing @text out as a record when it is full. */
static int add_line(int fd, char *text, size_t *used, const char *line)
{
	size_t len = strlen(line);

	if (*used + len >= SLEEPY_TEXT_MAX) {
		if (sleepy_text_write(fd, SLEEPY_REC_KERNEL_SYMBOLS, text, *used))
			return -1;
		*used = 0;
	}
	memcpy(text + *used, line, len);
	*used += len;
	return 0;
}

int sleepy_kernel_symbols_write(int fd, struct sleepy_kernel_ips *set,
				const char *kallsyms)
{
	struct kallsym *syms;
	char *names = NULL, *text, line[512];
	size_t n, i, used = 0;
	ssize_t last = -1;
	int err = 0;

	if (!ips_compact(set))
		return 0;
	syms = read_kallsyms(kallsyms, &n, &names);
	text = malloc(SLEEPY_TEXT_MAX);
	for (i = 0; syms && text && !err && i < set->count; i++) {
		ssize_t s = (ssize_t)sleepy_count_at_or_below(syms, n, sizeof(*syms),
							      set->ips[i]) - 1;
		size_t next;

		/* Aliases share an address: the first in the file names it. */
		while (s > 0 && syms[s - 1].addr == syms[s].addr)
			s--;
		if (s < 0 || s == last)
			continue;
		for (next = s + 1; next < n && syms[next].addr == syms[s].addr;)
			next++;
		if (next == n)
			continue;	/* past the last symbol: no known end */
		last = s;
		snprintf(line, sizeof(line), "%" PRIx64 " %" PRIx64 " %s\n",
			 syms[s].addr, syms[next].addr, syms[s].name);
		err = add_line(fd, text, &used, line);
	}
	if (!err && used)
		err = sleepy_text_write(fd, SLEEPY_REC_KERNEL_SYMBOLS, text, used);
	free(text);
	free(syms);
	free(names);
	return err;
}

void sleepy_ksyms_add_text(struct sleepy_ksyms *ksyms, const char *text,
			   size_t len)
{
	const char *end = text + strnlen(text, len), *nl;

	for (; text < end; text = nl + 1) {
		char line[512], name[256], module[256] = "";
		unsigned long long start, stop;

		nl = memchr(text, '\n', end - text);
		if (!nl)
			nl = end;
		if (nl - text >= (ptrdiff_t)sizeof(line))
			continue;
		memcpy(line, text, nl - text);
		line[nl - text] = '\0';
		if (sscanf(line, "%llx %llx %255s %255s", &start, &stop, name,
			   module) < 3 || stop <= start)
			continue;
		if (ksyms->count == ksyms->size)
			ksyms->syms = grow(ksyms->syms, &ksyms->size,
					   sizeof(*ksyms->syms));
		ksyms->syms[ksyms->count++] = (struct sleepy_ksym) {
			.start = start, .end = stop, .name = strdup(name),
			.module = module[0] ? strdup(module) : NULL,
		};
		ksyms->sorted = false;
	}
}

static int cmp_ksyms(const void *a, const void *b)
{
	const struct sleepy_ksym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

const struct sleepy_ksym *sleepy_ksyms_find(struct sleepy_ksyms *ksyms,
					    uint64_t ip)
{
	size_t n;

	if (!ksyms->sorted) {
		qsort(ksyms->syms, ksyms->count, sizeof(*ksyms->syms), cmp_ksyms);
		sleepy_start_index_free(&ksyms->index);
		sleepy_start_index_build(&ksyms->index, ksyms->syms,
					 ksyms->count, sizeof(*ksyms->syms));
		ksyms->sorted = true;
	}
	n = sleepy_start_index_count(&ksyms->index, ksyms->syms, ksyms->count,
				     sizeof(*ksyms->syms), ip);
	if (!n || ip >= ksyms->syms[n - 1].end)
		return NULL;
	return &ksyms->syms[n - 1];
}

void sleepy_ksyms_free(struct sleepy_ksyms *ksyms)
{
	size_t i;

	for (i = 0; i < ksyms->count; i++) {
		free(ksyms->syms[i].name);
		free(ksyms->syms[i].module);
	}
	free(ksyms->syms);
	sleepy_start_index_free(&ksyms->index);
	*ksyms = (struct sleepy_ksyms) {};
}
