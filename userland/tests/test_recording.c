// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the recording reader, the aggregation, the symbol
 * lookup, the option parsers and the reports' computations.  TAP output; exit status 1 on failure.
 * Argument: the build directory (for a benchmark binary with symbols).
 *
 * Linked dynamically, unlike the tools: the tests of the mappings name
 * functions of this program's own PIE and of the libc it runs with, from
 * their real mappings in /proc/self/maps.
 */
#define _GNU_SOURCE	/* dl_iterate_phdr(), memmem() */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <inttypes.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <zlib.h>

#include "report/output.h"
#include "export/pprof.h"
#include "pprof.pb-c.h"
#include "model/profile.h"
#include "report/diff.h"
#include "export/flamegraph.h"
#include "report/callgraph.h"
#include "export/folded.h"
#include "session/intervals.h"
#include "model/ksyms.h"
#include "model/irq.h"
#include "record/recording.h"
#include "report/report.h"
#include "report/sort_report.h"
#include "model/sched_replay.h"
#include "session/session.h"
#include "export/speedscope.h"
#include "model/symbols.h"

/* The TAP plan, printed first: the runner fails a run that prints more or fewer. */
#define PLANNED_TESTS 144

static int failures, tests;

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	tests++;
	failures += !ok;
	printf("%s %d - ", ok ? "ok" : "not ok", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* A recording under construction. */
struct builder {
	unsigned char *data;
	size_t size;
	size_t capacity;
};

/*
 * Grown by doubling: a test of hundreds of thousands of records grown a
 * record at a time copied the whole recording each time where realloc()
 * cannot grow in place (AddressSanitizer's), and never ended there.
 */
static void put(struct builder *b, const void *p, size_t len)
{
	if (!len)
		return;
	if (b->size + len > b->capacity) {
		b->capacity = 2 * (b->size + len);
		b->data = realloc(b->data, b->capacity);
		if (!b->data) {
			perror("test_recording");
			exit(1);
		}
	}
	memcpy(b->data + b->size, p, len);
	b->size += len;
}

static void put_header(struct builder *b, uint32_t ncpus)
{
	struct sleepy_attr attr = { .frequency = 1000 };
	struct sleepy_file_header h;

	sleepy_file_header_init(&h, &attr, ncpus, 1000);
	put(b, &h, sizeof(h));
}

static void put_app(struct builder *b, uint32_t appid, const char *name,
		    uint32_t instance)
{
	struct sleepy_app_start a = {
		.header = { SLEEPY_REC_APP_START, sizeof(a), 0 },
		.appid = appid, .pid = 100 + appid, .instance = instance,
	};

	memcpy(a.name, name, strnlen(name, sizeof(a.name)));
	put(b, &a, sizeof(a));
}

static void put_sample(struct builder *b, uint32_t appid, uint64_t ip,
		       uint32_t cpu, uint32_t flags)
{
	struct sleepy_sample s = {
		.header = { SLEEPY_REC_SAMPLE, sizeof(s), cpu },
		.time_ns = 2000 + b->size, .user_ip = ip, .appid = appid,
		.flags = flags,
	};

	put(b, &s, sizeof(s));
}

static void put_trailer(struct builder *b, uint64_t samples, uint64_t dropped)
{
	struct sleepy_cpu_stats st = {
		.header = { SLEEPY_REC_CPU_STATS, sizeof(st), 0 },
		.samples = samples, .dropped = dropped,
	};
	struct sleepy_end end = {
		.header = { SLEEPY_REC_END, sizeof(end), 0 }, .time_ns = 9000,
	};

	put(b, &st, sizeof(st));
	put(b, &end, sizeof(end));
}

/* Reads @b completely; returns the profile's sample count or -1. */
static long read_all(struct builder *b, struct sleepy_recording *rec,
		     struct sleepy_profile *profile)
{
	sleepy_profile_init(profile);
	if (sleepy_recording_open_mem(rec, b->data, b->size))
		return -1;
	sleepy_profile_read(profile, rec);
	return profile->samples;
}

static struct builder good_recording(void)
{
	struct builder b = {};
	int i;

	put_header(&b, 2);
	put_app(&b, 1, "loop", 1);
	put_app(&b, 2, "loop", 2);
	for (i = 0; i < 30; i++)
		put_sample(&b, 1, 0x401000 + (i % 3) * 4, i % 2, 0);
	for (i = 0; i < 10; i++)
		put_sample(&b, 2, 0x401000, 0, 0);
	put_sample(&b, 0, 0xffff, 1, SLEEPY_SAMPLE_IN_KERNEL);
	put_trailer(&b, 41, 0);
	return b;
}

static void test_good(void)
{
	struct builder b = good_recording();
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct sleepy_app **apps;
	struct sleepy_ip_count *ips;
	size_t napps, nips;

	check(read_all(&b, &rec, &p) == 41, "good recording: 41 samples read");
	check(rec.finished && !rec.error[0], "good recording: complete, no error");
	check(p.totals.samples == 41 && p.stats_cpus == 1, "trailer statistics summed");
	check(p.kernel_samples == 1, "kernel-mode samples counted");
	apps = sleepy_profile_apps(&p, &napps);
	check(napps == 3 && !strcmp(apps[0]->label, "loop#1") &&
	      apps[0]->samples == 30 && !strcmp(apps[1]->label, "loop#2") &&
	      !strcmp(apps[2]->label, "[unknown]"),
	      "by application: sorted, instances apart, unknown labelled");
	ips = sleepy_profile_ips(&p, &nips);
	check(nips == 5 && ips[0].samples == 10 && ips[0].appid == 1 &&
	      ips[0].ip == 0x401000 && ips[1].samples == 10,
	      "by application and IP: 5 rows, ties ordered by appid");
	free(apps);
	free(ips);
	sleepy_profile_free(&p);
	free(b.data);
}

/* A trailer whose CPU_STATS record is @stats_size bytes long. */
static long read_with_stats_size(uint16_t stats_size, uint64_t missed,
				 struct sleepy_profile *p)
{
	struct sleepy_cpu_stats st = {
		.header = { SLEEPY_REC_CPU_STATS, stats_size, 1 },
		.samples = 7, .idle = 3, .missed = missed,
	};
	struct sleepy_end end = {
		.header = { SLEEPY_REC_END, sizeof(end), 0 }, .time_ns = 9000,
	};
	struct builder b = {};
	struct sleepy_recording rec;
	long n;

	put_header(&b, 2);
	put(&b, &st, stats_size);
	put(&b, &end, sizeof(end));
	n = read_all(&b, &rec, p);
	if (n >= 0 && (rec.error[0] || !rec.finished))
		n = -1;
	free(b.data);
	return n;
}

static void test_stats_sizes(void)
{
	struct sleepy_profile p;

	check(read_with_stats_size(sizeof(struct sleepy_cpu_stats), 5, &p) == 0 &&
	      p.totals.samples == 7 && p.totals.idle == 3 &&
	      p.totals.missed == 5, "CPU statistics: missed periods summed");
	sleepy_profile_free(&p);
	check(read_with_stats_size(SLEEPY_CPU_STATS_SIZE_VER0, 5, &p) == 0 &&
	      p.totals.samples == 7 && p.totals.idle == 3 &&
	      p.totals.missed == 0,
	      "CPU statistics of the first format: read, missed as 0");
	sleepy_profile_free(&p);
	check(read_with_stats_size(SLEEPY_CPU_STATS_SIZE_VER0 - 8, 5, &p) == -1,
	      "CPU statistics shorter than the first format: refused");
	sleepy_profile_free(&p);
}

static void test_many_ips(void)
{
	struct builder b = {};
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct sleepy_ip_count *ips;
	size_t nips, i;
	uint64_t sum = 0;

	put_header(&b, 1);
	for (i = 0; i < 20000; i++)
		put_sample(&b, 1 + i % 7, 0x400000 + (i % 5000) * 16, 0, 0);
	put_trailer(&b, 20000, 0);
	read_all(&b, &rec, &p);
	ips = sleepy_profile_ips(&p, &nips);
	for (i = 0; i < nips; i++)
		sum += ips[i].samples;
	/* 5000 IPs x 7 apps repeat with period lcm(5000, 7) = 35000 > 20000 */
	check(nips == 20000 && sum == 20000, "table growth keeps every distinct key (%zu rows)", nips);
	free(ips);
	sleepy_profile_free(&p);
	free(b.data);
}

static void expect_open_error(struct builder *b, const char *needle,
			      const char *what)
{
	struct sleepy_recording rec;
	int ret = sleepy_recording_open_mem(&rec, b->data, b->size);

	check(ret == -1 && strstr(rec.error, needle), "%s: refused (%s)", what,
	      rec.error);
}

static void test_bad_headers(void)
{
	struct builder b = {};
	struct sleepy_file_header *h;

	put(&b, "", 0);
	expect_open_error(&b, "bad magic", "empty file");
	put(&b, "SLEEPYRC", 8);
	expect_open_error(&b, "truncated file header", "header cut short");
	free(b.data);

	b = good_recording();
	h = (void *)b.data;
	h->version = SLEEPY_FILE_VERSION + 1;
	expect_open_error(&b, "format version", "newer format version");
	h->version = SLEEPY_FILE_VERSION;
	h->machine = 183;	/* EM_AARCH64 */
	expect_open_error(&b, "ELF machine", "other architecture");
	h->machine = 62;
	h->byte_order = SLEEPY_BYTE_ORDER_BIG;
	expect_open_error(&b, "byte order", "other byte order");
	h->byte_order = SLEEPY_BYTE_ORDER_LITTLE;
	memcpy(h->magic, "PERFILE2", 8);
	expect_open_error(&b, "bad magic", "perf.data or other file");
	free(b.data);
}

static void expect_read_error(struct builder *b, const char *needle,
			      size_t offset, long samples, const char *what)
{
	struct sleepy_recording rec;
	struct sleepy_profile p;
	long n = read_all(b, &rec, &p);

	check(n == samples && strstr(rec.error, needle) &&
	      rec.bad_offset == offset,
	      "%s: %ld samples kept, error at byte %zu (%s)", what, n,
	      rec.bad_offset, rec.error);
	sleepy_profile_free(&p);
}

static void test_damaged(void)
{
	struct builder b = good_recording();
	size_t first_sample = sizeof(struct sleepy_file_header) +
			      2 * sizeof(struct sleepy_app_start);
	size_t fifth = first_sample + 4 * sizeof(struct sleepy_sample);
	struct sleepy_record_header *r;
	struct sleepy_recording rec;
	struct sleepy_profile p;
	size_t size = b.size;

	b.size = fifth + 10;
	expect_read_error(&b, "truncated record at byte", fifth, 4,
			  "cut inside a record");
	b.size = fifth + 4;
	expect_read_error(&b, "truncated record header", fifth, 4,
			  "cut inside a record header");
	b.size = size;

	r = (void *)(b.data + fifth);
	r->size = 12;
	expect_read_error(&b, "corrupt record", fifth, 4, "size not a multiple of 8");
	r->size = 0;
	expect_read_error(&b, "corrupt record", fifth, 4, "zero size");
	r->size = 16;
	expect_read_error(&b, "corrupt record", fifth, 4, "sample smaller than its type");
	r->size = 0xfff8;
	expect_read_error(&b, "truncated record", fifth, 4, "size past the end");
	r->size = sizeof(struct sleepy_sample);
	r->cpu = 77;
	expect_read_error(&b, "cpu 77", fifth, 4, "cpu out of range");
	r->cpu = 0;

	/* An unknown record type is skipped by its size. */
	r->type = 999;
	check(read_all(&b, &rec, &p) == 40 && !rec.error[0] && rec.finished,
	      "unknown record type skipped");
	sleepy_profile_free(&p);
	r->type = SLEEPY_REC_SAMPLE;

	/* No trailer: everything read, but not finished. */
	b.size = size - sizeof(struct sleepy_end) - sizeof(struct sleepy_cpu_stats);
	check(read_all(&b, &rec, &p) == 41 && !rec.error[0] && !rec.finished,
	      "missing trailer: all samples read, recording marked unfinished");
	sleepy_profile_free(&p);
	free(b.data);
}

static char *report(struct sleepy_profile *p, struct sleepy_recording *rec,
		    struct sleepy_dsos *dsos, enum sleepy_format format,
		    const struct sleepy_symbols *symbols);

static void test_names_sanitised(void)
{
	struct builder b = {};
	struct sleepy_recording rec;
	struct sleepy_profile p;
	char *csv, *json;

	put_header(&b, 1);
	put_app(&b, 1, "a;b,c\"\n\\", 3);
	put_sample(&b, 1, 1, 0, 0);
	put_trailer(&b, 1, 0);
	read_all(&b, &rec, &p);
	check(!strcmp(sleepy_profile_app(&p, 1)->label, "a_b,c\"_\\#3"),
	      "the folded stacks' separator and control bytes replaced in names (%s)",
	      sleepy_profile_app(&p, 1)->label);
	csv = report(&p, &rec, NULL, SLEEPY_FORMAT_CSV, NULL);
	json = report(&p, &rec, NULL, SLEEPY_FORMAT_JSON, NULL);
	check(csv && strstr(csv, "\nby_app,\"a_b,c\"\"_\\#3\",") &&
	      json && strstr(json, "\"app\": \"a_b,c\\\"_\\\\#3\""),
	      "a name's comma and quote quoted in CSV, its quote and backslash escaped in JSON");
	free(csv);
	free(json);
	check(!strcmp(sleepy_profile_app(&p, 9)->label, "[unannounced]"),
	      "samples of an unannounced appid get a label");
	sleepy_profile_free(&p);
	free(b.data);
}

static void test_symbols(const char *dir)
{
	struct sleepy_symbols syms;
	const struct sleepy_symbol *main_sym, *found;
	char path[4096], error[512];
	size_t i;

	snprintf(path, sizeof(path), "%s/bench/call", dir);
	if (sleepy_symbols_load(&syms, path, true, error, sizeof(error))) {
		check(0, "symbols of %s: %s", path, error);
		return;
	}
	for (i = 0, main_sym = NULL; i < syms.count; i++)
		if (!strcmp(syms.syms[i].name, "loop"))
			main_sym = &syms.syms[i];
	check(main_sym && !strcmp(syms.app_name, "call"), "function 'loop' found in bench/call");
	if (main_sym) {
		found = sleepy_symbols_find(&syms, main_sym->start + main_sym->size - 1);
		check(found == main_sym, "address inside 'loop' resolves to it");
		found = sleepy_symbols_find(&syms, main_sym->start + main_sym->size);
		check(!found || found != main_sym, "address past 'loop' does not");
	}
	check(!sleepy_symbols_find(&syms, 1), "address 1 resolves to nothing");
	/* A static binary calls its ifuncs through .plt stubs: [plt]. */
	for (i = 0, found = NULL; i < syms.count; i++)
		if (!strcmp(syms.syms[i].name, "[plt]"))
			found = &syms.syms[i];
	check(found && found->size &&
	      sleepy_symbols_find(&syms, found->start + found->size / 2) == found,
	      "the PLT stubs of bench/call are one function, [plt]");
	sleepy_symbols_free(&syms);
	check(sleepy_symbols_load(&syms, "/nonexistent", true, error, sizeof(error)) &&
	      strstr(error, "No such file"), "missing binary refused (%s)", error);
	check(sleepy_symbols_load(&syms, "/etc/hostname", true, error, sizeof(error)) &&
	      strstr(error, "not an ELF"), "non-ELF refused (%s)", error);
}

static void test_parsers(void)
{
	uint64_t v;

	check(sleepy_parse_size("4M", &v) && v == 4 << 20, "size 4M");
	check(sleepy_parse_size("256k", &v) && v == 256 << 10, "size 256k");
	check(!sleepy_parse_size("4X", &v) && !sleepy_parse_size("", &v) &&
	      !sleepy_parse_size("-1", &v) && !sleepy_parse_size("99999999999G", &v),
	      "bad sizes refused");
	check(sleepy_parse_u64("10000", &v) && v == 10000 &&
	      !sleepy_parse_u64("10k", &v) && !sleepy_parse_u64("-5", &v),
	      "numbers parsed strictly");
}

/* Every format names the function of a by-function row. */
static void test_function_rows(void)
{
	static const enum sleepy_format formats[] = {
		SLEEPY_FORMAT_TEXT, SLEEPY_FORMAT_CSV, SLEEPY_FORMAT_JSON,
	};
	static const char *const names[] = { "text", "csv", "json" };
	const struct sleepy_row row = {
		.app = "call#1", .pid = 7, .function = "loop", .samples = 3,
		.percent = 100,
	};
	struct sleepy_output out;
	char buf[1024];
	unsigned int i;
	FILE *f;

	for (i = 0; i < 3; i++) {
		memset(buf, 0, sizeof(buf));
		f = fmemopen(buf, sizeof(buf) - 1, "w");
		sleepy_output_begin(&out, f, formats[i], "#", "");
		sleepy_output_report(&out, "by_function", "By function",
				     SLEEPY_COLUMNS_FUNCTION);
		sleepy_output_row(&out, &row);
		sleepy_output_end(&out);
		fclose(f);
		check(strstr(buf, formats[i] == SLEEPY_FORMAT_JSON ?
			      "\"function\": \"loop\"" : "loop") != NULL,
		      "%s by-function row names the function", names[i]);
	}
}

static void put_switch(struct builder *b, uint32_t cpu, uint64_t time,
		       uint32_t prev, uint32_t prev_appid, uint32_t reason,
		       uint64_t user_ip, uint32_t next, uint32_t next_appid)
{
	struct sleepy_switch s = {
		.header = { SLEEPY_REC_SWITCH, sizeof(s), cpu },
		.time_ns = time, .user_ip = user_ip,
		.prev_tid = prev, .prev_appid = prev_appid,
		.next_tid = next, .next_appid = next_appid, .reason = reason,
	};

	put(b, &s, sizeof(s));
}

static void put_wakeup(struct builder *b, uint32_t cpu, uint64_t time,
		       uint32_t waker, uint32_t waker_appid, uint32_t wakee,
		       uint32_t wakee_appid, uint32_t flags)
{
	struct sleepy_wakeup w = {
		.header = { SLEEPY_REC_WAKEUP, sizeof(w), cpu },
		.time_ns = time, .waker_tid = waker, .waker_appid = waker_appid,
		.wakee_tid = wakee, .wakee_appid = wakee_appid, .flags = flags,
	};

	put(b, &w, sizeof(w));
}

static struct sleepy_wall *wall(struct sleepy_sched *sched, uint32_t appid)
{
	for (size_t i = 0; i < sched->walls.capacity; i++) {
		struct sleepy_wall *w = sleepy_table_slot(&sched->walls, i);

		if (w && w->appid == appid)
			return w;
	}
	return NULL;
}

static uint64_t site_ns(struct sleepy_sched *sched, uint32_t appid,
			uint32_t kind, uint64_t user_ip)
{
	for (size_t i = 0; i < sched->sites.capacity; i++) {
		struct sleepy_offcpu_site *s = sleepy_table_slot(&sched->sites, i);

		if (s && s->appid == appid && s->kind == kind && s->user_ip == user_ip)
			return s->total_ns;
	}
	return 0;
}

/*
 * A thread's life in switches and wakeups, written per CPU (out of time
 * order, as the drainer writes them): new at 1000, runs 1100-1600, sleeps
 * until woken by app 2 at 2600, runs 2700-3000, preempted until 3500,
 * exits at 4000.  A thread of app 3 already there runs from 2000 on.
 */
static void test_sched_replay(void)
{
	struct sleepy_wakeup_link *link = NULL;
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct sleepy_wall *w;
	struct builder b = {};
	uint64_t sum = 0;
	int k;

	put_header(&b, 2);
	put_app(&b, 1, "sleeper", 1);
	put_app(&b, 2, "waker", 1);
	put_app(&b, 3, "old", 1);
	/* CPU 1's records, then CPU 0's. */
	put_switch(&b, 1, 2700, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 100, 1);
	put_switch(&b, 1, 3000, 100, 1, SLEEPY_SWITCH_PREEMPTED, 0x20, 0, 0);
	put_switch(&b, 1, 3500, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 100, 1);
	put_switch(&b, 1, 4000, 100, 0, SLEEPY_SWITCH_EXITING, 0x30, 0, 0);
	put_wakeup(&b, 0, 1000, 300, 2, 100, 1, SLEEPY_WAKEUP_NEW_TASK);
	put_switch(&b, 0, 1100, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 100, 1);
	put_switch(&b, 0, 1600, 100, 1, SLEEPY_SWITCH_SLEEP, 0x10, 0, 0);
	put_switch(&b, 0, 2000, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 400, 3);
	put_wakeup(&b, 0, 2600, 300, 2, 100, 1, 0);
	put_trailer(&b, 0, 0);
	read_all(&b, &rec, &p);
	check(p.sched && p.sched->switches == 7 && p.sched->wakeups == 2,
	      "sched: 7 switches and 2 wakeups read");
	if (!p.sched) {
		for (k = 0; k < 4; k++)
			check(0, "sched: replay (no records)");
		goto out;
	}
	sleepy_sched_replay(p.sched, &p, rec.header.start_time_ns, p.end_ns);
	w = wall(p.sched, 1);
	if (w)
		for (k = 0; k < SLEEPY_TIME_KINDS; k++)
			sum += w->ns[k];
	check(w && w->lifetime_ns == 3000 && w->ns[SLEEPY_TIME_ON_CPU] == 1300 &&
	      w->ns[SLEEPY_TIME_SLEEP] == 1000 && w->ns[SLEEPY_TIME_RUNQUEUE] == 200 &&
	      w->ns[SLEEPY_TIME_PREEMPTED] == 500 && sum == 3000,
	      "sched: on 1300 + sleep 1000 + runqueue 200 + preempted 500 = lifetime 3000");
	check(site_ns(p.sched, 1, SLEEPY_TIME_SLEEP, 0x10) == 1000 &&
	      site_ns(p.sched, 1, SLEEPY_TIME_RUNQUEUE, 0x10) == 100 &&
	      site_ns(p.sched, 1, SLEEPY_TIME_PREEMPTED, 0x20) == 500,
	      "sched: off-CPU time by site: sleep and its run-queue wait at 0x10, preempted at 0x20");
	w = wall(p.sched, 3);
	check(w && w->lifetime_ns == 8000 && w->ns[SLEEPY_TIME_UNKNOWN] == 1000 &&
	      w->ns[SLEEPY_TIME_ON_CPU] == 7000,
	      "sched: a thread older than the session is unaccounted until its first record");
	for (size_t i = 0; i < p.sched->links.capacity; i++) {
		struct sleepy_wakeup_link *l = sleepy_table_slot(&p.sched->links, i);

		if (l && l->waker_appid == 2 && l->wakee_appid == 1)
			link = l;
	}
	check(p.sched->links.used == 1 && link && link->count == 1 &&
	      link->blocked_ns == 1000,
	      "sched: one wakeup link, waker -> wakee, with the 1000 ns it ended (new tasks are not links)");
out:
	sleepy_profile_free(&p);
	free(b.data);
}

/* sleepy_folded()'s status, and its output in @buf. */
typedef int stacks_writer(FILE *stream, const struct sleepy_report_options *opts,
			  enum sleepy_folded_kind kind, struct sleepy_profile *profile,
			  const struct sleepy_recording *rec);

/* What @write wrote in @buf; returns what it returned. */
static int write_stacks(char *buf, size_t size, stacks_writer *write,
			const struct sleepy_report_options *opts,
			enum sleepy_folded_kind kind, struct sleepy_profile *p,
			const struct sleepy_recording *rec)
{
	FILE *f;
	int ret;

	memset(buf, 0, size);
	f = fmemopen(buf, size - 1, "w");
	if (!f)
		return -2;
	ret = write(f, opts, kind, p, rec);
	fclose(f);
	return ret;
}

static int folded(char *buf, size_t size,
		  const struct sleepy_report_options *opts,
		  enum sleepy_folded_kind kind, struct sleepy_profile *p,
		  const struct sleepy_recording *rec)
{
	return write_stacks(buf, size, sleepy_folded, opts, kind, p, rec);
}

/* @text, line by line, as TAP comments. */
static void comment(const char *label, const char *text)
{
	size_t len;

	printf("# %s:\n", label);
	for (; *text; text += len + !!text[len]) {
		len = strcspn(text, "\n");
		printf("#   %.*s\n", (int)len, text);
	}
}

/* A check that @out is @want (and @ok); if not, both as TAP comments. */
static void check_output(int ok, const char *out, const char *want,
			 const char *name)
{
	ok = ok && !strcmp(out, want);
	check(ok, "%s", name);
	if (!ok) {
		comment("got", out);
		comment("expected", want);
	}
}

/* A kernel-mode sample at @kernel_ip (a -k recording). */
static void put_kernel_sample(struct builder *b, uint32_t appid,
			      uint64_t kernel_ip)
{
	struct sleepy_sample s = {
		.header = { SLEEPY_REC_SAMPLE, sizeof(s), 0 },
		.time_ns = 2000 + b->size, .user_ip = 0x401000,
		.kernel_ip = kernel_ip, .appid = appid,
		.flags = SLEEPY_SAMPLE_IN_KERNEL,
	};

	put(b, &s, sizeof(s));
}

/*
 * Samples as folded stacks: IPs of one function merged, ';' and a newline
 * in a function's name replaced, kernel IPs marked _[k], an app without
 * symbols by IP; --app and --top apply.
 */
static void test_folded_cpu(void)
{
	static struct sleepy_symbol syms[] = {
		{ .start = 0x401000, .size = 0x40, .name = "main" },
		{ .start = 0x401100, .size = 0x100, .name = "a;b\n" },
	};
	static const struct sleepy_symbols symbols = {
		.app_name = "loop", .syms = syms, .count = 2,
	};
	struct sleepy_report_options opts = { .symbols = &symbols, .nsymbols = 1 };
	enum sleepy_folded_kind kind;
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct builder b = {};
	char out[1024];
	int i, ret;

	put_header(&b, 1);
	put_app(&b, 1, "loop", 1);
	put_app(&b, 2, "other", 1);
	for (i = 0; i < 5; i++)
		put_sample(&b, 1, i < 3 ? 0x401000 : 0x401004, 0, 0);
	put_sample(&b, 1, 0x401104, 0, 0);
	put_sample(&b, 1, 0x401108, 0, 0);
	put_sample(&b, 1, 0x500000, 0, 0);
	put_sample(&b, 1, 0x500000, 0, 0);
	put_kernel_sample(&b, 1, 0xffffffff81000040);
	put_sample(&b, 1, 0, 0, SLEEPY_SAMPLE_IN_KERNEL);
	/* Without -k: the user IP it entered the kernel from. */
	put_sample(&b, 1, 0x401008, 0, SLEEPY_SAMPLE_IN_KERNEL);
	for (i = 0; i < 4; i++)
		put_sample(&b, 2, 0x401000, 0, 0);
	/* A second instance of loop: its stacks are loop's. */
	put_app(&b, 3, "loop", 2);
	for (i = 0; i < 3; i++)
		put_sample(&b, 3, 0x401000, 0, 0);
	put_trailer(&b, 19, 0);
	read_all(&b, &rec, &p);
	ret = folded(out, sizeof(out), &opts, SLEEPY_FOLDED_CPU, &p, &rec);
	check_output(ret == 0, out,
		     "loop;main 8\n"
		     "other;0x401000 4\n"
		     "loop;0x500000 2\n"
		     "loop;a_b_ 2\n"
		     "loop;0xffffffff81000040_[k] 1\n"
		     "loop;[kernel]_[k] 1\n"
		     "loop;main;[kernel]_[k] 1\n",
		     "folded cpu: IPs merged by function, a program's instances as one, heaviest first, _[k], ';' and newline replaced, [kernel]_[k] under the user function without -k");
	opts.stacks_by_instance = true;
	ret = folded(out, sizeof(out), &opts, SLEEPY_FOLDED_CPU, &p, &rec);
	check_output(ret == 0, out,
		     "loop#1;main 5\n"
		     "other#1;0x401000 4\n"
		     "loop#2;main 3\n"
		     "loop#1;0x500000 2\n"
		     "loop#1;a_b_ 2\n"
		     "loop#1;0xffffffff81000040_[k] 1\n"
		     "loop#1;[kernel]_[k] 1\n"
		     "loop#1;main;[kernel]_[k] 1\n",
		     "folded cpu --instances: each instance its own root");
	opts.stacks_by_instance = false;
	opts.app_name = "loop";
	opts.top = 2;
	ret = folded(out, sizeof(out), &opts, SLEEPY_FOLDED_CPU, &p, &rec);
	check_output(ret == 0, out, "loop;main 8\nloop;0x500000 2\n",
		     "folded cpu: --app loop --top 2 keeps loop's two heaviest stacks");
	check(folded(out, sizeof(out), &opts, SLEEPY_FOLDED_OFFCPU, &p, &rec) == -1 &&
	      !out[0], "folded offcpu: refused without context switches, nothing written");
	check(sleepy_folded_parse("cpu", &kind) && kind == SLEEPY_FOLDED_CPU &&
	      sleepy_folded_parse("offcpu", &kind) && kind == SLEEPY_FOLDED_OFFCPU &&
	      !sleepy_folded_parse("off-cpu", &kind) && !sleepy_folded_parse("", &kind),
	      "folded: cpu and offcpu parsed, others refused");
	sleepy_profile_free(&p);
	free(b.data);
}

/* The kernel IP of the switch put last (a -k recording). */
static void put_kernel_ip(struct builder *b, uint64_t kernel_ip)
{
	struct sleepy_switch *s = (void *)(b->data + b->size - sizeof(*s));

	s->kernel_ip = kernel_ip;
}

/*
 * Off-CPU time as folded stacks, weighted in ns: two sleeps (and their
 * run-queue waits) at two IPs of one function and one kernel site merged,
 * a preemption without a kernel site, a sleep without a user site that
 * ran as soon as it was woken: its run-queue wait of 0 ns is no line.
 */
static void test_folded_offcpu(void)
{
	static struct sleepy_symbol syms[] = {
		{ .start = 0x400000, .size = 0x100, .name = "nap" },
	};
	static const struct sleepy_symbols symbols = {
		.app_name = "sleeper", .syms = syms, .count = 1,
	};
	const struct sleepy_report_options opts = { .symbols = &symbols, .nsymbols = 1 };
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct builder b = {};
	char out[1024];
	int ret;

	put_header(&b, 1);
	put_app(&b, 1, "sleeper", 1);
	put_app(&b, 2, "waker", 1);
	put_switch(&b, 0, 1000, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 100, 1);
	put_switch(&b, 0, 1100, 100, 1, SLEEPY_SWITCH_SLEEP, 0x400010, 0, 0);
	put_kernel_ip(&b, 0xffffffff81001000);
	put_wakeup(&b, 0, 2100, 300, 2, 100, 1, 0);
	put_switch(&b, 0, 2200, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 100, 1);
	put_switch(&b, 0, 2300, 100, 1, SLEEPY_SWITCH_SLEEP, 0x400020, 0, 0);
	put_kernel_ip(&b, 0xffffffff81001000);
	put_wakeup(&b, 0, 2800, 300, 2, 100, 1, 0);
	put_switch(&b, 0, 2800, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 100, 1);
	put_switch(&b, 0, 3000, 100, 1, SLEEPY_SWITCH_PREEMPTED, 0x500000, 0, 0);
	put_switch(&b, 0, 3200, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 100, 1);
	put_switch(&b, 0, 3500, 100, 1, SLEEPY_SWITCH_SLEEP, 0, 0, 0);
	put_wakeup(&b, 0, 3600, 300, 2, 100, 1, 0);
	put_switch(&b, 0, 3600, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 100, 1);
	put_switch(&b, 0, 4000, 100, 1, SLEEPY_SWITCH_EXITING, 0x400030, 0, 0);
	put_trailer(&b, 0, 0);
	read_all(&b, &rec, &p);
	ret = folded(out, sizeof(out), &opts, SLEEPY_FOLDED_OFFCPU, &p, &rec);
	check_output(ret == 0, out,
		     "sleeper;[sleep];nap;0xffffffff81001000_[k] 1500\n"
		     "sleeper;[preempted];0x500000 200\n"
		     "sleeper;[runqueue];nap;0xffffffff81001000_[k] 100\n"
		     "sleeper;[sleep] 100\n",
		     "folded offcpu: ns by reason and site, sites of one function merged, unknown sites and 0 ns left out");
	sleepy_profile_free(&p);
	free(b.data);
}

/* Two CPUs' histograms of one IRQ sum up; names come from the copy. */
static void test_irq_histograms(void)
{
	static const char text[] =
		"           CPU0       CPU1\n"
		" 11:       1040          3   IO-APIC  11-fasteoi   virtio0\n"
		"LOC:       1207       1121   Local timer interrupts\n";
	struct sleepy_irq_hist h = {
		.header = { SLEEPY_REC_IRQ_HIST, sizeof(h), 0 },
		.kind = SLEEPY_IRQ_HARDIRQ, .number = 11, .count = 1040,
		.total_ns = 4000000,
	};
	struct {
		struct sleepy_record_header header;
		char text[(sizeof(text) + 7) & ~7UL];
	} names = { .header = { SLEEPY_REC_INTERRUPTS, sizeof(names), 0 } };
	struct sleepy_irq_total *t = NULL;
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct builder b = {};
	char name[64], loc[64], timer[64];

	memcpy(names.text, text, sizeof(text));
	put_header(&b, 2);
	h.log2_ns[11] = 1040;
	put(&b, &h, sizeof(h));
	h.header.cpu = h.cpu = 1;
	h.count = 3;
	h.total_ns = 30000;
	h.log2_ns[11] = 0;
	h.log2_ns[13] = 3;
	put(&b, &h, sizeof(h));
	put(&b, &names, sizeof(names));
	put_trailer(&b, 0, 0);
	read_all(&b, &rec, &p);
	for (size_t i = 0; p.irqs && i < p.irqs->totals.capacity; i++)
		if (sleepy_table_slot(&p.irqs->totals, i))
			t = sleepy_table_slot(&p.irqs->totals, i);
	check(t && p.irqs->totals.used == 1 && t->count == 1043 &&
	      t->total_ns == 4030000 && t->log2_ns[11] == 1040 && t->log2_ns[13] == 3,
	      "irq: two CPUs' histograms of IRQ 11 summed");
	check(p.irqs &&
	      !strcmp(sleepy_irq_name(p.irqs, SLEEPY_IRQ_HARDIRQ, 11, name, sizeof(name)),
		      "virtio0") &&
	      !strcmp(sleepy_irq_name(p.irqs, SLEEPY_IRQ_SYSVEC, 0xec, loc, sizeof(loc)),
		      "LOC") &&
	      !strcmp(sleepy_irq_name(p.irqs, SLEEPY_IRQ_SOFTIRQ, 1, timer, sizeof(timer)),
		      "TIMER"),
	      "irq: names from the recording's /proc/interrupts and the softirq table");
	sleepy_profile_free(&p);
	free(b.data);
}

/*
 * A shared line: the IRQ's histogram and one per action, kept apart; the
 * line named from /proc/interrupts, each action by the name the kernel
 * recorded for its id (not by its place in the line's list: a device
 * added or removed during the session moves those).
 */
static void test_irq_actions(void)
{
	static const char text[] =
		"           CPU0       CPU1\n"
		" 11:         35          0   IO-APIC  11-fasteoi   virtio0, virtio1\n";
	struct sleepy_irq_hist h = {
		.header = { SLEEPY_REC_IRQ_HIST, sizeof(h), 0 },
		.kind = SLEEPY_IRQ_HARDIRQ, .number = 11, .count = 35,
		.total_ns = 350000,
	};
	struct {
		struct sleepy_record_header header;
		char text[(sizeof(text) + 7) & ~7UL];
	} names = { .header = { SLEEPY_REC_INTERRUPTS, sizeof(names), 0 } };
	const struct sleepy_irq_total *irq = NULL, *act[3] = {};
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct builder b = {};
	char line[64], a0[64], a1[64], a2[64];

	struct sleepy_irq_action named = {
		.header = { SLEEPY_REC_IRQ_ACTION, sizeof(named), 0 },
		.irq = 11,
	};

	memcpy(names.text, text, sizeof(text));
	put_header(&b, 2);
	/* Action 0 is the line's second device: virtio0 came later. */
	strcpy(named.name, "virtio1");
	put(&b, &named, sizeof(named));
	named.action = 1;
	strcpy(named.name, "virtio0");
	put(&b, &named, sizeof(named));
	put(&b, &h, sizeof(h));
	h.kind = SLEEPY_IRQ_ACTION;
	h.total_ns = 100000;
	put(&b, &h, sizeof(h));
	h.action = 1;
	h.total_ns = 200000;
	put(&b, &h, sizeof(h));
	h.action = 2;	/* an action the copy of /proc/interrupts misses */
	h.count = 1;
	put(&b, &h, sizeof(h));
	put(&b, &names, sizeof(names));
	put_trailer(&b, 0, 0);
	read_all(&b, &rec, &p);
	for (size_t i = 0; p.irqs && i < p.irqs->totals.capacity; i++) {
		const struct sleepy_irq_total *t = sleepy_table_slot(&p.irqs->totals, i);

		if (t && t->kind == SLEEPY_IRQ_HARDIRQ)
			irq = t;
		else if (t && t->kind == SLEEPY_IRQ_ACTION && t->action < 3)
			act[t->action] = t;
	}
	check(irq && act[0] && act[1] && act[2] && irq->count == 35 &&
	      act[0]->count == 35 && act[0]->total_ns == 100000 &&
	      act[1]->count == 35 && act[1]->total_ns == 200000 &&
	      !strcmp(sleepy_irq_total_name(p.irqs, irq, line, sizeof(line)),
		      "virtio0, virtio1") &&
	      !strcmp(sleepy_irq_total_name(p.irqs, act[0], a0, sizeof(a0)), "virtio1") &&
	      !strcmp(sleepy_irq_total_name(p.irqs, act[1], a1, sizeof(a1)), "virtio0") &&
	      !strcmp(sleepy_irq_total_name(p.irqs, act[2], a2, sizeof(a2)),
		      "irq 11 action 2"),
	      "irq: a shared line's actions apart from the line, named by the kernel's records");
	sleepy_profile_free(&p);
	free(b.data);
}

/* The count of the total of IRQ 11 on @cpu to @end_ns, 0 if none. */
static uint64_t irq_count(const struct sleepy_irqs *irqs, uint32_t cpu,
			  uint64_t end_ns)
{
	for (size_t i = 0; i < irqs->totals.capacity; i++) {
		const struct sleepy_irq_total *t =
			sleepy_table_slot((struct sleepy_table *)&irqs->totals, i);

		if (t && t->number == 11 && t->cpu == cpu && t->end_ns == end_ns)
			return t->count;
	}
	return 0;
}

/*
 * Flushed histograms: apart per CPU and interval when asked, summed
 * otherwise; a record of an earlier kernel (no time) is read, as one
 * interval.
 */
static void test_irq_intervals(void)
{
	struct sleepy_irq_hist h = {
		.header = { SLEEPY_REC_IRQ_HIST, sizeof(h), 0 },
		.kind = SLEEPY_IRQ_HARDIRQ, .number = 11,
	};
	static const struct { uint32_t cpu, count; uint64_t time_ns; } recs[] = {
		{ 0, 5, 1000 }, { 1, 3, 1000 }, { 0, 7, 2000 },
	};
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct builder b = {};
	uint64_t all;

	put_header(&b, 2);
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		h.header.cpu = h.cpu = recs[i].cpu;
		h.count = h.log2_ns[10] = recs[i].count;
		h.time_ns = recs[i].time_ns;
		put(&b, &h, sizeof(h));
	}
	h.header.size = SLEEPY_IRQ_HIST_SIZE_NO_TIME;
	h.header.cpu = h.cpu = 0;
	h.count = h.log2_ns[10] = 1;
	put(&b, &h, SLEEPY_IRQ_HIST_SIZE_NO_TIME);
	put_trailer(&b, 0, 0);

	sleepy_profile_init(&p);
	p.irq_by_cpu = p.irq_by_interval = true;
	check(!sleepy_recording_open_mem(&rec, b.data, b.size) &&
	      !sleepy_profile_read(&p, &rec) && p.irqs && p.irqs->totals.used == 4 &&
	      irq_count(p.irqs, 0, 1000) == 5 && irq_count(p.irqs, 1, 1000) == 3 &&
	      irq_count(p.irqs, 0, 2000) == 7 && irq_count(p.irqs, 0, 0) == 1,
	      "irq: per CPU and interval, 4 totals (5, 3, 7 and 1 without a time)");
	sleepy_profile_free(&p);

	read_all(&b, &rec, &p);
	all = p.irqs ? irq_count(p.irqs, SLEEPY_IRQ_ALL_CPUS, 0) : 0;
	check(p.irqs && p.irqs->totals.used == 1 && all == 16,
	      "irq: summed over CPUs and intervals: 16 (%" PRIu64 ")", all);
	sleepy_profile_free(&p);
	free(b.data);
}

