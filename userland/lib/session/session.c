// SPDX-License-Identifier: GPL-2.0
/*
 * Session control and the drainer.
 *
 * sleepy_start() returns a file descriptor that owns the session: the
 * kernel stops the session and frees its buffers when the last copy is
 * closed.  The drainer, a child process of the tool that started the
 * session, holds the only copy left, so if every tool dies the session
 * ends with them.
 *
 * The drainer asks the session for one relay buffer descriptor per CPU
 * (SLEEPY_IOC_CPU_BUFFER; a CPU that comes online later is asked for again
 * at every poll round) and reads a buffer only when relay reports a
 * complete sub-buffer (POLLIN), and then exactly that sub-buffer: its
 * header says how many bytes of records it holds, so the drainer never
 * reads into a sub-buffer the kernel is still writing.  (A read may still
 * come up short while the writer switches sub-buffers; read_subbuf()
 * resumes it.)  When asked to finish (SIGUSR1, after sleepy_stop() flushed
 * every buffer) it drains what is left, appends the per-CPU counters
 * (SLEEPY_IOC_CPU_COUNTERS) as the trailer, and exits; the stopping tool
 * waits for that as long as the drainer works (runs or waits on the
 * disk), since a slow disk's fsync may take minutes.  With an
 * interval for the interrupt histograms it asks the kernel to write them
 * (SLEEPY_IOC_IRQ_FLUSH) each time one has passed.
 *
 * For a continuous profiler (sleepy-agent) the drainer writes the records
 * to a pipe instead of a file, and cuts the stream into intervals when
 * asked (SIGUSR2): it has the kernel hand over every CPU's partly filled
 * sub-buffer (SLEEPY_IOC_FLUSH), drains them, and writes a cut record
 * after them.
 *
 * The drainer also watches a pipe from the tool that started it: if that
 * tool ends before it detaches (sleepy-start killed while it waits for
 * the start walk, sleepy-record killed mid-run), the drainer stops the
 * session itself and finishes the recording, so no session is left
 * running with nobody to stop it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/ksyms.h"
#include "record/recording.h"
#include "session/session.h"

#define DRAIN_POLL_MS		200
/*
 * A stopped drainer's last steps (what is left, the trailer, fsync) take
 * as long as the disk does.  It is waited for while it runs or waits on
 * the disk; checked this often, and named after a while.
 */
#define DRAINER_CHECK_MS	1000
#define DRAINER_NOTE_MS		10000
#define SUBBUF_READ_RETRIES	5000	/* of 1 ms each */
#define CUT_RETRIES		100	/* hand-overs refused by a full buffer */

int sleepy_sys_start(struct sleepy_attr *attr)
{
	int fd = syscall(__NR_sleepy_start, attr, 0);

	return fd < 0 ? -errno : fd;
}

int sleepy_sys_stop(unsigned int flags)
{
	return syscall(__NR_sleepy_stop, flags) ? -errno : 0;
}

const char *sleepy_explain(const char *call, int err)
{
	static char line[256];
	const char *what;

	switch (-err) {
	case ENOSYS:
		what = "this kernel has no sleepy support; boot one built with CONFIG_SLEEPY=y (see README: make run)";
		break;
	case EACCES:
		what = "permission denied; needs CAP_PERFMON (or kernel.perf_event_paranoid <= 0; kernel IPs: <= 1 and kptr_restrict allowing it)";
		break;
	case EPERM:
		what = strcmp(call, "sleepy_stop") ?
		       "not permitted; needs CAP_PERFMON (--sched and --irq: or kernel.perf_event_paranoid = -1), from the initial pid namespace, and buffers within perf_event_mlock_kb per CPU plus ulimit -l (or CAP_IPC_LOCK)" :
		       "not permitted; the session belongs to another user (or needs CAP_SYS_ADMIN), or the caller is in a child pid namespace";
		break;
	case EOVERFLOW:
		what = "stack depth above kernel.perf_event_max_stack (see --max-stack)";
		break;
	case E2BIG:
		what = "the kernel's sleepy is older than these tools (attribute block too big)";
		break;
	case EBUSY:
		what = "a session is already running; end it with sleepy-stop";
		break;
	case ESRCH:
		what = strcmp(call, "sleepy_stop") ?
		       "no process with that pid" :
		       "no session is running; start one with sleepy-start";
		break;
	case EINVAL:
		what = "invalid attributes (frequency up to kernel.sleepy_max_frequency, buffer a multiple of 4 KiB between 8 KiB and 256 MiB)";
		break;
	case ENOMEM:
		what = "the kernel could not allocate the buffers; ask for a smaller buffer (-b)";
		break;
	default:
		what = strerror(-err);
		break;
	}
	snprintf(line, sizeof(line), "%s: %s", call, what);
	return line;
}

