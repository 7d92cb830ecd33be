// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the fuzzer's seed corpus and dictionary: small recordings built
 * from the record definitions in <linux/sleepy.h>, so that they follow
 * the format when it changes, and optionally the head and trailer of a
 * real recording from the guest.  Deterministic: the same inputs give the
 * same files.
 *
 * Usage: make-corpus CORPUS_DIR DICTIONARY [GUEST_RECORDING]
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "record/recording.h"

/* Records of the guest recording kept in its seed: a few KB. */
#define GUEST_HEAD_BYTES 4096

/* A recording under construction. */
struct builder {
	unsigned char *data;
	size_t size;
};

static const char *corpus_dir;

static void put(struct builder *b, const void *p, size_t len)
{
	b->data = realloc(b->data, b->size + len);
	if (!b->data) {
		perror("make-corpus");
		exit(1);
	}
	memcpy(b->data + b->size, p, len);
	b->size += len;
}

static void put_header(struct builder *b, uint32_t ncpus)
{
	struct sleepy_attr attr = {
		.frequency = 1000,
		.flags = SLEEPY_FLAG_KERNEL,
	};
	struct sleepy_file_header h;

	sleepy_file_header_init(&h, &attr, ncpus, 1000000);
	put(b, &h, sizeof(h));
}

static void put_instance(struct builder *b, uint32_t appid, uint32_t parent,
			 uint32_t pid, uint64_t time, const char *name,
			 uint32_t instance)
{
	struct sleepy_app_start a = {
		.header = { SLEEPY_REC_APP_START, sizeof(a), 0 },
		.appid = appid,
		.parent_appid = parent,
		.pid = pid,
		.instance = instance,
		.time_ns = time,
	};

	memcpy(a.name, name, strnlen(name, sizeof(a.name)));
	put(b, &a, sizeof(a));
}

static void put_app(struct builder *b, uint32_t appid, uint32_t parent,
		    const char *name, uint32_t instance)
{
	put_instance(b, appid, parent, 100 + appid, 1000000 + appid, name,
		     instance);
}

static void put_exit(struct builder *b, uint32_t appid, uint32_t cpu)
{
	struct sleepy_app_exit e = {
		.header = { SLEEPY_REC_APP_EXIT, sizeof(e), cpu },
		.appid = appid,
		.pid = 100 + appid,
		.time_ns = 3000000 + b->size,
	};

	put(b, &e, sizeof(e));
}

static void put_sample(struct builder *b, uint32_t appid, uint32_t cpu,
		       uint64_t user_ip, uint64_t kernel_ip, uint32_t flags)
{
	struct sleepy_sample s = {
		.header = { SLEEPY_REC_SAMPLE, sizeof(s), cpu },
		.time_ns = 2000000 + b->size,
		.user_ip = user_ip,
		.kernel_ip = kernel_ip,
		.tid = 100 + appid,
		.appid = appid,
		.flags = flags,
	};

	put(b, &s, sizeof(s));
}

static void put_lost(struct builder *b, uint32_t cpu, uint64_t count)
{
	struct sleepy_lost l = {
		.header = { SLEEPY_REC_LOST, sizeof(l), cpu },
		.count = count,
	};

	put(b, &l, sizeof(l));
}

static void put_trailer(struct builder *b, uint32_t ncpus)
{
	struct sleepy_end end = {
		.header = { SLEEPY_REC_END, sizeof(end), 0 },
		.time_ns = 9000000,
		.table_overflows = 1,
	};
	uint32_t cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		struct sleepy_cpu_stats st = {
			.header = { SLEEPY_REC_CPU_STATS, sizeof(st), cpu },
			.samples = 10 + cpu,
			.dropped = cpu,
			.idle = 5,
			.unknown = 1,
		};

		put(b, &st, sizeof(st));
	}
	put(b, &end, sizeof(end));
}