/* EMD on log2 buckets: 0 for equal shapes, 1 for a move by one bucket. */
static void test_emd(void)
{
	uint64_t a[8] = { 0, 10, 30, 0 }, b[8] = { 0, 0, 1, 3 }, c[8] = { 0, 1, 3 };
	double same = sleepy_emd_log2(a, 40, c, 4, 8);
	double moved = sleepy_emd_log2(a, 40, b, 4, 8);

	check(same > -1e-9 && same < 1e-9 && moved > 1 - 1e-9 && moved < 1 + 1e-9 &&
	      sleepy_emd_log2(a, 40, b, 0, 8) < 0,
	      "diff: EMD 0 for the same shape, 1 for a move by one bucket (%.3f, %.3f)",
	      same, moved);
}

/* A function of this program for the mapping tests: out of line, named. */
static const int mapped_function_line = __LINE__ + 1;
__attribute__((noinline)) int mapped_function(int x)
{
	return x * 3 + 1;
}

/*
 * A C++ name (sleepy::pair<int, char>::cxx_named(int)): shown demangled,
 * or as it is with --no-demangle.
 */
__attribute__((noinline, externally_visible)) int cxx_named(int x)
	__asm__("_ZN6sleepy4pairIicE9cxx_namedEi");
int cxx_named(int x)
{
	return x * 5 + 2;
}

