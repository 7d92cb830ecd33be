/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregation of a recording: samples per application instance and per
 * application instance and instruction pointer, plus the session's
 * counters, ready to be sorted and printed.
 */
#ifndef SLEEPY_PROFILE_H
#define SLEEPY_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/ksyms.h"
#include "record/recording.h"
#include "model/table.h"

struct sleepy_app {
	uint32_t appid;
	uint32_t parent_appid;
	uint32_t pid;
	uint32_t instance;
	uint64_t start_ns;
	uint64_t exit_ns;	/* 0 if still running at the stop */
	uint64_t samples;
	char name[SLEEPY_APP_NAME_LEN + 1];
	char label[SLEEPY_APP_NAME_LEN + 16];	/* "name#instance" */
	/*
	 * The application's IP counts, read with sleepy_app_ip_count().  A
	 * table per application: small tables, and the reports take the
	 * counts application by application (see sleepy_profile_ips()).
	 */
	struct sleepy_table ips;
};

/*
 * Samples of one application (and, if the profile counts by thread, one
 * thread of it) at one instruction pointer.  Fields of their own, no
 * bit-fields: a count filled in and read back at once (reading a table,
 * sleepy_app_ip_count()) stalled on a word loaded from bytes just stored.
 */
struct sleepy_ip_count {
	uint32_t appid;
	uint32_t tid;		/* 0 unless sleepy_profile.by_tid */
	uint64_t ip;
	uint64_t samples;
	bool in_kernel;		/* the sample hit kernel mode */
	/*
	 * With in_kernel, recorded without -k: ip is the user IP the task
	 * entered the kernel from, not a kernel one.
	 */
	bool entry_ip;
};

/*
 * An executable file mapping of an application (SLEEPY_REC_MMAP).  Those
 * an exec made (SLEEPY_MMAP_EXEC) get the appid of the instance the exec
 * announced when the mappings are first looked up.
 */
struct sleepy_mapping {
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;		/* file offset mapped at @start */
	uint64_t time_ns;
	uint64_t max_end;	/* highest end of its appid's mappings so far */
	const char *path;	/* one copy per distinct path, in the profile */
	uint32_t pid;
	uint32_t appid;
	uint32_t flags;		/* SLEEPY_MMAP_* */
	uint32_t build_id_size;
	uint8_t build_id[SLEEPY_BUILD_ID_MAX];
	uint32_t dev_major;	/* the file's identity; @ino 0 if unknown */
	uint32_t dev_minor;
	uint64_t ino;
};

/*
 * Samples of one application with one call stack (a recording made with
 * -g): @ips holds @nr_kernel kernel frames then @nr_user user frames,
 * innermost first, as the kernel wrote them.
 */
struct sleepy_stack {
	uint32_t appid;
	uint32_t tid;		/* 0 unless sleepy_profile.by_tid */
	uint16_t nr_kernel;
	uint16_t nr_user;
	uint32_t flags;		/* SLEEPY_CALLCHAIN_* */
	bool in_kernel;		/* the sample hit kernel mode */
	uint64_t samples;
	uint64_t *ips;
};

struct sleepy_sched;
struct sleepy_irqs;

struct sleepy_exited {
	uint32_t pid;
	uint32_t appid;
};

#define SLEEPY_RECENT_APPS	16	/* a power of two */
#define SLEEPY_IPS_GUESS_MAX	1024
/* Records: more than every CPU's buffer holds at the default size. */
#define SLEEPY_PACK_AFTER	(1 << 18)

