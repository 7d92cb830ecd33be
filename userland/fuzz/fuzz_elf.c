// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: its input is a file that a recording's mapping names
 * (or "-s BINARY" gives): sleepy-parse reads its symbols (.symtab, then
 * .dynsym), its build-id, the DWARF line table and a separate debug file
 * by build-id through libelf and libdw.  The input is written to a memfd
 * and read back through its /proc/self/fd path, as sleepy-parse reads any
 * file: loaded as "-s", then looked up at 16 IPs of a mapping of it, once
 * without a build-id and once with one taken from the input (a mismatch
 * path).  replay.c runs the same function without libFuzzer.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/profile.h"
#include "model/symbols.h"

#define LOOKUPS	16

static void look_up(const char *path, const uint8_t *data, size_t size,
		    bool with_build_id, FILE *sink)
{
	struct sleepy_mapping map = {
		.start = 0x400000, .len = size ?: 1, .path = path,
	};
	struct sleepy_dsos dsos;
	const char *dso;
	char line[256];
	size_t i;

	if (with_build_id) {
		map.build_id_size = size < SLEEPY_BUILD_ID_MAX ? size :
							       SLEEPY_BUILD_ID_MAX;
		memcpy(map.build_id, data, map.build_id_size);
	}
	sleepy_dsos_init(&dsos, NULL, sink);
	for (i = 0; i < LOOKUPS; i++) {
		uint64_t ip = map.start + i * (map.len / LOOKUPS);

		sleepy_dsos_find(&dsos, &map, ip, &dso);
		sleepy_dsos_srcline(&dsos, &map, ip, line, sizeof(line));
	}
	sleepy_dsos_free(&dsos);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sleepy_symbols symbols = {};
	char path[64], error[256];
	static FILE *sink;
	int fd;
	size_t i;

	if (!sink)
		sink = fopen("/dev/null", "w");
	fd = memfd_create("sleepy-fuzz-elf", 0);
	if (!sink || fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	if (!sleepy_symbols_load(&symbols, path, true, error, sizeof(error))) {
		for (i = 0; i < symbols.count; i++)
			sleepy_symbols_find(&symbols, symbols.syms[i].start);
		sleepy_symbols_free(&symbols);
	}
	look_up(path, data, size, false, sink);
	look_up(path, data, size, true, sink);
	close(fd);
	return 0;
}
