// SPDX-License-Identifier: GPL-2.0
/*
 * Replaying context switches and wakeups.  Each CPU writes its own
 * buffer, so a thread's switch away and its switch back (on another CPU)
 * sit in different parts of the file: the records are kept (sched.c),
 * sorted by time and replayed here through a state per thread.  Every
 * interval of a thread's life in the session goes to exactly one kind (on
 * CPU, off CPU for a reason, waiting in the run queue, or unknown before
 * its first record), so the kinds add up to its lifetime.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched_replay.h"

enum thread_state { THREAD_UNKNOWN, THREAD_ON_CPU, THREAD_OFF, THREAD_RUNNABLE };

/* A thread as the replay has seen it so far. */
struct thread {
	uint32_t tid;
	uint32_t appid;
	uint8_t state;		/* enum thread_state */
	uint8_t off_kind;	/* THREAD_OFF: enum sleepy_time_kind */
	bool live;
	bool woken_on_cpu;	/* woken before its switch away was recorded */
	uint64_t begin_ns;	/* of its life under @appid in the session */
	uint64_t since_ns;	/* of its current state */
	uint64_t user_ip;	/* site of the current off-CPU interval */
	uint64_t kernel_ip;
};

static int cmp_events(const void *a, const void *b)
{
	const struct sleepy_sched_event *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static int same_site(const void *slot, const void *arg)
{
	const struct sleepy_offcpu_site *a = slot, *b = arg;

	return a->appid == b->appid && a->kind == b->kind &&
	       a->user_ip == b->user_ip && a->kernel_ip == b->kernel_ip;
}

static int same_link(const void *slot, const void *arg)
{
	const struct sleepy_wakeup_link *a = slot, *b = arg;

	return a->waker_kind == b->waker_kind &&
	       a->waker_appid == b->waker_appid &&
	       a->wakee_appid == b->wakee_appid;
}

/* The replay's state: the threads and what it adds up. */
struct replay {
	struct sleepy_sched *sched;
	struct sleepy_profile *profile;
	struct sleepy_table threads;	/* tid -> struct thread */
};

static struct sleepy_wall *wall_of(struct replay *r, uint32_t appid)
{
	struct sleepy_wall *wall = sleepy_table_get(&r->sched->walls, appid,
						    NULL, NULL);

	wall->appid = appid;
	return wall;
}

static int same_wait(const void *slot, const void *arg)
{
	const struct sleepy_wait_hist *a = slot, *b = arg;

	return a->kind == b->kind && !strcmp(a->name, b->name);
}

/* One off-CPU interval of @ns of a @kind, for the program of @appid. */
static void add_wait(struct replay *r, uint32_t appid, uint32_t kind,
		     uint64_t ns)
{
	const struct sleepy_app *app = sleepy_profile_app(r->profile, appid);
	struct sleepy_wait_hist key = { .kind = kind }, *h;
	uint64_t hash = kind;
	const char *c;
	int bucket;

	snprintf(key.name, sizeof(key.name), "%s", app->name);
	for (c = key.name; *c; c++)
		hash = hash * 31 + (unsigned char)*c;
	h = sleepy_table_get(&r->sched->waits, hash, same_wait, &key);
	memcpy(h->name, key.name, sizeof(h->name));
	h->kind = kind;
	h->count++;
	h->total_ns += ns;
	bucket = ns ? 63 - __builtin_clzll(ns) : 0;
	h->log2_ns[bucket < SLEEPY_IRQ_BUCKETS ? bucket : SLEEPY_IRQ_BUCKETS - 1]++;
}

/* Charges @th's time from its last change to @now to @kind. */
static void charge(struct replay *r, struct thread *th, uint64_t now,
		   enum sleepy_time_kind kind)
{
	uint64_t ns = now > th->since_ns ? now - th->since_ns : 0;
	struct sleepy_offcpu_site key, *site;

	th->since_ns = now;
	if (!th->appid)
		return;
	wall_of(r, th->appid)->ns[kind] += ns;
	if (kind == SLEEPY_TIME_ON_CPU || kind == SLEEPY_TIME_UNKNOWN)
		return;
	add_wait(r, th->appid, kind, ns);
	key = (struct sleepy_offcpu_site) {
		.appid = th->appid,
		.kind = kind,
		.user_ip = th->user_ip,
		.kernel_ip = th->kernel_ip,
	};
	site = sleepy_table_get(&r->sched->sites,
				mix(mix(mix(th->appid, kind), th->user_ip),
				    th->kernel_ip),
				same_site, &key);
	*site = (struct sleepy_offcpu_site) {
		.appid = key.appid,
		.kind = key.kind,
		.user_ip = key.user_ip,
		.kernel_ip = key.kernel_ip,
		.total_ns = site->total_ns + ns,
		.count = site->count + 1,
	};
}

/* Charges @th's current state up to @now. */
static void charge_state(struct replay *r, struct thread *th, uint64_t now)
{
	switch (th->state) {
	case THREAD_ON_CPU:
		charge(r, th, now, SLEEPY_TIME_ON_CPU);
		break;
	case THREAD_OFF:
		charge(r, th, now, th->off_kind);
		break;
	case THREAD_RUNNABLE:
		charge(r, th, now, SLEEPY_TIME_RUNQUEUE);
		break;
	default:
		charge(r, th, now, SLEEPY_TIME_UNKNOWN);
		break;
	}
}

/* Ends @th's life under its appid at @now. */
static void end_life(struct replay *r, struct thread *th, uint64_t now)
{
	charge_state(r, th, now);
	if (th->appid) {
		struct sleepy_wall *wall = wall_of(r, th->appid);

		wall->lifetime_ns += now > th->begin_ns ? now - th->begin_ns : 0;
		wall->threads++;
	}
	th->live = false;
}

static void begin_life(struct replay *r, struct thread *th, uint32_t appid,
		       uint64_t begin_ns, enum thread_state state)
{
	th->appid = appid;
	th->live = true;
	th->woken_on_cpu = false;
	th->begin_ns = begin_ns;
	th->since_ns = begin_ns;
	th->state = state;
	th->user_ip = 0;
	th->kernel_ip = 0;
}

/*
 * The thread @tid of @appid at @now.  A thread first seen has lived since
 * the session (or its application) started, in a state unknown until
 * now.  A thread seen under another appid has exec'd: its old life ends
 * when the new application started.
 */
static struct thread *thread_at(struct replay *r, uint32_t tid, uint32_t appid,
				uint64_t now)
{
	struct thread *th = sleepy_table_get(&r->threads, tid, NULL, NULL);
	struct sleepy_app *app = NULL;
	uint64_t begin = r->sched->begin_ns;

	if (appid)
		app = sleepy_profile_app(r->profile, appid);
	if (app && app->start_ns > begin && app->start_ns <= now)
		begin = app->start_ns;
	th->tid = tid;
	if (!th->live) {
		begin_life(r, th, appid, begin, THREAD_UNKNOWN);
	} else if (appid && appid != th->appid) {
		enum thread_state state = th->state;
		uint8_t off_kind = th->off_kind;

		if (begin < th->since_ns)
			begin = th->since_ns;
		end_life(r, th, begin);
		begin_life(r, th, appid, begin, state);
		th->off_kind = off_kind;
	}
	/* After the exit hook, a thread's last switches carry no appid. */
	return th;
}

static void replay_switch(struct replay *r, const struct sleepy_sched_event *e)
{
	struct thread *th;

	if (e->tid[0]) {
		th = thread_at(r, e->tid[0], e->appid[0], e->time_ns);
		charge_state(r, th, e->time_ns);
		if (th->appid)
			wall_of(r, th->appid)->switches++;
		if (e->reason == SLEEPY_SWITCH_EXITING) {
			end_life(r, th, e->time_ns);
		} else {
			th->user_ip = e->user_ip;
			th->kernel_ip = e->kernel_ip;
			th->state = THREAD_OFF;
			th->off_kind = e->reason;
			/* Its wakeup came first: it waits for a CPU already. */
			if (th->woken_on_cpu && e->reason != SLEEPY_SWITCH_PREEMPTED)
				th->state = THREAD_RUNNABLE;
			th->woken_on_cpu = false;
		}
	}
	if (e->tid[1]) {
		th = thread_at(r, e->tid[1], e->appid[1], e->time_ns);
		charge_state(r, th, e->time_ns);
		th->state = THREAD_ON_CPU;
		th->woken_on_cpu = false;
	}
}

static void link_wakeup(struct replay *r, const struct sleepy_sched_event *e,
			uint32_t wakee_appid, uint64_t blocked_ns)
{
	struct sleepy_wakeup_link key = { .wakee_appid = wakee_appid }, *link;

	if (e->flags & (SLEEPY_WAKEUP_HARDIRQ | SLEEPY_WAKEUP_SOFTIRQ)) {
		key.waker_kind = e->flags & SLEEPY_WAKEUP_SOFTIRQ ? SLEEPY_WAKER_SOFTIRQ :
				 e->flags & SLEEPY_WAKEUP_SYSVEC ? SLEEPY_WAKER_SYSVEC :
				 SLEEPY_WAKER_HARDIRQ;
		key.waker_appid = e->source;
	} else if (!e->tid[0]) {
		key.waker_kind = SLEEPY_WAKER_IDLE;
	} else if (e->appid[0]) {
		key.waker_appid = e->appid[0];
	} else {
		/*
		 * An exiting task wakes its parent after its appid is gone
		 * (the exit probe runs before exit_notify()): the instance
		 * its thread ran as is the waker, else the kernel.
		 */
		const struct thread *th = sleepy_table_find(&r->threads,
							    e->tid[0], NULL, NULL);

		if (th && th->appid)
			key.waker_appid = th->appid;
		else
			key.waker_kind = SLEEPY_WAKER_KERNEL;
	}
	link = sleepy_table_get(&r->sched->links,
				mix(mix(key.waker_kind, key.waker_appid),
				    wakee_appid),
				same_link, &key);
	key.count = link->count + 1;
	key.blocked_ns = link->blocked_ns + blocked_ns;
	*link = key;
}

static void replay_wakeup(struct replay *r, const struct sleepy_sched_event *e)
{
	struct thread *th;
	uint64_t blocked = 0;

	if (!e->tid[1])
		return;
	if (e->flags & SLEEPY_WAKEUP_NEW_TASK) {
		th = sleepy_table_get(&r->threads, e->tid[1], NULL, NULL);
		if (th->live)	/* its exit was lost */
			end_life(r, th, e->time_ns);
		th->tid = e->tid[1];
		begin_life(r, th, e->appid[1], e->time_ns, THREAD_RUNNABLE);
		return;
	}
	th = thread_at(r, e->tid[1], e->appid[1], e->time_ns);
	switch (th->state) {
	case THREAD_OFF:
		if (th->off_kind == SLEEPY_TIME_PREEMPTED)
			break;
		blocked = e->time_ns > th->since_ns ? e->time_ns - th->since_ns : 0;
		charge_state(r, th, e->time_ns);
		th->state = THREAD_RUNNABLE;
		break;
	case THREAD_UNKNOWN:
		charge_state(r, th, e->time_ns);
		th->state = THREAD_RUNNABLE;
		break;
	case THREAD_ON_CPU:
		th->woken_on_cpu = true;
		break;
	default:
		break;
	}
	if (!th->appid)
		return;
	wall_of(r, th->appid)->wakeups++;
	link_wakeup(r, e, th->appid, blocked);
}

void sleepy_sched_replay(struct sleepy_sched *sched,
			 struct sleepy_profile *profile,
			 uint64_t begin_ns, uint64_t end_ns)
{
	struct replay r = { .sched = sched, .profile = profile };
	size_t i;

	/* Results of an earlier replay (the fuzzer reports many times). */
	sleepy_table_free(&sched->sites);
	sleepy_table_free(&sched->links);
	sleepy_table_free(&sched->walls);
	sleepy_table_free(&sched->waits);
	qsort(sched->events, sched->nevents, sizeof(*sched->events), cmp_events);
	if (sched->nevents && end_ns < sched->events[sched->nevents - 1].time_ns)
		end_ns = sched->events[sched->nevents - 1].time_ns;
	if (sched->nevents && begin_ns > sched->events[0].time_ns)
		begin_ns = sched->events[0].time_ns;
	sched->begin_ns = begin_ns;
	sched->end_ns = end_ns;
	sleepy_table_init(&r.threads, sizeof(struct thread));
	for (i = 0; i < sched->nevents; i++) {
		if (sched->events[i].type == SLEEPY_REC_SWITCH)
			replay_switch(&r, &sched->events[i]);
		else
			replay_wakeup(&r, &sched->events[i]);
	}
	for (i = 0; i < r.threads.capacity; i++) {
		struct thread *th = sleepy_table_slot(&r.threads, i);

		if (th && th->live)
			end_life(&r, th, end_ns);
	}
	sleepy_table_free(&r.threads);
}