/*
 * Names of one address, as libc's getdelim (weak) and __getdelim (global):
 * perf shows the strong one of fewest leading underscores, though the weak
 * one's name is longer.
 */
__attribute__((noinline, externally_visible)) int __aliased_function(int x)
{
	return x * 7 + 3;
}
/* In assembly: link-time optimisation made a weak alias of C global. */
__asm__(".weak aliased_function_weak_alias\n"
	".set aliased_function_weak_alias, __aliased_function\n");
extern int aliased_function_weak_alias(int x);
extern int aliased_function(int x)
	__attribute__((externally_visible, alias("__aliased_function")));

/* An executable file mapping, as /proc/self/maps shows one. */
struct file_map {
	uint64_t start, end, offset;
	char path[4096];
};

/* This process's executable file mapping that contains @addr. */
static bool find_self_map(uintptr_t addr, struct file_map *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096 + 128], perms[8];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		int path = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
			   &m->start, &m->end, perms, &m->offset, &path) < 4 || !path)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(m->path, sizeof(m->path), "%.4095s", line + path);
		found = perms[2] == 'x' && m->path[0] == '/' &&
			addr - m->start < m->end - m->start;
	}
	if (f)
		fclose(f);
	return found;
}

/* The executable segment of the ELF file @path, where the kernel maps it. */
static bool exec_segment(const char *path, struct file_map *m)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = NULL;
	bool found = false;
	size_t n = 0, i;

	elf_version(EV_CURRENT);
	if (fd >= 0)
		elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n))
		n = 0;
	for (i = 0; i < n && !found; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		m->start = ph.p_vaddr & ~4095ULL;
		m->end = ph.p_vaddr + ph.p_filesz;
		m->offset = ph.p_offset & ~4095ULL;
		found = snprintf(m->path, sizeof(m->path), "%s", path) <
			(int)sizeof(m->path);
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

/* Whether /proc/self/exe is position-independent. */
static bool self_is_pie(void)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	ElfW(Ehdr) ehdr;
	bool pie = f && fread(&ehdr, sizeof(ehdr), 1, f) == 1 &&
		   ehdr.e_type == ET_DYN;

	if (f)
		fclose(f);
	return pie;
}

struct memory_build_id {
	uintptr_t addr;		/* in the object wanted */
	uint8_t id[SLEEPY_BUILD_ID_MAX];
	uint32_t size;
};

#define NOTE_ALIGN(x, a) (((x) + (a) - 1) & ~(size_t)((a) - 1))

/*
 * dl_iterate_phdr() callback: the build-id of the loaded object that
 * holds id->addr, from its notes in memory, as the kernel reads it.
 */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct memory_build_id *id = arg;
	bool here = false;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++)
		here |= info->dlpi_phdr[i].p_type == PT_LOAD &&
			id->addr - (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr) <
			info->dlpi_phdr[i].p_memsz;
	for (i = 0; here && i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *notes = (const char *)(info->dlpi_addr + ph->p_vaddr);
		size_t align = ph->p_align == 8 ? 8 : 4, at = 0;

		while (ph->p_type == PT_NOTE && at + sizeof(ElfW(Nhdr)) <= ph->p_memsz) {
			const ElfW(Nhdr) *note = (const void *)(notes + at);
			size_t desc = NOTE_ALIGN(at + sizeof(*note) + note->n_namesz, align);

			if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
			    !memcmp(note + 1, "GNU", 4) && note->n_descsz <= sizeof(id->id)) {
				memcpy(id->id, notes + desc, note->n_descsz);
				id->size = note->n_descsz;
				return 1;
			}
			at = NOTE_ALIGN(desc + note->n_descsz, align);
		}
	}
	return here;
}

static void put_instance(struct builder *b, uint32_t appid, uint32_t parent,
			 uint32_t pid, uint64_t time, const char *name,
			 uint32_t instance)
{
	struct sleepy_app_start a = {
		.header = { SLEEPY_REC_APP_START, sizeof(a), 1 },
		.appid = appid, .parent_appid = parent, .pid = pid,
		.instance = instance, .time_ns = time,
	};

	memcpy(a.name, name, strnlen(name, sizeof(a.name)));
	put(b, &a, sizeof(a));
}

/* A mapping record; of the file @st identifies (NULL: none). */
static void put_mmap_of(struct builder *b, uint32_t appid, uint32_t pid,
			uint64_t time, uint32_t flags, const struct file_map *m,
			const struct memory_build_id *id, const struct stat *st)
{
	size_t len = strlen(m->path) + 1;
	uint16_t size = (sizeof(struct sleepy_mmap) + len + 7) & ~7UL;
	struct sleepy_mmap *r = calloc(1, size);

	*r = (struct sleepy_mmap) {
		.header = { SLEEPY_REC_MMAP, size, 0 },
		.time_ns = time, .start = m->start, .len = m->end - m->start,
		.pgoff = m->offset, .pid = pid, .appid = appid, .flags = flags,
	};
	if (id) {
		r->build_id_size = id->size;
		memcpy(r->build_id, id->id, id->size);
	}
	if (st) {
		r->dev_major = major(st->st_dev);
		r->dev_minor = minor(st->st_dev);
		r->ino = st->st_ino;
	}
	memcpy(r->path, m->path, len);
	put(b, r, size);
	free(r);
}

static void put_mmap(struct builder *b, uint32_t appid, uint32_t pid,
		     uint64_t time, uint32_t flags, const struct file_map *m,
		     const struct memory_build_id *id)
{
	put_mmap_of(b, appid, pid, time, flags, m, id, NULL);
}

/* Whether the mappings name @ip of @appid @function in @dso (NULL: not). */
static bool named(struct sleepy_profile *p, struct sleepy_dsos *dsos,
		  uint32_t appid, uint64_t ip, const char *function,
		  const char *dso)
{
	const struct sleepy_mapping *map;
	const struct sleepy_symbol *sym = NULL;
	const char *file = NULL;

	map = sleepy_profile_mapping(p, sleepy_profile_app(p, appid), ip);
	if (map)
		sym = sleepy_dsos_find(dsos, map, ip, &file);
	if (!sym && !function)
		return true;
	if (sym && function && !strcmp(sym->name, function) &&
	    !strcmp(file, dso))
		return true;
	printf("# appid %u ip %#" PRIx64 ": %s (%s), expected %s (%s)\n", appid,
	       ip, sym ? sym->name : "-", sym ? file : "-",
	       function ?: "-", function ? dso : "-");
	return false;
}

/* The whole report of @p in @format, in a string the caller frees. */
static char *report(struct sleepy_profile *p, struct sleepy_recording *rec,
		    struct sleepy_dsos *dsos, enum sleepy_format format,
		    const struct sleepy_symbols *symbols)
{
	struct sleepy_report_options opts = {
		.path = "t", .format = format, .dsos = dsos,
		.symbols = symbols, .nsymbols = !!symbols,
		.chain_depth = 1,
	};
	char *text = NULL;
	size_t size;
	FILE *f = open_memstream(&text, &size);

	sleepy_report(f, &opts, p, rec);
	fclose(f);
	return text;
}

/* Lines of @text that contain both @a and @b. */
static int lines_with(const char *text, const char *a, const char *b)
{
	const char *line, *end;
	int n = 0;

	for (line = text; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		n += memmem(line, end - line, a, strlen(a)) &&
		     memmem(line, end - line, b, strlen(b));
		if (!*end)
			break;
	}
	return n;
}

#define MAPPING_TESTS 14

/*
 * Functions named from the mappings in a recording: of this program and
 * the libc it runs with, at their real addresses (PIE and shared
 * library), and of bench/call, not position-independent.  pid 1000 forks
 * 1001, which execs twice; the exec's mappings come first in the file
 * (another CPU's buffer).  Other programs map the test program with
 * another build-id, and a file that does not exist.
 */
static void test_mappings(const char *dir)
{
	struct memory_build_id exe_id = { .addr = (uintptr_t)mapped_function };
	struct memory_build_id libc_id = { .addr = (uintptr_t)getenv }, wrong_id;
	struct file_map exe, libc, call, missing = {
		0x10000, 0x11000, 0, "/nonexistent/libmissing.so",
	};
	uint64_t f = (uintptr_t)mapped_function + 1, g = (uintptr_t)getenv + 1;
	const char *exe_dso, *libc_dso;
	const struct sleepy_symbol *loop = NULL;
	char path[4096], call_path[PATH_MAX], *warnings = NULL;
	char *text = NULL, *csv = NULL, *json = NULL, *with_s = NULL;
	struct sleepy_symbols call_syms = {};
	struct sleepy_recording rec;
	struct sleepy_dsos dsos;
	struct sleepy_profile p;
	struct builder b = {};
	size_t warnings_size, i;
	bool ok[8];
	FILE *w;

	snprintf(path, sizeof(path), "%s/bench/call", dir);
	if (!realpath(path, call_path) ||
	    sleepy_symbols_load(&call_syms, call_path, true, path, sizeof(path)) ||
	    !find_self_map(f, &exe) || !find_self_map(g, &libc) ||
	    !strcmp(exe.path, libc.path) || !exec_segment(call_path, &call) ||
	    !dl_iterate_phdr(find_build_id, &exe_id) || !exe_id.size) {
		for (i = 0; i < MAPPING_TESTS; i++)
			check(0, "mappings: no test setup (%s, %s)", call_path, path);
		return;
	}
	dl_iterate_phdr(find_build_id, &libc_id);
	for (i = 0; i < call_syms.count; i++)
		if (!strcmp(call_syms.syms[i].name, "loop"))
			loop = &call_syms.syms[i];
	wrong_id = exe_id;
	wrong_id.id[0] ^= 1;
	exe_dso = strrchr(exe.path, '/') + 1;
	libc_dso = strrchr(libc.path, '/') + 1;

	put_header(&b, 2);
	put_mmap(&b, 0, 1001, 2999, SLEEPY_MMAP_EXEC, &libc, NULL);
	put_mmap(&b, 0, 1001, 4999, SLEEPY_MMAP_EXEC, &exe, NULL);
	put_instance(&b, 1, 0, 1000, 1000, "test", 1);
	put_mmap(&b, 1, 1000, 1000, 0, &exe, &exe_id);
	put_instance(&b, 2, 1, 1001, 2000, "test", 2);
	put_mmap(&b, 1, 1000, 2500, 0, &libc, &libc_id);	/* after the fork */
	put_instance(&b, 3, 2, 1001, 3000, "exec1", 1);
	put_instance(&b, 4, 3, 1001, 5000, "exec2", 1);
	put_instance(&b, 5, 0, 1002, 1000, "mismatch", 1);
	put_mmap(&b, 5, 1002, 1000, 0, &exe, &wrong_id);
	put_instance(&b, 6, 0, 1003, 1000, "missing", 1);
	put_mmap(&b, 6, 1003, 1000, 0, &missing, NULL);
	put_instance(&b, 7, 0, 1004, 1000, "call", 1);
	put_mmap(&b, 7, 1004, 1000, 0, &call, NULL);
	for (i = 0; i < 3; i++)
		put_sample(&b, 1, f, 0, 0);
	put_sample(&b, 1, g, 1, 0);
	put_sample(&b, 2, f, 0, 0);
	put_sample(&b, 2, g, 0, 0);
	put_sample(&b, 3, f, 0, 0);
	put_sample(&b, 3, g, 0, 0);
	put_sample(&b, 4, f, 0, 0);
	put_sample(&b, 4, g, 0, 0);
	put_sample(&b, 5, f, 0, 0);
	put_sample(&b, 5, f + 2, 0, 0);
	put_sample(&b, 6, 0x10010, 0, 0);
	put_sample(&b, 6, 0x10020, 0, 0);
	put_sample(&b, 7, loop ? loop->start + 1 : 0, 0, 0);
	put_trailer(&b, 15, 0);

	w = open_memstream(&warnings, &warnings_size);
	sleepy_dsos_init(&dsos, NULL, w);
	check(read_all(&b, &rec, &p) == 15 && !rec.error[0] && p.nmappings == 7,
	      "mappings: a recording with 7 mappings read");
	ok[0] = named(&p, &dsos, 1, f, "mapped_function", exe_dso);
	ok[1] = named(&p, &dsos, 1, g, "getenv", libc_dso);
	ok[2] = named(&p, &dsos, 2, f, "mapped_function", exe_dso) &&
		named(&p, &dsos, 2, g, NULL, NULL);
	ok[3] = named(&p, &dsos, 3, g, "getenv", libc_dso) &&
		named(&p, &dsos, 3, f, NULL, NULL) &&
		named(&p, &dsos, 4, f, "mapped_function", exe_dso) &&
		named(&p, &dsos, 4, g, NULL, NULL);
	ok[4] = named(&p, &dsos, 5, f, NULL, NULL) &&
		named(&p, &dsos, 5, f + 2, NULL, NULL);
	ok[5] = named(&p, &dsos, 6, 0x10010, NULL, NULL) &&
		named(&p, &dsos, 6, 0x10020, NULL, NULL);
	ok[6] = loop && named(&p, &dsos, 7, loop->start + 1, "loop", "call");
	text = report(&p, &rec, &dsos, SLEEPY_FORMAT_TEXT, NULL);
	csv = report(&p, &rec, &dsos, SLEEPY_FORMAT_CSV, NULL);
	json = report(&p, &rec, &dsos, SLEEPY_FORMAT_JSON, NULL);
	with_s = report(&p, &rec, &dsos, SLEEPY_FORMAT_TEXT, &call_syms);
	fclose(w);

	check(ok[0] && ok[1] && self_is_pie(),
	      "mappings: functions of this PIE and of %s named", libc_dso);
	check(ok[2], "fork: the child has its parent's mappings, not one mapped after the fork");
	check(ok[3], "exec: EXEC mappings belong to the pid's next instance; an exec'd image inherits nothing");
	check(ok[4] && lines_with(warnings, exe.path, "build-id differs") == 1,
	      "build-id differs: IPs unnamed, one warning for the file");
	check(ok[5] && lines_with(warnings, "/nonexistent/libmissing.so",
				  "No such file") == 1 &&
	      lines_with(warnings, "sleepy-parse: ", "") == 2,
	      "missing file: IPs unnamed, one warning; no other warnings");
	check(ok[6], "mappings: a non-PIE program (file offsets are not addresses) named without -s");
	check(text && lines_with(text, "missing#1 ", "[unknown] (libmissing.so)") == 1 &&
	      lines_with(text, "mismatch#1 ", "[unknown] (") == 1 &&
	      lines_with(text, "exec1#1 ", "[unknown]") == 1 &&
	      !lines_with(text, "exec1#1 ", "[unknown] ("),
	      "by function: IPs no symbol names are [unknown] of the file they lie in, if any");
	snprintf(path, sizeof(path), "mapped_function (%s)", exe_dso);
	check(text && lines_with(text, "test#1 ", path) == 2 &&
	      strstr(text, "== By application and function ==") &&
	      lines_with(text, "exec1#1 ", "[unknown]") == 1,
	      "report: function (file) by IP and by function");
	snprintf(path, sizeof(path), ",getenv,1,%.4f,%s\n", 100.0 / 15, libc_dso);
	check(csv && json &&
	      !strncmp(csv, "report,app,pid,ip,mode,function,samples,percent,dso\n", 52) &&
	      lines_with(csv, "by_function,exec1#1,1001,,,getenv,", libc_dso) == 1 &&
	      strstr(csv, path) && strstr(json, "\"dso\": null") &&
	      lines_with(json, "\"function\": \"getenv\"", libc_dso) == 4,
	      "report: a dso column last in CSV, a dso key in JSON");
	check(with_s && lines_with(with_s, "call#1 ", "loop") == 2 &&
	      !lines_with(with_s, "call#1 ", "loop (call)") &&
	      lines_with(with_s, "test#1 ", "mapped_function (") == 2,
	      "-s names the application it names, the mappings the others");
	free(text);
	free(csv);
	free(json);
	free(with_s);
	sleepy_dsos_free(&dsos);

	/* The same files under another root. */
	w = fopen("/dev/null", "w");
	sleepy_dsos_init(&dsos, "/proc/self/root", w);
	ok[0] = named(&p, &dsos, 1, f, "mapped_function", exe_dso);
	sleepy_dsos_free(&dsos);
	sleepy_dsos_init(&dsos, "/nonexistent", w);
	ok[1] = named(&p, &dsos, 1, f, NULL, NULL);
	sleepy_dsos_free(&dsos);

	sleepy_dsos_init(&dsos, NULL, w);
	ok[2] = named(&p, &dsos, 1, (uintptr_t)cxx_named + 1,
		      "sleepy::pair<int, char>::cxx_named", exe_dso);
	/* Debian's libc exports __getdelim and, weak, getdelim. */
	ok[3] = named(&p, &dsos, 1, (uintptr_t)aliased_function_weak_alias + 1,
		      "aliased_function", exe_dso) &&
		named(&p, &dsos, 1, (uintptr_t)getdelim + 1, "__getdelim",
		      libc_dso);
	sleepy_dsos_free(&dsos);
	sleepy_dsos_init(&dsos, NULL, w);
	dsos.mangled = true;
	ok[4] = named(&p, &dsos, 1, (uintptr_t)cxx_named + 1,
		      "_ZN6sleepy4pairIicE9cxx_namedEi", exe_dso);
	sleepy_dsos_free(&dsos);
	fclose(w);
	check(ok[0] && ok[1], "--symfs: the mapped files read under that root");
	check(ok[2] && ok[4], "a C++ name demangled without its parameters, as perf shows it; as it is with --no-demangle");
	check(ok[3], "names of one address: the strong one of fewest leading underscores, as perf chooses");

	sleepy_profile_free(&p);
	sleepy_symbols_free(&call_syms);
	free(warnings);
	free(b.data);
}