bool sleepy_parse_u64(const char *s, uint64_t *value)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*value = strtoull(s, &end, 0);
	return !errno && !*end;
}

bool sleepy_parse_size(const char *s, uint64_t *value)
{
	uint64_t shift = 0;
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*value = strtoull(s, &end, 0);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case '\0':
		return true;
	default:
		return false;
	}
	if (end[1] || *value > (UINT64_MAX >> shift))
		return false;
	*value <<= shift;
	return true;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

const char *sleepy_state_path(void)
{
	static char path[PATH_MAX];
	const char *dir = getenv("SLEEPY_STATE_DIR");

	snprintf(path, sizeof(path), "%s/session", dir ?: SLEEPY_STATE_DIR);
	return path;
}

int sleepy_state_save(pid_t drainer, const char *output)
{
	const char *dir = getenv("SLEEPY_STATE_DIR");
	FILE *f;

	mkdir(dir ?: SLEEPY_STATE_DIR, 0700);
	f = fopen(sleepy_state_path(), "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n%s\n", (int)drainer, output);
	return fclose(f);
}

int sleepy_state_load(pid_t *drainer, char *output, size_t size)
{
	FILE *f = fopen(sleepy_state_path(), "r");
	int pid, ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d\n", &pid) == 1 && fgets(output, size, f);
	fclose(f);
	if (!ok)
		return -1;
	output[strcspn(output, "\n")] = '\0';
	*drainer = pid;
	return 0;
}

void sleepy_state_remove(void)
{
	unlink(sleepy_state_path());
}

/*
 * Reads exactly @len bytes of a complete sub-buffer.  relay's read() can
 * come up short while the writer is between two sub-buffers (it compares
 * the reader's position with the writer's, which is in flux), so an empty
 * read is retried for a while.  Returns the bytes read: @len, or fewer on
 * an error or if the data never came.
 */
static size_t read_subbuf(int fd, void *buf, size_t len)
{
	struct timespec pause = { .tv_nsec = 1000000 };
	unsigned int retries = 0;
	size_t done = 0;

	while (done < len && retries < SUBBUF_READ_RETRIES) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0) {
			done += n;
			continue;
		}
		retries++;
		nanosleep(&pause, NULL);
	}
	return done;
}

struct drainer {
	int out;
	bool to_pipe;		/* out is sleepy-agent's pipe, not a file */
	int session;
	bool irq;		/* interrupts are named in the records */
	bool kernel;		/* the records carry kernel IPs */
	uint64_t irq_interval_ns;	/* between histogram flushes, 0: none */
	uint64_t next_flush_ns;
	struct sleepy_kernel_ips kernel_ips;
	unsigned int ncpus;
	int *fds;
	char *buf;
	size_t buf_size;
	int starter;	/* pipe from the starter until it detaches; -1 after */
};

static volatile sig_atomic_t drainer_finish;
static volatile sig_atomic_t drainer_cut;

/* The starter's end of the pipe it detaches through (sleepy_session_detach). */
static int starter_pipe = -1;

static void drainer_on_signal(int sig)
{
	if (sig == SIGUSR2)
		drainer_cut = 1;
	else
		drainer_finish = 1;
}

