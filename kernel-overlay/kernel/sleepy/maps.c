// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: the executable file mappings of the profiled processes, so that
 * the tools can turn a user IP into a binary, a build-id and a file offset
 * even after the process exited or its pid was reused.
 *
 * Writers, all in process context and none on the sampling path: the mmap
 * and mprotect hooks (a mapping made executable is new to the tools), in
 * the mapping task with its mm's mmap_lock held for writing, into that
 * CPU's buffer; and at the session start, one walk per online CPU (a
 * kworker bound to it) over its share of the processes, each mm read under
 * its mmap_lock.  The path (d_path()) and the build-id (only from pages in
 * memory, as perf reads it: no fault under mmap_lock) are read before the
 * RCU section that finds the session, so the allocation they need may
 * sleep; the record is then copied like any other.
 *
 * An exec maps the new image before the exec hook announces it, so those
 * mappings are flagged SLEEPY_MMAP_EXEC and carry no appid: they belong to
 * the next instance announced for their pid.  With a pid filter only the
 * selected processes' mappings are written.
 */
#include <linux/buildid.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sleepy.h>

#include "sleepy.h"

/* A record with room for the longest path it carries. */
struct sleepy_mmap_record {
	struct sleepy_mmap rec;
	char path[SLEEPY_MMAP_PATH_MAX];
};

/* What a record needs besides itself: d_path()'s buffer. */
struct sleepy_mmap_scratch {
	struct sleepy_mmap_record record;
	char path[PATH_MAX];
};

static bool sleepy_mmap_wanted(const struct vm_area_struct *vma)
{
	return (vma->vm_flags & VM_EXEC) && vma->vm_file;
}

/*
 * Fills the record of @vma but for its owner and time; returns its size.
 * Process context, @vma's mm locked.
 */
static size_t sleepy_mmap_fill(struct sleepy_mmap_scratch *scratch,
			       struct vm_area_struct *vma)
{
	struct sleepy_mmap *rec = &scratch->record.rec;
	char *path = file_path(vma->vm_file, scratch->path, PATH_MAX);
	size_t len;
	u32 build_id_size;

	static_assert(SLEEPY_BUILD_ID_MAX >= BUILD_ID_SIZE_MAX);
	memset(&scratch->record, 0, sizeof(scratch->record));
	if (IS_ERR(path))
		path = "[unreachable]";
	len = strlen(path);
	if (len >= SLEEPY_MMAP_PATH_MAX) {
		/* The end names the file; keep it. */
		path += len - (SLEEPY_MMAP_PATH_MAX - 1);
		len = SLEEPY_MMAP_PATH_MAX - 1;
		rec->flags |= SLEEPY_MMAP_PATH_TRUNCATED;
	}
	memcpy(scratch->record.path, path, len);
	rec->start = vma->vm_start;
	rec->len = vma->vm_end - vma->vm_start;
	rec->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	if (!build_id_parse_nofault(vma, rec->build_id, &build_id_size))
		rec->build_id_size = build_id_size;
	return ALIGN(sizeof(*rec) + len + 1, 8);
}

void __sleepy_mmap(struct vm_area_struct *vma)
{
	struct sleepy_mmap_scratch *scratch;
	struct sleepy_session *session;
	struct sleepy_mmap *rec;
	size_t size;
	u32 appid;

	if (!sleepy_mmap_wanted(vma))
		return;
	scratch = kmalloc(sizeof(*scratch), GFP_KERNEL);
	if (!scratch)
		return;
	rec = &scratch->record.rec;
	size = sleepy_mmap_fill(scratch, vma);

	rcu_read_lock();
	session = rcu_dereference(sleepy_live);
	if (!session)
		goto out;
	appid = sleepy_apps_lookup(session->apps, current->tgid);
	if (current->in_execve) {
		/* Announced at the end of the exec if selected then. */
		if (session->filter && appid == SLEEPY_APPID_UNKNOWN &&
		    task_tgid(current) != session->filter)
			goto out;
		rec->flags |= SLEEPY_MMAP_EXEC;
		appid = SLEEPY_APPID_UNKNOWN;
	} else if (session->filter && appid == SLEEPY_APPID_UNKNOWN) {
		goto out;
	}
	rec->time_ns = sleepy_now();
	rec->pid = current->tgid;
	rec->appid = appid;
	sleepy_buffer_write(&session->buffer, rec, SLEEPY_REC_MMAP, size);
out:
	rcu_read_unlock();
	kfree(scratch);
}

/*
 * A file mapping made executable by mprotect() (mapped read-only first,
 * then given PROT_EXEC) is new to the tools; one that already was
 * executable was written when it was mapped.
 */
void __sleepy_mprotect(struct vm_area_struct *vma, unsigned long oldflags)
{
	if (!(oldflags & VM_EXEC))
		__sleepy_mmap(vma);
}

/* Writes the executable mappings of @task's process, if it has an appid. */
static void sleepy_mmap_announce(struct sleepy_session *session,
				 struct task_struct *task,
				 struct sleepy_mmap_scratch *scratch)
{
	struct mm_struct *mm = get_task_mm(task);
	struct vm_area_struct *vma;
	u32 appid;

	if (!mm)
		return;
	rcu_read_lock();
	appid = sleepy_apps_lookup(session->apps, task->tgid);
	rcu_read_unlock();
	if (appid == SLEEPY_APPID_UNKNOWN || mmap_read_lock_killable(mm))
		goto out;
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {
			size_t size;

			if (!sleepy_mmap_wanted(vma))
				continue;
			size = sleepy_mmap_fill(scratch, vma);
			scratch->record.rec.time_ns = session->start_ns;
			scratch->record.rec.pid = task->tgid;
			scratch->record.rec.appid = appid;
			sleepy_buffer_write(&session->buffer,
					    &scratch->record.rec,
					    SLEEPY_REC_MMAP, size);
		}
	}
	mmap_read_unlock(mm);
out:
	mmput(mm);
}

/*
 * One CPU's share of the processes' mappings, on that CPU.  Sleeps (the
 * mmap_lock), so the processes are found one at a time by pid, each held
 * by a reference while its mm is read.
 */
static void sleepy_mmap_walk_share(struct work_struct *work)
{
	struct sleepy_walk *walk = container_of(work, struct sleepy_walk, work);
	struct sleepy_mmap_scratch *scratch;
	struct task_struct *task;
	struct pid *pid;
	int nr = 1;

	scratch = kmalloc(sizeof(*scratch), GFP_KERNEL);
	if (!scratch)
		return;
	for (;;) {
		rcu_read_lock();
		pid = find_ge_pid(nr, &init_pid_ns);
		if (!pid) {
			rcu_read_unlock();
			break;
		}
		nr = pid_nr(pid) + 1;
		task = pid_task(pid, PIDTYPE_TGID);
		if (task && (unsigned int)task->tgid % walk->shares == walk->share)
			get_task_struct(task);
		else
			task = NULL;
		rcu_read_unlock();
		if (task) {
			sleepy_mmap_announce(walk->session, task, scratch);
			put_task_struct(task);
		}
		cond_resched();
	}
	kfree(scratch);
}

/**
 * sleepy_announce_mappings - write the mappings of every announced process
 * @session: the session, running, its existing processes announced
 *
 * Process context; the caller holds no CPU hotplug lock (the walks take
 * mmap_lock).  Mappings made meanwhile are written by the hook as well.
 */
void sleepy_announce_mappings(struct sleepy_session *session)
{
	sleepy_walk_shares(session, sleepy_mmap_walk_share);
}
