// SPDX-License-Identifier: GPL-2.0
/*
 * perf2sleepy: the samples of a perf.data as a sleepy recording, so that
 * bench/parse-speed.sh can time sleepy-parse and perf report on the same
 * samples of the same programs: both then resolve every IP in the same
 * ELF files (and kernel IPs in the same /proc/kallsyms).
 *
 * Reads `perf script --show-task-events --show-mmap-events -F
 * comm,pid,tid,time,ip` on stdin.  Each process perf saw fork and each exec
 * becomes an application instance (APP_START, APP_EXIT at its exit or
 * next exec), each executable file mapping an MMAP record with the
 * build-id `perf buildid-list` gave for its path, each sample of pid 0 an
 * idle tick, every other sample a SAMPLE (kernel IPs as a -k session
 * records them, with no user IP: perf's sample has none).  perf's samples
 * carry no CPU here, so the recording has one.
 *
 * Host tool, built with the library (not a guest benchmark).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/ksyms.h"
#include "record/recording.h"
#include "session/session.h"

#define KERNEL_SPACE		0xffff800000000000ULL
#define BUFFER_SIZE		(1U << 20)

static const char usage[] =
"USAGE: perf2sleepy [-F HZ] [-b BUILDIDS] [-k KALLSYMS] FILE < PERF-SCRIPT\n"
"\n"
"Write the samples of a perf recording as the sleepy recording FILE.\n"
"PERF-SCRIPT is the output of\n"
"  perf script --show-task-events --show-mmap-events -F comm,pid,tid,time,ip\n"
"\n"
"  -F, --frequency HZ    the sampling frequency perf recorded at\n"
"  -b, --build-ids FILE  `perf buildid-list` output: the build-id of each path\n"
"  -k, --kallsyms FILE   kernel symbols to keep (default /proc/kallsyms)\n"
"\n"
"EXAMPLES:\n"
"  perf script -i perf.data --show-task-events --show-mmap-events \\\n"
"      -F comm,pid,tid,time,ip | perf2sleepy -b ids.txt sleepy.data\n";

struct process {
	uint32_t appid;		/* 0: not seen yet */
	char name[SLEEPY_APP_NAME_LEN];
};

struct build_id {
	char *path;
	uint8_t id[SLEEPY_BUILD_ID_MAX];
	uint32_t size;
};

struct converter {
	int fd;
	unsigned char *buf;
	size_t used;
	struct process *processes;	/* by pid */
	size_t nprocesses;
	struct build_id *build_ids;
	size_t nbuild_ids;
	/* Instances per name, for APP_START's instance number. */
	struct { char name[SLEEPY_APP_NAME_LEN]; uint32_t count; } *names;
	size_t nnames;
	uint32_t next_appid;
	struct sleepy_kernel_ips kernel_ips;
	uint64_t samples, idle, first_ns, last_ns;
	unsigned long line;
};

static void __attribute__((noreturn)) fail(const char *what)
{
	fprintf(stderr, "perf2sleepy: %s\n", what);
	exit(1);
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p)
		fail("out of memory");
	return p;
}

static void flush(struct converter *c)
{
	sleepy_kernel_ips_note(&c->kernel_ips, c->buf, c->used);
	if (sleepy_write_all(c->fd, c->buf, c->used))
		fail(strerror(errno));
	c->used = 0;
}

static void emit(struct converter *c, const void *record, size_t size)
{
	if (c->used + size > BUFFER_SIZE)
		flush(c);
	memcpy(c->buf + c->used, record, size);
	c->used += size;
}

static struct process *process_of(struct converter *c, uint32_t pid)
{
	if (pid >= c->nprocesses) {
		size_t n = pid + 1024;

		c->processes = xrealloc(c->processes, n * sizeof(*c->processes));
		memset(c->processes + c->nprocesses, 0,
		       (n - c->nprocesses) * sizeof(*c->processes));
		c->nprocesses = n;
	}
	return &c->processes[pid];
}

static uint32_t instance_of(struct converter *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nnames; i++)
		if (!strncmp(c->names[i].name, name, SLEEPY_APP_NAME_LEN))
			return ++c->names[i].count;
	c->names = xrealloc(c->names, (c->nnames + 1) * sizeof(*c->names));
	memset(&c->names[c->nnames], 0, sizeof(*c->names));
	strncpy(c->names[c->nnames].name, name, SLEEPY_APP_NAME_LEN);
	c->names[c->nnames].count = 1;
	return c->names[c->nnames++].count;
}

static void app_exit(struct converter *c, uint32_t pid, uint64_t time_ns)
{
	struct process *p = process_of(c, pid);
	struct sleepy_app_exit end = {
		.header = { SLEEPY_REC_APP_EXIT, sizeof(end), 0 },
		.appid = p->appid,
		.pid = pid,
		.time_ns = time_ns,
	};

	if (!p->appid)
		return;
	emit(c, &end, sizeof(end));
	p->appid = 0;
}

