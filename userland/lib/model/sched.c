// SPDX-License-Identifier: GPL-2.0
/*
 * The context switch and wakeup records of a --sched recording, kept as
 * they are read for the replay (sched_replay.c).
 */
#include <stdlib.h>
#include <string.h>

#include "model/sched.h"

static const char *const kind_names[SLEEPY_TIME_KINDS] = {
	[SLEEPY_TIME_PREEMPTED] = "preempted",
	[SLEEPY_TIME_SLEEP] = "sleep",
	[SLEEPY_TIME_BLOCKED] = "blocked",
	[SLEEPY_TIME_IO] = "io",
	[SLEEPY_SWITCH_EXITING] = "exiting",
	[SLEEPY_TIME_STOPPED] = "stopped",
	[SLEEPY_TIME_RUNQUEUE] = "runqueue",
	[SLEEPY_TIME_ON_CPU] = "on_cpu",
	[SLEEPY_TIME_UNKNOWN] = "unknown",
};

const char *sleepy_time_kind_name(enum sleepy_time_kind kind)
{
	return kind < SLEEPY_TIME_KINDS ? kind_names[kind] : "?";
}

void sleepy_sched_init(struct sleepy_sched *sched)
{
	memset(sched, 0, sizeof(*sched));
	sleepy_table_init(&sched->sites, sizeof(struct sleepy_offcpu_site));
	sleepy_table_init(&sched->links, sizeof(struct sleepy_wakeup_link));
	sleepy_table_init(&sched->walls, sizeof(struct sleepy_wall));
	sleepy_table_init(&sched->waits, sizeof(struct sleepy_wait_hist));
}

void sleepy_sched_free(struct sleepy_sched *sched)
{
	free(sched->events);
	sleepy_table_free(&sched->sites);
	sleepy_table_free(&sched->links);
	sleepy_table_free(&sched->walls);
	sleepy_table_free(&sched->waits);
	sleepy_sched_init(sched);
}

void sleepy_sched_add(struct sleepy_sched *sched,
		      const struct sleepy_record_header *record)
{
	struct sleepy_sched_event *e;

	if (sched->nevents == sched->capacity) {
		sched->capacity = sched->capacity ? sched->capacity * 2 : 4096;
		sched->events = sleepy_xrealloc(sched->events,
					 sched->capacity * sizeof(*e));
	}
	e = &sched->events[sched->nevents];
	memset(e, 0, sizeof(*e));
	e->seq = sched->nevents++;
	e->type = record->type;
	if (record->type == SLEEPY_REC_SWITCH) {
		const struct sleepy_switch *s = (const void *)record;

		e->time_ns = s->time_ns;
		e->user_ip = s->user_ip;
		e->kernel_ip = s->kernel_ip;
		e->tid[0] = s->prev_tid;
		e->appid[0] = s->prev_appid;
		e->tid[1] = s->next_tid;
		e->appid[1] = s->next_appid;
		e->reason = s->reason <= SLEEPY_SWITCH_STOPPED ? s->reason :
			    SLEEPY_SWITCH_STOPPED;
		sched->switches++;
	} else {
		const struct sleepy_wakeup *w = (const void *)record;

		e->time_ns = w->time_ns;
		e->user_ip = w->waker_user_ip;
		e->tid[0] = w->waker_tid;
		e->appid[0] = w->waker_appid;
		e->tid[1] = w->wakee_tid;
		e->appid[1] = w->wakee_appid;
		e->flags = w->flags;
		e->source = w->source;
		sched->wakeups++;
	}
}