static void write_seed(const char *name, const void *data, size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", corpus_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* Samples of "loop" hit the fuzz target's symbol table for "loop". */
static void put_workload(struct builder *b)
{
	int i;

	put_app(b, 1, 0, "loop", 1);
	put_app(b, 2, 1, "call", 1);
	put_app(b, 3, 1, "loop", 2);
	for (i = 0; i < 8; i++)
		put_sample(b, 1, i % 2, 0x401000 + i * 4, 0, 0);
	put_sample(b, 1, 0, 0x401040, 0, 0);		/* "empty" */
	put_sample(b, 1, 1, 0x401180, 0, 0);		/* "loop" */
	put_sample(b, 1, 0, 0x500000, 0, 0);		/* no symbol */
	put_sample(b, 1, 1, 0x401010, 0xffffffff81000000ULL,
		   SLEEPY_SAMPLE_IN_KERNEL);
	put_sample(b, 1, 0, 0x401010, 0, SLEEPY_SAMPLE_IN_KERNEL);
	put_sample(b, 2, 1, 0x401200, 0, 0);
	put_sample(b, 3, 0, 0x401000, 0, 0);
	put_sample(b, 0, 1, 0, 0xffffffff81000040ULL,
		   SLEEPY_SAMPLE_IN_KERNEL | SLEEPY_SAMPLE_KERNEL_THREAD);
	put_sample(b, 9, 0, 0x402000, 0, 0);		/* unannounced */
	put_lost(b, 1, 3);
	put_exit(b, 3, 0);
	put_exit(b, 1, 1);
}

static void write_good_and_damaged(void)
{
	struct builder b = {};
	size_t body, cut;

	put_header(&b, 2);
	body = b.size;
	put_workload(&b);
	cut = b.size;
	put_trailer(&b, 2);
	write_seed("good.rec", b.data, b.size);
	write_seed("no-trailer.rec", b.data, cut);
	/* Cut inside the third record, and inside the fourth's header. */
	write_seed("truncated-record.rec", b.data,
		   body + 2 * sizeof(struct sleepy_app_start) +
		   sizeof(struct sleepy_app_start) / 2);
	write_seed("truncated-record-header.rec", b.data,
		   body + 3 * sizeof(struct sleepy_app_start) + 4);
	write_seed("truncated-file-header.rec", b.data, body / 2);
	write_seed("magic-only.rec", SLEEPY_FILE_MAGIC, 8);
	write_seed("empty.rec", "", 0);
	free(b.data);
}

/* Headers this reader refuses, each for one reason. */
static void write_bad_headers(void)
{
	struct sleepy_file_header h;
	struct sleepy_attr attr = {};
	struct builder b = {};

	sleepy_file_header_init(&h, &attr, 1, 0);
	h.version = SLEEPY_FILE_VERSION + 1;
	write_seed("newer-version.rec", &h, sizeof(h));
	sleepy_file_header_init(&h, &attr, 1, 0);
	h.machine = 183;	/* EM_AARCH64 */
	write_seed("other-machine.rec", &h, sizeof(h));
	sleepy_file_header_init(&h, &attr, 1, 0);
	h.byte_order = SLEEPY_BYTE_ORDER_BIG;
	write_seed("other-byte-order.rec", &h, sizeof(h));

	/* A longer header from a newer writer is skipped by its size. */
	sleepy_file_header_init(&h, &attr, 1, 0);
	h.header_size = sizeof(h) + 8;
	put(&b, &h, sizeof(h));
	put(&b, "\0\0\0\0\0\0\0\0", 8);
	put_sample(&b, 1, 0, 0x401000, 0, 0);
	put_trailer(&b, 1);
	write_seed("longer-header.rec", b.data, b.size);
	free(b.data);
}

/* Record-level damage: each stops the reader at one record. */
static void write_bad_records(void)
{
	struct sleepy_record_header odd = { SLEEPY_REC_SAMPLE, 12, 0 };
	struct sleepy_record_header short_sample = { SLEEPY_REC_SAMPLE, 16, 0 };
	struct sleepy_record_header huge = { SLEEPY_REC_LOST, 0xfff8, 0 };
	struct builder b = {};
	size_t body;

	put_header(&b, 2);
	put_app(&b, 1, 0, "loop", 1);
	put_sample(&b, 1, 0, 0x401000, 0, 0);
	body = b.size;

	put(&b, &odd, sizeof(odd));
	put(&b, "\0\0\0\0", 4);
	write_seed("size-not-multiple-of-8.rec", b.data, b.size);
	b.size = body;
	put(&b, &short_sample, sizeof(short_sample));
	put(&b, "\0\0\0\0\0\0\0\0", 8);
	write_seed("sample-too-short.rec", b.data, b.size);
	b.size = body;
	put(&b, &huge, sizeof(huge));
	put_trailer(&b, 2);
	write_seed("size-past-end.rec", b.data, b.size);
	b.size = body;
	put_sample(&b, 1, 7, 0x401000, 0, 0);
	put_trailer(&b, 2);
	write_seed("cpu-out-of-range.rec", b.data, b.size);
	free(b.data);
}

/* Records of types this reader does not know are skipped by size. */
static void write_unknown_types(void)
{
	struct sleepy_record_header future = { 999, 24, 0 };
	struct sleepy_record_header zero_type = { 0, 8, 1 };
	struct sleepy_sample longer = {
		.header = { SLEEPY_REC_SAMPLE, sizeof(longer) + 8, 1 },
		.user_ip = 0x401100,
		.appid = 1,
	};
	struct builder b = {};

	put_header(&b, 2);
	put_app(&b, 1, 0, "loop", 1);
	put(&b, &future, sizeof(future));
	put(&b, "0123456789abcdef", 16);
	put(&b, &zero_type, sizeof(zero_type));
	/* A sample with a field added at its end by a newer kernel. */
	put(&b, &longer, sizeof(longer));
	put(&b, "newfield", 8);
	put_trailer(&b, 2);
	write_seed("unknown-types.rec", b.data, b.size);
	free(b.data);
}

static void put_switch(struct builder *b, uint32_t cpu, uint64_t time,
		       uint32_t prev, uint32_t prev_appid, uint32_t reason,
		       uint32_t next, uint32_t next_appid)
{
	struct sleepy_switch s = {
		.header = { SLEEPY_REC_SWITCH, sizeof(s), cpu },
		.time_ns = time, .user_ip = 0x401000 + time, .prev_tid = prev,
		.prev_appid = prev_appid, .next_tid = next,
		.next_appid = next_appid, .reason = reason,
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

/*
 * A --sched recording: two loops waking each other, one exec'ing into a
 * new appid, a new task, an exit, a reason from a newer kernel, times out
 * of order across CPUs and a wakeup chain with a cycle.
 */
static void write_sched(void)
{
	struct builder b = {};

	put_header(&b, 2);
	put_app(&b, 1, 0, "loop", 1);
	put_app(&b, 2, 1, "loop", 2);
	put_app(&b, 3, 2, "exec", 1);
	put_switch(&b, 1, 5000, 0, 0, SLEEPY_SWITCH_PREEMPTED, 11, 2);
	put_wakeup(&b, 1, 5100, 11, 2, 10, 1, 0);
	put_switch(&b, 1, 5200, 11, 2, SLEEPY_SWITCH_SLEEP, 0, 0);
	put_switch(&b, 0, 1000, 10, 1, SLEEPY_SWITCH_SLEEP, 0, 0);
	put_wakeup(&b, 0, 1500, 10, 1, 11, 2, 0);
	put_wakeup(&b, 0, 1600, 0, 0, 12, 2, SLEEPY_WAKEUP_NEW_TASK);
	put_switch(&b, 0, 2000, 0, 0, SLEEPY_SWITCH_PREEMPTED, 11, 3);
	put_switch(&b, 0, 3000, 11, 3, 77, 12, 2);
	put_wakeup(&b, 0, 3500, 0, 0, 10, 1, SLEEPY_WAKEUP_HARDIRQ);
	put_switch(&b, 0, 4000, 12, 0, SLEEPY_SWITCH_EXITING, 10, 1);
	put_wakeup(&b, 0, 4500, 10, 1, 12, 2, SLEEPY_WAKEUP_SOFTIRQ);
	put_trailer(&b, 2);
	write_seed("sched.rec", b.data, b.size);
	free(b.data);
}

/* A histogram written at @time_ns; 0: one of an earlier kernel, without the time. */
static void put_irq_hist(struct builder *b, uint32_t cpu, uint32_t kind,
			 uint32_t number, uint64_t count, uint64_t time_ns)
{
	struct sleepy_irq_hist h = {
		.header = { SLEEPY_REC_IRQ_HIST, sizeof(h), cpu },
		.kind = kind, .number = number, .cpu = cpu, .count = count,
		.total_ns = count * 3000, .time_ns = time_ns,
	};

	h.log2_ns[11] = count;
	if (!time_ns)
		h.header.size = SLEEPY_IRQ_HIST_SIZE_NO_TIME;
	put(b, &h, h.header.size);
}

/* One action's histogram, of a shared line. */
static void put_irq_action(struct builder *b, uint32_t number, uint32_t action,
			   uint64_t count)
{
	struct sleepy_irq_hist h = {
		.header = { SLEEPY_REC_IRQ_HIST, sizeof(h), 0 },
		.kind = SLEEPY_IRQ_ACTION, .number = number, .action = action,
		.count = count, .total_ns = count * 1000, .time_ns = 2000000000,
	};

	h.log2_ns[9] = count;
	put(b, &h, sizeof(h));
}

/*
 * A --irq recording: histograms of every kind (and one from a newer
 * kernel), a shared line's actions (one past its list of names), the catch-all, flushed ones of two intervals and one without
 * a time, charges to an application and to none, and the
 * /proc/interrupts copy, its last line without a newline.
 */
static void write_irq(void)
{
	static const char interrupts[] =
		"           CPU0       CPU1\n"
		"  0:         32          0   IO-APIC   2-edge      timer\n"
		" 11:       1040          0   IO-APIC  11-fasteoi   virtio0, virtio1\n"
		"LOC:       1207       1121   Local timer interrupts\n"
		"ERR:          0\n"
		"99:";
	struct sleepy_irq_app a = {
		.header = { SLEEPY_REC_IRQ_APP, sizeof(a), 0 },
		.kind = SLEEPY_IRQ_SYSVEC, .number = 0xec, .appid = 1,
		.count = 5, .total_ns = 15000,
	};
	struct {
		struct sleepy_record_header header;
		char text[(sizeof(interrupts) + 7) & ~7UL];
	} text = { .header = { SLEEPY_REC_FIRST_USER + 2, sizeof(text), 0 } };
	struct builder b = {};

	memcpy(text.text, interrupts, sizeof(interrupts));
	put_header(&b, 2);
	put_app(&b, 1, 0, "loop", 1);
	put_irq_hist(&b, 0, SLEEPY_IRQ_HARDIRQ, 11, 1040, 2000000000);
	put_irq_hist(&b, 1, SLEEPY_IRQ_HARDIRQ, 11, 3, 2000000000);
	put_irq_action(&b, 11, 0, 1040);
	put_irq_action(&b, 11, 1, 1040);
	put_irq_action(&b, 11, 7, 1);
	put_irq_hist(&b, 0, SLEEPY_IRQ_SYSVEC, 0xec, 328, 1000000000);
	put_irq_hist(&b, 0, SLEEPY_IRQ_SYSVEC, 0xec, 300, 2000000000);
	put_irq_hist(&b, 1, SLEEPY_IRQ_SYSVEC, 0xec, 30, 0);
	put_irq_hist(&b, 0, SLEEPY_IRQ_SOFTIRQ, 1, 36, 2000000000);
	put_irq_hist(&b, 0, SLEEPY_IRQ_SOFTIRQ_DELAY, 1, 36, 2000000000);
	put_irq_hist(&b, 0, SLEEPY_IRQ_SOFTIRQ, 99, 1, 2000000000);
	put_irq_hist(&b, 1, 7, 5, 1, 2000000000);
	put_irq_hist(&b, 1, SLEEPY_IRQ_HARDIRQ, SLEEPY_IRQ_OTHER, 2, 2000000000);
	put(&b, &a, sizeof(a));
	a.appid = 0;
	a.kind = 9;
	put(&b, &a, sizeof(a));
	put(&b, &text, sizeof(text));
	put_trailer(&b, 2);
	write_seed("irq.rec", b.data, b.size);
	free(b.data);
}

/*
 * Kernel-mode samples named by the kernel symbols a -k recording keeps:
 * good lines, a module's, and damaged ones (no end, end before start,
 * no name, an overlong line), the text cut without a newline.
 */
static void write_kernel_symbols(void)
{
	static const char symbols[] =
		"ffffffff81000000 ffffffff81000100 _stext\n"
		"ffffffff81000110 ffffffff81000200 do_thing\n"
		"ffffffffc0000000 ffffffffc0000100 mod_func [mymod]\n"
		"ffffffff81000300\n"
		"ffffffff81000400 ffffffff81000300 backwards\n"
		"ffffffff81000500 ffffffff81000600\n"
		"ffffffff81000700 ffffffff81000800 a_name_longer_than_the_line_buffer"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
		"ffffffff81000900 ffffffff81000a00 cut";
	static const uint64_t ips[] = {
		0xffffffff81000120, 0xffffffff81000010, 0xffffffffc0000010,
		0xffffffff81000410, 0xffffffff81000750, 0xffffffff81000950, 0,
	};
	struct {
		struct sleepy_record_header header;
		char text[(sizeof(symbols) - 1 + 7) & ~7UL];
	} text = { .header = { SLEEPY_REC_KERNEL_SYMBOLS, sizeof(text), 0 } };
	struct builder b = {};
	size_t i;

	memcpy(text.text, symbols, sizeof(symbols) - 1);
	put_header(&b, 1);
	put_app(&b, 1, 0, "loop", 1);
	for (i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
		put_sample(&b, 1, 0, 0x401000, ips[i], SLEEPY_SAMPLE_IN_KERNEL);
	put(&b, &text, sizeof(text));
	put_trailer(&b, 1);
	write_seed("kernel-symbols.rec", b.data, b.size);
	free(b.data);
}

/*
 * Samples with call stacks (-g): kernel and user frames, a stack cut at
 * max_stack, one that ended at a frame without a frame pointer, a
 * recursive one; and, damaged, one whose frames run past its record.
 */
static void put_stack_sample(struct builder *b, uint32_t appid,
			     uint32_t chain_flags, const uint64_t *ips,
			     uint16_t nk, uint16_t nu)
{
	struct sleepy_sample s = {
		.header = { SLEEPY_REC_SAMPLE,
			    sizeof(s) + sizeof(struct sleepy_callchain) + 8 * (nk + nu), 0 },
		.time_ns = 2000000 + b->size,
		.user_ip = ips[nk],
		.kernel_ip = nk ? ips[0] : 0,
		.tid = 100 + appid,
		.appid = appid,
		.flags = SLEEPY_SAMPLE_CALLCHAIN | (nk ? SLEEPY_SAMPLE_IN_KERNEL : 0),
	};
	struct sleepy_callchain chain = {
		.nr_kernel = nk, .nr_user = nu, .flags = chain_flags,
	};

	put(b, &s, sizeof(s));
	put(b, &chain, sizeof(chain));
	put(b, ips, 8 * (nk + nu));
}

static void write_stacks(void)
{
	static const uint64_t deep[] = { 0x401010, 0x401110, 0x401210, 0x401310 };
	static const uint64_t syscall[] = {
		0xffffffff81000120, 0xffffffff81000010, 0x401010, 0x401310,
	};
	static const uint64_t recursive[] = { 0x401010, 0x401020, 0x401030 };
	struct builder b = {};
	int i;

	put_header(&b, 1);
	put_app(&b, 1, 0, "loop", 1);
	for (i = 0; i < 3; i++)
		put_stack_sample(&b, 1, 0, deep, 0, 4);
	put_stack_sample(&b, 1, 0, syscall, 2, 2);
	put_stack_sample(&b, 1, SLEEPY_CALLCHAIN_USER_CUT |
			 SLEEPY_CALLCHAIN_KERNEL_CUT, syscall, 2, 2);
	put_stack_sample(&b, 1, SLEEPY_CALLCHAIN_USER_FAULT, recursive, 0, 3);
	put_stack_sample(&b, 1, 0, deep, 0, 1);
	put_trailer(&b, 1);
	write_seed("stacks.rec", b.data, b.size);
	/* The last sample claims a frame more than its record holds. */
	((struct sleepy_callchain *)(b.data + b.size - sizeof(struct sleepy_end) -
				     sizeof(struct sleepy_cpu_stats) - 8 -
				     sizeof(struct sleepy_callchain)))->nr_user = 2;
	write_seed("stack-past-record.rec", b.data, b.size);
	free(b.data);
}

static void put_mmap(struct builder *b, uint32_t cpu, uint64_t time,
		     uint64_t start, uint64_t len, uint32_t pid, uint32_t appid,
		     uint32_t flags, const char *path)
{
	uint64_t buf[(sizeof(struct sleepy_mmap) + SLEEPY_MMAP_PATH_MAX) / 8] = {};
	struct sleepy_mmap *m = (void *)buf;
	size_t size = (sizeof(*m) + strlen(path) + 1 + 7) & ~7UL;

	*m = (struct sleepy_mmap) {
		.header = { SLEEPY_REC_MMAP, size, cpu },
		.time_ns = time, .start = start, .len = len, .pgoff = 0x1000,
		.pid = pid, .appid = appid, .flags = flags,
		.build_id_size = SLEEPY_BUILD_ID_MAX,
		/* Paths of odd length share one file's identity. */
		.dev_major = 8, .dev_minor = 1, .ino = strlen(path) % 2 ? 4242 : 0,
	};
	memset(m->build_id, 0xb1, sizeof(m->build_id));
	snprintf(m->path, SLEEPY_MMAP_PATH_MAX, "%s", path);
	put(b, m, size);
}

/*
 * Mappings: pid 101 forks 102, which execs (its image's mappings before
 * its announcement, from another CPU), mappings over mappings, paths
 * deleted, cut, relative and long, an unannounced appid, a mapping to the
 * end of the address space; then a path without its NUL.
 */
static void write_mmap(void)
{
	char long_path[SLEEPY_MMAP_PATH_MAX];
	struct builder b = {};
	size_t body;

	memset(long_path, 'x', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	put_header(&b, 2);
	put_mmap(&b, 1, 1500000, 0x401000, 0x1000, 102, 0, SLEEPY_MMAP_EXEC,
		 "/sleepy/bench/call");
	put_instance(&b, 1, 0, 101, 1000000, "loop", 1);
	put_mmap(&b, 0, 1000000, 0x401000, 0x1000, 101, 1, 0,
		 "/sleepy/bench/loop");
	put_mmap(&b, 0, 1100000, 0x7f0000000000, 0x100000, 101, 1, 0,
		 "/lib/x86_64-linux-gnu/libc.so.6");
	put_instance(&b, 2, 1, 102, 1200000, "sh", 1);
	put_mmap(&b, 0, 1300000, 0x7f0000000000, 0x2000, 101, 1, 0,
		 "/usr/lib/libfoo.so (deleted)");
	put_instance(&b, 3, 2, 102, 1600000, "call", 1);
	put_mmap(&b, 1, 1700000, 0x7f0000100000, 0x1000, 102, 3,
		 SLEEPY_MMAP_PATH_TRUNCATED, long_path);
	put_mmap(&b, 1, 1700000, 0x7f0000200000, 0x1000, 102, 3, 0,
		 "[unreachable]");
	put_mmap(&b, 1, 1700000, 0xfffffffffffff000ULL, UINT64_MAX, 102, 3, 0,
		 "/lib/ld.so");
	put_mmap(&b, 0, 1700000, 0x401000, 0x1000, 109, 9, 0, "/bin/true");
	put_sample(&b, 1, 0, 0x401010, 0, 0);
	put_sample(&b, 1, 1, 0x7f0000000100, 0, 0);
	put_sample(&b, 1, 0, 0x7f0000080000, 0, 0);
	put_sample(&b, 2, 0, 0x401010, 0, 0);
	put_sample(&b, 2, 1, 0x7f0000080000, 0, 0);
	put_sample(&b, 3, 0, 0x401020, 0, 0);
	put_sample(&b, 3, 1, 0x7f0000100010, 0, 0);
	put_sample(&b, 3, 1, 0x7f0000200010, 0, 0);
	put_sample(&b, 3, 0, 0xfffffffffffff010ULL, 0, 0);
	put_sample(&b, 9, 0, 0x401010, 0, 0);
	body = b.size;
	put_trailer(&b, 2);
	write_seed("mmap.rec", b.data, b.size);

	b.size = body;
	put_mmap(&b, 0, 1800000, 0x401000, 0x1000, 101, 1, 0, "/bin/abcdefghij");
	b.data[b.size - 1] = 'h';	/* the NUL that ended the path */
	put_trailer(&b, 2);
	write_seed("mmap-path-unterminated.rec", b.data, b.size);
	free(b.data);
}

/*
 * The vDSO: a "[vdso]" mapping whose samples are named from the image the
 * recording holds (this program's own vDSO), then the same with the image
 * cut short; and sleepy-agent's cut records between samples.
 */
static void write_vdso(void)
{
	const unsigned char *image = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *ehdr = (const void *)image;
	struct sleepy_cut cut = {
		.header = { SLEEPY_REC_CUT, sizeof(cut), 0 }, .time_ns = 1500000,
	};
	struct {
		struct sleepy_record_header header;
		unsigned char bytes[16384];
	} vdso = { .header = { SLEEPY_REC_VDSO, 0, 0 } };
	size_t size, body;
	struct builder b = {};

	if (!image)
		return;
	size = ehdr->e_shoff + (size_t)ehdr->e_shnum * ehdr->e_shentsize;
	if (size > sizeof(vdso.bytes))
		return;
	memcpy(vdso.bytes, image, size);
	vdso.header.size = (sizeof(vdso.header) + size + 7) & ~7UL;
	put_header(&b, 2);
	body = b.size;
	put(&b, &vdso, vdso.header.size);
	put_instance(&b, 1, 0, 101, 1000000, "clock", 1);
	put_mmap(&b, 0, 1000000, 0x7fff0000, 0x2000, 101, 1, 0, "[vdso]");
	put_mmap(&b, 0, 1000000, 0x7ffe0000, 0x1000, 101, 1, 0, "[uprobes]");
	put_sample(&b, 1, 0, 0x7fff0a00, 0, 0);
	put(&b, &cut, sizeof(cut));
	put_sample(&b, 1, 1, 0x7fff0b00, 0, 0);
	put_sample(&b, 1, 1, 0x7ffe0010, 0, 0);
	put_trailer(&b, 2);
	write_seed("vdso.rec", b.data, b.size);
	/* The image cut to its first 256 bytes: headers past its end. */
	vdso.header.size = sizeof(vdso.header) + 256;
	memcpy(b.data + body, &vdso, sizeof(vdso.header));
	memmove(b.data + body + vdso.header.size,
		b.data + body + ((sizeof(vdso.header) + size + 7) & ~7UL),
		b.size - body - ((sizeof(vdso.header) + size + 7) & ~7UL));
	b.size -= ((sizeof(vdso.header) + size + 7) & ~7UL) - vdso.header.size;
	write_seed("vdso-cut.rec", b.data, b.size);
	free(b.data);
}

/* Names as comm can hold them: any byte but NUL, or 16 without NUL. */
static void write_names(void)
{
	struct builder b = {};

	put_header(&b, 0);	/* ncpus 0: no CPU check */
	put_app(&b, 1, 0, "a;b,c\"d\\e\n\x7f\xff", 1);
	put_app(&b, 2, 0, "sixteen-bytes-xx", 4294967295U);
	put_app(&b, 3, 0, "", 0);
	put_app(&b, 4, 0, "first", 1);
	put_app(&b, 4, 0, "restarted", 2);	/* an appid announced twice */
	put_sample(&b, 1, 4000000000U, 1, 0, 0);
	put_sample(&b, 2, 3, 2, 0, 0);
	put_sample(&b, 3, 0, 3, 0, 0);
	put_sample(&b, 4, 0, 4, 0, 0);
	put_trailer(&b, 1);
	write_seed("names.rec", b.data, b.size);
	free(b.data);
}

/*
 * 768 applications fill the table to its growth threshold (3/4 of 1024
 * slots) with the last record, so the first lookup in the reports grows
 * it under the sorted pointers into it.
 */
static void write_many_apps(void)
{
	struct builder b = {};
	uint32_t appid;

	put_header(&b, 1);
	put_sample(&b, 1, 0, 0x401000, 0, 0);
	for (appid = 1; appid <= 768; appid++)
		put_exit(&b, appid, 0);
	put_trailer(&b, 1);
	write_seed("many-apps.rec", b.data, b.size);
	free(b.data);
}

/* The guest recording's first records and its trailer. */
static void write_guest_head(const char *path)
{
	const struct sleepy_record_header *record;
	struct sleepy_recording rec;
	struct builder b = {};

	if (sleepy_recording_open(&rec, path)) {
		fprintf(stderr, "make-corpus: %s: %s\n", path, rec.error);
		exit(1);
	}
	put(&b, rec.data, rec.header.header_size);
	while ((record = sleepy_recording_next(&rec)))
		if (rec.offset <= GUEST_HEAD_BYTES ||
		    record->type == SLEEPY_REC_CPU_STATS ||
		    record->type == SLEEPY_REC_END)
			put(&b, record, record->size);
	if (rec.error[0]) {
		fprintf(stderr, "make-corpus: %s: %s\n", path, rec.error);
		exit(1);
	}
	write_seed("guest-head.rec", b.data, b.size);
	sleepy_recording_close(&rec);
	free(b.data);
}

static void dict_bytes(FILE *f, const char *name, const void *p, size_t len)
{
	const unsigned char *bytes = p;
	size_t i;

	fprintf(f, "%s=\"", name);
	for (i = 0; i < len; i++)
		fprintf(f, "\\x%02x", bytes[i]);
	fprintf(f, "\"\n");
}

/* A record header's type and size, as they appear in a recording. */
static void dict_record(FILE *f, const char *name, uint16_t type,
			uint16_t size)
{
	struct sleepy_record_header h = { type, size, 0 };

	dict_bytes(f, name, &h, 4);
}

static void write_dictionary(const char *path)
{
	struct sleepy_file_header h;
	struct sleepy_attr attr = {};
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	sleepy_file_header_init(&h, &attr, 1, 0);
	fprintf(f, "# Recording tokens; written by make-corpus.\n");
	fprintf(f, "magic=\"%s\"\n", SLEEPY_FILE_MAGIC);
	/* version, header size, machine, byte order and pointer size */
	dict_bytes(f, "file_header", (char *)&h + 8, 8);
	dict_record(f, "sample", SLEEPY_REC_SAMPLE,
		    sizeof(struct sleepy_sample));
	dict_record(f, "sample_with_stack", SLEEPY_REC_SAMPLE,
		    sizeof(struct sleepy_sample) + sizeof(struct sleepy_callchain) + 16);
	dict_record(f, "app_start", SLEEPY_REC_APP_START,
		    sizeof(struct sleepy_app_start));
	dict_record(f, "app_exit", SLEEPY_REC_APP_EXIT,
		    sizeof(struct sleepy_app_exit));
	dict_record(f, "lost", SLEEPY_REC_LOST, sizeof(struct sleepy_lost));
	dict_record(f, "switch", SLEEPY_REC_SWITCH, sizeof(struct sleepy_switch));
	dict_record(f, "wakeup", SLEEPY_REC_WAKEUP, sizeof(struct sleepy_wakeup));
	dict_record(f, "irq_hist", SLEEPY_REC_IRQ_HIST,
		    sizeof(struct sleepy_irq_hist));
	dict_record(f, "irq_app", SLEEPY_REC_IRQ_APP,
		    sizeof(struct sleepy_irq_app));
	dict_record(f, "mmap", SLEEPY_REC_MMAP,
		    sizeof(struct sleepy_mmap) + 8);
	dict_record(f, "kernel_symbols", SLEEPY_REC_KERNEL_SYMBOLS,
		    sizeof(struct sleepy_text) + 8);
	dict_record(f, "cpu_stats", SLEEPY_REC_CPU_STATS,
		    sizeof(struct sleepy_cpu_stats));
	dict_record(f, "end", SLEEPY_REC_END, sizeof(struct sleepy_end));
	fprintf(f, "app_name=\"loop\"\n");
	if (fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: make-corpus CORPUS_DIR DICTIONARY [GUEST_RECORDING]\n");
		return 2;
	}
	corpus_dir = argv[1];
	write_good_and_damaged();
	write_bad_headers();
	write_bad_records();
	write_unknown_types();
	write_names();
	write_many_apps();
	write_sched();
	write_irq();
	write_mmap();
	write_kernel_symbols();
	write_vdso();
	write_stacks();
	if (argc == 4)
		write_guest_head(argv[3]);
	write_dictionary(argv[2]);
	return 0;
}