/*
 * Whether every PLT stub objdump names in @stubs ("ADDRESS NAME@plt"
 * lines) of the program mapped as @appid is named so; *@n the stubs.
 */
static bool stubs_named(struct sleepy_profile *p, struct sleepy_dsos *dsos,
			uint32_t appid, const char *stubs, const char *dso,
			int *n)
{
	char name[256];
	uint64_t address;
	bool ok = true;
	FILE *f = fopen(stubs, "r");

	*n = 0;
	while (f && fscanf(f, "%" SCNx64 " %255s", &address, name) == 2) {
		ok = named(p, dsos, appid, address + 1, name, dso) && ok;
		++*n;
	}
	if (f)
		fclose(f);
	return f && ok;
}

/*
 * A call into a shared library goes through the program's PLT stub for
 * it: each stub is NAME@plt, as perf and objdump name it, whether the
 * stubs follow .plt's header or are in .plt.sec (a program built for
 * Intel's IBT); the header, and .plt beside .plt.sec, stay [plt].
 */
static void test_plt_stubs(void)
{
	static const char setup[] =
		"set -e; cd %s\n"
		"printf '#include <stdio.h>\\n#include <stdlib.h>\\n"
		"int main(void) { puts(getenv(\"HOME\") ?: \"-\"); return abs(1); }\\n' > prog.c\n"
		"gcc -O1 -no-pie -fno-builtin -o plain prog.c\n"
		"gcc -O1 -no-pie -fno-builtin -fcf-protection=full -Wl,-z,ibtplt -o ibt prog.c\n"
		"readelf -SW ibt | grep -q '[.]plt[.]sec'\n"
		"for f in plain ibt; do\n"
		"\tobjdump -d -j .plt -j .plt.sec $f |\n"
		"\t\tsed -n 's/^0*\\([0-9a-f]*\\) <\\(.*@plt\\)>:$/\\1 \\2/p' > $f.stubs\n"
		"\tobjdump -d -j .plt $f | sed -n 's/^0*\\([0-9a-f]*\\) <.*>:$/\\1/p' | head -1 > $f.header\n"
		"done\n";
	char dir[] = "/tmp/sleepy-plt-XXXXXX", command[sizeof(setup) + 64];
	char path[PATH_MAX];
	struct file_map plain, ibt;
	struct sleepy_recording rec;
	struct sleepy_dsos dsos;
	struct sleepy_profile p;
	struct builder b = {};
	uint64_t header[2] = { 0, 0 };
	int n[2] = { 0, 0 };
	bool ok[2];
	FILE *f;
	int i;

	snprintf(command, sizeof(command), setup, mkdtemp(dir) ? dir : "/nonexistent");
	snprintf(path, sizeof(path), "%s/plain", dir);
	ok[0] = !system(command) && exec_segment(path, &plain);
	snprintf(path, sizeof(path), "%s/ibt", dir);
	ok[0] = ok[0] && exec_segment(path, &ibt);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s.header", dir, i ? "ibt" : "plain");
		f = fopen(path, "r");
		if (!f || fscanf(f, "%" SCNx64, &header[i]) != 1)
			ok[0] = false;
		if (f)
			fclose(f);
	}
	if (!ok[0]) {
		check(0, "PLT stubs: no test setup (%s)", command);
		goto out;
	}
	put_header(&b, 2);
	put_instance(&b, 1, 0, 1000, 1000, "plain", 1);
	put_mmap(&b, 1, 1000, 1000, 0, &plain, NULL);
	put_instance(&b, 2, 0, 1001, 1000, "ibt", 1);
	put_mmap(&b, 2, 1001, 1000, 0, &ibt, NULL);
	put_trailer(&b, 0, 0);
	f = fopen("/dev/null", "w");
	sleepy_dsos_init(&dsos, NULL, f);
	read_all(&b, &rec, &p);
	snprintf(path, sizeof(path), "%s/plain.stubs", dir);
	ok[0] = stubs_named(&p, &dsos, 1, path, "plain", &n[0]) &&
		named(&p, &dsos, 1, header[0] + 1, "[plt]", "plain");
	snprintf(path, sizeof(path), "%s/ibt.stubs", dir);
	ok[1] = stubs_named(&p, &dsos, 2, path, "ibt", &n[1]) &&
		named(&p, &dsos, 2, header[1] + 1, "[plt]", "ibt");
	check(ok[0] && ok[1] && n[0] >= 3 && n[1] >= 3,
	      "PLT stubs: each NAME@plt as objdump names it, after .plt's header (%d) and in .plt.sec (%d); the header [plt]",
	      n[0], n[1]);
	sleepy_dsos_free(&dsos);
	sleepy_profile_free(&p);
	fclose(f);
	free(b.data);
out:
	snprintf(command, sizeof(command), "rm -rf %s", dir);
	if (system(command))
		perror(command);
}

/*
 * The CSV report of @b read with --sort @keys, named by @symbols (-s), or
 * without them by the recording's mappings.
 */
static char *sorted_csv_named(struct builder *b, const char *keys,
			       const struct sleepy_symbols *symbols)
{
	struct sleepy_report_options opts = {
		.path = "t", .format = SLEEPY_FORMAT_CSV,
		.symbols = symbols, .nsymbols = !!symbols, .chain_depth = 1,
	};
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct sleepy_dsos dsos;
	char error[128], *text = NULL;
	size_t size;
	FILE *f, *warnings;

	if (!sleepy_sort_parse(keys, &opts, error, sizeof(error)))
		return strdup(error);
	warnings = fopen("/dev/null", "w");
	sleepy_dsos_init(&dsos, NULL, warnings);
	if (!symbols)
		opts.dsos = &dsos;
	sleepy_profile_init(&p);
	p.by_tid = sleepy_sort_has(&opts, SLEEPY_SORT_TID);
	if (!sleepy_recording_open_mem(&rec, b->data, b->size))
		sleepy_profile_read(&p, &rec);
	f = open_memstream(&text, &size);
	sleepy_report(f, &opts, &p, &rec);
	fclose(f);
	sleepy_profile_free(&p);
	sleepy_dsos_free(&dsos);
	fclose(warnings);
	return text;
}

/*
 * An IP no function names, as perf's sort keys show it: of the file it
 * lies in, at the address the file holds it at (perf's map__map_ip()), so
 * that the same code of two instances mapped at other addresses (ASLR) is
 * one row; an IP of no mapping stays [unknown], at its own address.  comm
 * is perf's: a program's instances as one, other programs apart.
 */
static void test_unnamed_sort(void)
{
	static const struct {
		const char *keys, *want, *what;
	} cases[] = {
		{ "dso,sym",
		  "report,samples,percent,dso,sym\n"
		  "sorted,4,80.0000,libgz.so,[.] 0x3123\n"
		  "sorted,1,20.0000,[unknown],[.] 0x500000\n",
		  "--sort dso,sym: an unnamed IP of two instances at other addresses one row, of its file at its file offset" },
		{ "app,sym",
		  "report,samples,percent,app,sym\n"
		  "sorted,2,40.0000,gz#2,[.] 0x3123\n"
		  "sorted,1,20.0000,gz#1,[.] 0x3123\n"
		  "sorted,1,20.0000,gz#1,[.] 0x500000\n"
		  "sorted,1,20.0000,zcat#1,[.] 0x3123\n",
		  "--sort app,sym: each instance's unnamed IP at its file offset" },
		{ "comm,dso,sym",
		  "report,samples,percent,comm,dso,sym\n"
		  "sorted,3,60.0000,gz,libgz.so,[.] 0x3123\n"
		  "sorted,1,20.0000,gz,[unknown],[.] 0x500000\n"
		  "sorted,1,20.0000,zcat,libgz.so,[.] 0x3123\n",
		  "--sort comm,dso,sym (perf's default): a program's instances one row, another program's apart" },
	};
	struct file_map first = {
		0x10000, 0x12000, 0x3000, "/nonexistent/libgz.so",
	}, second = {
		0x7f0000, 0x7f2000, 0x3000, "/nonexistent/libgz.so",
	};
	struct builder b = {};
	char *out;
	size_t i;

	put_header(&b, 2);
	put_instance(&b, 1, 0, 1000, 1000, "gz", 1);
	put_mmap(&b, 1, 1000, 1000, 0, &first, NULL);
	put_instance(&b, 2, 0, 1001, 1000, "gz", 2);
	put_mmap(&b, 2, 1001, 1000, 0, &second, NULL);
	put_instance(&b, 3, 0, 1002, 1000, "zcat", 1);
	put_mmap(&b, 3, 1002, 1000, 0, &first, NULL);
	put_sample(&b, 1, 0x10123, 0, 0);
	put_sample(&b, 2, 0x7f0123, 0, 0);
	put_sample(&b, 2, 0x7f0123, 0, 0);
	put_sample(&b, 1, 0x500000, 0, 0);
	put_sample(&b, 3, 0x10123, 0, 0);
	put_trailer(&b, 5, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		out = sorted_csv_named(&b, cases[i].keys, NULL);
		check_output(out != NULL, out, cases[i].want, cases[i].what);
		free(out);
	}
	free(b.data);
}

/*
 * This test program's file mapping holding @addr (*@exe, its file *@st)
 * and the same mapping under a path that does not open (*@contained, as
 * if in a container's root): false if it cannot be found.
 */
static bool self_under_two_paths(uint64_t addr, struct file_map *exe,
				 struct file_map *contained, struct stat *st)
{
	if (!find_self_map(addr, exe) || stat(exe->path, st))
		return false;
	*contained = *exe;
	memcpy(contained->path, "/nonexistent-root", 17);
	memcpy(contained->path + 17, exe->path,
	       strnlen(exe->path, sizeof(exe->path) - 18) + 1);
	return true;
}

/*
 * One file seen under two paths (a container's root, a bind mount) is one
 * file by its device and inode: not found under the first, it is read
 * from the second, and names the IPs of both mappings; the path that
 * names nothing is looked for once.
 */
static void test_one_file_two_paths(void)
{
	uint64_t f = (uintptr_t)mapped_function + 1;
	struct file_map exe, contained;
	struct sleepy_recording rec;
	struct sleepy_dsos dsos;
	struct sleepy_profile p;
	struct builder b = {};
	char *warnings = NULL;
	size_t warnings_size;
	bool ok[3] = {};
	const char *dso;
	struct stat st;
	FILE *w;

	if (!self_under_two_paths(f, &exe, &contained, &st)) {
		check(0, "one file, two paths: no test setup");
		return;
	}
	dso = strrchr(exe.path, '/') + 1;
	put_header(&b, 2);
	put_instance(&b, 1, 0, 1000, 1000, "contained", 1);
	put_mmap_of(&b, 1, 1000, 1000, 0, &contained, NULL, &st);
	put_instance(&b, 2, 0, 1001, 1000, "host", 1);
	put_mmap_of(&b, 2, 1001, 1000, 0, &exe, NULL, &st);
	put_sample(&b, 1, f, 0, 0);
	put_sample(&b, 2, f, 0, 0);
	put_trailer(&b, 2, 0);

	w = open_memstream(&warnings, &warnings_size);
	sleepy_dsos_init(&dsos, NULL, w);
	if (read_all(&b, &rec, &p) == 2 && !rec.error[0]) {
		ok[0] = named(&p, &dsos, 1, f, NULL, NULL);
		ok[1] = named(&p, &dsos, 2, f, "mapped_function", dso);
		ok[2] = named(&p, &dsos, 1, f, "mapped_function", dso) &&
			named(&p, &dsos, 1, f, "mapped_function", dso);
	}
	sleepy_dsos_free(&dsos);
	fclose(w);
	check(ok[0] && ok[1] && ok[2] &&
	      lines_with(warnings, "/nonexistent-root/", "No such file") == 1 &&
	      lines_with(warnings, "sleepy-parse: ", "") == 1,
	      "one file under two paths (its device and inode): read from the path that opens, names both mappings' IPs");
	sleepy_profile_free(&p);
	free(warnings);
	free(b.data);
}

/*
 * --sort comm,dso,sym names a place (file, offset) once for a program's
 * instances, but not across the opening of a file: an instance mapping
 * the file under a path that does not open names nothing, one mapping it
 * where it opens names the function, and so does a third under the first
 * path, read by then.
 */
static void test_sort_places_two_paths(void)
{
	uint64_t f = (uintptr_t)mapped_function + 1;
	struct file_map exe, contained;
	struct builder b = {};
	char want[8192], *out;
	const char *dso;
	struct stat st;

	if (!self_under_two_paths(f, &exe, &contained, &st)) {
		check(0, "sort by place, two paths: no test setup");
		return;
	}
	dso = strrchr(exe.path, '/') + 1;
	put_header(&b, 3);
	put_instance(&b, 1, 0, 1000, 1000, "cat", 1);
	put_mmap_of(&b, 1, 1000, 1000, 0, &contained, NULL, &st);
	put_instance(&b, 2, 0, 1001, 1000, "cat", 2);
	put_mmap_of(&b, 2, 1001, 1000, 0, &exe, NULL, &st);
	put_instance(&b, 3, 0, 1002, 1000, "cat", 3);
	put_mmap_of(&b, 3, 1002, 1000, 0, &contained, NULL, &st);
	put_sample(&b, 1, f, 0, 0);
	put_sample(&b, 2, f, 0, 0);
	put_sample(&b, 3, f, 0, 0);
	put_trailer(&b, 3, 0);
	snprintf(want, sizeof(want),
		 "report,samples,percent,comm,dso,sym\n"
		 "sorted,2,66.6667,cat,%s,[.] mapped_function\n"
		 "sorted,1,33.3333,cat,%s,[.] 0x%" PRIx64 "\n",
		 dso, dso, f - exe.start + exe.offset);
	out = sorted_csv_named(&b, "comm,dso,sym", NULL);
	check_output(out != NULL, out, want,
		     "--sort comm,dso,sym: a place unnamed before its file opened under another path is named after it");
	free(out);
	free(b.data);
}

/*
 * A stripped program whose functions and lines are in a separate debug
 * file found by its build-id under --symfs (/usr/lib/debug/.build-id/),
 * as Debian's -dbgsym packages install them; a debug file whose build-id
 * differs is said once and not used.
 */
static void test_debug_file(void)
{
	static const char setup[] =
		"set -e; d=%s; cd $d\n"
		"printf 'int debug_only_function(int n)\\n{\\n\\treturn n * 3;\\n}\\n"
		"int main(void) { return debug_only_function(1); }\\n' > prog.c\n"
		"gcc -g -O0 -no-pie -Wl,--build-id -o prog.full prog.c\n"
		"id=$(readelf -n prog.full | sed -n 's/.*Build ID: //p')\n"
		"dir=usr/lib/debug/.build-id/$(echo $id | cut -c1-2)\n"
		"mkdir -p $dir\n"
		"objcopy --only-keep-debug prog.full $dir/$(echo $id | cut -c3-).debug\n"
		"strip -o prog prog.full\n"
		"gcc -g -O0 -no-pie -Wl,--build-id=0x0102030405060708 -o other prog.c\n"
		"mkdir -p usr/lib/debug/.build-id/01\n"
		"objcopy --only-keep-debug prog.full usr/lib/debug/.build-id/01/02030405060708.debug\n"
		"strip other\n"
		"echo $id > id\n";
	char dir[] = "/tmp/sleepy-debugfile-XXXXXX", command[sizeof(setup) + 64];
	char path[PATH_MAX], hex[64] = "", line[64] = "", *warnings = NULL;
	struct memory_build_id id = {}, other_id = { .size = 8, .id = { 1, 2, 3, 4, 5, 6, 7, 8 } };
	struct file_map prog, other;
	struct sleepy_symbols full = {};
	const struct sleepy_symbol *f = NULL;
	const struct sleepy_mapping *map;
	struct sleepy_recording rec;
	struct sleepy_dsos dsos;
	struct sleepy_profile p;
	struct builder b = {};
	size_t warnings_size, i;
	bool ok;
	FILE *w;

	snprintf(command, sizeof(command), setup, mkdtemp(dir) ? dir : "/nonexistent");
	snprintf(path, sizeof(path), "%s/id", dir);
	w = system(command) ? NULL : fopen(path, "r");
	if (w && fgets(hex, sizeof(hex), w))
		for (i = 0; i < SLEEPY_BUILD_ID_MAX && sscanf(hex + 2 * i, "%2hhx", &id.id[i]) == 1; i++)
			id.size = i + 1;
	if (w)
		fclose(w);
	snprintf(path, sizeof(path), "%s/prog.full", dir);
	if (!sleepy_symbols_load(&full, path, true, line, sizeof(line)))
		for (i = 0; i < full.count; i++)
			if (!strcmp(full.syms[i].name, "debug_only_function"))
				f = &full.syms[i];
	snprintf(path, sizeof(path), "%s/prog", dir);
	ok = exec_segment(path, &prog);
	snprintf(path, sizeof(path), "%s/other", dir);
	ok = ok && exec_segment(path, &other);
	if (!f || !ok || id.size < 2) {
		check(0, "debug file by build-id: no test setup (%s)", dir);
		goto out;
	}
	/* As recorded: the paths in the guest, here under the symfs. */
	snprintf(prog.path, sizeof(prog.path), "/prog");
	snprintf(other.path, sizeof(other.path), "/other");
	put_header(&b, 2);
	put_instance(&b, 1, 0, 1000, 1000, "prog", 1);
	put_mmap(&b, 1, 1000, 1000, 0, &prog, &id);
	put_instance(&b, 2, 0, 1001, 1000, "other", 1);
	put_mmap(&b, 2, 1001, 1000, 0, &other, &other_id);
	put_sample(&b, 1, f->start + 4, 0, 0);
	put_sample(&b, 2, f->start + 4, 0, 0);
	put_trailer(&b, 2, 0);
	w = open_memstream(&warnings, &warnings_size);
	sleepy_dsos_init(&dsos, dir, w);
	read_all(&b, &rec, &p);
	ok = named(&p, &dsos, 1, f->start + 4, "debug_only_function", "prog");
	map = sleepy_profile_mapping(&p, sleepy_profile_app(&p, 1), f->start + 4);
	ok = ok && map && sleepy_dsos_srcline(&dsos, map, f->start + 4, line, sizeof(line)) &&
	     !strncmp(line, "prog.c:", 7);
	ok = ok && named(&p, &dsos, 2, f->start + 4, NULL, NULL);
	fclose(w);
	check(ok && warnings && lines_with(warnings, "02030405060708.debug", "build-id differs") == 1 &&
	      lines_with(warnings, "sleepy-parse: ", "") == 2,
	      "debug file by build-id: a stripped program named (%s) from it; another's of a wrong build-id refused once",
	      line);
	if (!ok || !warnings || lines_with(warnings, "sleepy-parse: ", "") != 2)
		comment("warnings", warnings ?: "");
	sleepy_dsos_free(&dsos);
	sleepy_profile_free(&p);
	free(warnings);
	free(b.data);
out:
	sleepy_symbols_free(&full);
	snprintf(command, sizeof(command), "rm -rf %s", dir);
	if (system(command))
		perror(command);
}

