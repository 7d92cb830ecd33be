/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sessions as the tools see them: the two system calls, the drainer that
 * holds the session's file descriptor and copies every CPU's relay buffer
 * into the recording, and the state file through which sleepy-stop finds
 * the drainer that sleepy-start left.
 */
#ifndef SLEEPY_SESSION_H
#define SLEEPY_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/sleepy.h>

#define SLEEPY_STATE_DIR	"/run/sleepy"

/* Exit codes shared by the tools (documented in their man pages). */
enum {
	SLEEPY_EXIT_OK = 0,
	SLEEPY_EXIT_ERROR = 1,	/* the operation failed */
	SLEEPY_EXIT_USAGE = 2,	/* bad command line */
};


/* The system calls: the session's file descriptor, 0, or -errno. */
int sleepy_sys_start(struct sleepy_attr *attr);
int sleepy_sys_stop(unsigned int flags);

/* One line saying what went wrong with a system call and what to do. */
const char *sleepy_explain(const char *call, int err);

struct sleepy_summary {
	uint64_t samples;
	uint64_t dropped;
	uint64_t missed;
	uint64_t duration_ns;
	uint64_t bytes;
	uint64_t buffer_bytes_per_cpu;
	uint64_t table_bytes_per_app;
	uint64_t table_overflows;
	uint32_t cpus;
};

/*
 * Writes the file header to @output, starts the session and a drainer
 * process appending to @output; with @irq_interval_ms, the drainer has
 * the interrupt histograms written every @irq_interval_ms.  Returns the
 * drainer's pid, or -1 after printing why (the session is not left
 * running).  The drainer stops the session and finishes @output if this
 * process ends before sleepy_session_detach() (killed while it waits for
 * the start, say): a session nobody can stop is never left behind.
 */
pid_t sleepy_session_begin(const struct sleepy_attr *attr, const char *output,
			   unsigned int irq_interval_ms);

/*
 * The same for a continuous profiler: the drainer writes the records, with
 * no file header, into a pipe whose read end (close-on-exec) is *@stream,
 * and cuts the stream at each sleepy_session_cut() with a SLEEPY_REC_CUT
 * record; the trailer follows the stop, then the end of the pipe.
 * *@start_ns is when sampling began.
 */
pid_t sleepy_session_begin_stream(const struct sleepy_attr *attr, int *stream,
				  uint64_t *start_ns);

/* Asks @drainer to cut its stream now; 0, or -1 after printing why. */
int sleepy_session_cut(pid_t drainer);

/*
 * Leaves the drainer running after this process ends, until sleepy-stop
 * (sleepy-start, once the drainer's pid is saved).
 */
void sleepy_session_detach(void);

/*
 * Stops the session, lets @drainer write what is left and the trailer,
 * and sums up @output.  The drainer is waited for as long as it works;
 * once it has done nothing for @stall_seconds, this gives up.  Returns 0,
 * or -1 after printing why, or SLEEPY_SESSION_GONE after saying that the
 * drainer had died (the session is over: nothing is left to stop).
 */
#define SLEEPY_SESSION_GONE	(-2)
#define SLEEPY_STALL_SECONDS	60	/* the default @stall_seconds */
int sleepy_session_end(pid_t drainer, const char *output,
		       unsigned int stall_seconds,
		       struct sleepy_summary *summary);

/* Prints the one-line summary of sleepy-stop and sleepy-record. */
void sleepy_summary_print(const struct sleepy_summary *summary,
			  const char *output);

/* State file of the drainer that sleepy-start left behind. */
const char *sleepy_state_path(void);
int sleepy_state_save(pid_t drainer, const char *output);
int sleepy_state_load(pid_t *drainer, char *output, size_t size);
void sleepy_state_remove(void);

/* Strict number parsing for options; false if @s is not one. */
bool sleepy_parse_u64(const char *s, uint64_t *value);
/* Sizes with an optional K, M or G suffix. */
bool sleepy_parse_size(const char *s, uint64_t *value);

#endif
