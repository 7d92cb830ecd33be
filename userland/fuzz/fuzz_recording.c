// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: does with its input what sleepy-parse does with a
 * file -- check the header, read every record, aggregate, sort and write
 * every report in every format, the call-stack reports, the folded stacks, the flame graphs, the
 * speedscope files and the pprof profile (compressed to /dev/null) -- through the same library
 * calls.  An
 * in-memory symbol table stands in for "-s loop" so that the report by
 * function runs too.  The files a recording's mappings name are looked
 * for under a --symfs that does not exist: the mappings are looked up,
 * but no file is read (the ELF files are not the input under test); the
 * vDSO image a recording holds is, as sleepy-parse reads it.  Then the
 * profile goes on to a next interval, as sleepy-agent's does, and its
 * pprof profile is written again.
 * replay.c runs the same function without libFuzzer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/profile.h"
#include "record/recording.h"
#include "report/diff.h"
#include "export/flamegraph.h"
#include "export/folded.h"
#include "export/pprof.h"
#include "report/report.h"
#include "export/speedscope.h"
#include "model/symbols.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Sorted by address, as sleepy_symbols_load() leaves them; "empty" has
 * size 0, so only its own address resolves to it.
 */
static struct sleepy_symbol loop_syms[] = {
	{ .start = 0x401000, .size = 0x40, .name = "main" },
	{ .start = 0x401040, .size = 0, .name = "empty" },
	{ .start = 0x401100, .size = 0x100, .name = "loop" },
};
static const struct sleepy_symbols loop_symbols = {
	.app_name = "loop",
	.syms = loop_syms,
	.count = ARRAY_SIZE(loop_syms),
};

static const enum sleepy_format formats[] = {
	SLEEPY_FORMAT_TEXT, SLEEPY_FORMAT_CSV, SLEEPY_FORMAT_JSON,
};

