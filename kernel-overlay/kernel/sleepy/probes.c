// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: registering a set of tracepoint probes, all or none.
 *
 * Process context, under the session lock.  A set is registered in its
 * order and unregistered in the reverse one, so a probe pair registered
 * exit first and entry second never sees an entry without its exit; the
 * unregistration waits until no probe of the set runs any more.
 */
#include <linux/tracepoint.h>

#include "sleepy.h"

/**
 * sleepy_probes_register - register @n probes, or none
 * @probes: the probes, in the order to register them
 * @n: how many
 *
 * Returns 0, or the error of the first that failed, the others
 * unregistered again.
 */
int sleepy_probes_register(const struct sleepy_probe *probes, unsigned int n)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		err = probes[i].reg();
		if (err) {
			sleepy_probes_unregister(probes, i);
			return err;
		}
	}
	return 0;
}

/**
 * sleepy_probes_unregister - unregister @n probes, last first
 * @probes: the probes, as registered
 * @n: how many
 *
 * Returns once none of them runs.
 */
void sleepy_probes_unregister(const struct sleepy_probe *probes, unsigned int n)
{
	while (n--)
		probes[n].unreg();
	tracepoint_synchronize_unregister();
}

/**
 * sleepy_probes_attach - register @n probes for a session, or none
 * @attached: the session's note of them, set if they are registered
 * @probes: the probes, in the order to register them
 * @n: how many
 *
 * Returns 0 or a negative errno.
 */
int sleepy_probes_attach(bool *attached, const struct sleepy_probe *probes,
			 unsigned int n)
{
	int err = sleepy_probes_register(probes, n);

	*attached = !err;
	return err;
}

/* Unregisters them if @attached says they are registered. */
void sleepy_probes_detach(bool *attached, const struct sleepy_probe *probes,
			  unsigned int n)
{
	if (!*attached)
		return;
	sleepy_probes_unregister(probes, n);
	*attached = false;
}