/* Copies every complete sub-buffer of one CPU; -1 on an I/O error. */
static int drain_cpu(struct drainer *d, unsigned int cpu)
{
	struct sleepy_subbuf_header header;
	struct pollfd pfd = { .fd = d->fds[cpu], .events = POLLIN };
	size_t got, len;

	if (pfd.fd < 0)
		return 0;
	while (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN)) {
		got = read_subbuf(pfd.fd, &header, sizeof(header));
		if (got != sizeof(header)) {
			fprintf(stderr, "sleepy drainer: cpu%u: sub-buffer header cut after %zu bytes%s\n",
				cpu, got, drainer_finish ? " (after the stop)" : "");
			return -1;
		}
		len = header.committed - sizeof(header);
		if (header.committed < sizeof(header) || len > d->buf_size ||
		    header.cpu != cpu) {
			fprintf(stderr, "sleepy drainer: cpu%u: bad sub-buffer header (committed %u, cpu %u)\n",
				cpu, header.committed, header.cpu);
			return -1;
		}
		got = read_subbuf(pfd.fd, d->buf, len);
		if (got != len) {
			fprintf(stderr, "sleepy drainer: cpu%u: sub-buffer cut after %zu of %zu bytes%s\n",
				cpu, got, len, drainer_finish ? " (after the stop)" : "");
			return -1;
		}
		if (sleepy_write_all(d->out, d->buf, len)) {
			perror("sleepy drainer: writing the recording");
			return -1;
		}
		if (d->kernel)
			sleepy_kernel_ips_note(&d->kernel_ips, d->buf, len);
	}
	return 0;
}

/*
 * /proc/interrupts at the stop, so that sleepy-parse names the IRQs of the
 * interrupt histograms and wakeups wherever it reads the recording.
 * Without /proc they stay numbers.
 */
static int write_interrupt_names(struct drainer *d)
{
	char *text = malloc(SLEEPY_TEXT_MAX);
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	size_t used = 0, len;
	int err;

	if (!text || !f) {
		free(text);
		if (f)
			fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		len = strlen(line);
		if (used + len >= SLEEPY_TEXT_MAX)
			break;
		memcpy(text + used, line, len);
		used += len;
	}
	fclose(f);
	err = sleepy_text_write(d->out, SLEEPY_REC_INTERRUPTS, text, used);
	free(text);
	return err;
}

/*
 * The trailer: the session's counters as CPU_STATS records, the names of
 * the interrupts and kernel functions the records need, and END.
 */
static int write_trailer(struct drainer *d)
{
	struct sleepy_session_info info;
	struct sleepy_end end = {
		.header = { .type = SLEEPY_REC_END, .size = sizeof(end) },
	};
	unsigned int cpu;

	for (cpu = 0; cpu < d->ncpus; cpu++) {
		struct sleepy_cpu_counters counters = { .cpu = cpu };
		struct sleepy_cpu_stats stats;

		if (ioctl(d->session, SLEEPY_IOC_CPU_COUNTERS, &counters))
			return -1;
		stats = (struct sleepy_cpu_stats) {
			.header = {
				.type = SLEEPY_REC_CPU_STATS,
				.size = sizeof(stats),
				.cpu = cpu,
			},
			.samples = counters.samples,
			.dropped = counters.dropped,
			.idle = counters.idle,
			.unknown = counters.unknown,
			.missed = counters.missed,
		};
		if (sleepy_write_all(d->out, &stats, sizeof(stats)))
			return -1;
	}
	if (d->irq && write_interrupt_names(d))
		return -1;
	if (d->kernel && sleepy_kernel_symbols_write(d->out, &d->kernel_ips,
						     "/proc/kallsyms"))
		return -1;
	if (ioctl(d->session, SLEEPY_IOC_SESSION_INFO, &info))
		return -1;
	end.time_ns = info.stop_ns ?: monotonic_ns();
	end.table_overflows = info.table_overflows;
	end.app_table_bytes = info.app_table_bytes;
	return sleepy_write_all(d->out, &end, sizeof(end));
}

/*
 * Asks the session for the buffers of CPUs not open yet: a CPU that was
 * offline at the start has one once it comes online.
 */
