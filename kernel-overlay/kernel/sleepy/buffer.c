// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record buffers of the sleepy profiler, on top of relay.
 *
 * Writers: the sampling interrupt (tick or per-CPU hrtimer, hard-irq) and
 * the fork/exec/exit hooks (process context) of the CPU that owns the
 * buffer.  Every write runs with local interrupts disabled from reserve to
 * commit, so an interrupt can never nest inside another writer on the same
 * CPU and no lock is needed; CPUs never write each other's buffers while a
 * session runs.
 *
 * The channel has no files: a reader gets a file descriptor for one CPU's
 * buffer from the session (SLEEPY_IOC_CPU_BUFFER), with relay's own file
 * operations behind it, so neither debugfs nor root is needed to drain.
 * Reader: one user-space drainer per CPU (a second file for a buffer that
 * has one is refused), via relay's read(), which skips
 * sub-buffer padding and consumes as it goes.  Each sub-buffer starts with
 * struct sleepy_subbuf_header whose committed field the writer advances
 * after each record, so the reader takes only whole records of whole
 * sub-buffers and never races a writer.
 *
 * Ordering: the writer publishes a record with smp_store_release() of
 * committed, and a whole sub-buffer with the smp_wmb() before relay moves
 * on (subbufs_produced); relay's reader pairs with the latter through the
 * smp_rmb() after it reads subbufs_produced (patched into relay.c), and a
 * reader of a partly filled sub-buffer must load committed with acquire.
 *
 * A reader that needs the records of partly filled sub-buffers while the
 * session runs (a continuous profiler cutting intervals) asks for a
 * hand-over: each CPU switches its own sub-buffer in an IPI, as its
 * writers would (sleepy_buffer_hand_over()).
 *
 * Ordering back: the reader's relay_subbufs_consumed() stores the count
 * with release once it read a sub-buffer (patched into relay.c), and the
 * writer loads it with acquire before it reuses one.
 *
 * Full buffers discard: a writer that would catch up with the reader drops
 * the record instead; the loss is counted per CPU and reported in-stream by
 * a SLEEPY_REC_LOST record as soon as one fits again.  A writer that can
 * try again later (the interrupt histograms' flush) uses
 * sleepy_buffer_try_write(), which loses nothing; one that waits for the
 * reader (the start walk) sleepy_buffer_write_paced(), which also leaves
 * a sub-buffer to the writers that cannot wait.
 */
#include <linux/anon_inodes.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/irqflags.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/oom.h>
#include <linux/relay.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "sleepy.h"

#define SLEEPY_MAX_SUBBUF_SIZE	(128U << 10)
#define SLEEPY_MIN_SUBBUFS	8

/* Every sub-buffer starts with the header the reader goes by. */
static int sleepy_subbuf_start(struct rchan_buf *buf, void *subbuf,
			       void *prev_subbuf, size_t prev_padding)
{
	struct sleepy_subbuf_header *header = subbuf;

	header->committed = sizeof(*header);
	header->cpu = buf->cpu;
	subbuf_start_reserve(buf, sizeof(*header));
	return 1;
}

/* No files: readers come through the session (sleepy_buffer_open_reader). */
static struct dentry *sleepy_create_buf_file(const char *filename,
					     struct dentry *parent,
					     umode_t mode,
					     struct rchan_buf *buf,
					     int *is_global)
{
	return NULL;
}

static int sleepy_remove_buf_file(struct dentry *dentry)
{
	return 0;
}

static const struct rchan_callbacks sleepy_relay_callbacks = {
	.subbuf_start		= sleepy_subbuf_start,
	.create_buf_file	= sleepy_create_buf_file,
	.remove_buf_file	= sleepy_remove_buf_file,
};

static size_t sleepy_subbuf_size(size_t size)
{
	return min(size / SLEEPY_MIN_SUBBUFS, (size_t)SLEEPY_MAX_SUBBUF_SIZE);
}

/* The largest record a buffer of @size bytes per CPU takes. */
size_t sleepy_buffer_max_record(size_t size)
{
	return min(sleepy_subbuf_size(size) -
		   sizeof(struct sleepy_subbuf_header),
		   (size_t)SLEEPY_RECORD_MAX_SIZE);
}

/**
 * sleepy_buffer_open - allocate @size bytes of buffer on every CPU
 * @buffer: the buffer to set up
 * @size: bytes per CPU, a multiple of PAGE_SIZE
 *
 * Relay allocates its pages with GFP_KERNEL, so buffers the machine
 * cannot afford would wake the OOM killer instead of failing.  Buffers
 * that would take more than half of the available memory, counting every
 * CPU that may come online during the session, are refused
 * with -ENOMEM, and should the allocation still run out of memory, the
 * OOM killer takes the caller first.
 */
int sleepy_buffer_open(struct sleepy_buffer *buffer, size_t size)
{
	size_t subbuf_size = sleepy_subbuf_size(size);
	unsigned long pages = (size >> PAGE_SHIFT) * num_possible_cpus();
	unsigned int cpu;

	if (pages > si_mem_available() / 2)
		return -ENOMEM;

	buffer->stats = alloc_percpu(struct sleepy_buffer_stats);
	if (!buffer->stats)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(buffer->stats, cpu)->syncp);

	set_current_oom_origin();
	buffer->chan = relay_open(NULL, NULL, subbuf_size,
				  size / subbuf_size, &sleepy_relay_callbacks,
				  buffer);
	clear_current_oom_origin();
	if (!buffer->chan) {
		free_percpu(buffer->stats);
		buffer->stats = NULL;
		return -ENOMEM;
	}
	buffer->size = subbuf_size * (size / subbuf_size);
	return 0;
}

