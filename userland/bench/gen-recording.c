// SPDX-License-Identifier: GPL-2.0
/*
 * gen-recording: write a synthetic but valid sleepy recording of N samples,
 * for measuring sleepy-parse on recordings far larger than a guest session
 * produces.
 *
 * The shape follows a busy two-CPU machine: a few hundred application
 * instances of a few dozen programs (some running from the start, most
 * forking and exiting during the session), a Zipf-like share of the
 * samples per application and per instruction pointer (program text, and
 * libc at a per-instance address as ASLR places it), some samples in
 * kernel mode and a few kernel threads, idle ticks, time slices (a CPU's
 * samples come in runs of one application), and the two CPUs' records
 * interleaved in sub-buffer sized chunks as the drainer copies them.
 * The same arguments always give the same file.
 *
 * Host tool, built with the library (not a guest benchmark).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/recording.h"
#include "../lib/session.h"

#define NCPUS			2
#define FREQUENCY		4000	/* Hz per CPU */
#define TICK_NS			(1000000000ULL / FREQUENCY)
#define SESSION_START_NS	(1000ULL * 1000000000ULL)
/* What the drainer copies at once with the default 1 MiB buffer. */
#define CHUNK_SIZE		((128U << 10) - sizeof(struct sleepy_subbuf_header))

#define PERMANENT_APPS		24	/* running before the session started */
#define MEAN_SLICE		24	/* ticks a CPU runs one application */
#define PROGRAM_TEXT		0x401000ULL
#define IP_STRIDE		0x40	/* apart enough to stay distinct */
#define LIBC_HOT_IPS		3000
#define KERNEL_TEXT		0xffffffff81000000ULL
#define KERNEL_HOT_IPS		4000

/* Per mille of the ticks or samples. */
#define IDLE_PER_MILLE		50
#define LIBC_PER_MILLE		300
#define KERNEL_PER_MILLE	80
#define UNKNOWN_PER_MILLE	1

static const char usage[] =
"USAGE: gen-recording [-n SAMPLES] [-a APPS] [-i IPS] [-s SEED] FILE\n"
"\n"
"Write a synthetic sleepy recording with exactly SAMPLES samples (default\n"
"1000000) from APPS application instances (default 300) whose programs\n"
"have IPS hot instruction pointers each (default 3000), for benchmarking\n"
"sleepy-parse.  The same options always give the same file.\n";

static const char *const program_names[] = {
	"cc1", "make", "bash", "as", "ld", "python3", "sh", "git", "sed",
	"grep", "node", "java", "postgres", "nginx", "rustc", "clang", "perl",
	"gawk", "sort", "gzip", "xz", "tar", "rsync", "vim", "ssh", "sshd",
	"systemd", "Xorg", "firefox", "dbus-daemon", "systemd-journal",
	"cargo", "ninja", "cmake", "objdump", "strip", "cp", "cat", "ls",
	"find", "xargs", "awk",
};

/* Kernel threads: every sample is in kernel mode and has no user IP. */
static const char *const kthread_names[] = {
	"kworker/0:1", "kworker/1:2", "ksoftirqd/0", "ksoftirqd/1",
	"rcu_preempt", "kswapd0", "jbd2/vda-8",
};

#define NPROGRAMS	(sizeof(program_names) / sizeof(program_names[0]))
#define NKTHREADS	(sizeof(kthread_names) / sizeof(kthread_names[0]))

struct app {
	uint32_t appid;		/* 1.. in order of start */
	uint32_t parent_appid;
	uint32_t pid;
	uint32_t instance;
	uint32_t threads;
	uint32_t program;	/* index into the names, kthreads after programs */
	uint64_t start_tick;
	uint64_t exit_tick;	/* UINT64_MAX: still running at the stop */
	uint64_t libc_base;
	bool kthread;
};

/* Cumulative Zipf weights of ranks 1..n, for inverse sampling. */
struct zipf {
	double *cdf;
	size_t n;
};

struct cpu_stream {
	unsigned char buf[CHUNK_SIZE];
	size_t used;
	const struct app *running;
	uint64_t slice_end;	/* tick when the scheduler picks again */
	uint64_t samples;
	uint64_t idle;
	uint64_t unknown;
};

static uint64_t rng_state;

/* splitmix64: fast, and seeded runs are reproducible everywhere. */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t bound)
{
	return rng_next() % bound;
}

static double rng_unit(void)
{
	return (rng_next() >> 11) * (1.0 / (1ULL << 53));
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "gen-recording: out of memory\n");
		exit(1);
	}
	return p;
}

