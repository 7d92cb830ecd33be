/* SPDX-License-Identifier: GPL-2.0 */
/* The replay of a --sched recording's records (sched_replay.c). */
#ifndef SLEEPY_SCHED_REPLAY_H
#define SLEEPY_SCHED_REPLAY_H

#include <stdint.h>

#include "model/profile.h"
#include "model/sched.h"

/*
 * Replays the records in time order over the session, from @begin_ns to
 * @end_ns; @profile gives the applications' start times (exec).
 */
void sleepy_sched_replay(struct sleepy_sched *sched,
			 struct sleepy_profile *profile,
			 uint64_t begin_ns, uint64_t end_ns);

#endif