/*
 * Files the mappings name that cannot give symbols: a corrupt ELF file and
 * a stripped one (no .symtab, no .dynsym).  One clear warning each, their
 * IPs unnamed, and the rest of the report (another program's functions)
 * still produced.
 */
static void test_bad_elf(const char *dir)
{
	static const char junk[] = "\x7f" "ELF this is no ELF header at all, only bytes";
	char call_path[PATH_MAX], path[PATH_MAX], corrupt_path[] = "/tmp/sleepy-corrupt-XXXXXX";
	char stripped_path[] = "/tmp/sleepy-stripped-XXXXXX", command[3 * PATH_MAX];
	struct file_map call, stripped, corrupt = { 0x20000, 0x21000, 0, "" };
	struct sleepy_symbols call_syms = {};
	const struct sleepy_symbol *loop = NULL;
	char *warnings = NULL, *text = NULL;
	struct sleepy_recording rec;
	struct sleepy_dsos dsos;
	struct sleepy_profile p;
	struct builder b = {};
	size_t warnings_size, i;
	bool named_ok;
	int fd = -1;
	FILE *w;

	snprintf(path, sizeof(path), "%s/bench/call", dir);
	if (realpath(path, call_path) &&
	    !sleepy_symbols_load(&call_syms, call_path, true, path, sizeof(path)))
		for (i = 0; i < call_syms.count; i++)
			if (!strcmp(call_syms.syms[i].name, "loop"))
				loop = &call_syms.syms[i];
	fd = mkstemp(corrupt_path);
	if (fd >= 0 && write(fd, junk, sizeof(junk)) == sizeof(junk))
		snprintf(corrupt.path, sizeof(corrupt.path), "%s", corrupt_path);
	if (fd >= 0)
		close(fd);
	fd = mkstemp(stripped_path);
	if (fd >= 0)
		close(fd);
	snprintf(command, sizeof(command), "strip -o %s %s", stripped_path, call_path);
	if (!loop || !corrupt.path[0] || fd < 0 || system(command) ||
	    !exec_segment(call_path, &call) || !exec_segment(stripped_path, &stripped)) {
		check(0, "corrupt and stripped ELF files: no test setup (%s)", command);
		goto out;
	}
	put_header(&b, 2);
	put_instance(&b, 1, 0, 1000, 1000, "call", 1);
	put_mmap(&b, 1, 1000, 1000, 0, &call, NULL);
	put_instance(&b, 2, 0, 1001, 1000, "stripped", 1);
	put_mmap(&b, 2, 1001, 1000, 0, &stripped, NULL);
	put_instance(&b, 3, 0, 1002, 1000, "corrupt", 1);
	put_mmap(&b, 3, 1002, 1000, 0, &corrupt, NULL);
	for (i = 0; i < 3; i++) {
		put_sample(&b, 1, loop->start + 1, 0, 0);
		put_sample(&b, 2, loop->start + 1, 0, 0);
		put_sample(&b, 3, 0x20010, 0, 0);
	}
	put_trailer(&b, 9, 0);
	w = open_memstream(&warnings, &warnings_size);
	sleepy_dsos_init(&dsos, NULL, w);
	read_all(&b, &rec, &p);
	text = report(&p, &rec, &dsos, SLEEPY_FORMAT_TEXT, NULL);
	fclose(w);
	named_ok = p.samples == 9 && !rec.error[0] && text && warnings &&
	      lines_with(warnings, corrupt_path, "not an ELF file; not used for symbols") == 1 &&
	      lines_with(warnings, stripped_path, "no function symbols; not used for symbols") == 1 &&
	      lines_with(warnings, "sleepy-parse: ", "") == 2 &&
	      lines_with(text, "call#1 ", "loop (call)") == 2 &&
	      lines_with(text, "stripped#1 ", "[unknown]") == 1 &&
	      lines_with(text, "corrupt#1 ", "[unknown]") == 1;
	check(named_ok, "corrupt and stripped ELF files: one warning each, their IPs unnamed, the rest named");
	if (!named_ok)
		comment("warnings", warnings ?: "");
	sleepy_dsos_free(&dsos);
	sleepy_profile_free(&p);
	free(text);
	free(warnings);
	free(b.data);
out:
	unlink(corrupt_path);
	unlink(stripped_path);
	sleepy_symbols_free(&call_syms);
}

/* MMAP records with a path past their end or too long a build-id. */
static void test_bad_mmap(void)
{
	struct {
		struct sleepy_mmap map;
		char path[8];
	} r = {
		.map = { .header = { SLEEPY_REC_MMAP, sizeof(r), 0 }, .appid = 1 },
		.path = "/lib/abc",	/* no NUL */
	};
	struct builder b = {};
	size_t at;

	put_header(&b, 2);
	put_app(&b, 1, "loop", 1);
	put_sample(&b, 1, 0x401000, 0, 0);
	at = b.size;
	put(&b, &r, sizeof(r));
	put_trailer(&b, 1, 0);
	expect_read_error(&b, "path not terminated", at, 1,
			  "mmap record with its path not terminated");
	r.path[7] = '\0';
	r.map.build_id_size = SLEEPY_BUILD_ID_MAX + 1;
	memcpy(b.data + at, &r, sizeof(r));
	expect_read_error(&b, "build-id too long", at, 1,
			  "mmap record with a build-id of 21 bytes");
	free(b.data);
}


/*
 * Kernel symbols: the drainer keeps, of a /proc/kallsyms, the text
 * symbols its records' kernel IPs fall in (an alias named by the first
 * in the file, a module's with its name, an IP past the last symbol or
 * before the first left out), nothing when kallsyms hides addresses; the
 * reports and folded stacks name kernel IPs by them.
 */
static void test_kernel_symbols(void)
{
	static const char kallsyms[] =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T startup_64\n"
		"ffffffff81000100 t __pfx_do_thing\n"
		"ffffffff81000110 T do_thing\n"
		"ffffffff81000180 D some_data\n"
		"ffffffff81000200 T other\n"
		"ffffffffc0000000 t mod_func\t[mymod]\n"
		"ffffffffc0000100 t mod_end\t[mymod]\n";
	static const uint64_t ips[] = {
		0xffffffff81000120, 0xffffffff81000010, 0xffffffff81000124,
		0xffffffffc0000010, 0xffffffffc0000200, 0x1000,
	};
	struct sleepy_report_options opts = { .path = "t" };
	struct sleepy_kernel_ips set = {};
	char path[] = "/tmp/sleepy-kallsyms-XXXXXX", text[1024], out[1024];
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct builder b = {}, records = {};
	const struct sleepy_text *kept;
	char *all;
	FILE *f;
	int fd, out_fd, ret;
	size_t i, len;
	bool ok;

	for (i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
		put_kernel_sample(&records, 1, ips[i]);
	put_kernel_sample(&records, 1, 0);
	sleepy_kernel_ips_note(&set, records.data, records.size);
	fd = mkstemp(path);
	if (fd < 0 || write(fd, kallsyms, strlen(kallsyms)) < 0)
		perror("kallsyms");
	close(fd);
	f = tmpfile();
	out_fd = fileno(f);
	ret = sleepy_kernel_symbols_write(out_fd, &set, path);
	len = pread(out_fd, text, sizeof(text), 0);
	kept = (const void *)text;
	check_output(ret == 0 && len >= sizeof(*kept) && len == kept->header.size &&
		     kept->header.type == SLEEPY_REC_KERNEL_SYMBOLS, kept->text,
		     "ffffffff81000000 ffffffff81000100 _stext\n"
		     "ffffffff81000110 ffffffff81000200 do_thing\n"
		     "ffffffffc0000000 ffffffffc0000100 mod_func [mymod]\n",
		     "kernel symbols: those holding the IPs, aliases and modules named, in one record");
	fclose(f);

	fd = open(path, O_WRONLY | O_TRUNC);
	for (i = 0; i < 3; i++)
		dprintf(fd, "0000000000000000 T hidden%zu\n", i);
	close(fd);
	f = tmpfile();
	ret = sleepy_kernel_symbols_write(fileno(f), &set, path);
	check(ret == 0 && ftell(f) == 0 && lseek(fileno(f), 0, SEEK_END) == 0,
	      "kernel symbols: none kept when kallsyms hides the addresses");
	fclose(f);
	ret = sleepy_kernel_symbols_write(-1, &set, "/nonexistent/kallsyms");
	check(ret == 0, "kernel symbols: no kallsyms, nothing kept and no error");
	unlink(path);
	sleepy_kernel_ips_free(&set);

	put_header(&b, 1);
	put_app(&b, 1, "loop", 1);
	put(&b, records.data, records.size);
	put(&b, kept, kept->header.size);
	put_trailer(&b, 7, 0);
	read_all(&b, &rec, &p);
	ret = folded(out, sizeof(out), &opts, SLEEPY_FOLDED_CPU, &p, &rec);
	check_output(ret == 0, out,
		     "loop;do_thing_[k] 2\n"
		     "loop;0x1000_[k] 1\n"
		     "loop;0x401000;[kernel]_[k] 1\n"
		     "loop;0xffffffffc0000200_[k] 1\n"
		     "loop;_stext_[k] 1\n"
		     "loop;mod_func_[k] 1\n",
		     "kernel symbols: folded stacks name kernel IPs, unknown ones stay addresses, one without a kernel IP is [kernel] under its user IP");
	all = report(&p, &rec, NULL, SLEEPY_FORMAT_TEXT, NULL);
	ok = all && lines_with(all, "do_thing", "([kernel.kallsyms])") == 3 &&
	     lines_with(all, "mod_func", "([mymod])") == 2 &&
	     lines_with(all, "0xffffffffc0000200 ", "[k]") == 1;
	check(ok, "kernel symbols: the IP and function reports name them, dso [kernel.kallsyms] or [module]");
	if (!ok && all)
		comment("report", all);
	free(all);
	sleepy_profile_free(&p);
	free(b.data);
	free(records.data);
}

/*
 * Flame graphs: frames as wide as their samples over 1180 pixels, siblings
 * in alphabetical order, each level 16 pixels above its parent, names
 * escaped for XML; off-CPU refused without switches; an empty graph says
 * so.  The same stacks as a speedscope file.
 */
static void test_flamegraph(void)
{
	static struct sleepy_symbol syms[] = {
		{ .start = 0x401000, .size = 0x40, .name = "main" },
		{ .start = 0x401100, .size = 0x100, .name = "operator<&>" },
	};
	static const struct sleepy_symbols symbols = {
		.app_name = "loop", .syms = syms, .count = 2,
	};
	struct sleepy_report_options opts = {
		.path = "t", .symbols = &symbols, .nsymbols = 1,
	};
	static char svg[65536];
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct builder b = {};
	int i, ret;
	bool ok;

	put_header(&b, 1);
	put_app(&b, 1, "loop", 1);
	put_app(&b, 2, "other", 1);
	for (i = 0; i < 5; i++)
		put_sample(&b, 1, 0x401000, 0, 0);
	put_sample(&b, 1, 0x401104, 0, 0);
	put_sample(&b, 1, 0x401108, 0, 0);
	for (i = 0; i < 4; i++)
		put_sample(&b, 2, 0x401000, 0, 0);
	put_trailer(&b, 11, 0);
	read_all(&b, &rec, &p);
	ret = write_stacks(svg, sizeof(svg), sleepy_flamegraph, &opts,
			   SLEEPY_FOLDED_CPU, &p, &rec);
	ok = ret == 0 && !strncmp(svg, "<?xml", 5) &&
	     strlen(svg) > 7 && !strcmp(svg + strlen(svg) - 7, "</svg>\n") &&
	     lines_with(svg, "<g class=\"f\"", "") == 6 &&
	     lines_with(svg, "data-x=\"10.00\" data-w=\"1180.00\"", "data-n=\"all\"") == 1 &&
	     lines_with(svg, "data-x=\"10.00\" data-w=\"750.91\"", "data-n=\"loop\"") == 1 &&
	     lines_with(svg, "data-x=\"760.91\" data-w=\"429.09\"", "data-n=\"other\"") == 1 &&
	     lines_with(svg, "data-x=\"10.00\" data-w=\"536.36\"", "data-n=\"main\"") == 1 &&
	     lines_with(svg, "data-x=\"546.36\" data-w=\"214.55\"",
			"data-n=\"operator&lt;&amp;&gt;\"") == 1;
	check(ok, "flame graph: frames as wide as their samples, siblings in alphabetical order");
	if (!ok)
		comment("svg", svg);
	check(lines_with(svg, "data-n=\"all\"", "y=\"76\"") == 1 &&
	      lines_with(svg, "data-n=\"loop\"", "y=\"60\"") == 1 &&
	      lines_with(svg, "data-n=\"main\"", "y=\"44\"") == 1 &&
	      lines_with(svg, "<title>operator&lt;&amp;&gt; (2 samples, 18.18%)</title>", "") == 1 &&
	      lines_with(svg, "<title>all (11 samples, 100.00%)</title>", "") == 1,
	      "flame graph: callees above callers, titles with weight and share, names escaped");
	check(write_stacks(svg, sizeof(svg), sleepy_flamegraph, &opts,
			   SLEEPY_FOLDED_OFFCPU, &p, &rec) == -1 &&
	      !svg[0], "flame graph offcpu: refused without context switches, nothing written");
	/* The same stacks for speedscope: one profile per program. */
	ret = write_stacks(svg, sizeof(svg), sleepy_speedscope, &opts,
			   SLEEPY_FOLDED_CPU, &p, &rec);
	ok = ret == 0 &&
	     strstr(svg, "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n") == svg &&
	     strstr(svg, "\"shared\": {\"frames\": [\n  {\"name\": \"main\"},\n"
		    "  {\"name\": \"operator<&>\"},\n  {\"name\": \"0x401000\"}]},\n") &&
	     strstr(svg, "{\"type\": \"sampled\", \"name\": \"loop\", \"unit\": \"none\", "
		    "\"startValue\": 0, \"endValue\": 7,\n \"samples\": [[0],[1]],\n "
		    "\"weights\": [5,2]},\n{\"type\": \"sampled\", \"name\": \"other\", "
		    "\"unit\": \"none\", \"startValue\": 0, \"endValue\": 4,\n "
		    "\"samples\": [[2]],\n \"weights\": [4]}]}\n");
	check(ok, "speedscope: shared frames, one sampled profile per program, heaviest first");
	if (!ok)
		comment("speedscope", svg);
	ret = write_stacks(svg, sizeof(svg), sleepy_speedscope, &opts,
			   SLEEPY_FOLDED_OFFCPU, &p, &rec);
	check(ret == -1 && !svg[0], "speedscope offcpu: refused without context switches, nothing written");
	opts.app_name = "nothing";
	ret = write_stacks(svg, sizeof(svg), sleepy_flamegraph, &opts,
			   SLEEPY_FOLDED_CPU, &p, &rec);
	check(ret == 0 && !lines_with(svg, "<g class=\"f\"", "") &&
	      strstr(svg, ">No samples in this recording<") &&
	      !strcmp(svg + strlen(svg) - 7, "</svg>\n"),
	      "flame graph: nothing selected, an SVG that says so");
	sleepy_profile_free(&p);
	free(b.data);
}

/* sorted_csv_named() with main at 0x401000 in loop. */
static char *sorted_csv(struct builder *b, const char *keys)
{
	static struct sleepy_symbol syms[] = {
		{ .start = 0x401000, .size = 0x40, .name = "main" },
	};
	static const struct sleepy_symbols symbols = {
		.app_name = "loop", .syms = syms, .count = 1,
	};

	return sorted_csv_named(b, keys, &symbols);
}

/* A sample with stacks: @nk kernel frames, then @nu user frames. */
static void put_stack_sample(struct builder *b, uint32_t appid,
			     uint32_t chain_flags, const uint64_t *kernel,
			     uint16_t nk, const uint64_t *user, uint16_t nu)
{
	struct sleepy_sample s = {
		.header = { SLEEPY_REC_SAMPLE,
			    sizeof(s) + sizeof(struct sleepy_callchain) + 8 * (nk + nu), 0 },
		.time_ns = 2000 + b->size, .user_ip = user[0],
		.kernel_ip = nk ? kernel[0] : 0, .appid = appid,
		.flags = SLEEPY_SAMPLE_CALLCHAIN | (nk ? SLEEPY_SAMPLE_IN_KERNEL : 0),
	};
	struct sleepy_callchain chain = {
		.nr_kernel = nk, .nr_user = nu, .flags = chain_flags,
	};

	put(b, &s, sizeof(s));
	put(b, &chain, sizeof(chain));
	put(b, kernel, 8 * nk);
	put(b, user, 8 * nu);
}

/* A report of @p with @view (and @function) as CSV, freed by the caller. */
static char *stack_report(struct sleepy_profile *p, struct sleepy_recording *rec,
			  const struct sleepy_symbols *symbols,
			  enum sleepy_stack_view view, const char *function)
{
	struct sleepy_report_options opts = {
		.path = "t", .format = SLEEPY_FORMAT_CSV, .symbols = symbols,
		.nsymbols = 1, .chain_depth = 1, .stack_view = view,
		.stack_function = function,
	};
	char *text = NULL;
	size_t size;
	FILE *f = open_memstream(&text, &size);

	sleepy_report(f, &opts, p, rec);
	fclose(f);
	return text;
}

/*
 * Call stacks (-g): folded stacks root first with kernel frames under the
 * user ones, a stack cut at --max-stack marked [cut], a return address
 * named by the call before it; --children counts a function once per
 * stack (recursion), --callers and --callees; a stack longer than its
 * record is damage.
 */
static struct sleepy_symbol stack_syms[] = {
	{ .start = 0x401000, .size = 0x100, .name = "a" },
	{ .start = 0x401100, .size = 0x100, .name = "b" },
	{ .start = 0x401200, .size = 0x100, .name = "c" },
	{ .start = 0x401300, .size = 0x100, .name = "d" },
	{ .start = 0x401400, .size = 0x100, .name = "main" },
};
static const struct sleepy_symbols stack_symbols = {
	.app_name = "prog", .syms = stack_syms, .count = 5,
};
static const uint64_t recursive_stack[] = { 0x401208, 0x401210, 0x401010, 0x401410 };

/*
 * Folded stacks, as FlameGraph's stackcollapse-perf.pl folds perf script:
 * a user IP no function names is [file] of the file it lies in, so that a
 * stripped library's code is one frame, not a sliver per IP; an IP of no
 * mapping stays 0xIP.  Flat, and as frames of a stack (-g).
 */
static void test_unnamed_folded(void)
{
	struct file_map lib = {
		0x10000, 0x12000, 0x3000, "/nonexistent/libgz.so",
	};
	const uint64_t stack[] = { 0x10123, 0x10457 };
	struct sleepy_report_options opts = { .path = "t" };
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct sleepy_dsos dsos;
	char out[2][512];
	struct builder b[2] = {};
	FILE *w = fopen("/dev/null", "w");
	int i, ret[2];

	for (i = 0; i < 2; i++) {
		put_header(&b[i], 2);
		put_instance(&b[i], 1, 0, 1000, 1000, "gz", 1);
		put_mmap(&b[i], 1, 1000, 1000, 0, &lib, NULL);
	}
	put_sample(&b[0], 1, 0x10123, 0, 0);
	put_sample(&b[0], 1, 0x10457, 0, 0);
	put_sample(&b[0], 1, 0x500000, 0, 0);
	put_trailer(&b[0], 3, 0);
	put_stack_sample(&b[1], 1, 0, NULL, 0, stack, 2);
	put_trailer(&b[1], 1, 0);
	sleepy_dsos_init(&dsos, NULL, w);
	opts.dsos = &dsos;
	for (i = 0; i < 2; i++) {
		read_all(&b[i], &rec, &p);
		ret[i] = folded(out[i], sizeof(out[i]), &opts, SLEEPY_FOLDED_CPU,
				&p, &rec);
		sleepy_profile_free(&p);
		free(b[i].data);
	}
	sleepy_dsos_free(&dsos);
	fclose(w);
	check_output(ret[0] == 0, out[0], "gz;[libgz.so] 2\ngz;0x500000 1\n",
		     "folded: a user IP no function names is [file], as stackcollapse-perf.pl folds it; one of no mapping 0xIP");
	check_output(ret[1] == 0, out[1], "gz;[libgz.so];[libgz.so] 1\n",
		     "folded -g: an unnamed frame of a stack is [file] too");
}

/*
 * prog#1's stacks: main -> a -> b -> c (6 samples), main -> a -> d (3),
 * main -> ? -> read in the kernel (2), one cut at --max-stack whose return
 * address is b's first byte (the call was a's last instruction), one
 * recursive in c that ended at a frame without a frame pointer.
 */
static struct builder stack_recording(void)
{
	static const char ksyms[] =
		"ffffffff81000000 ffffffff81000100 sys_read\n"
		"ffffffff81000100 ffffffff81000200 do_syscall_64\n";
	static const uint64_t abc[] = { 0x401208, 0x401110, 0x401010, 0x401410 };
	static const uint64_t ad[] = { 0x401304, 0x401020, 0x401410 };
	static const uint64_t read_user[] = { 0x401500, 0x401420 };
	static const uint64_t read_kernel[] = { 0xffffffff81000008, 0xffffffff81000110 };
	static const uint64_t cut[] = { 0x401204, 0x401100 };
	struct sleepy_text *text;
	struct builder b = {};
	int i;

	put_header(&b, 1);
	put_app(&b, 1, "prog", 1);
	text = calloc(1, sizeof(*text) + sizeof(ksyms) + 8);
	memcpy(text->text, ksyms, sizeof(ksyms));
	text->header = (struct sleepy_record_header) {
		SLEEPY_REC_KERNEL_SYMBOLS, (sizeof(*text) + sizeof(ksyms) + 7) / 8 * 8, 0,
	};
	put(&b, text, text->header.size);
	free(text);
	for (i = 0; i < 6; i++)
		put_stack_sample(&b, 1, 0, NULL, 0, abc, 4);
	for (i = 0; i < 3; i++)
		put_stack_sample(&b, 1, 0, NULL, 0, ad, 3);
	for (i = 0; i < 2; i++)
		put_stack_sample(&b, 1, 0, read_kernel, 2, read_user, 2);
	put_stack_sample(&b, 1, SLEEPY_CALLCHAIN_USER_CUT, NULL, 0, cut, 2);
	put_stack_sample(&b, 1, SLEEPY_CALLCHAIN_USER_FAULT, NULL, 0, recursive_stack, 4);
	put_trailer(&b, 13, 0);
	return b;
}

static void test_call_stacks(void)
{
	struct sleepy_report_options opts = { .symbols = &stack_symbols, .nsymbols = 1 };
	const struct sleepy_symbols *symbols = &stack_symbols;
	struct builder b = stack_recording();
	struct sleepy_recording rec;
	struct sleepy_profile p;
	char out[1024], *csv;
	int ret;

	check(read_all(&b, &rec, &p) == 13 && p.stack_samples == 13 &&
	      p.stacks_cut == 1 && p.stacks_unwalkable == 1,
	      "stacks: 13 samples read, all with stacks, 1 cut, 1 unwalkable");

	ret = folded(out, sizeof(out), &opts, SLEEPY_FOLDED_CPU, &p, &rec);
	check_output(ret == 0, out,
		     "prog;main;a;b;c 6\n"
		     "prog;main;a;d 3\n"
		     "prog;main;0x401500;do_syscall_64_[k];sys_read_[k] 2\n"
		     "prog;[cut];a;c 1\n"
		     "prog;main;a;c;c 1\n",
		     "stacks: folded root first, kernel under user, [cut], return addresses by their call");

	csv = stack_report(&p, &rec, symbols, SLEEPY_STACKS_CHILDREN, NULL);
	check_output(csv != NULL, csv ? strstr(csv, "children,12,") ?: csv : "",
		     "children,12,92.3077,0,0.0000,prog#1,[.] main\n"
		     "children,11,84.6154,0,0.0000,prog#1,[.] a\n"
		     "children,8,61.5385,8,61.5385,prog#1,[.] c\n"
		     "children,6,46.1538,0,0.0000,prog#1,[.] b\n"
		     "children,3,23.0769,3,23.0769,prog#1,[.] d\n"
		     "children,2,15.3846,2,15.3846,prog#1,[k] sys_read\n"
		     "children,2,15.3846,0,0.0000,prog#1,[k] do_syscall_64\n"
		     "children,2,15.3846,0,0.0000,prog#1,[.] 0x401500\n"
		     "children,1,7.6923,0,0.0000,prog#1,[.] [cut]\n",
		     "stacks: --children, recursion counted once per stack");
	free(csv);
	csv = stack_report(&p, &rec, symbols, SLEEPY_STACKS_CALLERS, "c");
	check_output(csv != NULL, csv ? strstr(csv, "callers,") ?: csv : "",
		     "callers,6,75.0000,prog#1,[.] b\n"
		     "callers,2,25.0000,prog#1,[.] a\n"
		     "callers,1,12.5000,prog#1,[.] c\n",
		     "stacks: --callers c: b, a (twice: after a cut too), c itself (recursion)");
	free(csv);
	csv = stack_report(&p, &rec, symbols, SLEEPY_STACKS_CALLEES, "a");
	check_output(csv != NULL, csv ? strstr(csv, "callees,") ?: csv : "",
		     "callees,6,54.5455,prog#1,[.] b\n"
		     "callees,3,27.2727,prog#1,[.] d\n"
		     "callees,2,18.1818,prog#1,[.] c\n",
		     "stacks: --callees a: b, d, c");
	free(csv);
	csv = stack_report(&p, &rec, symbols, SLEEPY_STACKS_CALLEES, "nothing");
	check(csv && strstr(csv, "report,samples,percent,app,function\n") &&
	      !strstr(csv, "prog#1,"), "stacks: --callees of a function on no stack: no rows");
	free(csv);
	sleepy_profile_free(&p);

	/* A stack whose frames run past its record. */
	b.size -= 4 * 8 + sizeof(struct sleepy_end) + sizeof(struct sleepy_cpu_stats);
	((struct sleepy_sample *)(b.data + b.size - sizeof(struct sleepy_sample) -
				  sizeof(struct sleepy_callchain)))->header.size -= 8;
	put(&b, recursive_stack, 3 * 8);
	put_trailer(&b, 13, 0);
	read_all(&b, &rec, &p);
	check(strstr(rec.error, "stack longer than its record") != NULL,
	      "stacks: a stack longer than its record is damage: %s", rec.error);
	sleepy_profile_free(&p);
	free(b.data);
}

/*
 * --sort: samples grouped by the keys in their order, by thread with tid,
 * perf's [.] and [k] marks on symbols; bad key lists refused.
 */
static void test_sort(void)
{
	static const struct { uint32_t appid, tid; uint64_t ip; uint32_t flags; int n; } s[] = {
		{ 1, 101, 0x401000, 0, 3 }, { 1, 105, 0x401004, 0, 2 },
		{ 2, 102, 0x401000, 0, 1 },
		{ 1, 101, 0x401000, SLEEPY_SAMPLE_IN_KERNEL, 1 },
		{ 1, 101, 0x500000, 0, 1 },
	};
	struct sleepy_report_options opts = {};
	struct builder b = {};
	char error[128], *out;
	size_t i;
	int j;

	put_header(&b, 1);
	put_app(&b, 1, "loop", 1);
	put_app(&b, 2, "loop", 2);
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		for (j = 0; j < s[i].n; j++) {
			struct sleepy_sample r = {
				.header = { SLEEPY_REC_SAMPLE, sizeof(r), 0 },
				.time_ns = 2000 + b.size, .user_ip = s[i].ip,
				.tid = s[i].tid, .appid = s[i].appid,
				.flags = s[i].flags,
			};

			put(&b, &r, sizeof(r));
		}
	}
	put_trailer(&b, 8, 0);
	out = sorted_csv(&b, "sym");
	check_output(out != NULL, out,
		     "report,samples,percent,sym\n"
		     "sorted,6,75.0000,[.] main\n"
		     "sorted,1,12.5000,[.] 0x500000\n"
		     "sorted,1,12.5000,[k] [kernel]\n",
		     "--sort sym: by function across applications, [.] user, [k] kernel mode ([kernel] without a kernel IP)");
	free(out);
	out = sorted_csv(&b, "app,tid");
	check_output(out != NULL, out,
		     "report,samples,percent,app,tid\n"
		     "sorted,5,62.5000,loop#1,101\n"
		     "sorted,2,25.0000,loop#1,105\n"
		     "sorted,1,12.5000,loop#2,102\n",
		     "--sort app,tid: by thread of each application instance");
	free(out);
	check(!sleepy_sort_parse("app,bogus", &opts, error, sizeof(error)) &&
	      strstr(error, "'bogus'") &&
	      !sleepy_sort_parse("app,", &opts, error, sizeof(error)) &&
	      !sleepy_sort_parse("", &opts, error, sizeof(error)) &&
	      !sleepy_sort_parse("sym,sym", &opts, error, sizeof(error)) &&
	      sleepy_sort_parse("ip,dso,pid,app,tid,sym,comm", &opts, error, sizeof(error)) &&
	      opts.nsort == 7 && opts.sort[0] == SLEEPY_SORT_IP &&
	      opts.sort[6] == SLEEPY_SORT_COMM,
	      "--sort: unknown, repeated, empty or trailing keys refused; all seven in any order");
	free(b.data);
}

