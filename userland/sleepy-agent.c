// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-agent: profile the whole system continuously, one pprof profile
 * per interval into a directory, for sleepy.service.
 *
 * The drainer writes the session's records into a pipe; at each interval
 * boundary it cuts the stream (the kernel hands every CPU's records over
 * first, SLEEPY_IOC_FLUSH), so every sample lands in exactly one interval:
 * the one its time falls in, but for those taken between a boundary and
 * the cut, which count for the interval that ends at the boundary.
 * The records are aggregated as they come, into one profile that keeps
 * the processes and mappings from one interval to the next; at a cut the
 * interval's samples are written as DIR/sleepy-TIME.pb.gz (to a temporary
 * name first, then renamed: readers never see half a file) and forgotten.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "session/options.h"
#include "export/pprof.h"
#include "model/profile.h"
#include "record/recording.h"
#include "session/session.h"
#include "model/symbols.h"

static const char usage[] =
"USAGE: sleepy-agent [-F HZ] [-k] [-g [--max-stack N]] [-b SIZE]\n"
"                    [-i SEC] [-d DIR] [-s SIZE]\n"
"\n"
"Profile every process on every CPU until stopped (SIGTERM or SIGINT), and\n"
"write one pprof profile per interval into DIR, named by the interval's\n"
"start (sleepy-YYYYMMDDTHHMMSSZ.pb.gz, UTC); intervals end on multiples of\n"
"SEC in wall-clock time.  The oldest profiles are deleted once they take\n"
"more than SIZE together.  At the stop the interval in progress is written\n"
"too.  This is what sleepy.service runs; go tool pprof, sleepy-parse DIR,\n"
"or a Pyroscope or Parca uploader read the files.\n"
"\n"
"EXAMPLES:\n"
"    sleepy-agent                      # 49 Hz, 60 s profiles in /var/lib/sleepy\n"
"    sleepy-agent -F 99 -g -k -i 10 -d /tmp/prof -s 10M\n"
"\n"
"OPTIONS:\n"
"    -F, --frequency HZ   samples per second and CPU (1.."
			SLEEPY_STR(SLEEPY_MAX_FREQUENCY) ", default 49)\n"
"    -k, --kernel         record kernel instruction pointers too\n"
"    -g, --call-graph     record call stacks (frame pointers; with -k the\n"
"                         kernel stack too)\n"
"        --max-stack N    with -g, frames kept per stack\n"
"    -b, --buffer SIZE    kernel buffer per CPU, e.g. 256K, 4M (default 1M)\n"
"    -i, --interval SEC   seconds per profile (1..86400, default 60)\n"
"    -d, --dir DIR        where the profiles go (default /var/lib/sleepy)\n"
"    -s, --max-size SIZE  most bytes the profiles take together, e.g. 500M\n"
"                         (default 100M; 0: no limit)\n"
"    -h, --help           show this help\n"
"    -V, --version        show the version\n"
"\n"
"Exit status: 0 stopped after writing every profile, 1 profiling failed or\n"
"a profile could not be written (each said on stderr), 2 bad usage.\n";

struct agent_options {
	struct sleepy_attr attr;
	uint64_t interval_ns;
	const char *dir;
	uint64_t max_size;
};

/*
 * A point in time by both clocks: the monotonic one the records carry, and
 * the wall clock the profiles are named and stamped by.  A boundary is a
 * multiple of the interval in wall-clock time, exactly.
 */
struct instant {
	uint64_t mono;
	int64_t wall;
};