/* Frees the buffers once the last reader has closed its file descriptor. */
void sleepy_buffer_close(struct sleepy_buffer *buffer)
{
	relay_close(buffer->chan);
	free_percpu(buffer->stats);
	buffer->chan = NULL;
	buffer->stats = NULL;
}

/*
 * Hands every CPU's partly filled sub-buffer to the reader at the stop.
 * Only while no writer can run: relay_flush() touches other CPUs'
 * buffers.  The writers left a sub-buffer free for this, so it never
 * lands on an unread one.
 */
void sleepy_buffer_flush(struct sleepy_buffer *buffer)
{
	relay_flush(buffer->chan);
}

/*
 * Whether the writer may move on to the next sub-buffer.  Two must stay
 * free: the one it moves to, so that it never is one the reader still
 * reads (relay's read() looks at the writer's offset when both are in the
 * same sub-buffer, and takes a fully produced buffer for an overwritten
 * one), and one for the switch sleepy_buffer_flush() makes at the stop.
 * Relay's own full-buffer refusal is never used for the same reason: it
 * leaves the writer pointing at a sub-buffer the reader may be reading.
 */
static bool sleepy_buffer_may_switch(struct rchan_buf *buf, unsigned int spare)
{
	/* Pairs with the release in relay_subbufs_consumed(). */
	return buf->subbufs_produced - smp_load_acquire(&buf->subbufs_consumed) <
	       buf->chan->n_subbufs - 2 - spare;
}

/* A live hand-over (SLEEPY_IOC_FLUSH) and the CPUs it found full. */
struct sleepy_hand_over {
	struct sleepy_buffer *buffer;
	atomic_t full;
};

/*
 * Hands @cpu's partly filled sub-buffer to the reader, the way a writer
 * moves on: from an IPI on that CPU (interrupts off, so none of its
 * writers is halfway through a record), or from any CPU for an offline
 * one, which has no writer.  A buffer that cannot move on without
 * taking the sub-buffer the stop needs keeps its records for a later
 * hand-over, and is counted.
 */
static void sleepy_buffer_hand_over_cpu(struct sleepy_hand_over *over,
					unsigned int cpu)
{
	struct rchan_buf *buf = *per_cpu_ptr(over->buffer->chan->buf, cpu);

	if (!buf || buf->offset <= sizeof(struct sleepy_subbuf_header))
		return;
	if (!sleepy_buffer_may_switch(buf, 0)) {
		atomic_inc(&over->full);
		return;
	}
	/* As in sleepy_buffer_put(): the records before subbufs_produced++. */
	smp_wmb();
	relay_switch_subbuf(buf, 0);
}