/*
 * --sort sym: rows of equal samples in the order of their texts, names
 * and unnamed IPs ("[.] 0x...") mixed, names that look like numbers too.
 */
static void test_sort_ties(void)
{
	static struct sleepy_symbol syms[] = {
		{ .start = 0x401000, .size = 0x10, .name = "main" },
		{ .start = 0x402000, .size = 0x10, .name = "0x4fz" },
		{ .start = 0x403000, .size = 0x10, .name = "0abc" },
		{ .start = 0x404000, .size = 0x10, .name = "!bang" },
		{ .start = 0x405000, .size = 0x10, .name = "0x" },
	};
	static const struct sleepy_symbols symbols = {
		.app_name = "loop", .syms = syms, .count = 5,
	};
	static const uint64_t ips[] = {
		0x401000, 0x5, 0x402000, 0x50, 0x403000, 0x4f0, 0x404000, 0x4f,
		0x405000, 0x6, 0xa00000,
	};
	struct builder b = {};
	char *out;
	size_t i;

	put_header(&b, 1);
	put_app(&b, 1, "loop", 1);
	for (i = 0; i < sizeof(ips) / sizeof(ips[0]); i++) {
		struct sleepy_sample r = {
			.header = { SLEEPY_REC_SAMPLE, sizeof(r), 0 },
			.time_ns = 2000 + b.size, .user_ip = ips[i],
			.tid = 101, .appid = 1,
		};

		put(&b, &r, sizeof(r));
	}
	put_trailer(&b, 11, 0);
	out = sorted_csv_named(&b, "app,sym", &symbols);
	check_output(out != NULL, out,
		     "report,samples,percent,app,sym\n"
		     "sorted,1,9.0909,loop#1,[.] !bang\n"
		     "sorted,1,9.0909,loop#1,[.] 0abc\n"
		     "sorted,1,9.0909,loop#1,[.] 0x\n"
		     "sorted,1,9.0909,loop#1,[.] 0x4f\n"
		     "sorted,1,9.0909,loop#1,[.] 0x4f0\n"
		     "sorted,1,9.0909,loop#1,[.] 0x4fz\n"
		     "sorted,1,9.0909,loop#1,[.] 0x5\n"
		     "sorted,1,9.0909,loop#1,[.] 0x50\n"
		     "sorted,1,9.0909,loop#1,[.] 0x6\n"
		     "sorted,1,9.0909,loop#1,[.] 0xa00000\n"
		     "sorted,1,9.0909,loop#1,[.] main\n",
		     "--sort app,sym: tied rows by text, names among unnamed IPs as strcmp() orders them");
	free(out);
	free(b.data);
}

typedef Perftools__Profiles__Profile Pprof;

/* @path, gunzipped and unpacked; NULL if it is no gzip'd profile. */
static Pprof *read_pprof(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	size_t len = 0, size = 1 << 16;
	unsigned char *buf = malloc(size);
	Pprof *p = NULL;
	int n;

	if (!gz)
		return NULL;
	while ((n = gzread(gz, buf + len, size - len)) > 0) {
		len += n;
		if (len == size)
			buf = realloc(buf, size *= 2);
	}
	if (n == 0 && gzdirect(gz) == 0)
		p = perftools__profiles__profile__unpack(NULL, len, buf);
	gzclose(gz);
	free(buf);
	return p;
}

static const char *pprof_string(const Pprof *p, int64_t index)
{
	return index >= 0 && (size_t)index < p->n_string_table ?
	       p->string_table[index] : "(bad index)";
}

static const Perftools__Profiles__Location *pprof_location(const Pprof *p,
							   uint64_t id)
{
	size_t i;

	for (i = 0; i < p->n_location; i++)
		if (p->location[i]->id == id)
			return p->location[i];
	return NULL;
}

static const Perftools__Profiles__Mapping *pprof_mapping(const Pprof *p,
							 uint64_t id)
{
	size_t i;

	for (i = 0; i < p->n_mapping; i++)
		if (p->mapping[i]->id == id)
			return p->mapping[i];
	return NULL;
}

/* The function name of location @id, "" if it has none. */
static const char *pprof_function(const Pprof *p, uint64_t id)
{
	const Perftools__Profiles__Location *loc = pprof_location(p, id);
	size_t i;

	if (!loc || !loc->n_line)
		return "";
	for (i = 0; i < p->n_function; i++)
		if (p->function[i]->id == loc->line[0]->function_id)
			return pprof_string(p, p->function[i]->name);
	return "(no function)";
}

/* Samples of @p whose leaf is @function, with app/pid labels as given. */
static int64_t pprof_samples(const Pprof *p, const char *function,
			     const char *app, int64_t pid)
{
	int64_t total = 0;
	size_t i;

	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		if (s->n_location_id != 1 || s->n_value != 2 || s->n_label != 2 ||
		    strcmp(pprof_function(p, s->location_id[0]), function) ||
		    strcmp(pprof_string(p, s->label[0]->key), "app") ||
		    strcmp(pprof_string(p, s->label[0]->str), app) ||
		    strcmp(pprof_string(p, s->label[1]->key), "pid") ||
		    s->label[1]->num != pid ||
		    s->value[1] != s->value[0] * 1000000)
			continue;
		total += s->value[0];
	}
	return total;
}

/*
 * --pprof of a recording with stacks: one sample per stack, its locations
 * leaf first, kernel frames before user ones, a cut stack ending in [cut].
 */
static void test_pprof_stacks(void)
{
	static const char *const want[] = { "c", "b", "a", "main" };
	struct sleepy_report_options opts = {
		.path = "t", .symbols = &stack_symbols, .nsymbols = 1,
	};
	char path[] = "/tmp/sleepy-pprof-stacks-XXXXXX";
	struct builder b = stack_recording();
	const Perftools__Profiles__Sample *s;
	struct sleepy_recording rec;
	struct sleepy_profile p;
	bool chain = true, kernel = false, cut = false;
	Pprof *pp = NULL;
	size_t i, j;
	int fd;

	read_all(&b, &rec, &p);
	fd = mkstemp(path);
	close(fd);
	if (!sleepy_pprof_write(path, &opts, &p, &rec))
		pp = read_pprof(path);
	unlink(path);
	check(pp && pp->n_sample == 5 && pp->sample[0]->value[0] == 6,
	      "pprof stacks: a sample per stack, heaviest first");
	if (pp) {
		s = pp->sample[0];
		chain = s->n_location_id == 4;
		for (i = 0; chain && i < 4; i++)
			chain = !strcmp(pprof_function(pp, s->location_id[i]), want[i]);
		for (i = 0; i < pp->n_sample; i++) {
			s = pp->sample[i];
			for (j = 0; j + 1 < s->n_location_id; j++)
				kernel |= !strcmp(pprof_function(pp, s->location_id[j]), "sys_read") &&
					  !strcmp(pprof_function(pp, s->location_id[j + 1]), "do_syscall_64") &&
					  j + 3 < s->n_location_id &&
					  !strcmp(pprof_function(pp, s->location_id[j + 3]), "main");
			cut |= s->n_location_id == 3 &&
			       !strcmp(pprof_function(pp, s->location_id[2]), "[cut]") &&
			       !strcmp(pprof_function(pp, s->location_id[1]), "a");
		}
	}
	check(pp && chain && kernel && cut,
	      "pprof stacks: c, b, a, main leaf first; sys_read, do_syscall_64 then user frames; [cut] at the root");
	if (pp)
		perftools__profiles__profile__free_unpacked(pp, NULL);
	sleepy_profile_free(&p);
	free(b.data);
}

#define PPROF_TESTS 8

/*
 * --sort srcline: this program's DWARF (built with -g) puts @f, inside
 * mapped_function(), on one of its lines.
 */
static void srcline_test(struct sleepy_profile *p, struct sleepy_dsos *dsos,
			 uint64_t f)
{
	const struct sleepy_mapping *map;
	char line[64] = "", want[64];
	int n = 0;

	map = sleepy_profile_mapping(p, sleepy_profile_app(p, 1), f);
	if (map && sleepy_dsos_srcline(dsos, map, f, line, sizeof(line)))
		sscanf(line, "test_recording.c:%d", &n);
	snprintf(want, sizeof(want), "test_recording.c:%d..%d",
		 mapped_function_line, mapped_function_line + 3);
	check(n >= mapped_function_line && n <= mapped_function_line + 3 &&
	      !sleepy_dsos_srcline(dsos, map, map ? map->start + map->len + 0x1000 : 0,
				   line + 32, 32),
	      "srcline: mapped_function's IP at %s (%s) from DWARF; none outside the file",
	      line, want);
}

/*
 * --pprof: a recording with this PIE's and libc's mappings (one with a
 * build-id), kernel symbols, an unmapped IP and a kernel sample without
 * -k, written and read back through protobuf-c and zlib.
 */