static void zipf_init(struct zipf *zipf, size_t n, double exponent)
{
	double sum = 0;
	size_t i;

	zipf->cdf = xcalloc(n, sizeof(double));
	zipf->n = n;
	for (i = 0; i < n; i++)
		zipf->cdf[i] = sum += 1.0 / pow(i + 1, exponent);
	for (i = 0; i < n; i++)
		zipf->cdf[i] /= sum;
}

/* A rank from 0, rank 0 the most likely. */
static size_t zipf_rank(const struct zipf *zipf)
{
	double u = rng_unit();
	size_t lo = 0, hi = zipf->n - 1;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (zipf->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Hot IPs of one binary, scattered over its text like real functions. */
static uint64_t hot_ip(uint64_t text, size_t rank, size_t nips, uint32_t salt)
{
	uint64_t slot = (rank * 7919 + salt) % nips;

	return text + slot * IP_STRIDE + ((rank * 2654435761U) & 0x3c);
}

static int cmp_start(const void *a, const void *b)
{
	const struct app *x = a, *y = b;

	if (x->start_tick != y->start_tick)
		return x->start_tick < y->start_tick ? -1 : 1;
	return x->program < y->program ? -1 : x->program > y->program;
}

static int cmp_exit(const void *a, const void *b)
{
	const struct app *x = *(const struct app **)a;
	const struct app *y = *(const struct app **)b;

	if (x->exit_tick != y->exit_tick)
		return x->exit_tick < y->exit_tick ? -1 : 1;
	return x->appid < y->appid ? -1 : x->appid > y->appid;
}

/*
 * Lifetimes, names and ids of @napps instances over @ticks ticks: the
 * first few (and the kernel threads) ran before the session started, the
 * others fork at a random tick and mostly exit before the end.
 */
static struct app *make_apps(size_t napps, uint64_t ticks)
{
	struct app *apps = xcalloc(napps, sizeof(*apps));
	uint32_t started[NPROGRAMS + NKTHREADS] = {};
	size_t i;

	for (i = 0; i < napps; i++) {
		struct app *app = &apps[i];

		app->exit_tick = UINT64_MAX;
		if (i < NKTHREADS) {
			app->kthread = true;
			app->program = NPROGRAMS + i;
		} else if (i < PERMANENT_APPS) {
			app->program = (i - NKTHREADS) % NPROGRAMS;
		} else {
			uint64_t life = ticks / 100 + rng_below(ticks / 4 + 1);

			app->program = rng_below(NPROGRAMS);
			/* From tick 1: tick 0 is the permanent ones'. */
			app->start_tick = 1 + rng_below(ticks);
			if (app->start_tick + life < ticks)
				app->exit_tick = app->start_tick + life;
		}
		app->threads = app->kthread || rng_below(4) ? 1 :
			       2 + rng_below(7);
		app->libc_base = 0x7f0000000000ULL + (rng_below(1 << 20) << 12);
	}
	qsort(apps, napps, sizeof(*apps), cmp_start);
	for (i = 0; i < napps; i++) {
		apps[i].appid = i + 1;
		apps[i].pid = 300 + i * 3 + rng_below(3);
		apps[i].instance = ++started[apps[i].program];
		if (apps[i].start_tick && !apps[i].kthread)
			apps[i].parent_appid = 1 + rng_below(i);
	}
	return apps;
}

static const char *app_name(const struct app *app)
{
	return app->kthread ? kthread_names[app->program - NPROGRAMS] :
			      program_names[app->program];
}

static void put(FILE *out, const void *data, size_t size)
{
	if (fwrite(data, 1, size, out) != size) {
		perror("gen-recording: writing");
		exit(1);
	}
}

static void flush(struct cpu_stream *cpu, FILE *out)
{
	put(out, cpu->buf, cpu->used);
	cpu->used = 0;
}

/* Appends to @cpu's chunk; a full chunk goes to the file first. */
static void emit(struct cpu_stream *cpu, FILE *out, const void *record,
		 size_t size)
{
	if (cpu->used + size > sizeof(cpu->buf))
		flush(cpu, out);
	memcpy(cpu->buf + cpu->used, record, size);
	cpu->used += size;
}

static uint64_t tick_ns(uint64_t tick, unsigned int cpu)
{
	/* The CPUs' timers are not in phase. */
	return SESSION_START_NS + tick * TICK_NS + cpu * (TICK_NS / 3) +
	       rng_below(2000);
}

static void emit_app_start(struct cpu_stream *cpus, FILE *out,
			   const struct app *app)
{
	unsigned int cpu = app->appid % NCPUS;
	struct sleepy_app_start start = {
		.header = { SLEEPY_REC_APP_START, sizeof(start), cpu },
		.appid = app->appid,
		.parent_appid = app->parent_appid,
		.pid = app->pid,
		.instance = app->instance,
		.time_ns = tick_ns(app->start_tick, cpu),
	};

	memcpy(start.name, app_name(app),
	       strnlen(app_name(app), sizeof(start.name)));
	emit(&cpus[cpu], out, &start, sizeof(start));
}

static void emit_app_exit(struct cpu_stream *cpus, FILE *out,
			  const struct app *app)
{
	unsigned int cpu = (app->appid + 1) % NCPUS;
	struct sleepy_app_exit end = {
		.header = { SLEEPY_REC_APP_EXIT, sizeof(end), cpu },
		.appid = app->appid,
		.pid = app->pid,
		.time_ns = tick_ns(app->exit_tick, cpu),
	};

	emit(&cpus[cpu], out, &end, sizeof(end));
}

/* The application that @cpu interrupts, most often a busy one. */
static const struct app *pick_app(const struct app *apps,
				  const size_t *by_weight,
				  const struct zipf *app_zipf, uint64_t tick)
{
	const struct app *app;
	int tries;

	/* Most applications live for a fraction of the session. */
	for (tries = 0; tries < 16; tries++) {
		app = &apps[by_weight[zipf_rank(app_zipf)]];
		if (app->start_tick <= tick && tick < app->exit_tick)
			return app;
	}
	/*
	 * Else a process that runs all session long (they sort first, from
	 * tick 0), but no kernel thread: those should stay a small share.
	 */
	do
		app = &apps[rng_below(PERMANENT_APPS)];
	while (app->kthread);
	return app;
}

static void emit_sample(struct cpu_stream *cpus, FILE *out, unsigned int cpu,
			uint64_t tick, const struct app *app,
			const struct zipf *ip_zipf, const struct zipf *libc_zipf,
			const struct zipf *kernel_zipf, size_t nips)
{
	struct sleepy_sample sample = {
		.header = { SLEEPY_REC_SAMPLE, sizeof(sample), cpu },
		.time_ns = tick_ns(tick, cpu),
		.tid = app->pid + rng_below(app->threads),
		.appid = app->appid,
	};
	bool in_kernel = app->kthread ||
			 rng_below(1000) < KERNEL_PER_MILLE;

	if (app->kthread) {
		sample.flags = SLEEPY_SAMPLE_KERNEL_THREAD;
	} else if (in_kernel) {
		/* Entered the kernel from a libc system call wrapper. */
		sample.user_ip = app->libc_base + 0x1000 + rng_below(16) * 0x40;
	} else if (rng_below(1000) < LIBC_PER_MILLE) {
		sample.user_ip = hot_ip(app->libc_base, zipf_rank(libc_zipf),
					LIBC_HOT_IPS, 0);
	} else {
		sample.user_ip = hot_ip(PROGRAM_TEXT, zipf_rank(ip_zipf), nips,
					app->program);
	}
	if (in_kernel) {
		sample.flags |= SLEEPY_SAMPLE_IN_KERNEL;
		sample.kernel_ip = hot_ip(KERNEL_TEXT, zipf_rank(kernel_zipf),
					  KERNEL_HOT_IPS, 0);
	}
	if (rng_below(1000) < UNKNOWN_PER_MILLE) {
		sample.appid = SLEEPY_APPID_UNKNOWN;
		cpus[cpu].unknown++;
	}
	cpus[cpu].samples++;
	emit(&cpus[cpu], out, &sample, sizeof(sample));
}

static void emit_trailer(struct cpu_stream *cpus, FILE *out, uint64_t ticks)
{
	struct sleepy_end end = {
		.header = { SLEEPY_REC_END, sizeof(end), 0 },
		.time_ns = tick_ns(ticks, 0),
	};
	unsigned int cpu;

	for (cpu = 0; cpu < NCPUS; cpu++) {
		struct sleepy_cpu_stats stats = {
			.header = { SLEEPY_REC_CPU_STATS, sizeof(stats), cpu },
			.samples = cpus[cpu].samples,
			.idle = cpus[cpu].idle,
			.unknown = cpus[cpu].unknown,
		};

		flush(&cpus[cpu], out);
		put(out, &stats, sizeof(stats));
	}
	put(out, &end, sizeof(end));
}

static void generate(FILE *out, uint64_t nsamples, size_t napps, size_t nips)
{
	/* Ticks that give @nsamples with the idle share, and some slack. */
	uint64_t ticks = nsamples * 1000 / ((1000 - IDLE_PER_MILLE) * NCPUS) + 1;
	struct sleepy_attr attr = {
		.frequency = FREQUENCY,
		.flags = SLEEPY_FLAG_KERNEL,
	};
	struct sleepy_file_header header;
	struct zipf app_zipf, ip_zipf, libc_zipf, kernel_zipf;
	struct cpu_stream *cpus = xcalloc(NCPUS, sizeof(*cpus));
	struct app *apps = make_apps(napps, ticks);
	struct app **by_exit = xcalloc(napps, sizeof(*by_exit));
	size_t *by_weight = xcalloc(napps, sizeof(*by_weight));
	size_t next_start = 0, next_exit = 0, i;
	uint64_t tick, written = 0;
	unsigned int cpu;

	for (i = 0; i < napps; i++) {
		by_exit[i] = &apps[i];
		by_weight[i] = i;
	}
	qsort(by_exit, napps, sizeof(*by_exit), cmp_exit);
	/* Busy and quiet applications, unrelated to when they started. */
	for (i = napps - 1; i > 0; i--) {
		size_t j = rng_below(i + 1), t = by_weight[i];

		by_weight[i] = by_weight[j];
		by_weight[j] = t;
	}
	zipf_init(&app_zipf, napps, 1.0);
	zipf_init(&ip_zipf, nips, 0.9);
	zipf_init(&libc_zipf, LIBC_HOT_IPS, 0.9);
	zipf_init(&kernel_zipf, KERNEL_HOT_IPS, 0.9);

	sleepy_file_header_init(&header, &attr, NCPUS, SESSION_START_NS);
	put(out, &header, sizeof(header));
	for (tick = 0; written < nsamples; tick++) {
		while (next_start < napps && apps[next_start].start_tick <= tick)
			emit_app_start(cpus, out, &apps[next_start++]);
		while (next_exit < napps && by_exit[next_exit]->exit_tick <= tick)
			emit_app_exit(cpus, out, by_exit[next_exit++]);
		for (cpu = 0; cpu < NCPUS && written < nsamples; cpu++) {
			if (rng_below(1000) < IDLE_PER_MILLE) {
				cpus[cpu].idle++;
				continue;
			}
			/*
			 * A CPU runs an application for a time slice, so
			 * its samples come in runs, as in real recordings.
			 */
			if (tick >= cpus[cpu].slice_end ||
			    tick >= cpus[cpu].running->exit_tick) {
				cpus[cpu].running = pick_app(apps, by_weight,
							     &app_zipf, tick);
				cpus[cpu].slice_end = tick + 1 +
						      rng_below(2 * MEAN_SLICE);
			}
			emit_sample(cpus, out, cpu, tick, cpus[cpu].running,
				    &ip_zipf, &libc_zipf, &kernel_zipf, nips);
			written++;
		}
	}
	emit_trailer(cpus, out, tick);
	free(app_zipf.cdf);
	free(ip_zipf.cdf);
	free(libc_zipf.cdf);
	free(kernel_zipf.cdf);
	free(by_weight);
	free(by_exit);
	free(apps);
	free(cpus);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "samples", required_argument, NULL, 'n' },
		{ "apps", required_argument, NULL, 'a' },
		{ "ips", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	uint64_t nsamples = 1000000, napps = 300, nips = 3000, seed = 1;
	FILE *out;
	int c;

	while ((c = getopt_long(argc, argv, "n:a:i:s:h", longopts, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case 'n':
			ok = sleepy_parse_u64(optarg, &nsamples) && nsamples;
			break;
		case 'a':
			ok = sleepy_parse_u64(optarg, &napps) &&
			     napps >= PERMANENT_APPS && napps < 1000000;
			break;
		case 'i':
			ok = sleepy_parse_u64(optarg, &nips) && nips &&
			     nips < 1000000;
			break;
		case 's':
			ok = sleepy_parse_u64(optarg, &seed);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return 2;
		}
		if (!ok) {
			fprintf(stderr, "gen-recording: invalid -%c '%s' (see --help)\n",
				c, optarg);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(usage, stderr);
		return 2;
	}
	out = fopen(argv[optind], "wb");
	if (!out) {
		perror(argv[optind]);
		return 1;
	}
	rng_state = seed;
	generate(out, nsamples, napps, nips);
	if (fclose(out)) {
		perror(argv[optind]);
		return 1;
	}
	return 0;
}
