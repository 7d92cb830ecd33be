// SPDX-License-Identifier: GPL-2.0
/*
 * Appid tables of the sleepy profiler.
 *
 * An appid names one instance of one program for a whole session: the
 * max_appid table (by_name) counts how often each program name started,
 * and the pid_appid table (by_pid) maps a live thread group to the appid
 * of the image it runs.  Fork and exec add a mapping, the exit of the last
 * thread removes it, so a reused pid always gets a new appid.
 *
 * Writers: process context only (session start, fork, exec, exit hooks),
 * serialised by apps->lock.  The hooks are tracepoint probes, which run
 * with preemption off, so the lock is a raw spinlock (a spinlock_t sleeps
 * on PREEMPT_RT) and every section under it is short and bounded: a few
 * hash probes, no allocation.  Readers: the sampling interrupt, which only
 * looks up by_pid under RCU and never takes the lock, so it cannot deadlock
 * against a writer it interrupted.
 *
 * Both tables are bounded: entries come from pools allocated when the
 * session starts, so no path allocates memory.  A removed pid entry goes
 * back to its pool only after an RCU grace period.  A task that finds a
 * pool empty stays unmapped and is counted in apps->overflows.
 */
#include <linux/jhash.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sleepy.h"

/**
 * sleepy_apps_create - allocate the tables of a session
 * @capacity: most live processes and most distinct program names
 */
struct sleepy_apps *sleepy_apps_create(u32 capacity)
{
	struct sleepy_apps *apps;
	u32 i;

	apps = kvzalloc(sizeof(*apps), GFP_KERNEL);
	if (!apps)
		return NULL;

	apps->app_pool = kvcalloc(capacity, sizeof(*apps->app_pool),
				  GFP_KERNEL);
	apps->name_pool = kvcalloc(capacity, sizeof(*apps->name_pool),
				   GFP_KERNEL);
	if (!apps->app_pool || !apps->name_pool) {
		kvfree(apps->app_pool);
		kvfree(apps->name_pool);
		kvfree(apps);
		return NULL;
	}

	raw_spin_lock_init(&apps->lock);
	apps->capacity = capacity;
	hash_init(apps->by_pid);
	hash_init(apps->by_name);
	init_llist_head(&apps->free_apps);
	for (i = 0; i < capacity; i++) {
		apps->app_pool[i].apps = apps;
		llist_add(&apps->app_pool[i].free_node, &apps->free_apps);
	}
	return apps;
}

/* The caller guarantees no reader and no writer is left (grace period). */
void sleepy_apps_destroy(struct sleepy_apps *apps)
{
	if (!apps)
		return;
	/* Entries still on their way back to the pool reference it. */
	rcu_barrier();
	kvfree(apps->app_pool);
	kvfree(apps->name_pool);
	kvfree(apps);
}

static struct sleepy_app *sleepy_app_find(struct sleepy_apps *apps,
					  pid_t pid)
{
	struct sleepy_app *app;

	hash_for_each_possible_rcu(apps->by_pid, app, pid_node, pid,
				   lockdep_is_held(&apps->lock))
		if (app->pid == pid)
			return app;
	return NULL;
}

/**
 * sleepy_apps_lookup - appid of thread group @pid, any context
 * @apps: the tables
 * @pid: thread group id
 *
 * Returns SLEEPY_APPID_UNKNOWN if @pid has no mapping.
 */
u32 sleepy_apps_lookup(struct sleepy_apps *apps, pid_t pid)
{
	struct sleepy_app *app;
	u32 appid = SLEEPY_APPID_UNKNOWN;

	rcu_read_lock();
	app = sleepy_app_find(apps, pid);
	if (app)
		appid = app->appid;
	rcu_read_unlock();
	return appid;
}

