/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of the sleepy profiler: the appid tables (apps.c)
 * and the per-CPU record buffer (buffer.c), used by the session code
 * (core.c) and by the KUnit tests.
 */
#ifndef _KERNEL_SLEEPY_SLEEPY_H
#define _KERNEL_SLEEPY_SLEEPY_H

#include <linux/hashtable.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <uapi/linux/sleepy.h>

struct dentry;
struct rchan;

#define SLEEPY_PID_HASH_BITS	12
#define SLEEPY_NAME_HASH_BITS	10

/* One live process: thread group id -> appid.  Read under RCU. */
struct sleepy_app {
	struct hlist_node pid_node;
	struct llist_node free_node;
	struct rcu_head rcu;
	struct sleepy_apps *apps;
	pid_t pid;
	u32 appid;
	bool selected;
};

/* One program name -> how many instances it had.  Process context only. */
struct sleepy_name {
	struct hlist_node name_node;
	u32 instances;
	char name[SLEEPY_APP_NAME_LEN];
};

/**
 * struct sleepy_apps - the pid_appid and max_appid tables of one session
 * @lock: serialises every change; taken in process context only, never
 *	by the sampling interrupt, which looks up under RCU
 * @next_appid: last appid handed out
 * @overflows: tasks that found the tables full and were left unmapped
 * @app_pool: @capacity preallocated entries; freed ones return through
 *	call_rcu() to @free_apps, so a reader never sees one reused under it
 * @name_pool: @capacity name entries, @names_used of them in use
 */
struct sleepy_apps {
	spinlock_t lock;	/* process context only */
	u32 next_appid;
	u32 capacity;
	u32 names_used;
	u64 overflows;
	struct llist_head free_apps;
	struct sleepy_app *app_pool;
	struct sleepy_name *name_pool;
	DECLARE_HASHTABLE(by_pid, SLEEPY_PID_HASH_BITS);
	DECLARE_HASHTABLE(by_name, SLEEPY_NAME_HASH_BITS);
};

/* What sleepy_apps_add() did, for the records the caller writes. */
struct sleepy_app_change {
	u32 appid;
	u32 instance;
	u32 old_appid;	/* mapping it replaced or removed, 0 if none */
};

struct sleepy_apps *sleepy_apps_create(u32 capacity);
void sleepy_apps_destroy(struct sleepy_apps *apps);
u32 sleepy_apps_lookup(struct sleepy_apps *apps, pid_t pid, bool *selected);
int sleepy_apps_add(struct sleepy_apps *apps, pid_t pid, const char *name,
		    bool selected, bool replace,
		    struct sleepy_app_change *change);
u32 sleepy_apps_remove(struct sleepy_apps *apps, pid_t pid);
u32 sleepy_apps_live(struct sleepy_apps *apps);

/* Counters of one CPU, written by that CPU only with interrupts off. */
struct sleepy_buffer_stats {
	u64 samples;
	u64 dropped;
	u64 idle;
	u64 unknown;
	u64 missed;
	u64 lost_pending;	/* dropped but not yet reported in-stream */
};

/**
 * struct sleepy_buffer - per-CPU relay channel holding sleepy records
 * @chan: the relay channel; one sub-buffer set per CPU
 * @size: bytes of buffer per CPU
 * @stats: per-CPU counters
 */
struct sleepy_buffer {
	struct rchan *chan;
	size_t size;
	struct sleepy_buffer_stats __percpu *stats;
};

int sleepy_buffer_open(struct sleepy_buffer *buffer, struct dentry *dir,
		       size_t size);
void sleepy_buffer_close(struct sleepy_buffer *buffer);
void sleepy_buffer_flush(struct sleepy_buffer *buffer);
bool sleepy_buffer_write(struct sleepy_buffer *buffer, void *record,
			 enum sleepy_record_type type, size_t size);

#endif /* _KERNEL_SLEEPY_SLEEPY_H */