static void test_pprof(void)
{
	static const char ksyms[] =
		"ffffffff81000110 ffffffff81000200 do_thing\n";
	struct memory_build_id exe_id = { .addr = (uintptr_t)mapped_function };
	uint64_t f = (uintptr_t)mapped_function + 1, g = (uintptr_t)getenv + 1;
	struct sleepy_report_options opts = { .path = "t" };
	char path[] = "/tmp/sleepy-pprof-XXXXXX", build_id[64] = "";
	const Perftools__Profiles__Mapping *exe_map = NULL, *kernel_map = NULL;
	struct file_map exe, libc;
	struct sleepy_recording rec;
	struct sleepy_profile prof;
	struct sleepy_dsos dsos;
	struct builder b = {};
	struct sleepy_text *t;
	bool line_ok;
	size_t i, len;
	Pprof *p;
	FILE *w;
	int fd;

	if (!find_self_map(f, &exe) || !find_self_map(g, &libc) ||
	    !dl_iterate_phdr(find_build_id, &exe_id) || !exe_id.size) {
		for (i = 0; i < PPROF_TESTS; i++)
			check(0, "pprof: no test setup");
		return;
	}
	for (i = 0; i < exe_id.size; i++)
		snprintf(build_id + 2 * i, 3, "%02x", exe_id.id[i]);
	put_header(&b, 2);
	put_instance(&b, 1, 0, 1000, 1000, "test", 1);
	put_mmap(&b, 1, 1000, 1000, 0, &exe, &exe_id);
	put_mmap(&b, 1, 1000, 1000, 0, &libc, NULL);
	for (i = 0; i < 3; i++)
		put_sample(&b, 1, f, 0, 0);
	put_sample(&b, 1, g, 0, 0);
	put_sample(&b, 1, 0x10010, 0, 0);
	put_kernel_sample(&b, 1, 0xffffffff81000120);
	put_kernel_sample(&b, 1, 0xffffffff81000130);
	put_kernel_sample(&b, 1, 0);
	len = (sizeof(*t) + sizeof(ksyms) + 7) & ~7UL;
	t = calloc(1, len);
	t->header = (struct sleepy_record_header) {
		SLEEPY_REC_KERNEL_SYMBOLS, len, 0 };
	memcpy(t->text, ksyms, sizeof(ksyms) - 1);
	put(&b, t, len);
	free(t);
	put_trailer(&b, 8, 0);
	check(read_all(&b, &rec, &prof) == 8 && !rec.error[0],
	      "pprof: a recording of 8 samples read");

	fd = mkstemp(path);
	close(fd);
	w = fopen("/dev/null", "w");
	sleepy_dsos_init(&dsos, NULL, w);
	opts.dsos = &dsos;
	p = sleepy_pprof_write(path, &opts, &prof, &rec) ? NULL : read_pprof(path);
	check(p && p->n_sample_type == 2 && p->period == 1000000 &&
	      !strcmp(pprof_string(p, p->sample_type[0]->type), "samples") &&
	      !strcmp(pprof_string(p, p->sample_type[0]->unit), "count") &&
	      !strcmp(pprof_string(p, p->sample_type[1]->type), "cpu") &&
	      !strcmp(pprof_string(p, p->sample_type[1]->unit), "nanoseconds") &&
	      p->period_type &&
	      !strcmp(pprof_string(p, p->period_type->type), "cpu") &&
	      p->n_sample == 6 && p->n_string_table &&
	      !strcmp(p->string_table[0], ""),
	      "pprof: gzip'd protobuf, samples/count and cpu/nanoseconds at 1 ms a sample, 6 samples");
	if (p) {
		for (i = 0; i < p->n_mapping; i++) {
			const char *file = pprof_string(p, p->mapping[i]->filename);

			if (!strcmp(file, exe.path))
				exe_map = p->mapping[i];
			if (!strcmp(file, "[kernel.kallsyms]"))
				kernel_map = p->mapping[i];
		}
	}
	check(p && pprof_samples(p, "mapped_function", "test#1", 1000) == 3 &&
	      pprof_samples(p, "getenv", "test#1", 1000) == 1 &&
	      pprof_samples(p, "do_thing", "test#1", 1000) == 2 &&
	      pprof_samples(p, "[kernel]", "test#1", 1000) == 1 &&
	      pprof_samples(p, "", "test#1", 1000) == 1,
	      "pprof: leaf functions named as in the reports, labels app and pid, cpu = samples x period");
	for (i = 0; p && i < p->n_location; i++)
		if (p->location[i]->address == f &&
		    pprof_mapping(p, p->location[i]->mapping_id) != exe_map)
			exe_map = NULL;
	check(p && exe_map && exe_map->memory_start == exe.start &&
	      exe_map->memory_limit == exe.end &&
	      exe_map->file_offset == exe.offset &&
	      !strcmp(pprof_string(p, exe_map->build_id), build_id) &&
	      p->n_mapping == 3 && p->mapping[0] != kernel_map &&
	      kernel_map && kernel_map->memory_start == 0xffffffff81000120 &&
	      kernel_map->memory_limit == 0xffffffff81000131,
	      "pprof: file mappings with range, offset and build-id, locations in them; the kernel's last, over its addresses");
	line_ok = false;
	for (i = 0; p && i < p->n_location; i++) {
		const Perftools__Profiles__Location *loc = p->location[i];
		size_t j;

		if (loc->address != f || loc->n_line != 1)
			continue;
		for (j = 0; j < p->n_function; j++)
			if (p->function[j]->id == loc->line[0]->function_id)
				line_ok = loc->line[0]->line >= mapped_function_line &&
					  loc->line[0]->line <= mapped_function_line + 3 &&
					  !strcmp(pprof_string(p, p->function[j]->filename),
						  "test_recording.c") &&
					  exe_map && exe_map->has_line_numbers;
	}
	check(line_ok, "pprof: mapped_function's location on its source line, its file named (DWARF)");
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);

	opts.top = 1;
	p = sleepy_pprof_write(path, &opts, &prof, &rec) ? NULL : read_pprof(path);
	check(p && p->n_sample == 1 &&
	      pprof_samples(p, "mapped_function", "test#1", 1000) == 3,
	      "pprof: --top 1 keeps the heaviest sample");
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);
	unlink(path);
	check(sleepy_pprof_write("/nonexistent/dir/p.pb.gz", &opts, &prof, &rec) == -1,
	      "pprof: an unwritable file is an error");
	srcline_test(&prof, &dsos, f);
	sleepy_dsos_free(&dsos);
	fclose(w);
	sleepy_profile_free(&prof);
	free(b.data);
}

/*
 * Wakeup links by count and by blocked time: a woke the sleeper once
 * after 5000 ns, b three times after 100 ns each.
 */
static void test_wakeups_by_count(void)
{
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct builder b = {};
	const char *by_time, *by_count;
	char *text;
	uint64_t t;
	bool ok;

	put_header(&b, 1);
	put_app(&b, 1, "sleeper", 1);
	put_app(&b, 2, "a", 1);
	put_app(&b, 3, "b", 1);
	put_switch(&b, 0, 1000, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 100, 1);
	put_switch(&b, 0, 1100, 100, 1, SLEEPY_SWITCH_SLEEP, 0x10, 0, 0);
	put_wakeup(&b, 0, 6100, 300, 2, 100, 1, 0);
	for (t = 6100; t < 6700; t += 200) {
		put_switch(&b, 0, t, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 100, 1);
		put_switch(&b, 0, t + 100, 100, 1, SLEEPY_SWITCH_SLEEP, 0x10, 0, 0);
		put_wakeup(&b, 0, t + 200, 400, 3, 100, 1, 0);
	}
	put_trailer(&b, 0, 0);
	read_all(&b, &rec, &p);
	text = report(&p, &rec, NULL, SLEEPY_FORMAT_TEXT, NULL);
	by_time = text ? strstr(text, "by the wakee's blocked time ==") : NULL;
	by_count = text ? strstr(text, "waker -> wakee, by count ==") : NULL;
	ok = by_time && by_count &&
	     strstr(by_time, "a#1") < strstr(by_time, "b#1") &&
	     strstr(by_count, "b#1") < strstr(by_count, "a#1") &&
	     lines_with(by_count, "b#1", " 3 ") == 1;
	check(ok, "sched: wakeup links by blocked time (a#1 first) and by count (b#1, 3 wakeups, first)");
	if (!ok && text)
		comment("report", text);
	free(text);
	sleepy_profile_free(&p);
	free(b.data);
}

/*
 * --pprof reads per thread: one sample per thread and IP, labelled tid
 * (3 samples of thread 101 and 2 of 105 at one IP of one process).
 */
static void test_pprof_threads(void)
{
	struct sleepy_report_options opts = { .path = "t" };
	char path[] = "/tmp/sleepy-pprof-threads-XXXXXX";
	int64_t by_tid[2] = {};
	struct sleepy_recording rec;
	struct builder b = {};
	struct sleepy_profile p;
	bool labelled = true;
	Pprof *pp = NULL;
	size_t i;
	int fd;

	put_header(&b, 1);
	put_app(&b, 1, "worker", 1);
	for (i = 0; i < 5; i++) {
		struct sleepy_sample r = {
			.header = { SLEEPY_REC_SAMPLE, sizeof(r), 0 },
			.time_ns = 2000 + b.size, .user_ip = 0x401000,
			.tid = i < 3 ? 101 : 105, .appid = 1,
		};

		put(&b, &r, sizeof(r));
	}
	put_trailer(&b, 5, 0);
	sleepy_profile_init(&p);
	p.by_tid = true;
	if (!sleepy_recording_open_mem(&rec, b.data, b.size))
		sleepy_profile_read(&p, &rec);
	fd = mkstemp(path);
	close(fd);
	if (!sleepy_pprof_write(path, &opts, &p, &rec))
		pp = read_pprof(path);
	unlink(path);
	for (i = 0; pp && i < pp->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pp->sample[i];

		labelled &= s->n_label == 3 &&
			    !strcmp(pprof_string(pp, s->label[2]->key), "tid");
		if (s->n_label == 3 && s->label[2]->num == 101)
			by_tid[0] += s->value[0];
		if (s->n_label == 3 && s->label[2]->num == 105)
			by_tid[1] += s->value[0];
	}
	check(pp && pp->n_sample == 2 && labelled && by_tid[0] == 3 && by_tid[1] == 2,
	      "pprof: a sample per thread, labelled tid (101: 3, 105: 2)");
	if (pp)
		perftools__profiles__profile__free_unpacked(pp, NULL);
	sleepy_profile_free(&p);
	free(b.data);
}

/*
 * --sort cpu: the samples each CPU's buffer held beside its counters;
 * alone only.
 */
static void test_sort_cpu(void)
{
	struct sleepy_report_options opts = {};
	struct builder b = {};
	char error[128], *out;
	uint32_t cpu;
	int i;

	put_header(&b, 2);
	put_app(&b, 1, "loop", 1);
	for (i = 0; i < 5; i++)
		put_sample(&b, 1, 0x401000, i < 2 ? 0 : 1, 0);
	for (cpu = 0; cpu < 2; cpu++) {
		struct sleepy_cpu_stats st = {
			.header = { SLEEPY_REC_CPU_STATS, sizeof(st), cpu },
			.samples = cpu ? 3 : 2, .idle = cpu ? 0 : 7,
			.missed = cpu ? 4 : 0, .dropped = cpu,
		};

		put(&b, &st, sizeof(st));
	}
	put_trailer(&b, 0, 0);
	out = sorted_csv(&b, "cpu");
	check_output(out != NULL, out,
		     "report,samples,percent,cpu,counted,idle,missed,dropped\n"
		     "sorted,2,40.0000,0,2,7,0,0\n"
		     "sorted,3,60.0000,1,3,0,4,1\n",
		     "--sort cpu: samples per CPU beside its counted, idle, missed and dropped");
	free(out);
	check(!sleepy_sort_parse("cpu,app", &opts, error, sizeof(error)) &&
	      strstr(error, "of its own") &&
	      sleepy_sort_parse("cpu", &opts, error, sizeof(error)) &&
	      opts.nsort == 1 && opts.sort[0] == SLEEPY_SORT_CPU,
	      "--sort cpu alone; with other keys refused");
	free(b.data);
}

static void put_exit(struct builder *b, uint32_t appid, uint64_t time)
{
	struct sleepy_app_exit e = {
		.header = { SLEEPY_REC_APP_EXIT, sizeof(e), 0 },
		.appid = appid, .time_ns = time,
	};

	put(b, &e, sizeof(e));
}

/*
 * Feeds the records of @b (after its header) into @p, as sleepy-agent does.
 * A builder whose records do not all read fails the run: a test on them
 * would check less than it says.
 */
static void take_all(struct builder *b, struct sleepy_profile *p)
{
	struct sleepy_recording rec;

	if (sleepy_recording_open_mem(&rec, b->data, b->size) ||
	    sleepy_profile_read(p, &rec)) {
		printf("# take_all: %s\n", rec.error);
		failures++;
	}
	sleepy_recording_close(&rec);
}

/* sleepy-parse DIR's report, as CSV, into a string; NULL if it failed. */
static char *intervals_csv(const char *dir, int64_t from, int64_t to)
{
	struct sleepy_intervals_options o = {
		.dir = dir, .from_ns = from, .to_ns = to,
		.format = SLEEPY_FORMAT_CSV,
	};
	char *text = NULL;
	size_t size;
	FILE *w = open_memstream(&text, &size);
	int ret = sleepy_intervals_report(w, &o);

	fclose(w);
	if (ret) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * An interval that forgets every application, then a sample of the same
 * appid: a new application counts it, not one the last interval freed.
 */
static void test_interval_forgets_every_app(void)
{
	struct builder one = {}, two = {};
	struct sleepy_profile p;
	const struct sleepy_app *app;

	put_header(&one, 2);
	put_instance(&one, 1, 0, 1000, 1000, "short", 1);
	put_sample(&one, 1, 0x401000, 0, 0);
	put_exit(&one, 1, 2000);
	put_header(&two, 2);
	put_sample(&two, 1, 0x401000, 0, 0);
	sleepy_profile_init(&p);
	take_all(&one, &p);
	sleepy_profile_next_interval(&p, 3000);
	take_all(&two, &p);
	app = sleepy_table_find(&p.apps, 1, NULL, NULL);
	check(p.apps.used == 1 && app && app->samples == 1,
	      "intervals: every application forgotten, then a sample of the same appid counted by a new one (%zu apps, %llu samples)",
	      p.apps.used, app ? (unsigned long long)app->samples : 0ULL);
	sleepy_profile_free(&p);
	free(one.data);
	free(two.data);
}

/*
 * A new instance's IP table starts with the room its program's last
 * instance needed, and an interval forgets those sizes.
 */
static void test_table_sized_from_last_instance(void)
{
	struct builder b = {};
	struct sleepy_profile p;
	const struct sleepy_app *second;
	uint64_t ip;

	put_header(&b, 2);
	put_instance(&b, 1, 0, 1000, 1000, "short", 1);
	for (ip = 0x401000; ip < 0x401000 + 40 * 16; ip += 16)
		put_sample(&b, 1, ip, 0, 0);
	put_exit(&b, 1, 2000);
	put_instance(&b, 2, 0, 1001, 3000, "short", 2);
	sleepy_profile_init(&p);
	take_all(&b, &p);
	second = sleepy_table_find(&p.apps, 2, NULL, NULL);
	check(second && !second->ips.used && second->ips.capacity * 3 >= 40 * 4,
	      "tables: a new instance starts with room for its program's last one's 40 IP counts (capacity %zu)",
	      second ? second->ips.capacity : 0);
	sleepy_profile_next_interval(&p, 2500);
	check(!p.ips_by_name.used,
	      "intervals: the programs' table sizes are forgotten with the interval (%zu left)",
	      p.ips_by_name.used);
	sleepy_profile_free(&p);
	free(b.data);
}

/*
 * sleepy-agent's intervals: a profile keeps the processes and mappings
 * from one interval to the next and forgets only those of processes that
 * ended with no running descendant; the profiles it writes are read back
 * by sleepy-parse DIR, whole or by time range.
 */
static void test_intervals(void)
{
	struct sleepy_report_options opts = {};
	uint64_t f = (uintptr_t)mapped_function + 1;
	char dir[] = "/tmp/sleepy-intervals-XXXXXX", path[4200];
	struct builder one = {}, two = {};
	struct sleepy_profile p;
	struct sleepy_dsos dsos;
	struct file_map exe;
	char *all, *second;
	int64_t t;
	int i;

	if (!find_self_map(f, &exe) || !mkdtemp(dir)) {
		for (i = 0; i < 7; i++)
			check(0, "intervals: no test setup");
		return;
	}
	put_header(&one, 2);
	put_instance(&one, 1, 0, 1000, 1000, "shell", 1);
	put_mmap(&one, 1, 1000, 1000, 0, &exe, NULL);
	put_instance(&one, 2, 1, 1001, 1100, "shell", 2);
	put_instance(&one, 3, 1, 1002, 1200, "gone", 1);
	for (i = 0; i < 3; i++)
		put_sample(&one, 1, f, 0, 0);
	for (i = 0; i < 2; i++)
		put_sample(&one, 2, f, 1, 0);
	put_sample(&one, 3, f, 0, 0);
	put_exit(&one, 1, 5000);
	put_exit(&one, 3, 5000);
	/* An exec the cut falls into: its image mapped, not announced yet. */
	put_mmap(&one, 0, 1003, 5500, SLEEPY_MMAP_EXEC, &exe, NULL);
	put_header(&two, 2);
	put_instance(&two, 4, 0, 1003, 5600, "late", 1);
	for (i = 0; i < 4; i++)
		put_sample(&two, 2, f, 1, 0);
	put_sample(&two, 4, f, 0, 0);

	sleepy_profile_init(&p);
	sleepy_dsos_init(&dsos, NULL, NULL);
	opts.dsos = &dsos;
	take_all(&one, &p);
	snprintf(path, sizeof(path), "%s/sleepy-20261126T100100Z.pb.gz", dir);
	check(!sleepy_pprof_write_interval(path, &opts, &p, 1000,
					   1000000000000LL, 60000000000ULL),
	      "intervals: the first interval's profile written");
	sleepy_profile_next_interval(&p, 1000);
	check(p.samples == 0 && p.apps.used == 3 && p.nmappings == 2,
	      "intervals: samples forgotten; what ended within the interval and the unannounced exec's mapping kept for the next (%zu apps, %zu mappings)",
	      p.apps.used, p.nmappings);
	take_all(&two, &p);
	snprintf(path, sizeof(path), "%s/sleepy-20261126T100200Z.pb.gz", dir);
	sleepy_pprof_write_interval(path, &opts, &p, 1000, 1060000000000LL,
				    60000000000ULL);
	sleepy_profile_next_interval(&p, 6000);
	check(p.apps.used == 3 && p.nmappings == 2 &&
	      sleepy_table_find(&p.apps, 1, NULL, NULL) &&
	      !sleepy_table_find(&p.apps, 3, NULL, NULL),
	      "intervals: then the ended parent of a running child kept with its mapping, the ended childless one gone (%zu apps, %zu mappings)",
	      p.apps.used, p.nmappings);
	all = intervals_csv(dir, INT64_MIN, INT64_MAX);
	second = intervals_csv(dir, 1070000000000LL, INT64_MAX);
	check(all && strstr(all, "by_app,shell#2,1001,,,,6,") &&
	      strstr(all, "by_app,shell#1,1000,,,,3,") &&
	      strstr(all, "by_function,shell#2,1001,,,mapped_function,6,") &&
	      !strstr(all, ",/"),
	      "intervals: sleepy-parse DIR sums both profiles; the child's samples of the second named through its ended parent's mapping");
	check(all && strstr(all, "by_function,late#1,1003,,,mapped_function,1,"),
	      "intervals: the exec the cut fell into named in the next interval");
	check(second && strstr(second, "by_app,shell#2,1001,,,,4,") &&
	      !strstr(second, "shell#1") &&
	      !intervals_csv(dir, 2000000000000LL, INT64_MAX),
	      "intervals: --from takes the profiles whose interval overlaps; none in range is an error");
	check(sleepy_parse_wall_time("@1060", &t) && t == 1060000000000LL &&
	      sleepy_parse_wall_time("2026-11-26 10:02", &t) &&
	      sleepy_parse_wall_time("2026-11-26T10:02:30", &t) &&
	      sleepy_parse_wall_time("10:02", &t) &&
	      !sleepy_parse_wall_time("10:61", &t) &&
	      !sleepy_parse_wall_time("yesterday", &t) &&
	      !sleepy_parse_wall_time("@-5", &t),
	      "intervals: --from/--to times as journalctl takes them; others refused");
	free(all);
	free(second);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sleepy-20261126T100100Z.pb.gz", dir);
	unlink(path);
	rmdir(dir);
	sleepy_dsos_free(&dsos);
	sleepy_profile_free(&p);
	free(one.data);
	free(two.data);
}

/* The address of the function @name in this process's vDSO; 0 if none. */
static uint64_t vdso_function(const char *name)
{
	const Elf64_Ehdr *ehdr = (const void *)getauxval(AT_SYSINFO_EHDR);
	uint64_t addr = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (!ehdr)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)ehdr, ehdr->e_shoff +
			 (size_t)ehdr->e_shnum * ehdr->e_shentsize);
	while (elf && !addr && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);
		GElf_Shdr shdr;
		GElf_Sym sym;
		size_t i;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNSYM)
			continue;
		for (i = 0; data && gelf_getsym(data, i, &sym); i++)
			if (!strcmp(elf_strptr(elf, shdr.sh_link, sym.st_name), name))
				addr = (uintptr_t)ehdr + sym.st_value;
	}
	elf_end(elf);
	return addr;
}