static void sleepy_buffer_hand_over_local(void *info)
{
	sleepy_buffer_hand_over_cpu(info, smp_processor_id());
}

/**
 * sleepy_buffer_hand_over - give every CPU's records to the readers now
 * @buffer: a running session's buffer
 *
 * Unlike sleepy_buffer_flush(), safe while the writers run: each online
 * CPU switches its own sub-buffer.  A reader that drains after this has
 * every record written before the call.
 *
 * Return: 0, or -EAGAIN if a CPU's buffer had no free sub-buffer (the
 * reader is behind): drain and call again.
 */
int sleepy_buffer_hand_over(struct sleepy_buffer *buffer)
{
	struct sleepy_hand_over over = { .buffer = buffer };
	unsigned int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			smp_call_function_single(cpu,
						 sleepy_buffer_hand_over_local,
						 &over, 1);
		else
			sleepy_buffer_hand_over_cpu(&over, cpu);
	}
	cpus_read_unlock();
	return atomic_read(&over.full) ? -EAGAIN : 0;
}

/*
 * Sub-buffers a paced writer leaves to the writers that cannot wait (the
 * hooks, the samples): while the start walk waits for the reader, a fork
 * still finds room for its record.
 */
#define SLEEPY_PACED_SPARE	1

/**
 * sleepy_buffer_has_room - whether @cpu's buffer has room for a paced writer
 * @buffer: the session's buffer
 * @cpu: a possible CPU
 *
 * A hint for a writer that can move to another CPU: the answer may be
 * out of date by the time it writes there.
 */
bool sleepy_buffer_has_room(struct sleepy_buffer *buffer, unsigned int cpu)
{
	struct rchan_buf *buf = *per_cpu_ptr(buffer->chan->buf, cpu);

	return buf && READ_ONCE(buf->subbufs_produced) -
		      READ_ONCE(buf->subbufs_consumed) <
		      buf->chan->n_subbufs - 2 - SLEEPY_PACED_SPARE;
}

/*
 * Copies one record into this CPU's buffer, moving to the next sub-buffer
 * only while @spare more stay free; interrupts are off.
 */
static bool sleepy_buffer_put(struct rchan_buf *buf, const void *record,
			      size_t size, unsigned int spare)
{
	struct sleepy_subbuf_header *header;

	lockdep_assert_irqs_disabled();
	if (unlikely(buf->offset + size > buf->chan->subbuf_size)) {
		if (!sleepy_buffer_may_switch(buf, spare))
			return false;
		/*
		 * The sub-buffer's records and committed before relay's
		 * subbufs_produced++; pairs with the smp_rmb() in relay's
		 * relay_file_read_avail().
		 */
		smp_wmb();
		if (!relay_switch_subbuf(buf, size))
			return false;
	}

	memcpy(buf->data + buf->offset, record, size);
	buf->offset += size;
	header = buf->data;
	/* The record before committed: pairs with the reader's acquire. */
	smp_store_release(&header->committed, buf->offset);
	return true;
}

static bool sleepy_buffer_append(struct sleepy_buffer *buffer, void *record,
				 enum sleepy_record_type type, size_t size,
				 bool count_loss, unsigned int spare)
{
	struct sleepy_record_header *header = record;
	struct sleepy_buffer_stats *stats;
	struct rchan_buf *buf;
	unsigned long flags;
	bool written;

	local_irq_save(flags);
	buf = *this_cpu_ptr(buffer->chan->buf);
	stats = this_cpu_ptr(buffer->stats);
	u64_stats_update_begin(&stats->syncp);

	/*
	 * A CPU brought online whose buffer relay could not allocate; or a
	 * record whose size the header cannot hold, which the session's
	 * checks rule out.
	 */
	if (unlikely(!buf || WARN_ON_ONCE(size > SLEEPY_RECORD_MAX_SIZE))) {
		written = false;
		goto count;
	}
	if (unlikely(stats->lost_pending)) {
		struct sleepy_lost lost = {
			.header = {
				.type = SLEEPY_REC_LOST,
				.size = sizeof(lost),
				.cpu = smp_processor_id(),
			},
			.count = stats->lost_pending,
		};

		if (sleepy_buffer_put(buf, &lost, sizeof(lost), 0))
			stats->lost_pending = 0;
	}

	header->type = type;
	header->size = size;
	header->cpu = smp_processor_id();
	written = !stats->lost_pending &&
		  sleepy_buffer_put(buf, record, size, spare);
count:
	if (!written && count_loss) {
		u64_stats_inc(&stats->dropped);
		stats->lost_pending++;
	} else if (type == SLEEPY_REC_SAMPLE) {
		u64_stats_inc(&stats->samples);
		if (((struct sleepy_sample *)record)->appid ==
		    SLEEPY_APPID_UNKNOWN)
			u64_stats_inc(&stats->unknown);
	}
	u64_stats_update_end(&stats->syncp);
	local_irq_restore(flags);
	return written;
}

