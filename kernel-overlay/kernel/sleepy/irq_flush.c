// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: the interrupt histograms into the stream, at a flush
 * (SLEEPY_IOC_IRQ_FLUSH) and at the session's stop.
 *
 * Readers of the tables irq.c's probes fill: a flush, on each online CPU
 * in an IPI (interrupts off, so no handler of that CPU is halfway through
 * an update), and for a CPU that is offline (no handler runs there) from
 * the flushing CPU under cpus_read_lock(); the flush writes what the
 * slots hold and zeroes what it wrote.  The session stop, after the
 * probes are gone, so no writer runs any more.  The session lock keeps
 * flushes and the stop apart.  A slot the buffer has no room for keeps
 * its counts for the next flush; only the stop's write counts a loss.
 */
#include <linux/cpu.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "irq.h"
#include "sleepy.h"

/* One CPU's tables going into the stream, with the time they end at. */
/*
 * @final: the stop's write, after which the slots are gone: a record
 * without room is a loss, counted as such; before it, a slot without room
 * keeps its counts for the next flush, and nothing is lost.
 */
struct sleepy_irq_flush {
	struct sleepy_session *session;
	unsigned int cpu;
	u64 time_ns;
	bool final;
};

static bool sleepy_irq_write_record(const struct sleepy_irq_flush *flush,
				    void *rec, enum sleepy_record_type type,
				    size_t size)
{
	if (flush->final)
		return sleepy_buffer_write(&flush->session->buffer, rec, type,
					   size);
	return sleepy_buffer_try_write(&flush->session->buffer, rec, type,
				       size);
}

/*
 * Writes a slot that counted something and zeroes it, keeping its key; a
 * slot the buffer had no room for keeps its counts for the next write.
 */
static void sleepy_irq_write_hist(const struct sleepy_irq_flush *flush,
				  struct sleepy_irq_hist_slot *slot)
{
	struct sleepy_irq_hist rec = {
		.kind = slot->kind - 1,
		.number = slot->number,
		.cpu = flush->cpu,
		.action = slot->action,
		.count = slot->count,
		.total_ns = slot->total_ns,
		.time_ns = flush->time_ns,
	};

	if (!slot->count)
		return;
	memcpy(rec.log2_ns, slot->log2_ns, sizeof(rec.log2_ns));
	if (!sleepy_irq_write_record(flush, &rec, SLEEPY_REC_IRQ_HIST,
				     sizeof(rec)))
		return;
	slot->count = 0;
	slot->total_ns = 0;
	memset(slot->log2_ns, 0, sizeof(slot->log2_ns));
}

static void sleepy_irq_write_app(const struct sleepy_irq_flush *flush,
				 struct sleepy_irq_app_slot *slot)
{
	struct sleepy_irq_app rec = {
		.kind = slot->kind - 1,
		.number = slot->number,
		.cpu = flush->cpu,
		.appid = slot->appid,
		.count = slot->count,
		.total_ns = slot->total_ns,
		.time_ns = flush->time_ns,
	};

	if (!slot->count)
		return;
	if (!sleepy_irq_write_record(flush, &rec, SLEEPY_REC_IRQ_APP,
				     sizeof(rec)))
		return;
	slot->count = 0;
	slot->total_ns = 0;
}

/* Writes flush->cpu's tables; no handler of that CPU may run meanwhile. */
static void sleepy_irq_write_cpu(const struct sleepy_irq_flush *flush)
{
	struct sleepy_irq_cpu *tables = per_cpu_ptr(flush->session->irq,
						    flush->cpu);
	unsigned int i;

	for (i = 0; i < SLEEPY_IRQ_HIST_SLOTS; i++)
		sleepy_irq_write_hist(flush, &tables->hist[i]);
	for (i = 0; i < SLEEPY_IRQ_APP_SLOTS; i++)
		sleepy_irq_write_app(flush, &tables->apps[i]);
	for (i = 0; i < SLEEPY_IRQ_KINDS; i++) {
		sleepy_irq_write_hist(flush, &tables->hist_other[i]);
		sleepy_irq_write_app(flush, &tables->apps_other[i]);
	}
}

/* The names of the shared-line actions seen so far; process context. */
static void sleepy_irq_write_actions(const struct sleepy_irq_flush *flush)
{
	struct sleepy_irq_actions *actions = flush->session->irq_actions;
	/* The slots up to the count: pairs with the release that adds one. */
	u32 i, count = smp_load_acquire(&actions->count);

	for (i = 0; i < count; i++) {
		struct sleepy_irq_action rec = {
			.irq = actions->slot[i].irq,
			.action = i,
		};

		memcpy(rec.name, actions->slot[i].name, sizeof(rec.name));
		sleepy_irq_write_record(flush, &rec, SLEEPY_REC_IRQ_ACTION,
					sizeof(rec));
	}
}

/* IPI on flush->cpu: its tables, with interrupts off, into its own buffer. */
static void sleepy_irq_flush_local(void *info)
{
	sleepy_irq_write_cpu(info);
}

/**
 * sleepy_irq_flush - write the histograms so far into the stream
 * @session: a running session; the caller holds the session lock
 *
 * Process context.  Returns -EINVAL if the session keeps no histograms.
 */
int sleepy_irq_flush(struct sleepy_session *session)
{
	struct sleepy_irq_flush flush = {
		.session = session,
		.time_ns = sleepy_now(),
	};

	if (!session->irq)
		return -EINVAL;
	sleepy_irq_write_actions(&flush);
	cpus_read_lock();
	for_each_possible_cpu(flush.cpu) {
		if (cpu_online(flush.cpu))
			smp_call_function_single(flush.cpu,
						 sleepy_irq_flush_local,
						 &flush, 1);
		else
			sleepy_irq_write_cpu(&flush);
	}
	cpus_read_unlock();
	return 0;
}

/*
 * Writes every CPU's tables into the stream, in the buffer of the CPU the
 * write runs on (each record is written with interrupts off).  The caller
 * has turned the hooks off and waited for a grace period: no handler
 * updates them any more.  A buffer too full for them counts the drops.
 */
void sleepy_irq_write(struct sleepy_session *session, u64 time_ns)
{
	struct sleepy_irq_flush flush = {
		.session = session,
		.time_ns = time_ns,
		.final = true,
	};

	if (!session->irq)
		return;
	sleepy_irq_write_actions(&flush);
	for_each_possible_cpu(flush.cpu)
		sleepy_irq_write_cpu(&flush);
}