/* Next instance number of @name, 0 if the name table is full. */
static u32 sleepy_name_start(struct sleepy_apps *apps, const char *name)
{
	char key[SLEEPY_APP_NAME_LEN] = {};
	struct sleepy_name *entry;
	u32 hash;

	strscpy(key, name, sizeof(key));
	hash = jhash(key, sizeof(key), 0);
	hash_for_each_possible(apps->by_name, entry, name_node, hash)
		if (!memcmp(entry->name, key, sizeof(key)))
			return ++entry->instances;

	if (apps->names_used == apps->capacity)
		return 0;
	entry = &apps->name_pool[apps->names_used++];
	memcpy(entry->name, key, sizeof(key));
	entry->instances = 1;
	hash_add(apps->by_name, &entry->name_node, hash);
	return 1;
}

static void sleepy_app_free_rcu(struct rcu_head *rcu)
{
	struct sleepy_app *app = container_of(rcu, struct sleepy_app, rcu);

	llist_add(&app->free_node, &app->apps->free_apps);
}

static void sleepy_app_retire(struct sleepy_app *app)
{
	app->apps->live--;
	hash_del_rcu(&app->pid_node);
	call_rcu(&app->rcu, sleepy_app_free_rcu);
}

/**
 * sleepy_apps_add - give thread group @pid a new appid, process context
 * @apps: the tables
 * @pid: thread group id
 * @name: program name (comm)
 * @replace: retire an existing mapping of @pid (exec); if false, an
 *	existing mapping is kept and -EEXIST returned
 * @live: if not NULL, map only while *@live is non-zero, checked under the
 *	tables' lock: the process's count of live threads, which its exit
 *	decrements before the exit hook removes the mapping
 * @change: filled with the new appid and instance, and the retired appid
 *
 * Returns 0, -EEXIST, -ESRCH if *@live was zero, or -ENOSPC if a table is
 * full; then @pid is left unmapped (change->old_appid still tells what was
 * retired).
 */
int sleepy_apps_add(struct sleepy_apps *apps, pid_t pid, const char *name,
		    bool replace, const atomic_t *live,
		    struct sleepy_app_change *change)
{
	struct sleepy_app *old, *app = NULL;
	struct llist_node *node;
	int err = 0;

	memset(change, 0, sizeof(*change));
	raw_spin_lock(&apps->lock);
	if (live && !atomic_read(live)) {
		err = -ESRCH;
		goto unlock;
	}
	old = sleepy_app_find(apps, pid);
	if (old && !replace) {
		err = -EEXIST;
		goto unlock;
	}
	if (old) {
		change->old_appid = old->appid;
		sleepy_app_retire(old);
	}

	change->instance = sleepy_name_start(apps, name);
	node = change->instance ? llist_del_first(&apps->free_apps) : NULL;
	if (!node) {
		apps->overflows++;
		err = -ENOSPC;
		goto unlock;
	}

	app = llist_entry(node, struct sleepy_app, free_node);
	app->pid = pid;
	app->appid = ++apps->next_appid;
	hash_add_rcu(apps->by_pid, &app->pid_node, pid);
	apps->live++;
	change->appid = app->appid;
unlock:
	raw_spin_unlock(&apps->lock);
	return err;
}

/* Drops the mapping of @pid; returns the appid it had, 0 if none. */
u32 sleepy_apps_remove(struct sleepy_apps *apps, pid_t pid)
{
	struct sleepy_app *app;
	u32 appid = SLEEPY_APPID_UNKNOWN;

	raw_spin_lock(&apps->lock);
	app = sleepy_app_find(apps, pid);
	if (app) {
		appid = app->appid;
		sleepy_app_retire(app);
	}
	raw_spin_unlock(&apps->lock);
	return appid;
}

/* Number of live mappings, for statistics. */
u32 sleepy_apps_live(struct sleepy_apps *apps)
{
	u32 live;

	raw_spin_lock(&apps->lock);
	live = apps->live;
	raw_spin_unlock(&apps->lock);
	return live;
}
