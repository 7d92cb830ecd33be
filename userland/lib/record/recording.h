/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recordings: what sleepy-start's drainer writes and sleepy-parse reads.
 *
 * A recording is a struct sleepy_file_header followed by the kernel's
 * records exactly as they came out of the per-CPU relay buffers (the
 * records are defined once, in <linux/sleepy.h>), then a trailer the
 * drainer adds when the session stops: one SLEEPY_REC_CPU_STATS per CPU
 * and a SLEEPY_REC_END.  The file header and the trailer records are the
 * tools' own, defined here with a format version of their own.
 */
#ifndef SLEEPY_RECORDING_H
#define SLEEPY_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/sleepy.h>

#define SLEEPY_FILE_MAGIC	"SLEEPYRC"
/* Version of this file format: header, kernel records, trailer. */
#define SLEEPY_FILE_VERSION	1
#define SLEEPY_BYTE_ORDER_LITTLE 1
#define SLEEPY_BYTE_ORDER_BIG	2

struct sleepy_file_header {
	char magic[8];
	uint16_t version;	/* SLEEPY_FILE_VERSION */
	uint16_t header_size;	/* sizeof(struct sleepy_file_header) */
	uint16_t machine;	/* ELF e_machine of the recorded kernel */
	uint8_t byte_order;	/* SLEEPY_BYTE_ORDER_* */
	uint8_t pointer_size;
	uint32_t ncpus;
	uint32_t frequency;	/* Hz, 0 = scheduler tick */
	uint64_t flags;		/* sleepy_attr.flags */
	uint64_t start_time_ns;	/* CLOCK_MONOTONIC */
	uint64_t buffer_size;	/* bytes per CPU */
	uint32_t pid;		/* pid filter, 0 = all */
	uint32_t reserved;
};

/* Trailer record types, in the range the kernel leaves to the tools. */
enum sleepy_file_record_type {
	SLEEPY_REC_CPU_STATS	= SLEEPY_REC_FIRST_USER,  /* sleepy_cpu_stats */
	SLEEPY_REC_END		= SLEEPY_REC_FIRST_USER + 1, /* sleepy_end */
	SLEEPY_REC_INTERRUPTS	= SLEEPY_REC_FIRST_USER + 2, /* sleepy_text */
	SLEEPY_REC_KERNEL_SYMBOLS = SLEEPY_REC_FIRST_USER + 3, /* sleepy_text */
	SLEEPY_REC_CUT		= SLEEPY_REC_FIRST_USER + 4, /* sleepy_cut */
	SLEEPY_REC_VDSO		= SLEEPY_REC_FIRST_USER + 5, /* sleepy_text */
};

/*
 * Where a continuous session's stream was cut into intervals (sleepy-agent):
 * the drainer had the kernel hand every buffer over (SLEEPY_IOC_FLUSH) at
 * @time_ns and drained it, so every record written before @time_ns is
 * before this one, and the kernel symbols of the interval's kernel IPs
 * right before it.  Records after it were written after @time_ns, or
 * within the few microseconds the hand-over takes.
 */
struct sleepy_cut {
	struct sleepy_record_header header;
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
};

/*
 * Text the tools keep with a recording: SLEEPY_REC_INTERRUPTS holds
 * /proc/interrupts at the stop of a SLEEPY_FLAG_IRQ session (the names of
 * the IRQs), cut at a line to fit; SLEEPY_REC_KERNEL_SYMBOLS (any number)
 * hold the kernel functions the records' kernel IPs fall in, one
 * "start end name" line each (hex addresses, end exclusive; see ksyms.h).
 * NUL padded to a multiple of 8 bytes.  SLEEPY_REC_VDSO holds no text but
 * the image of the vDSO of the machine that recorded (the drainer's own:
 * one kernel, one 64-bit vDSO), so that samples in "[vdso]" mappings are
 * named wherever the recording is read.
 */
struct sleepy_text {
	struct sleepy_record_header header;
	char text[];
};

#define SLEEPY_TEXT_MAX		(SLEEPY_RECORD_MAX_SIZE - sizeof(struct sleepy_record_header))

/*
 * Interrupt records of recordings made with earlier kernels, which wrote
 * them without their @time_ns: read as one interval.
 */