static void app_start(struct converter *c, uint32_t pid, const char *name,
		      uint32_t parent_appid, uint64_t time_ns)
{
	struct process *p = process_of(c, pid);
	struct sleepy_app_start start = {
		.header = { SLEEPY_REC_APP_START, sizeof(start), 0 },
		.appid = ++c->next_appid,
		.parent_appid = parent_appid,
		.pid = pid,
		.time_ns = time_ns,
	};

	strncpy(start.name, name, sizeof(start.name));
	start.name[sizeof(start.name) - 1] = '\0';
	start.instance = instance_of(c, start.name);
	emit(c, &start, sizeof(start));
	p->appid = start.appid;
	memcpy(p->name, start.name, sizeof(p->name));
}

/* The application instance of @pid, announced now if perf saw none. */
static uint32_t appid_of(struct converter *c, uint32_t pid, const char *comm,
			 uint64_t time_ns)
{
	struct process *p = process_of(c, pid);

	if (!p->appid)
		app_start(c, pid, comm, 0, time_ns);
	return p->appid;
}

static const struct build_id *build_id_of(struct converter *c,
					  const char *path)
{
	size_t i;

	for (i = 0; i < c->nbuild_ids; i++)
		if (!strcmp(c->build_ids[i].path, path))
			return &c->build_ids[i];
	return NULL;
}

/* "HEX PATH" lines, as `perf buildid-list` prints them. */
static void read_build_ids(struct converter *c, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096], hex[2 * SLEEPY_BUILD_ID_MAX + 1], file[4000];

	if (!f)
		fail(strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct build_id *id;
		size_t n, i;

		if (sscanf(line, "%40s %3999s", hex, file) != 2)
			continue;
		n = strlen(hex) / 2;
		c->build_ids = xrealloc(c->build_ids,
					(c->nbuild_ids + 1) * sizeof(*id));
		id = &c->build_ids[c->nbuild_ids++];
		id->path = strdup(file);
		id->size = n;
		for (i = 0; i < n; i++)
			sscanf(hex + 2 * i, "%2hhx", &id->id[i]);
	}
	fclose(f);
}

/*
 * "[0xSTART(0xLEN) @ PGOFF MAJ:MIN INO GEN]: PROT PATH" of a
 * PERF_RECORD_MMAP2 of @pid (%x takes the 0x, and an offset 0 has none).
 */
static void mmap2(struct converter *c, uint32_t pid, const char *comm,
		  uint64_t time_ns, const char *text)
{
	unsigned char record[sizeof(struct sleepy_mmap) + SLEEPY_MMAP_PATH_MAX];
	struct sleepy_mmap *map = (void *)record;
	unsigned long long start, len, pgoff;
	const struct build_id *id;
	const char *rest = strchr(text, '[');
	char prot[8];
	int at = 0;
	size_t n;

	if (!rest || sscanf(rest, "[%llx(%llx) @ %llx %*s %*s %*[^]]]: %7s %n",
			    &start, &len, &pgoff, prot, &at) != 4 || !at)
		return;
	rest += at;
	n = strcspn(rest, "\n");
	/* Only file-backed code, as the kernel records it. */
	if (!strchr(prot, 'x') || rest[0] != '/' || n >= SLEEPY_MMAP_PATH_MAX)
		return;
	memset(record, 0, sizeof(record));
	map->time_ns = time_ns;
	map->start = start;
	map->len = len;
	map->pgoff = pgoff;
	map->pid = pid;
	map->appid = appid_of(c, pid, comm, time_ns);
	memcpy(map->path, rest, n);
	id = build_id_of(c, map->path);
	if (id) {
		map->build_id_size = id->size;
		memcpy(map->build_id, id->id, id->size);
	}
	map->header.type = SLEEPY_REC_MMAP;
	map->header.size = (sizeof(*map) + n + 1 + 7) & ~7UL;
	emit(c, map, map->header.size);
}

static void sample(struct converter *c, uint32_t pid, uint32_t tid,
		   const char *comm, uint64_t time_ns, uint64_t ip)
{
	struct sleepy_sample s = {
		.header = { SLEEPY_REC_SAMPLE, sizeof(s), 0 },
		.time_ns = time_ns,
		.tid = tid,
	};

	if (!pid) {
		c->idle++;
		return;
	}
	s.appid = appid_of(c, pid, comm, time_ns);
	if (ip >= KERNEL_SPACE) {
		s.flags = SLEEPY_SAMPLE_IN_KERNEL;
		s.kernel_ip = ip;
	} else {
		s.user_ip = ip;
	}
	emit(c, &s, sizeof(s));
	c->samples++;
}