static int open_buffers(struct drainer *d)
{
	unsigned int cpu;

	for (cpu = 0; cpu < d->ncpus; cpu++) {
		if (d->fds[cpu] >= 0)
			continue;
		d->fds[cpu] = ioctl(d->session, SLEEPY_IOC_CPU_BUFFER, cpu);
		if (d->fds[cpu] < 0 && errno != ENODEV) {
			fprintf(stderr, "sleepy drainer: cpu%u buffer: %s\n",
				cpu, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * The histograms' flush when its time has come; the poll timeout until the
 * next one (at most DRAIN_POLL_MS).  A flush the stop overtook (ESRCH) is
 * no error: the stop writes them.
 */
static int flush_irq_histograms(struct drainer *d)
{
	uint64_t now = monotonic_ns(), wait_ms;

	if (!d->irq_interval_ns)
		return DRAIN_POLL_MS;
	if (now >= d->next_flush_ns) {
		if (ioctl(d->session, SLEEPY_IOC_IRQ_FLUSH, 0) && errno != ESRCH)
			fprintf(stderr, "sleepy drainer: flushing the interrupt histograms: %s\n",
				strerror(errno));
		while (d->next_flush_ns <= now)
			d->next_flush_ns += d->irq_interval_ns;
	}
	wait_ms = (d->next_flush_ns - now) / 1000000 + 1;
	return wait_ms < DRAIN_POLL_MS ? (int)wait_ms : DRAIN_POLL_MS;
}

/*
 * The starter detached ("d"), or ended without: then the session is
 * stopped here, unless sleepy-stop did it already, and the recording
 * finished as after any stop.
 */
static void starter_check(struct drainer *d)
{
	struct sleepy_session_info info;
	char byte = 0;
	int err;

	if (read(d->starter, &byte, 1) < 0 && errno == EINTR)
		return;
	close(d->starter);
	d->starter = -1;
	if (byte == 'd' || drainer_finish)
		return;
	fprintf(stderr, "sleepy drainer: the tool that started the session ended; stopping it\n");
	if (!ioctl(d->session, SLEEPY_IOC_SESSION_INFO, &info) && info.running &&
	    (err = sleepy_sys_stop(0)))
		fprintf(stderr, "sleepy drainer: %s\n",
			sleepy_explain("sleepy_stop", err));
	drainer_finish = 1;
}

/* Every CPU's complete sub-buffers, from CPUs that came online too. */
static int drain_all(struct drainer *d)
{
	unsigned int i;

	if (open_buffers(d))
		return -1;
	for (i = 0; i < d->ncpus; i++)
		if (drain_cpu(d, i))
			return -1;
	return 0;
}

/*
 * The interval ends now (SIGUSR2, sleepy_session_cut()): the kernel hands
 * every CPU's records over and they are drained, then come the kernel
 * functions the interval's records need and the cut record.  A buffer
 * that stays full (EAGAIN) after CUT_RETRIES drains leaves some of its
 * records for after the cut, which is said.  A stopped session gets no
 * cut: the stop's drain and trailer follow.
 */
static int cut_stream(struct drainer *d)
{
	struct sleepy_cut cut = {
		.header = { .type = SLEEPY_REC_CUT, .size = sizeof(cut) },
		.time_ns = monotonic_ns(),
	};
	unsigned int tries;
	int err;

	for (tries = 0;; tries++) {
		err = ioctl(d->session, SLEEPY_IOC_FLUSH, 0) ? errno : 0;
		if (drain_all(d))
			return -1;
		if (err != EAGAIN || tries == CUT_RETRIES)
			break;
	}
	if (err == ESRCH)
		return 0;
	if (err)
		fprintf(stderr, "sleepy drainer: handing the buffers over at the cut: %s\n",
			strerror(err));
	if (d->kernel) {
		if (sleepy_kernel_symbols_write(d->out, &d->kernel_ips,
						"/proc/kallsyms"))
			return -1;
		sleepy_kernel_ips_free(&d->kernel_ips);
	}
	return sleepy_write_all(d->out, &cut, sizeof(cut));
}

static int drainer_run(struct drainer *d, int ready_fd)
{
	struct pollfd pfds[d->ncpus + 1];
	struct sigaction sa = { .sa_handler = drainer_on_signal };
	sigset_t none;
	unsigned int i;

	/* Whatever the starter blocked (sleepy-agent blocks its stop signals). */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* A reader of the stream that is gone is a write error, not a kill. */
	signal(SIGPIPE, SIG_IGN);
	/* Before any sample: the agent names [vdso] samples as they come. */
	if (sleepy_vdso_write(d->out)) {
		perror("sleepy drainer: writing the vDSO");
		return 1;
	}
	sleepy_write_all(ready_fd, "r", 1);
	close(ready_fd);
	d->next_flush_ns = monotonic_ns() + d->irq_interval_ns;

	while (!drainer_finish) {
		int timeout = flush_irq_histograms(d);

		if (drainer_cut) {
			drainer_cut = 0;
			if (cut_stream(d)) {
				perror("sleepy drainer: cutting the stream");
				return 1;
			}
		}
		if (open_buffers(d))
			return 1;
		for (i = 0; i < d->ncpus; i++)
			pfds[i] = (struct pollfd) { .fd = d->fds[i], .events = POLLIN };
		pfds[d->ncpus] = (struct pollfd) { .fd = d->starter, .events = POLLIN };
		if (poll(pfds, d->ncpus + 1, timeout) < 0 && errno != EINTR) {
			perror("sleepy drainer: poll");
			return 1;
		}
		if (d->starter >= 0 && pfds[d->ncpus].revents)
			starter_check(d);
		for (i = 0; i < d->ncpus; i++)
			if (drain_cpu(d, i))
				return 1;
	}
	/* sleepy_stop() has flushed: every sub-buffer left is complete. */
	if (drain_all(d))
		return 1;
	if (write_trailer(d) || (!d->to_pipe && fsync(d->out)) || close(d->out)) {
		perror("sleepy drainer: writing the trailer");
		return 1;
	}
	return 0;
}

/* Appends to @output, or writes to @stream if @output is NULL. */
static int drainer_open(struct drainer *d, const char *output, int stream,
			size_t buffer_size)
{
	unsigned int cpu;

	d->out = output ? open(output, O_WRONLY | O_APPEND | O_CLOEXEC) : stream;
	d->to_pipe = !output;
	if (d->out < 0) {
		fprintf(stderr, "sleepy-start: %s: %s\n", output, strerror(errno));
		return -1;
	}
	d->buf_size = buffer_size;
	d->buf = malloc(buffer_size);
	d->fds = calloc(d->ncpus, sizeof(int));
	if (!d->buf || !d->fds)
		return -1;
	for (cpu = 0; cpu < d->ncpus; cpu++)
		d->fds[cpu] = -1;	/* poll() skips it until it opens */
	return open_buffers(d);
}

/* Writes @ns as the recording's start time, into its header. */
static int set_start_time(const char *output, uint64_t ns)
{
	int fd = open(output, O_WRONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = pwrite(fd, &ns, sizeof(ns),
			   offsetof(struct sleepy_file_header, start_time_ns));
		close(fd);
	}
	if (n != sizeof(ns)) {
		fprintf(stderr, "sleepy-start: %s: %s\n", output, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Until the kernel's start walk has announced the processes that ran
 * before the session, at the drainer's pace, and sampling began: what the
 * caller runs next is profiled from its first instruction.  The
 * recording's start becomes the sampling's (*@start_ns), which the
 * samples, drops and missed periods are measured against.
 */
static int wait_for_sampling(int session, pid_t drainer, uint64_t *start_ns)
{
	struct sleepy_session_info info;

	for (;;) {
		if (ioctl(session, SLEEPY_IOC_SESSION_INFO, &info)) {
			perror("sleepy-start: session info");
			return -1;
		}
		if (info.sample_start_ns) {
			*start_ns = info.sample_start_ns;
			return 0;
		}
		if (waitpid(drainer, NULL, WNOHANG)) {
			fprintf(stderr, "sleepy-start: the drainer ended before sampling began\n");
			return -1;
		}
		usleep(1000);
	}
}

/*
 * Starts the session and its drainer, which appends the records to
 * @output (whose header the caller wrote) or, if @output is NULL, writes
 * them into a pipe whose read end is *@stream; *@start_ns is when
 * sampling began.
 */
static pid_t session_begin(const struct sleepy_attr *attr, const char *output,
			   int *stream, unsigned int irq_interval_ms,
			   uint64_t *start_ns)
{
	struct drainer d = {
		.ncpus = sysconf(_SC_NPROCESSORS_CONF),
		.irq = attr->flags & (SLEEPY_FLAG_IRQ | SLEEPY_FLAG_SCHED),
		.kernel = attr->flags & SLEEPY_FLAG_KERNEL,
		.irq_interval_ns = irq_interval_ms * 1000000ULL,
	};
	struct sleepy_attr session_attr = *attr;
	struct sleepy_file_header header;
	int ready[2], starter[2], pipe_fds[2] = { -1, -1 }, status;
	char byte;
	pid_t pid;

	sleepy_file_header_init(&header, attr, d.ncpus, 0);
	if (!output && pipe2(pipe_fds, O_CLOEXEC)) {
		perror("sleepy: pipe");
		return -1;
	}
	d.session = sleepy_sys_start(&session_attr);
	if (d.session < 0) {
		fprintf(stderr, "sleepy-start: %s\n",
			sleepy_explain("sleepy_start", d.session));
		goto close_stream;
	}

	if (pipe(ready)) {
		perror("sleepy-start: pipe");
		goto stop;
	}
	if (pipe2(starter, O_CLOEXEC)) {
		perror("sleepy-start: pipe");
		close(ready[0]);
		close(ready[1]);
		goto stop;
	}
	pid = fork();
	if (pid < 0) {
		perror("sleepy-start: fork");
		close(ready[0]);
		close(ready[1]);
		close(starter[0]);
		close(starter[1]);
		goto stop;
	}
	if (!pid) {
		close(ready[0]);
		close(starter[1]);
		/* Only the reader may hold it: its end is the drainer's EPIPE. */
		if (!output)
			close(pipe_fds[0]);
		d.starter = starter[0];
		setsid();
		if (drainer_open(&d, output, pipe_fds[1], header.buffer_size))
			_exit(SLEEPY_EXIT_ERROR);
		_exit(drainer_run(&d, ready[1]));
	}
	close(ready[1]);
	close(starter[0]);
	if (!output) {
		close(pipe_fds[1]);
		pipe_fds[1] = -1;
	}
	if (read(ready[0], &byte, 1) != 1 ||
	    wait_for_sampling(d.session, pid, start_ns) ||
	    (output && set_start_time(output, *start_ns))) {
		close(ready[0]);
		close(starter[1]);
		close(d.session);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		goto close_stream;
	}
	close(ready[0]);
	/* The drainer holds the session now; ours would keep it alive. */
	close(d.session);
	starter_pipe = starter[1];
	if (stream)
		*stream = pipe_fds[0];
	return pid;
stop:
	close(d.session);	/* ends the session */
close_stream:
	if (!output) {
		close(pipe_fds[0]);
		if (pipe_fds[1] >= 0)
			close(pipe_fds[1]);
	}
	return -1;
}

pid_t sleepy_session_begin(const struct sleepy_attr *attr, const char *output,
			   unsigned int irq_interval_ms)
{
	struct sleepy_file_header header;
	uint64_t start_ns;
	pid_t pid;
	int fd;

	fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "sleepy-start: cannot create %s: %s\n", output,
			strerror(errno));
		return -1;
	}
	sleepy_file_header_init(&header, attr, sysconf(_SC_NPROCESSORS_CONF),
				monotonic_ns());
	if (sleepy_write_all(fd, &header, sizeof(header)) || close(fd)) {
		fprintf(stderr, "sleepy-start: %s: %s\n", output, strerror(errno));
		return -1;
	}
	pid = session_begin(attr, output, NULL, irq_interval_ms, &start_ns);
	if (pid < 0)
		unlink(output);
	return pid;
}

pid_t sleepy_session_begin_stream(const struct sleepy_attr *attr, int *stream,
				  uint64_t *start_ns)
{
	return session_begin(attr, NULL, stream, 0, start_ns);
}

int sleepy_session_cut(pid_t drainer)
{
	if (kill(drainer, SIGUSR2)) {
		perror("sleepy: signalling the drainer");
		return -1;
	}
	return 0;
}

void sleepy_session_detach(void)
{
	if (starter_pipe < 0)
		return;
	sleepy_write_all(starter_pipe, "d", 1);
	close(starter_pipe);
	starter_pipe = -1;
}

/*
 * What @pid is doing, to tell a drainer that works from one that is stuck:
 * its state letter (R running, D waiting on the disk) and how many times
 * it has been switched out, which moves whenever it ran at all since
 * (/proc/PID/status, present on every kernel, unlike /proc/PID/io).
 */
struct activity {
	char state;
	uint64_t switches;
};

static struct activity activity_of(pid_t pid)
{
	struct activity now = { '?', 0 };
	char path[64], line[512], *paren;
	unsigned long long value;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		paren = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		if (paren && paren[1] == ' ')
			now.state = paren[2];
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "voluntary_ctxt_switches: %llu", &value) == 1 ||
			    sscanf(line, "nonvoluntary_ctxt_switches: %llu", &value) == 1)
				now.switches += value;
		fclose(f);
	}
	return now;
}

/*
 * Waits until @pid exits, however long it takes while it works; gives up
 * once it has done nothing (not run, not waited on the disk) for
 * @stall_seconds.  0 when it exited.
 */
static int wait_for_exit(pid_t pid, const char *output,
			 unsigned int stall_seconds)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0);
	uint64_t start, active, now;
	struct activity last, current;
	struct pollfd pfd;
	bool noted = false;
	int status, ret;

	/*
	 * Before anything else touches errno (reading /proc of a drainer
	 * that is gone fails with ENOENT).  ESRCH: reaped already, as on one
	 * CPU, where the drainer woken by SIGUSR1 often finishes first.
	 * EINVAL: its pid is still known, but no process has it any more.
	 */
	if (pidfd < 0 && (errno == ESRCH || errno == EINVAL))
		return 0;
	if (pidfd < 0) {
		perror("sleepy-stop: watching the drainer");
		return -1;
	}
	start = active = monotonic_ns();
	last = activity_of(pid);
	pfd = (struct pollfd) { .fd = pidfd, .events = POLLIN };
	for (;;) {
		ret = poll(&pfd, 1, DRAINER_CHECK_MS);
		if (ret < 0 && errno != EINTR)
			perror("sleepy-stop: waiting for the drainer");
		if (ret != 0 && !(ret < 0 && errno == EINTR))
			break;
		now = monotonic_ns();
		current = activity_of(pid);
		if (current.state == 'R' || current.state == 'D' ||
		    current.switches != last.switches)
			active = now;
		last = current;
		if (now - active >= stall_seconds * 1000000000ULL) {
			fprintf(stderr, "sleepy-stop: the drainer (pid %d) did nothing for %u s (state %c); gave up waiting for it to finish %s\n",
				(int)pid, stall_seconds, current.state, output);
			break;
		}
		if (!noted && now - start >= DRAINER_NOTE_MS * 1000000ULL) {
			fprintf(stderr, "sleepy-stop: waiting for the drainer (pid %d) to finish writing %s\n",
				(int)pid, output);
			noted = true;
		}
	}
	close(pidfd);
	/* Reap it when it is our child (sleepy-record); harmless otherwise. */
	waitpid(pid, &status, WNOHANG);
	return ret == 1 ? 0 : -1;
}