struct sleepy_profile {
	struct sleepy_table apps;	/* appid -> struct sleepy_app */
	/*
	 * pid -> struct sleepy_exited, from its last exit record.  The exit
	 * hook runs early in do_exit(); what the process does after it
	 * (closing its files, exit_notify()) is sampled with no appid, and
	 * is charged to the instance that exited by the thread's id.
	 */
	struct sleepy_table exited;
	/*
	 * Hash of a program name -> the IP counts its last instance had at
	 * its exit: the room a new instance's table starts with (up to
	 * SLEEPY_IPS_GUESS_MAX), rather than growing to it by doubling.
	 * Short processes of the same programs, over and over, are what a
	 * busy machine's recording holds most of.
	 */
	struct sleepy_table ips_by_name;
	/* Set before reading: IP counts and stacks per thread too. */
	bool by_tid;
	/* Set before reading: interrupt totals per CPU, per interval. */
	bool irq_by_cpu;
	bool irq_by_interval;
	/* Switch and wakeup records (sched.h), NULL if the recording has none. */
	struct sleepy_sched *sched;
	/* Interrupt histograms (irq.h), NULL if the recording has none. */
	struct sleepy_irqs *irqs;
	/* In record order; by appid and start once looked up in. */
	struct sleepy_mapping *mappings;
	size_t nmappings, mappings_size;
	bool mappings_indexed;
	/*
	 * Where the mappings of the appids looked up last lie in @mappings,
	 * by appid's low bits, while they stay indexed: a report looks one
	 * application's IPs up after the other, in its few mappings (and
	 * its parent's) among those of thousands.
	 */
	struct sleepy_mapping_range {
		uint32_t appid;
		bool known;
		size_t first, end;
	} mapping_ranges[SLEEPY_RECENT_APPS];
	struct sleepy_table paths;	/* the mappings' paths: char * */
	struct sleepy_ksyms ksyms;	/* the kernel functions kept */
	void *vdso;			/* the recording's vDSO image, or NULL */
	size_t vdso_size;
	struct sleepy_table stacks;	/* struct sleepy_stack, with -g */
	unsigned int max_frames;	/* most frames of any stack */
	uint64_t stack_samples;		/* samples with stacks */
	uint64_t stacks_cut;		/* of them, deeper than --max-stack */
	uint64_t stacks_unwalkable;	/* ended at a frame without a pointer */
	/*
	 * The applications looked up last, by appid's low bits, valid while
	 * the table keeps @recent_capacity (growing moves the slots):
	 * samples come in runs of a few applications, those the CPUs run.
	 */
	struct sleepy_app *recent_apps[SLEEPY_RECENT_APPS];
	size_t recent_capacity;
	/*
	 * Applications that exited, in the order of their exit records, each
	 * with the number of records read by then: their IP counts are
	 * packed (sleepy_table_pack()) once SLEEPY_PACK_AFTER more records
	 * have been read.  Samples of an instance still come after its exit
	 * record: from the rest of its exit, and in other CPUs' buffers,
	 * which the drainer wrote later.
	 */
	struct sleepy_exited_app {
		uint32_t appid;
		uint64_t records;
	} *to_pack;
	size_t to_pack_first, to_pack_end, to_pack_size;
	uint64_t records;		/* read so far */
	uint64_t samples;
	uint64_t kernel_samples;	/* interrupt hit kernel mode */
	uint64_t lost_in_stream;	/* sum of SLEEPY_REC_LOST */
	uint64_t first_ns, last_ns;	/* of the samples */
	uint64_t end_ns;
	uint64_t table_overflows;
	uint32_t stats_cpus;		/* CPU_STATS records seen */
	/* Per CPU, by the CPU whose buffer a record came from (--sort cpu). */
	struct sleepy_cpu_count {
		uint64_t samples;	/* in the recording */
		uint64_t counted, dropped, idle, missed;	/* its CPU_STATS */
	} *cpus;
	uint32_t ncpus;			/* entries of @cpus */
	struct {			/* summed CPU_STATS */
		uint64_t samples, dropped, idle, unknown, missed;
	} totals;
};

void sleepy_profile_init(struct sleepy_profile *profile);
void sleepy_profile_free(struct sleepy_profile *profile);
/* Reads every record of @rec; returns 0, or -1 if reading stopped early. */
int sleepy_profile_read(struct sleepy_profile *profile,
			struct sleepy_recording *rec);
void sleepy_profile_add(struct sleepy_profile *profile,
			const struct sleepy_record_header *record);
/*
 * For a continuous profile (sleepy-agent), once the report of the interval
 * that began at @since_ns is written: forgets its samples, stacks,
 * counters, kernel symbols and the programs' table sizes (ips_by_name),
 * and the applications that ended before @since_ns, with their mappings,
 * unless one kept still looks its mappings up through them; keeps the
 * others, and an exec's mappings whose instance is not announced yet, for
 * the next interval's records.
 * Returns true if the paths were interned anew (those of the mappings
 * forgotten freed): the caller's struct sleepy_dsos, which knows files by
 * those paths, must then start over.
 */
bool sleepy_profile_next_interval(struct sleepy_profile *profile,
				  uint64_t since_ns);

/* The application of @appid; a placeholder for unannounced ones. */
struct sleepy_app *sleepy_profile_app(struct sleepy_profile *profile,
				      uint32_t appid);

/*
 * The mapping of @app that contains @ip: the latest of its own, else, for
 * a forked child, the latest its parent had at the fork (and so on up);
 * NULL if none.  Call once the whole recording is read.
 */
const struct sleepy_mapping *sleepy_profile_mapping(struct sleepy_profile *profile,
						    const struct sleepy_app *app,
						    uint64_t ip);

/*
 * Replaces control bytes, bytes past ASCII and ';' (the folded stacks'
 * separator) in @name, for the reports; the CSV writer quotes a comma or
 * a quote, JSON's escapes a quote or a backslash.
 */
void sleepy_sanitise_name(char *name);

/*
 * Sorted for reports, by samples descending, in arrays the caller frees:
 * pointers to the applications, copies of the IP counts.  *count is set
 * to the number of entries.
 */
struct sleepy_app **sleepy_profile_apps(struct sleepy_profile *profile,
					size_t *count);
struct sleepy_ip_count *sleepy_profile_ips(struct sleepy_profile *profile,
					   size_t *count);
/*
 * Entry @index of @app's table of IP counts (below @app->ips.capacity)
 * into @count; false if the entry is empty.
 */
bool sleepy_app_ip_count(const struct sleepy_app *app, size_t index,
			 struct sleepy_ip_count *count);

#endif
