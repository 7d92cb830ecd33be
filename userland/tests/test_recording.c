// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the recording reader, the aggregation, the symbol
 * lookup, the option parsers and the reports' computations.  TAP output; exit status 1 on failure.
 * Argument: the build directory (for a benchmark binary with symbols).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/output.h"
#include "lib/profile.h"
#include "lib/diff.h"
#include "lib/folded.h"
#include "lib/irq.h"
#include "lib/recording.h"
#include "lib/sched.h"
#include "lib/session.h"
#include "lib/symbols.h"

/* The TAP plan, printed first: the runner fails a run that prints more or fewer. */
#define PLANNED_TESTS 53

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
};

static void put(struct builder *b, const void *p, size_t len)
{
	b->data = realloc(b->data, b->size + len);
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
	struct sleepy_ip_count **ips;
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
	check(nips == 5 && ips[0]->samples == 10 && ips[0]->appid == 1 &&
	      ips[0]->ip == 0x401000 && ips[1]->samples == 10,
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
	struct sleepy_ip_count **ips;
	size_t nips, i;
	uint64_t sum = 0;

	put_header(&b, 1);
	for (i = 0; i < 20000; i++)
		put_sample(&b, 1 + i % 7, 0x400000 + (i % 5000) * 16, 0, 0);
	put_trailer(&b, 20000, 0);
	read_all(&b, &rec, &p);
	ips = sleepy_profile_ips(&p, &nips);
	for (i = 0; i < nips; i++)
		sum += ips[i]->samples;
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

static void test_names_sanitised(void)
{
	struct builder b = {};
	struct sleepy_recording rec;
	struct sleepy_profile p;

	put_header(&b, 1);
	put_app(&b, 1, "a;b,c\"\n", 3);
	put_sample(&b, 1, 1, 0, 0);
	put_trailer(&b, 1, 0);
	read_all(&b, &rec, &p);
	check(!strcmp(sleepy_profile_app(&p, 1)->label, "a_b_c__#3"),
	      "separators and control bytes replaced in names (%s)",
	      sleepy_profile_app(&p, 1)->label);
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
	if (sleepy_symbols_load(&syms, path, error, sizeof(error))) {
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
	sleepy_symbols_free(&syms);
	check(sleepy_symbols_load(&syms, "/nonexistent", error, sizeof(error)) &&
	      strstr(error, "No such file"), "missing binary refused (%s)", error);
	check(sleepy_symbols_load(&syms, "/etc/hostname", error, sizeof(error)) &&
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
static int folded(char *buf, size_t size,
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
	ret = sleepy_folded(f, opts, kind, p, rec);
	fclose(f);
	return ret;
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
	put_sample(&b, 1, 0xffffffff81000040, 0, SLEEPY_SAMPLE_IN_KERNEL);
	put_sample(&b, 1, 0, 0, SLEEPY_SAMPLE_IN_KERNEL);
	for (i = 0; i < 4; i++)
		put_sample(&b, 2, 0x401000, 0, 0);
	put_trailer(&b, 15, 0);
	read_all(&b, &rec, &p);
	ret = folded(out, sizeof(out), &opts, SLEEPY_FOLDED_CPU, &p, &rec);
	check_output(ret == 0, out,
		     "loop#1;main 5\n"
		     "other#1;0x401000 4\n"
		     "loop#1;0x500000 2\n"
		     "loop#1;a_b_ 2\n"
		     "loop#1;0xffffffff81000040_[k] 1\n"
		     "loop#1;[kernel]_[k] 1\n",
		     "folded cpu: IPs merged by function, heaviest first, _[k], ';' and newline replaced");
	opts.app_name = "loop";
	opts.top = 2;
	ret = folded(out, sizeof(out), &opts, SLEEPY_FOLDED_CPU, &p, &rec);
	check_output(ret == 0, out, "loop#1;main 5\nloop#1;0x500000 2\n",
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
		     "sleeper#1;[sleep];nap;0xffffffff81001000_[k] 1500\n"
		     "sleeper#1;[preempted];0x500000 200\n"
		     "sleeper#1;[runqueue];nap;0xffffffff81001000_[k] 100\n"
		     "sleeper#1;[sleep] 100\n",
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

int main(int argc, char **argv)
{
	printf("1..%d\n", PLANNED_TESTS);
	test_good();
	test_stats_sizes();
	test_many_ips();
	test_bad_headers();
	test_damaged();
	test_names_sanitised();
	test_symbols(argc > 1 ? argv[1] : "../build/userland");
	test_parsers();
	test_function_rows();
	test_sched_replay();
	test_folded_cpu();
	test_folded_offcpu();
	test_irq_histograms();
	test_emd();
	return failures ? 1 : 0;
}