struct agent {
	const struct agent_options *opts;
	struct sleepy_profile profile;
	struct sleepy_report_options report;
	struct sleepy_dsos dsos;
	struct sleepy_file_header header;
	struct instant start;		/* of the interval in progress */
	uint64_t sample_start_ns;	/* when the session began sampling */
	/*
	 * The boundaries of the cuts asked for and not seen in the stream
	 * yet, oldest first: an interval ends at its boundary, whatever
	 * the few milliseconds the drainer took to cut.
	 */
	struct instant cuts[8];
	unsigned int ncuts;
	/* The file header, then the bytes of the stream not yet taken. */
	unsigned char *buf;
	size_t used, size;
	uint64_t profiles, samples_written, failed;
	uint64_t walk_apps, walk_mappings;	/* announced before sampling */
	bool walk_said;
	struct sleepy_cpu_stats totals;	/* the trailer's, summed */
	bool finished;			/* saw the trailer's END */
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int bad(const char *what, const char *value)
{
	fprintf(stderr, "sleepy-agent: invalid %s '%s' (see --help)\n", what,
		value);
	return SLEEPY_EXIT_USAGE;
}

static int parse_args(struct agent_options *opts, int argc, char **argv)
{
	enum { OPT_MAX_STACK = 256 };
	static const struct option longopts[] = {
		{ "frequency", required_argument, NULL, 'F' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "buffer", required_argument, NULL, 'b' },
		{ "interval", required_argument, NULL, 'i' },
		{ "dir", required_argument, NULL, 'd' },
		{ "max-size", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	uint64_t value;
	int c;

	memset(opts, 0, sizeof(*opts));
	opts->attr.size = sizeof(opts->attr);
	opts->attr.frequency = 49;
	opts->interval_ns = 60 * 1000000000ULL;
	opts->dir = "/var/lib/sleepy";
	opts->max_size = 100 << 20;
	while ((c = getopt_long(argc, argv, "F:kgb:i:d:s:hV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'F':
			if (!sleepy_parse_u64(optarg, &value) || !value ||
			    value > SLEEPY_MAX_FREQUENCY)
				return bad("frequency", optarg);
			opts->attr.frequency = value;
			break;
		case 'k':
			opts->attr.flags |= SLEEPY_FLAG_KERNEL;
			break;
		case 'g':
			opts->attr.flags |= SLEEPY_FLAG_CALLCHAIN;
			break;
		case OPT_MAX_STACK:
			if (!sleepy_parse_u64(optarg, &value) || !value ||
			    value > UINT32_MAX)
				return bad("stack depth", optarg);
			opts->attr.max_stack = value;
			break;
		case 'b':
			if (!sleepy_parse_size(optarg, &value) ||
			    value < SLEEPY_MIN_BUFFER_SIZE ||
			    value > SLEEPY_MAX_BUFFER_SIZE || value % 4096)
				return bad("buffer size (multiple of 4K, 8K..256M)",
					   optarg);
			opts->attr.buffer_size = value;
			break;
		case 'i':
			if (!sleepy_parse_u64(optarg, &value) || !value ||
			    value > 86400)
				return bad("interval (1..86400 s)", optarg);
			opts->interval_ns = value * 1000000000ULL;
			break;
		case 'd':
			if (!*optarg)
				return bad("directory", optarg);
			opts->dir = optarg;
			break;
		case 's':
			if (!sleepy_parse_size(optarg, &value))
				return bad("size", optarg);
			opts->max_size = value;
			break;
		case 'h':
			fputs(usage, stdout);
			return SLEEPY_EXIT_OK;
		case 'V':
			sleepy_print_version("sleepy-agent");
			return SLEEPY_EXIT_OK;
		default:
			return SLEEPY_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "sleepy-agent: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return SLEEPY_EXIT_USAGE;
	}
	if (opts->attr.max_stack && !(opts->attr.flags & SLEEPY_FLAG_CALLCHAIN)) {
		fprintf(stderr, "sleepy-agent: --max-stack needs -g\n");
		return SLEEPY_EXIT_USAGE;
	}
	return -1;
}

static bool is_profile_name(const char *name)
{
	size_t len = strlen(name);

	return !strncmp(name, "sleepy-", 7) && len > 13 &&
	       !strcmp(name + len - 6, ".pb.gz");
}

struct profile_file {
	char *path;
	struct timespec mtime;
	uint64_t bytes;
};

static int cmp_mtimes(const void *a, const void *b)
{
	const struct profile_file *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	return (x->mtime.tv_nsec > y->mtime.tv_nsec) - (x->mtime.tv_nsec < y->mtime.tv_nsec);
}

/*
 * Deletes the oldest profiles (by when they were written) while they take
 * more than the cap; the newest stays, whatever its size.
 */
static void rotate(const struct agent_options *opts)
{
	struct profile_file *files = NULL;
	uint64_t total = 0;
	struct dirent *d;
	size_t n = 0, i;
	DIR *dir;

	if (!opts->max_size || !(dir = opendir(opts->dir)))
		return;
	while ((d = readdir(dir))) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", opts->dir, d->d_name);
		if (!is_profile_name(d->d_name) || stat(path, &st))
			continue;
		files = sleepy_xrealloc(files, (n + 1) * sizeof(*files));
		files[n] = (struct profile_file) {
			strdup(path), st.st_mtim, st.st_blocks * 512ULL,
		};
		total += files[n++].bytes;
	}
	closedir(dir);
	qsort(files, n, sizeof(*files), cmp_mtimes);
	for (i = 0; i + 1 < n && total > opts->max_size; i++)
		if (files[i].path && !unlink(files[i].path))
			total -= files[i].bytes;
	for (i = 0; i < n; i++)
		free(files[i].path);
	free(files);
}

static struct instant now_instant(void)
{
	return (struct instant) {
		clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_REALTIME),
	};
}

/* @mono, a moment of the monotonic clock, by the wall clock as it is now. */
static struct instant at_mono(uint64_t mono)
{
	struct instant now = now_instant();

	return (struct instant) { mono, now.wall - (int64_t)(now.mono - mono) };
}

/* Writes the interval that ended at @end and starts the next one. */
static void end_interval(struct agent *a, struct instant end)
{
	char name[64], path[4096], tmp[4200];
	time_t start = a->start.wall / 1000000000LL;
	uint64_t duration = end.wall > a->start.wall ?
			    (uint64_t)(end.wall - a->start.wall) :
			    end.mono - a->start.mono;
	struct tm tm;
	struct stat st;
	int suffix;

	gmtime_r(&start, &tm);
	strftime(name, sizeof(name), "sleepy-%Y%m%dT%H%M%SZ", &tm);
	snprintf(path, sizeof(path), "%s/%s.pb.gz", a->opts->dir, name);
	/* A restart within the second that began the last interval. */
	for (suffix = 2; !stat(path, &st) && suffix < 100; suffix++)
		snprintf(path, sizeof(path), "%s/%s-%d.pb.gz", a->opts->dir,
			 name, suffix);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", a->opts->dir, name);

	a->dsos.vdso = a->profile.vdso;
	a->dsos.vdso_size = a->profile.vdso_size;
	if (sleepy_pprof_write_interval(tmp, &a->report, &a->profile,
					a->header.frequency, a->start.wall,
					duration) ||
	    rename(tmp, path)) {
		int err = errno;

		fprintf(stderr, "sleepy-agent: %s: not written (%s); its %" PRIu64
			" samples are lost\n", path, strerror(err),
			a->profile.samples);
		unlink(tmp);
		a->failed++;
	} else {
		a->profiles++;
		a->samples_written += a->profile.samples;
		rotate(a->opts);
	}
	if (!a->walk_said) {
		printf("sleepy-agent: the start walk announced %" PRIu64
		       " processes and %" PRIu64 " mappings\n",
		       a->walk_apps, a->walk_mappings);
		fflush(stdout);
		a->walk_said = true;
	}
	if (sleepy_profile_next_interval(&a->profile, a->start.mono)) {
		sleepy_dsos_free(&a->dsos);
		sleepy_dsos_init(&a->dsos, NULL, stderr);
	}
	a->start = end;
}

/*
 * The boundary a cut made at @time_ns ends the interval at: the latest of
 * those asked for before it (two requests the drainer took as one give
 * one cut), or the cut's own time if none was.
 */
static struct instant cut_boundary(struct agent *a, uint64_t time_ns)
{
	struct instant end = at_mono(time_ns);
	unsigned int n = 0;

	while (n < a->ncuts && a->cuts[n].mono <= time_ns)
		end = a->cuts[n++];
	a->ncuts -= n;
	memmove(a->cuts, a->cuts + n, a->ncuts * sizeof(a->cuts[0]));
	return end;
}

static void take_record(struct agent *a, const struct sleepy_record_header *r)
{
	struct sleepy_cpu_stats stats;

	switch (r->type) {
	case SLEEPY_REC_CUT:
		end_interval(a, cut_boundary(a, ((const struct sleepy_cut *)r)->time_ns));
		return;
	case SLEEPY_REC_APP_START:
		a->walk_apps += ((const struct sleepy_app_start *)r)->time_ns <
				a->sample_start_ns;
		break;
	case SLEEPY_REC_MMAP:
		a->walk_mappings += ((const struct sleepy_mmap *)r)->time_ns <
				    a->sample_start_ns;
		break;
	case SLEEPY_REC_CPU_STATS:
		sleepy_cpu_stats_read(r, &stats);
		a->totals.samples += stats.samples;
		a->totals.dropped += stats.dropped;
		a->totals.missed += stats.missed;
		break;
	case SLEEPY_REC_END:
		a->finished = true;
		break;
	}
	sleepy_profile_add(&a->profile, r);
}

/*
 * Takes the whole records of the bytes read so far; the rest waits for
 * the next read.  -1 if the stream is damaged.
 */
static int take_records(struct agent *a)
{
	const struct sleepy_record_header *r;
	struct sleepy_recording rec;
	size_t whole = sizeof(a->header), left;

	while (a->used - whole >= sizeof(*r)) {
		r = (const void *)(a->buf + whole);
		if (r->size < sizeof(*r) || r->size % 8) {
			fprintf(stderr, "sleepy-agent: the stream is damaged: a record of %u bytes\n",
				r->size);
			return -1;
		}
		if (r->size > a->used - whole)
			break;
		whole += r->size;
	}
	if (sleepy_recording_open_mem(&rec, a->buf, whole)) {
		fprintf(stderr, "sleepy-agent: %s\n", rec.error);
		return -1;
	}
	while ((r = sleepy_recording_next(&rec)))
		take_record(a, r);
	if (rec.error[0]) {
		fprintf(stderr, "sleepy-agent: the stream is damaged: %s\n",
			rec.error);
		sleepy_recording_close(&rec);
		return -1;
	}
	sleepy_recording_close(&rec);
	left = a->used - whole;
	memmove(a->buf + sizeof(a->header), a->buf + whole, left);
	a->used = sizeof(a->header) + left;
	return 0;
}

/* Reads what the pipe holds; 1 at its end, -1 on an error. */
static int read_stream(struct agent *a, int fd)
{
	ssize_t n;

	if (a->size - a->used < 65536) {
		a->size = a->size * 2;
		a->buf = sleepy_xrealloc(a->buf, a->size);
	}
	n = read(fd, a->buf + a->used, a->size - a->used);
	if (n < 0)
		return errno == EINTR ? 0 : -1;
	if (!n)
		return 1;
	a->used += n;
	return take_records(a);
}

/*
 * The next multiple of the interval in wall-clock time after @now, and
 * when that is by the monotonic clock as the clocks stand now (NTP steps
 * the wall clock, a suspend stops the monotonic one).
 */
static struct instant next_boundary(const struct agent *a, struct instant now)
{
	int64_t step = a->opts->interval_ns;
	int64_t wall = (now.wall / step + 1) * step;

	return (struct instant) { now.mono + (wall - now.wall), wall };
}

/*
 * SIGTERM and SIGINT are blocked but in ppoll(), so a stop that comes
 * while the loop runs is seen at the next wait, not after it.
 */
static int run(struct agent *a, int stream, pid_t drainer,
	       const sigset_t *wait_mask)
{
	struct instant boundary = next_boundary(a, a->start);
	bool stopping = false;
	int ret;

	for (;;) {
		struct pollfd pfd = { .fd = stream, .events = POLLIN };
		struct instant now = now_instant();
		struct timespec timeout, *wait = NULL;
		uint64_t left;

		if (stop_requested && !stopping) {
			int err = sleepy_sys_stop(0);

			if (err)
				fprintf(stderr, "sleepy-agent: %s\n",
					sleepy_explain("sleepy_stop", err));
			kill(drainer, SIGUSR1);
			stopping = true;
		}
		if (!stopping) {
			if (now.mono >= boundary.mono &&
			    a->ncuts < sizeof(a->cuts) / sizeof(a->cuts[0])) {
				if (sleepy_session_cut(drainer))
					return -1;
				a->cuts[a->ncuts++] = boundary;
				boundary = next_boundary(a, now);
			}
			/* A boundary past while cuts are pending: soon again. */
			left = boundary.mono > now.mono ? boundary.mono - now.mono :
							  1000000;
			timeout = (struct timespec) {
				left / 1000000000, left % 1000000000,
			};
			wait = &timeout;
		}
		if (ppoll(&pfd, 1, wait, wait_mask) < 0 && errno != EINTR) {
			perror("sleepy-agent: poll");
			return -1;
		}
		if (!pfd.revents)
			continue;
		ret = read_stream(a, stream);
		if (ret < 0)
			return -1;
		if (ret > 0)
			return 0;
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t stop_signals, wait_mask;
	struct agent_options opts;
	struct agent a = { .opts = &opts };
	int stream, status, ret;
	uint64_t start_ns;
	pid_t drainer;

	ret = parse_args(&opts, argc, argv);
	if (ret >= 0)
		return ret;
	if (mkdir(opts.dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "sleepy-agent: cannot create %s: %s\n", opts.dir,
			strerror(errno));
		return SLEEPY_EXIT_ERROR;
	}
	if (access(opts.dir, W_OK | X_OK)) {
		fprintf(stderr, "sleepy-agent: cannot write into %s: %s\n",
			opts.dir, strerror(errno));
		return SLEEPY_EXIT_ERROR;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	sigprocmask(SIG_BLOCK, &stop_signals, &wait_mask);
	sleepy_profile_init(&a.profile);
	a.profile.by_tid = true;
	sleepy_dsos_init(&a.dsos, NULL, stderr);
	a.report.dsos = &a.dsos;
	a.size = 1 << 20;
	a.buf = sleepy_xrealloc(NULL, a.size);

	drainer = sleepy_session_begin_stream(&opts.attr, &stream, &start_ns);
	if (drainer < 0)
		return SLEEPY_EXIT_ERROR;
	/* Room for bursts while a profile is written: best effort. */
	fcntl(stream, F_SETPIPE_SZ, 1 << 20);
	a.sample_start_ns = start_ns;
	a.start = at_mono(start_ns);
	sleepy_file_header_init(&a.header, &opts.attr,
				sysconf(_SC_NPROCESSORS_CONF), start_ns);
	memcpy(a.buf, &a.header, sizeof(a.header));
	a.used = sizeof(a.header);
	printf("sleepy-agent: sampling every CPU at %u Hz; a profile every %" PRIu64
	       " s into %s\n", opts.attr.frequency, (uint64_t)(opts.interval_ns / 1000000000U),
	       opts.dir);
	fflush(stdout);

	ret = run(&a, stream, drainer, &wait_mask);
	if (ret) {
		sleepy_sys_stop(0);
		kill(drainer, SIGUSR1);
	}
	/* Unread, the pipe would keep the drainer writing the stop's rest. */
	close(stream);
	while (waitpid(drainer, &status, 0) < 0 && errno == EINTR)
		;
	if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status) || !a.finished)) {
		fprintf(stderr, "sleepy-agent: the drainer failed; the last interval is incomplete\n");
		ret = -1;
	}
	/* The interval in progress, up to the stop. */
	end_interval(&a, at_mono(a.profile.end_ns ?: clock_ns(CLOCK_MONOTONIC)));
	printf("sleepy-agent: stopped: %" PRIu64 " profiles with %" PRIu64
	       " samples, %" PRIu64 " samples counted by the kernel, %" PRIu64
	       " dropped, %" PRIu64 " periods missed, %" PRIu64
	       " profiles not written\n", a.profiles, a.samples_written,
	       a.totals.samples, a.totals.dropped, a.totals.missed, a.failed);
	sleepy_dsos_free(&a.dsos);
	sleepy_profile_free(&a.profile);
	free(a.buf);
	return ret || a.failed ? SLEEPY_EXIT_ERROR : SLEEPY_EXIT_OK;
}