/* One line of perf script: "COMM PID/TID SECONDS.MICROS: REST". */
static void convert_line(struct converter *c, char *line)
{
	unsigned int pid, tid, child_pid, child_tid, parent_pid;
	unsigned long long seconds, micros, ip;
	char *comm_end, *p, *rest, name[64];
	uint64_t time_ns;
	int n = 0;

	/* The comm may hold spaces: the first "N/N N.N: " ends it. */
	for (p = line; (p = strchr(p, ' ')); p++) {
		if (isdigit((unsigned char)p[1]) &&
		    sscanf(p, " %u/%u %llu.%llu: %n", &pid, &tid, &seconds,
			   &micros, &n) == 4 && n)
			break;
	}
	if (!p)
		return;
	for (comm_end = p; comm_end > line && comm_end[-1] == ' '; comm_end--)
		;
	*comm_end = '\0';
	while (*line == ' ')
		line++;
	rest = p + n;
	time_ns = seconds * 1000000000ULL + micros * 1000;
	if (!c->first_ns)
		c->first_ns = time_ns;
	c->last_ns = time_ns;

	if (strncmp(rest, "PERF_RECORD_", 12)) {
		if (sscanf(rest, "%llx", &ip) == 1)
			sample(c, pid, tid, line, time_ns, ip);
		return;
	}
	rest += 12;
	if (!strncmp(rest, "MMAP2 ", 6)) {
		mmap2(c, pid, line, time_ns, rest);
	} else if (sscanf(rest, "FORK(%u:%u):(%u:", &child_pid, &child_tid,
			  &parent_pid) == 3) {
		/* A new process, not a thread: it runs its parent's image. */
		if (child_pid == child_tid && child_pid != parent_pid) {
			uint32_t parent = appid_of(c, parent_pid, line, time_ns);

			app_exit(c, child_pid, time_ns);
			app_start(c, child_pid, process_of(c, parent_pid)->name,
				  parent, time_ns);
		}
	} else if (sscanf(rest, "EXIT(%u:%u)", &child_pid, &child_tid) == 2) {
		if (child_pid == child_tid)
			app_exit(c, child_pid, time_ns);
	} else if (!strncmp(rest, "COMM exec: ", 11)) {
		/* "NAME:PID/TID": the name may hold a colon. */
		char *colon = strrchr(rest, ':');
		size_t len = colon ? (size_t)(colon - (rest + 11)) : 0;
		uint32_t before = process_of(c, pid)->appid;

		if (!colon || len >= sizeof(name))
			return;
		memcpy(name, rest + 11, len);
		name[len] = '\0';
		app_exit(c, pid, time_ns);
		app_start(c, pid, name, before, time_ns);
	}
}

static void convert(struct converter *c, FILE *in, const char *kallsyms,
		    uint32_t frequency)
{
	struct sleepy_attr attr = {
		.flags = SLEEPY_FLAG_KERNEL,
		.frequency = frequency,
	};
	struct sleepy_file_header header;
	struct sleepy_cpu_stats stats = {
		.header = { SLEEPY_REC_CPU_STATS, sizeof(stats), 0 },
	};
	struct sleepy_end end = {
		.header = { SLEEPY_REC_END, sizeof(end), 0 },
	};
	char *line = NULL;
	size_t size = 0;

	sleepy_file_header_init(&header, &attr, 1, 0);
	if (sleepy_write_all(c->fd, &header, sizeof(header)))
		fail(strerror(errno));
	while (getline(&line, &size, in) > 0) {
		c->line++;
		convert_line(c, line);
	}
	free(line);
	if (!c->samples)
		fail("no samples in the input (is it perf script's output?)");
	flush(c);
	if (sleepy_kernel_symbols_write(c->fd, &c->kernel_ips, kallsyms))
		fail(strerror(errno));
	stats.samples = c->samples;
	stats.idle = c->idle;
	end.time_ns = c->last_ns;
	emit(c, &stats, sizeof(stats));
	emit(c, &end, sizeof(end));
	if (sleepy_write_all(c->fd, c->buf, c->used))
		fail(strerror(errno));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "frequency", required_argument, NULL, 'F' },
		{ "build-ids", required_argument, NULL, 'b' },
		{ "kallsyms", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *kallsyms = "/proc/kallsyms", *build_ids = NULL;
	struct converter c = {};
	uint64_t frequency = 0;
	int opt;

	while ((opt = getopt_long(argc, argv, "F:b:k:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			if (!sleepy_parse_u64(optarg, &frequency) ||
			    frequency > UINT32_MAX) {
				fprintf(stderr, "perf2sleepy: invalid -F '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'b':
			build_ids = optarg;
			break;
		case 'k':
			kallsyms = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (build_ids)
		read_build_ids(&c, build_ids);
	c.buf = xrealloc(NULL, BUFFER_SIZE);
	c.fd = open(argv[optind], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (c.fd < 0) {
		fprintf(stderr, "perf2sleepy: %s: %s\n", argv[optind],
			strerror(errno));
		return 1;
	}
	convert(&c, stdin, kallsyms, frequency);
	if (close(c.fd))
		fail(strerror(errno));
	sleepy_kernel_ips_free(&c.kernel_ips);
	return 0;
}