/**
 * sleepy_buffer_write - append one record to this CPU's buffer
 * @buffer: the session's buffer
 * @record: record starting with struct sleepy_record_header
 * @type: the record's type, stored in its header
 * @size: the record's size, stored in its header
 *
 * Any context.  Returns false if the record did not fit; the loss is then
 * counted and reported before the next record that fits.
 */
bool sleepy_buffer_write(struct sleepy_buffer *buffer, void *record,
			 enum sleepy_record_type type, size_t size)
{
	return sleepy_buffer_append(buffer, record, type, size, true, 0);
}

/**
 * sleepy_buffer_try_write - append one record, if it fits, to this CPU's buffer
 * @buffer: the session's buffer
 * @record: record starting with struct sleepy_record_header
 * @type: the record's type, stored in its header
 * @size: the record's size, stored in its header
 *
 * As sleepy_buffer_write(), but a record that does not fit is no loss:
 * the caller keeps it and writes it again later.
 */
bool sleepy_buffer_try_write(struct sleepy_buffer *buffer, void *record,
			     enum sleepy_record_type type, size_t size)
{
	return sleepy_buffer_append(buffer, record, type, size, false, 0);
}

/**
 * sleepy_buffer_write_paced - append one record for a writer that waits
 * @buffer: the session's buffer
 * @record: record starting with struct sleepy_record_header
 * @type: the record's type, stored in its header
 * @size: the record's size, stored in its header
 *
 * As sleepy_buffer_try_write(), but a sub-buffer more stays free for the
 * writers that cannot wait (sleepy_buffer_has_room() says whether a CPU's
 * buffer has room for it).
 */
bool sleepy_buffer_write_paced(struct sleepy_buffer *buffer, void *record,
			       enum sleepy_record_type type, size_t size)
{
	return sleepy_buffer_append(buffer, record, type, size, false,
				    SLEEPY_PACED_SPARE);
}

/* A sampling interrupt found this CPU idle; hard-irq context. */
void sleepy_buffer_count_idle(struct sleepy_buffer *buffer)
{
	struct sleepy_buffer_stats *stats = this_cpu_ptr(buffer->stats);

	lockdep_assert_irqs_disabled();
	u64_stats_update_begin(&stats->syncp);
	u64_stats_inc(&stats->idle);
	u64_stats_update_end(&stats->syncp);
}

/* This CPU's timer skipped @periods; hard-irq context. */
void sleepy_buffer_count_missed(struct sleepy_buffer *buffer, u64 periods)
{
	struct sleepy_buffer_stats *stats = this_cpu_ptr(buffer->stats);

	lockdep_assert_irqs_disabled();
	u64_stats_update_begin(&stats->syncp);
	u64_stats_add(&stats->missed, periods);
	u64_stats_update_end(&stats->syncp);
}

/**
 * sleepy_buffer_count - a consistent copy of one CPU's counters
 * @buffer: the session's buffer
 * @cpu: a possible CPU
 * @counters: filled, but for its @cpu
 *
 * Any context.
 */
void sleepy_buffer_count(struct sleepy_buffer *buffer, unsigned int cpu,
			 struct sleepy_cpu_counters *counters)
{
	struct sleepy_buffer_stats *stats = per_cpu_ptr(buffer->stats, cpu);
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&stats->syncp);
		counters->samples = u64_stats_read(&stats->samples);
		counters->dropped = u64_stats_read(&stats->dropped);
		counters->idle = u64_stats_read(&stats->idle);
		counters->unknown = u64_stats_read(&stats->unknown);
		counters->missed = u64_stats_read(&stats->missed);
	} while (u64_stats_fetch_retry(&stats->syncp, start));
}