/* Sums up @output; says why not unless @quiet. */
static int summarize(const char *output, bool quiet,
		     struct sleepy_summary *summary)
{
	const struct sleepy_record_header *record;
	struct sleepy_recording rec;
	int ret = 0;

	memset(summary, 0, sizeof(*summary));
	if (sleepy_recording_open(&rec, output)) {
		if (!quiet)
			fprintf(stderr, "sleepy-stop: %s: %s\n", output, rec.error);
		sleepy_recording_close(&rec);
		return -1;
	}
	summary->bytes = rec.size;
	summary->cpus = rec.header.ncpus;
	summary->buffer_bytes_per_cpu = rec.header.buffer_size;
	while ((record = sleepy_recording_next(&rec))) {
		struct sleepy_cpu_stats stats;

		if (record->type == SLEEPY_REC_CPU_STATS) {
			sleepy_cpu_stats_read(record, &stats);
			summary->samples += stats.samples;
			summary->dropped += stats.dropped;
			summary->missed += stats.missed;
		} else if (record->type == SLEEPY_REC_END) {
			struct sleepy_end end;

			sleepy_end_read(record, &end);
			summary->duration_ns = end.time_ns -
					       rec.header.start_time_ns;
			summary->table_bytes_per_app = end.app_table_bytes;
			summary->table_overflows = end.table_overflows;
		}
	}
	if (rec.error[0] || !rec.finished) {
		if (!quiet)
			fprintf(stderr, "sleepy-stop: %s: %s\n", output,
				rec.error[0] ? rec.error : "no trailer");
		ret = -1;
	}
	sleepy_recording_close(&rec);
	return ret;
}