/*
 * Samples in the vDSO: the drainer keeps its own vDSO's image in the
 * recording, and a "[vdso]" mapping's IPs are named from it, as perf
 * names them.
 */
static void test_vdso(void)
{
	uint64_t ip = vdso_function("__vdso_clock_gettime") + 1;
	const Elf64_Ehdr *ehdr = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct file_map vdso = { .path = "[vdso]" };
	char path[] = "/tmp/sleepy-vdso-XXXXXX";
	struct sleepy_recording rec;
	struct sleepy_dsos dsos;
	struct sleepy_profile p;
	struct builder b = {};
	unsigned char *image = NULL;
	struct stat st = {};
	int fd;

	if (ip == 1 || (fd = mkstemp(path)) < 0) {
		check(0, "vdso: no vDSO in this process");
		check(0, "vdso: no vDSO in this process");
		return;
	}
	unlink(path);
	put_header(&b, 2);
	check(!sleepy_vdso_write(fd) && !fstat(fd, &st) && st.st_size > 4096 &&
	      (image = malloc(st.st_size)) && pread(fd, image, st.st_size, 0) == st.st_size,
	      "vdso: this process's vDSO image written as a record");
	close(fd);
	if (image)
		put(&b, image, st.st_size);
	free(image);
	vdso.start = (uintptr_t)ehdr;
	vdso.end = vdso.start + 8192;
	put_instance(&b, 1, 0, 1000, 1000, "clock", 1);
	put_mmap(&b, 1, 1000, 1000, 0, &vdso, NULL);
	put_sample(&b, 1, ip, 0, 0);
	put_trailer(&b, 1, 0);
	read_all(&b, &rec, &p);
	sleepy_dsos_init(&dsos, NULL, stderr);
	dsos.vdso = p.vdso;
	dsos.vdso_size = p.vdso_size;
	check(named(&p, &dsos, 1, ip, "__vdso_clock_gettime", "[vdso]") ||
	      named(&p, &dsos, 1, ip, "clock_gettime", "[vdso]"),
	      "vdso: a sample in clock_gettime() named from the recording's image, in [vdso]");
	sleepy_dsos_free(&dsos);
	sleepy_profile_free(&p);
	free(b.data);
}

/*
 * Recorded without -k, a kernel-mode sample's IP is the user one it
 * entered the kernel from: its by-IP row is named by that function (and
 * marked [k]); in the report by function it is kernel time.
 */
static void test_entry_ip_rows(void)
{
	uint64_t f = (uintptr_t)mapped_function + 1;
	struct sleepy_recording rec;
	struct sleepy_dsos dsos;
	struct sleepy_profile p;
	struct builder b = {};
	struct file_map exe;
	char *csv;

	if (!find_self_map(f, &exe)) {
		check(0, "entry IP rows: no test setup");
		return;
	}
	put_header(&b, 2);
	put_instance(&b, 1, 0, 1000, 1000, "reader", 1);
	put_mmap(&b, 1, 1000, 1000, 0, &exe, NULL);
	put_sample(&b, 1, f, 0, SLEEPY_SAMPLE_IN_KERNEL);
	put_sample(&b, 1, f, 0, SLEEPY_SAMPLE_IN_KERNEL);
	put_sample(&b, 1, f, 0, 0);
	put_trailer(&b, 3, 0);
	read_all(&b, &rec, &p);
	sleepy_dsos_init(&dsos, NULL, stderr);
	csv = report(&p, &rec, &dsos, SLEEPY_FORMAT_CSV, NULL);
	check(csv && lines_with(csv, "by_app_ip,reader#1", ",kernel,mapped_function,2,") == 1 &&
	      lines_with(csv, "by_app_ip,reader#1", ",user,mapped_function,1,") == 1 &&
	      lines_with(csv, "by_function,reader#1", ",[kernel],2,") == 1,
	      "entry IP rows: the kernel-mode row named by the user function it entered from; kernel time by function");
	if (csv && !lines_with(csv, "by_app_ip", ",kernel,mapped_function,2,"))
		comment("report", csv);
	free(csv);
	sleepy_dsos_free(&dsos);
	sleepy_profile_free(&p);
	free(b.data);
}

/*
 * A child that exits wakes its waiting parent after the kernel forgot its
 * appid: the waker is the instance its thread ran as, not [kernel].
 */
static void test_exit_wakes_parent(void)
{
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct builder b = {};
	char *text;
	bool ok;

	put_header(&b, 1);
	put_app(&b, 1, "make", 1);
	put_app(&b, 2, "cc", 1);
	put_switch(&b, 0, 1000, 0, 0, SLEEPY_SWITCH_PREEMPTED, 0, 101, 1);
	put_switch(&b, 0, 1100, 101, 1, SLEEPY_SWITCH_SLEEP, 0x10, 102, 2);
	put_wakeup(&b, 0, 5000, 102, 0, 101, 1, 0);
	put_switch(&b, 0, 5100, 102, 0, SLEEPY_SWITCH_PREEMPTED, 0, 101, 1);
	put_trailer(&b, 0, 0);
	read_all(&b, &rec, &p);
	text = report(&p, &rec, NULL, SLEEPY_FORMAT_CSV, NULL);
	ok = text && lines_with(text, "cc#1", "make#1") > 0 &&
	     !lines_with(text, "[kernel]", "make#1");
	check(ok, "sched: an exiting child's wakeup of its parent named by the child's instance");
	if (!ok && text)
		comment("report", text);
	free(text);
	sleepy_profile_free(&p);
	free(b.data);
}

/*
 * What a process does in do_exit() after its exit hook is sampled with no
 * appid: charged to the instance that exited by the thread's id; a thread
 * no instance exited as stays [unknown].
 */
static void test_exit_tail(void)
{
	struct sleepy_app_exit exit = {
		.header = { SLEEPY_REC_APP_EXIT, sizeof(exit), 0 },
		.appid = 1, .pid = 101, .time_ns = 3000,
	};
	struct sleepy_sample sample = {
		.header = { SLEEPY_REC_SAMPLE, sizeof(sample), 0 },
		.time_ns = 2000, .user_ip = 0x401000, .tid = 101, .appid = 1,
	};
	struct sleepy_recording rec;
	struct sleepy_profile p;
	struct builder b = {};
	char *csv;

	put_header(&b, 1);
	put_app(&b, 1, "cc", 1);
	put(&b, &sample, sizeof(sample));
	put(&b, &exit, sizeof(exit));
	sample.appid = SLEEPY_APPID_UNKNOWN;
	sample.flags = SLEEPY_SAMPLE_IN_KERNEL;
	sample.time_ns = 3100;
	put(&b, &sample, sizeof(sample));
	sample.tid = 555;
	put(&b, &sample, sizeof(sample));
	put_trailer(&b, 3, 0);
	read_all(&b, &rec, &p);
	csv = report(&p, &rec, NULL, SLEEPY_FORMAT_CSV, NULL);
	check(csv && strstr(csv, "by_app,cc#1,101,,,,2,") &&
	      strstr(csv, "by_app,[unknown],0,,,,1,"),
	      "exit: samples after the exit hook charged to the instance that exited, by thread id; others [unknown]");
	if (csv && !strstr(csv, "by_app,cc#1,101,,,,2,"))
		comment("report", csv);
	free(csv);
	sleepy_profile_free(&p);
	free(b.data);
}

static int cmp_u64s(const void *a, const void *b)
{
	return sleepy_cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

/*
 * The start index gives what the plain binary search gives, for keys
 * below, between, at and past starts that repeat, leave wide gaps and
 * reach both ends of the 64-bit range.
 */
static void test_start_index(void)
{
	static const uint64_t shapes[][9] = {
		{ 0, 0, 1, 2, 4096, 4097, 1 << 20, 1ULL << 40, UINT64_MAX },
		{ 0x401000, 0x401010, 0x401010, 0x401400, 0x402000, 0x7f0000000000,
		  0x7f0000000100, 0xffffffff81000000ULL, 0xffffffffc0000000ULL },
	};
	struct sleepy_start_index index;
	uint64_t starts[4096], key, seed = 1;
	size_t shape, n, i, k, wrong = 0, lookups = 0;

	for (shape = 0; shape < 4; shape++) {
		n = shape < 2 ? 9 : 4096;
		for (i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			starts[i] = shape < 2 ? shapes[shape][i] :
				    shape == 2 ? 0x400000 + (seed >> 40) :
						 seed;
		}
		qsort(starts, n, sizeof(*starts), cmp_u64s);
		sleepy_start_index_build(&index, starts, n, sizeof(*starts));
		for (i = 0; i < n; i++) {
			for (k = 0; k < 4; k++) {
				key = starts[i] + (k < 2 ? -k : k - 1);
				wrong += sleepy_start_index_count(&index, starts, n,
								  sizeof(*starts), key) !=
					 sleepy_count_at_or_below(starts, n,
								  sizeof(*starts), key);
				lookups++;
			}
		}
		for (key = 0; key < 4; key++)
			wrong += sleepy_start_index_count(&index, starts, n, sizeof(*starts),
							  UINT64_MAX - key) !=
				 sleepy_count_at_or_below(starts, n, sizeof(*starts),
							  UINT64_MAX - key);
		sleepy_start_index_free(&index);
	}
	check(!wrong && lookups > 4 * 8000,
	      "start index: %zu of %zu lookups differ from the binary search", wrong,
	      lookups);
}

/* A packed table: read by index, found by key, spread again by a get. */
static void test_table_pack(void)
{
	struct sleepy_table t;
	uint64_t sum = 0, *slot;
	size_t i, seen = 0, moved = 0;
	bool found_all = true;

	sleepy_table_init(&t, sizeof(uint64_t));
	for (i = 1; i <= 1000; i++)
		*(uint64_t *)sleepy_table_get(&t, i * 4096, NULL, NULL) = i;
	sleepy_table_pack(&t);
	for (i = 0; i < t.capacity; i++) {
		slot = sleepy_table_slot(&t, i);
		if (slot) {
			seen++;
			sum += *slot;
		}
	}
	check(t.packed && t.capacity == 1000 && t.used == 1000 && seen == 1000 &&
	      sum == 500500, "table pack: 1000 entries side by side (%zu of capacity %zu read, sum %" PRIu64 ")",
	      seen, t.capacity, sum);
	for (i = 1; i <= 1000; i++) {
		slot = sleepy_table_find(&t, i * 4096, NULL, NULL);
		found_all &= slot && *slot == i;
	}
	check(found_all && !sleepy_table_find(&t, 4095, NULL, NULL) &&
	      !sleepy_table_probe(&t, 4096),
	      "table pack: every key found in the packed table, an absent one not, no probe");
	*(uint64_t *)sleepy_table_get(&t, 1001 * 4096, NULL, NULL) = 1001;
	for (i = 1; i <= 1001; i++) {
		slot = sleepy_table_find(&t, i * 4096, NULL, NULL);
		moved += !slot || *slot != i;
	}
	check(!t.packed && t.used == 1001 && t.capacity == 2048 && !moved,
	      "table pack: a get spreads it again, to capacity %zu (2048), every key kept (%zu lost)",
	      t.capacity, moved);
	sleepy_table_free(&t);
}

/*
 * An application's IP counts are packed SLEEPY_PACK_AFTER records after
 * its exit, and a sample of it coming later still counts.
 */
static void test_pack_exited(void)
{
	struct sleepy_profile p;
	struct sleepy_app *app;
	struct builder b = {};
	uint64_t at_first_ip = 0;
	size_t i;
	bool packed_early, packed_late;

	put_header(&b, 1);
	put_app(&b, 1, "short", 1);
	put_app(&b, 2, "long", 1);
	for (i = 0; i < 100; i++)
		put_sample(&b, 1, 0x401000 + (i % 10) * 4, 0, 0);
	put_exit(&b, 1, 3000);
	for (i = 0; i + 2 < SLEEPY_PACK_AFTER; i++)
		put_sample(&b, 2, 0x402000, 0, 0);
	sleepy_profile_init(&p);
	take_all(&b, &p);
	app = sleepy_table_find(&p.apps, 1, NULL, NULL);
	packed_early = app && app->ips.packed;
	free(b.data);
	b = (struct builder){};
	put_header(&b, 1);
	put_sample(&b, 2, 0x402000, 0, 0);
	put_sample(&b, 2, 0x402000, 0, 0);
	take_all(&b, &p);
	app = sleepy_table_find(&p.apps, 1, NULL, NULL);
	packed_late = app && app->ips.packed;
	check(!packed_early && packed_late && app->ips.capacity == 10,
	      "an exited application's IP counts are packed %d records after its exit, not before",
	      SLEEPY_PACK_AFTER);
	free(b.data);
	b = (struct builder){};
	put_header(&b, 1);
	put_sample(&b, 1, 0x401000, 0, 0);
	put_sample(&b, 1, 0x409000, 0, 0);
	take_all(&b, &p);
	app = sleepy_table_find(&p.apps, 1, NULL, NULL);
	for (i = 0; app && i < app->ips.capacity; i++) {
		struct sleepy_ip_count count;

		if (sleepy_app_ip_count(app, i, &count) && count.ip == 0x401000)
			at_first_ip = count.samples;
	}
	check(app && !app->ips.packed && app->ips.used == 11 && app->samples == 102 &&
	      at_first_ip == 11,
	      "its samples after the packing count (%" PRIu64 " samples, 102; %zu IPs, 11; %" PRIu64 " at the first IP, 11)",
	      app ? app->samples : 0, app ? app->ips.used : 0, at_first_ip);
	sleepy_profile_free(&p);
	free(b.data);
}

/* A sample of appid 1 on CPU 0 at @user_ip, @kernel_ip, by thread @tid. */
static void put_thread_sample(struct builder *b, uint64_t user_ip,
			      uint64_t kernel_ip, uint32_t flags, uint32_t tid)
{
	struct sleepy_sample s = {
		.header = { SLEEPY_REC_SAMPLE, sizeof(s), 0 },
		.time_ns = 2000 + b->size, .user_ip = user_ip,
		.kernel_ip = kernel_ip, .appid = 1, .tid = tid, .flags = flags,
	};

	put(b, &s, sizeof(s));
}

/*
 * The IP counts a table keeps in 8 bytes beside the IP read back whole:
 * IPs 0 and UINT64_MAX (stored alike), one IP in user mode, entered the
 * kernel from and as a kernel IP, and by thread apart or together.
 */
static void test_ip_count_kinds(void)
{
	static const struct {
		uint64_t user_ip, kernel_ip;
		uint32_t flags, tid, samples;
	} put_ips[] = {
		{ 0, 0, 0, 5, 2 },
		{ UINT64_MAX, 0, 0, 5, 3 },
		{ 0x1000, 0, 0, 5, 1 },
		{ 0x1000, 0, SLEEPY_SAMPLE_IN_KERNEL, 5, 4 },
		{ 0x2000, 0x1000, SLEEPY_SAMPLE_IN_KERNEL, 5, 5 },
		{ 0x1000, 0, 0, 6, 6 },
	};
	static const struct {
		uint64_t ip;
		bool in_kernel, entry_ip;
		uint32_t tid;
		uint64_t samples[2];	/* together, by thread */
	} want[] = {
		{ 0, false, false, 5, { 2, 2 } },
		{ UINT64_MAX, false, false, 5, { 3, 3 } },
		{ 0x1000, false, false, 5, { 7, 1 } },
		{ 0x1000, true, true, 5, { 4, 4 } },
		{ 0x1000, true, false, 5, { 5, 5 } },
		{ 0x1000, false, false, 6, { 0, 6 } },
	};
	int by_tid;

	for (by_tid = 0; by_tid < 2; by_tid++) {
		struct builder b = {};
		struct sleepy_ip_count *ips;
		struct sleepy_profile p;
		size_t nips, found = 0, i, j, k;

		put_header(&b, 1);
		put_app(&b, 1, "kinds", 1);
		for (i = 0; i < sizeof(put_ips) / sizeof(put_ips[0]); i++)
			for (k = 0; k < put_ips[i].samples; k++)
				put_thread_sample(&b, put_ips[i].user_ip,
						  put_ips[i].kernel_ip,
						  put_ips[i].flags, put_ips[i].tid);
		sleepy_profile_init(&p);
		p.by_tid = by_tid;
		take_all(&b, &p);
		ips = sleepy_profile_ips(&p, &nips);
		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			uint32_t tid = by_tid ? want[i].tid : 0;

			for (j = 0; j < nips; j++)
				if (ips[j].appid == 1 && ips[j].ip == want[i].ip &&
				    ips[j].in_kernel == want[i].in_kernel &&
				    ips[j].entry_ip == want[i].entry_ip &&
				    ips[j].tid == tid &&
				    ips[j].samples == want[i].samples[by_tid])
					found++;
		}
		check(nips == 5u + by_tid && found == nips,
		      "IP counts %s: IPs 0 and all ones, user, entry and kernel mode read back (%zu of %zu found, %u counts)",
		      by_tid ? "by thread" : "together", found, nips, 5 + by_tid);
		free(ips);
		sleepy_profile_free(&p);
		free(b.data);
	}
}

int main(int argc, char **argv)
{
	printf("1..%d\n", PLANNED_TESTS);
	test_good();
	test_start_index();
	test_stats_sizes();
	test_many_ips();
	test_table_pack();
	test_pack_exited();
	test_bad_headers();
	test_damaged();
	test_names_sanitised();
	test_symbols(argc > 1 ? argv[1] : "../build/userland");
	test_parsers();
	test_function_rows();
	test_sched_replay();
	test_wakeups_by_count();
	test_folded_cpu();
	test_folded_offcpu();
	test_kernel_symbols();
	test_irq_histograms();
	test_irq_actions();
	test_irq_intervals();
	test_emd();
	test_mappings(argc > 1 ? argv[1] : "../build/userland");
	test_one_file_two_paths();
	test_sort_places_two_paths();
	test_unnamed_sort();
	test_plt_stubs();
	test_bad_mmap();
	test_bad_elf(argc > 1 ? argv[1] : "../build/userland");
	test_debug_file();
	test_pprof();
	test_flamegraph();
	test_sort();
	test_sort_ties();
	test_sort_cpu();
	test_call_stacks();
	test_unnamed_folded();
	test_pprof_stacks();
	test_pprof_threads();
	test_intervals();
	test_interval_forgets_every_app();
	test_table_sized_from_last_instance();
	test_vdso();
	test_entry_ip_rows();
	test_exit_wakes_parent();
	test_exit_tail();
	test_ip_count_kinds();
	return failures ? 1 : 0;
}