/*
 * The CPU buffers that have a reader.  One each: relay's read() consumes
 * as it goes, and two files (each with an inode of its own, so relay's
 * inode lock does not order them) would read records twice or skip them.
 * An entry lives from the open to the file's release, which holds the
 * buffer until then.
 */
struct sleepy_reader {
	struct hlist_node node;
	struct rchan_buf *buf;
};

static DEFINE_SPINLOCK(sleepy_readers_lock);
static DEFINE_HASHTABLE(sleepy_readers, 6);

/* Relay's file operations, releasing the reader's entry too. */
static struct file_operations sleepy_reader_fops __ro_after_init;

static struct sleepy_reader *sleepy_reader_find(struct rchan_buf *buf)
{
	struct sleepy_reader *reader;

	lockdep_assert_held(&sleepy_readers_lock);
	hash_for_each_possible(sleepy_readers, reader, node, (unsigned long)buf)
		if (reader->buf == buf)
			return reader;
	return NULL;
}

/* Takes @buf for a reader; -EBUSY if it has one. */
static int sleepy_reader_claim(struct rchan_buf *buf)
{
	struct sleepy_reader *reader = kmalloc(sizeof(*reader), GFP_KERNEL);
	int err = 0;

	if (!reader)
		return -ENOMEM;
	reader->buf = buf;
	spin_lock(&sleepy_readers_lock);
	if (sleepy_reader_find(buf))
		err = -EBUSY;
	else
		hash_add(sleepy_readers, &reader->node, (unsigned long)buf);
	spin_unlock(&sleepy_readers_lock);
	if (err)
		kfree(reader);
	return err;
}

static void sleepy_reader_unclaim(struct rchan_buf *buf)
{
	struct sleepy_reader *reader;

	spin_lock(&sleepy_readers_lock);
	reader = sleepy_reader_find(buf);
	hash_del(&reader->node);
	spin_unlock(&sleepy_readers_lock);
	kfree(reader);
}

static int sleepy_reader_release(struct inode *inode, struct file *file)
{
	sleepy_reader_unclaim(file->private_data);
	return relay_file_operations.release(inode, file);
}

static int __init sleepy_reader_init(void)
{
	sleepy_reader_fops = relay_file_operations;
	sleepy_reader_fops.release = sleepy_reader_release;
	/*
	 * Drained with read() only: relay's mmap() checks the length but not
	 * the offset, and its fault handler would then map whatever vmalloc
	 * page lies beyond the buffer.
	 */
	sleepy_reader_fops.mmap = NULL;
	return 0;
}
core_initcall(sleepy_reader_init);

/**
 * sleepy_buffer_open_reader - a file descriptor reading one CPU's buffer
 * @buffer: the session's buffer
 * @cpu: the CPU
 *
 * The file has relay's file operations and holds a reference on the CPU's
 * buffer (as relay's own open does), so it stays readable after the
 * session is gone.  Returns the descriptor, -ENODEV if @cpu has no
 * buffer, -EBUSY if another file reads it, or another negative errno.
 */
int sleepy_buffer_open_reader(struct sleepy_buffer *buffer, unsigned int cpu)
{
	struct rchan_buf *buf;
	struct file *file;
	int fd, err;

	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -ENODEV;
	buf = *per_cpu_ptr(buffer->chan->buf, cpu);
	if (!buf)
		return -ENODEV;

	fd = get_unused_fd_flags(O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	err = sleepy_reader_claim(buf);
	if (err)
		goto put_fd;
	/* An inode of its own: relay's read() locks the file's inode. */
	file = anon_inode_create_getfile("[sleepy-buffer]",
					 &sleepy_reader_fops, buf,
					 O_RDONLY, NULL);
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		sleepy_reader_unclaim(buf);
		goto put_fd;
	}
	/* Dropped by relay_file_release() when the file goes. */
	kref_get(&buf->kref);
	fd_install(fd, file);
	return fd;
put_fd:
	put_unused_fd(fd);
	return err;
}
