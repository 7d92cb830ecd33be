/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols in a recording.  While it drains, the drainer notes the
 * kernel IPs the records carry (sleepy_kernel_ips); at the stop it keeps,
 * from /proc/kallsyms, the text symbols that contain them, as
 * SLEEPY_REC_KERNEL_SYMBOLS records ("start end name" lines, in hex), so
 * that sleepy-parse names kernel frames wherever it reads the recording.
 * Where /proc/kallsyms hides the addresses (kptr_restrict) nothing is
 * kept, and kernel frames stay [kernel] or their address.
 */
#ifndef SLEEPY_KSYMS_H
#define SLEEPY_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/table.h"

/* The distinct kernel IPs seen: sorted and deduplicated as it grows. */
struct sleepy_kernel_ips {
	uint64_t *ips;
	size_t count, size;
};

/* Notes the kernel IPs of the records in @len bytes at @records. */
void sleepy_kernel_ips_note(struct sleepy_kernel_ips *set,
			    const void *records, size_t len);
/*
 * Writes to @fd the symbols of @kallsyms (a /proc/kallsyms) that contain
 * the IPs of @set.  Returns -1 only if writing failed.
 */
int sleepy_kernel_symbols_write(int fd, struct sleepy_kernel_ips *set,
				const char *kallsyms);
void sleepy_kernel_ips_free(struct sleepy_kernel_ips *set);

struct sleepy_ksym {
	uint64_t start, end;
	char *name;
	char *module;		/* "[module]", NULL in the kernel image */
};

/* The symbols a recording kept, for lookups once read. */
struct sleepy_ksyms {
	struct sleepy_ksym *syms;
	size_t count, size;
	bool sorted;			/* and @index built */
	struct sleepy_start_index index;
};

/* Adds the lines of a SLEEPY_REC_KERNEL_SYMBOLS record's @len bytes of text. */
void sleepy_ksyms_add_text(struct sleepy_ksyms *ksyms, const char *text,
			   size_t len);
/* The symbol containing kernel IP @ip, or NULL. */
const struct sleepy_ksym *sleepy_ksyms_find(struct sleepy_ksyms *ksyms,
					    uint64_t ip);
void sleepy_ksyms_free(struct sleepy_ksyms *ksyms);

#endif