/*
 * Whether @drainer still runs: a drainer is one of our tools (its name
 * starts "sleepy-"), so a pid the system gave to another process since
 * does not pass for it.
 */
static bool drainer_running(pid_t drainer)
{
	char path[64], name[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)drainer);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(name, sizeof(name), f))
		name[0] = '\0';
	fclose(f);
	return !strncmp(name, "sleepy-", strlen("sleepy-"));
}

int sleepy_session_end(pid_t drainer, const char *output,
		       unsigned int stall_seconds,
		       struct sleepy_summary *summary)
{
	int err;

	/*
	 * Killed (kill -9, the OOM killer): its descriptor closed, which
	 * ended the kernel's session, and the recording ends at the last
	 * sub-buffer it wrote, without a trailer.
	 */
	if (!drainer_running(drainer)) {
		err = sleepy_sys_stop(0);
		/* It finished after an earlier stop gave up waiting for it. */
		if (err == -ESRCH && !summarize(output, true, summary))
			return 0;
		fprintf(stderr, "sleepy-stop: the drainer (pid %d) died before the stop: %s ends where it stopped writing, without a trailer (sleepy-parse reports it up to there)%s\n",
			(int)drainer, output, err ? "" : "; stopped the kernel session");
		return SLEEPY_SESSION_GONE;
	}
	/*
	 * No session but a drainer: an earlier stop gave up waiting for it
	 * (the kernel's session ends with that stop); wait again.
	 */
	err = sleepy_sys_stop(0);
	if (err && err != -ESRCH) {
		fprintf(stderr, "sleepy-stop: %s\n", sleepy_explain("sleepy_stop", err));
		return -1;
	}
	if (kill(drainer, SIGUSR1) && errno != ESRCH) {
		perror("sleepy-stop: signalling the drainer");
		return -1;
	}
	if (wait_for_exit(drainer, output, stall_seconds))
		return -1;
	return summarize(output, false, summary);
}

void sleepy_summary_print(const struct sleepy_summary *summary,
			  const char *output)
{
	printf("sleepy: %" PRIu64 " samples, %" PRIu64 " dropped, %" PRIu64
	       " periods missed, %.2f s, %u CPUs, %" PRIu64
	       " bytes in %s (kernel memory: %" PRIu64 " buffer bytes per CPU, %" PRIu64
	       " table bytes per live appid)\n",
	       summary->samples, summary->dropped, summary->missed,
	       summary->duration_ns / 1e9, summary->cpus, summary->bytes, output,
	       summary->buffer_bytes_per_cpu, summary->table_bytes_per_app);
	if (summary->table_overflows)
		printf("sleepy: warning: %" PRIu64 " processes found the kernel's appid tables full; their samples are [unknown]\n",
		       summary->table_overflows);
}