#define SLEEPY_IRQ_HIST_SIZE_NO_TIME	168
#define SLEEPY_IRQ_APP_SIZE_NO_TIME	40

/*
 * What one CPU counted over the session: the kernel's struct
 * sleepy_cpu_counters (SLEEPY_IOC_CPU_COUNTERS) as a record.
 * @missed is absent from records of SLEEPY_CPU_STATS_SIZE_VER0 bytes.
 */
struct sleepy_cpu_stats {
	struct sleepy_record_header header;
	uint64_t samples;
	uint64_t dropped;
	uint64_t idle;
	uint64_t unknown;
	uint64_t missed;
};

#define SLEEPY_CPU_STATS_SIZE_VER0	40	/* without @missed */

/*
 * Last record of a finished recording.  @app_table_bytes is absent from
 * records of SLEEPY_END_SIZE_VER0 bytes.
 */
struct sleepy_end {
	struct sleepy_record_header header;
	uint64_t time_ns;		/* CLOCK_MONOTONIC at the stop */
	uint64_t table_overflows;	/* tasks the appid tables had no room for */
	uint64_t app_table_bytes;	/* kernel memory per live appid */
};

#define SLEEPY_END_SIZE_VER0		24	/* without @app_table_bytes */

/* Fills @header for a recording made on this machine. */
void sleepy_file_header_init(struct sleepy_file_header *header,
			     const struct sleepy_attr *attr, uint32_t ncpus,
			     uint64_t start_time_ns);

/* CPU time (user and system) this process has used, in seconds. */
double sleepy_cpu_seconds(void);

/* Writes all of @len bytes to @fd; -1 on an error. */
int sleepy_write_all(int fd, const void *buf, size_t len);
/* Writes @len bytes of @text (less than SLEEPY_TEXT_MAX) as a @type record. */
int sleepy_text_write(int fd, uint32_t type, const char *text, size_t len);
/*
 * Writes this process's vDSO image as a SLEEPY_REC_VDSO record; nothing if
 * it has none or it does not fit a record.  -1 only if writing failed.
 */
int sleepy_vdso_write(int fd);

/* A recording in memory: a file mapped read-only, or the caller's buffer. */
struct sleepy_recording {
	const char *path;
	unsigned char *data;
	size_t size;
	struct sleepy_file_header header;
	size_t offset;		/* next record */
	size_t bad_offset;	/* where reading stopped on corruption */
	char error[256];	/* set when reading stopped early */
	bool finished;		/* saw SLEEPY_REC_END */
	bool mapped;		/* data is a mapping of the file */
	size_t released;	/* mapped pages before this are out of memory */
};

/*
 * Maps and checks @path.  Returns 0, or -1 with rec->error set (file
 * unreadable, not a recording, wrong version, byte order or machine).
 */
int sleepy_recording_open(struct sleepy_recording *rec, const char *path);
/* The same on a buffer the caller owns (fuzzing, tests). */
int sleepy_recording_open_mem(struct sleepy_recording *rec,
			      const void *data, size_t size);
void sleepy_recording_close(struct sleepy_recording *rec);

/*
 * Next record, or NULL at the end.  At a corrupt or truncated record it
 * returns NULL with rec->error set and rec->bad_offset at the record.
 */
const struct sleepy_record_header *
sleepy_recording_next(struct sleepy_recording *rec);

/*
 * The stacks of @sample, NULL if it has none.  The reader has checked that
 * they lie within the record.
 */
static inline const struct sleepy_callchain *
sleepy_sample_callchain(const struct sleepy_sample *sample)
{
	if (!(sample->flags & SLEEPY_SAMPLE_CALLCHAIN))
		return NULL;
	return (const struct sleepy_callchain *)(sample + 1);
}

/*
 * A SLEEPY_REC_CPU_STATS record as the current struct: fields an older,
 * shorter record lacks read as 0.
 */
void sleepy_cpu_stats_read(const struct sleepy_record_header *record,
			   struct sleepy_cpu_stats *stats);
/* The same for a SLEEPY_REC_END record. */
void sleepy_end_read(const struct sleepy_record_header *record,
		     struct sleepy_end *end);

#endif