/* Every sample is counted once per application and once per IP. */
static void check_totals(struct sleepy_profile *profile)
{
	struct sleepy_app **apps;
	struct sleepy_ip_count *ips;
	uint64_t app_samples = 0, ip_samples = 0;
	size_t napps, nips, i;

	apps = sleepy_profile_apps(profile, &napps);
	ips = sleepy_profile_ips(profile, &nips);
	for (i = 0; i < napps; i++)
		app_samples += apps[i]->samples;
	for (i = 0; i < nips; i++)
		ip_samples += ips[i].samples;
	if (app_samples != profile->samples || ip_samples != profile->samples) {
		fprintf(stderr, "fuzz_recording: %llu samples, %llu by application, %llu by IP\n",
			(unsigned long long)profile->samples,
			(unsigned long long)app_samples,
			(unsigned long long)ip_samples);
		abort();
	}
	free(apps);
	free(ips);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* sleepy-parse -s loop --chain loop FILE, in each --format */
	struct sleepy_report_options everything = {
		.path = "fuzz.data",
		.symbols = &loop_symbols,
		.nsymbols = 1,
		.chain_name = "loop",
		.chain_depth = SLEEPY_CHAIN_MAX_DEPTH,
	};
	/* sleepy-parse --top 1 --app loop#1 FILE, in each --format */
	struct sleepy_report_options filtered = {
		.path = "fuzz.data",
		.top = 1,
		.app_name = "loop",
		.app_instance = 1,
	};
	/* sleepy-parse --sort with every key */
	struct sleepy_report_options sorted = {
		.path = "fuzz.data",
		.symbols = &loop_symbols,
		.nsymbols = 1,
		.sort = { SLEEPY_SORT_SYM, SLEEPY_SORT_DSO, SLEEPY_SORT_APP,
			  SLEEPY_SORT_COMM, SLEEPY_SORT_PID, SLEEPY_SORT_TID,
			  SLEEPY_SORT_IP },
		.nsort = 7,
	};
	/* sleepy-parse --sort cpu */
	struct sleepy_report_options by_cpu = {
		.path = "fuzz.data",
		.sort = { SLEEPY_SORT_CPU },
		.nsort = 1,
	};
	/* sleepy-parse --irq-per-cpu --irq-intervals --top 1 */
	struct sleepy_report_options irq_split = {
		.path = "fuzz.data",
		.top = 1,
		.irq_per_cpu = true,
		.irq_intervals = true,
	};
	/* sleepy-parse --children, --callers main, --callees loop */
	struct sleepy_report_options stacks = {
		.path = "fuzz.data",
		.symbols = &loop_symbols,
		.nsymbols = 1,
	};
	static FILE *sink;
	struct sleepy_profile profile;
	struct sleepy_dsos dsos;
	struct sleepy_recording rec;
	size_t i;

	/* Opened once: the formatting is what is under test, not the I/O. */
	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!sink)
		abort();

	if (sleepy_recording_open_mem(&rec, data, size)) {
		sleepy_recording_close(&rec);
		return 0;
	}
	sleepy_profile_init(&profile);
	sleepy_profile_read(&profile, &rec);
	check_totals(&profile);
	sleepy_dsos_init(&dsos, "/nonexistent-sleepy-symfs", sink);
	dsos.vdso = profile.vdso;
	dsos.vdso_size = profile.vdso_size;
	everything.dsos = &dsos;
	sorted.dsos = &dsos;
	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		everything.format = formats[i];
		filtered.format = formats[i];
		sleepy_report(sink, &everything, &profile, &rec);
		sleepy_report(sink, &filtered, &profile, &rec);
	}
	/* sleepy-parse --sort sym,dso,app,comm,pid,tid,ip -s loop FILE */
	sorted.format = formats[size % ARRAY_SIZE(formats)];
	sleepy_report(sink, &sorted, &profile, &rec);
	by_cpu.format = formats[(size + 1) % ARRAY_SIZE(formats)];
	sleepy_report(sink, &by_cpu, &profile, &rec);
	for (i = SLEEPY_STACKS_CHILDREN; i <= SLEEPY_STACKS_CALLEES; i++) {
		stacks.stack_view = i;
		stacks.stack_function = i == SLEEPY_STACKS_CALLERS ? "main" : "loop";
		stacks.format = formats[(size + i) % ARRAY_SIZE(formats)];
		sleepy_report(sink, &stacks, &profile, &rec);
	}
	/* sleepy-parse --folded cpu|offcpu, with either set of options */
	for (i = SLEEPY_FOLDED_CPU; i <= SLEEPY_FOLDED_OFFCPU; i++) {
		sleepy_folded(sink, &everything, i, &profile, &rec);
		sleepy_folded(sink, &filtered, i, &profile, &rec);
		sleepy_flamegraph(sink, &everything, i, &profile, &rec);
		sleepy_flamegraph(sink, &filtered, i, &profile, &rec);
		sleepy_speedscope(sink, &everything, i, &profile, &rec);
		sleepy_speedscope(sink, &filtered, i, &profile, &rec);
	}
	/* sleepy-parse --pprof /dev/null, with either set of options */
	sleepy_pprof_write("/dev/null", &everything, &profile, &rec);
	sleepy_pprof_write("/dev/null", &filtered, &profile, &rec);
	/* The interrupt totals read again, apart per CPU and interval. */
	if (profile.irqs) {
		struct sleepy_profile split;

		sleepy_profile_init(&split);
		split.irq_by_cpu = split.irq_by_interval = true;
		sleepy_recording_close(&rec);
		if (!sleepy_recording_open_mem(&rec, data, size)) {
			sleepy_profile_read(&split, &rec);
			irq_split.format = formats[size % ARRAY_SIZE(formats)];
			sleepy_report(sink, &irq_split, &split, &rec);
		}
		sleepy_profile_free(&split);
	}
	/* sleepy-parse diff FILE FILE */
	sleepy_diff_report(sink, &(struct sleepy_diff_options){ .path_a = "a", .path_b = "b" },
			   &profile, rec.header.start_time_ns,
			   &profile, rec.header.start_time_ns);
	/* sleepy-agent: the next interval keeps what runs; its profile. */
	if (sleepy_profile_next_interval(&profile, size)) {
		sleepy_dsos_free(&dsos);
		sleepy_dsos_init(&dsos, "/nonexistent-sleepy-symfs", sink);
	}
	check_totals(&profile);
	sleepy_pprof_write_interval("/dev/null", &everything, &profile,
				    rec.header.frequency, 0, 1);
	sleepy_dsos_free(&dsos);
	sleepy_profile_free(&profile);
	sleepy_recording_close(&rec);
	return 0;
}
