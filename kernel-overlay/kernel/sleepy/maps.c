// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy: the executable file mappings of the profiled processes, so that
 * the tools can turn a user IP into a binary, a build-id and a file offset
 * even after the process exited or its pid was reused.
 *
 * Writers, all in process context and none on the sampling path: the mmap
 * and mprotect hooks (a mapping made executable is new to the tools), in
 * the mapping task with its mm's mmap_lock held for writing, into that
 * CPU's buffer; and the start walk (walk.c), which writes each existing
 * process's mappings at the pace of the reader, its mm read-locked.  The
 * hook asks whether a session wants the mapping before it reads anything;
 * the path (d_path()) and the build-id (only from pages in memory, as
 * perf reads it: no fault under mmap_lock) are read outside the RCU
 * section that finds the session, so the allocation they need may sleep;
 * the record is then copied like any other.
 *
 * The vDSO, an executable mapping of no file that exec installs, is
 * written like a file mapping, by its name ("[vdso]"), so that the tools
 * can name the samples in it from their own copy of it.
 *
 * An exec maps the new image before the exec hook announces it, so those
 * mappings are flagged SLEEPY_MMAP_EXEC and carry no appid: they belong to
 * the next instance announced for their pid.  With a pid filter only the
 * selected processes' mappings are written.
 */
#include <linux/buildid.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/path.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sleepy.h>

#include "sleepy.h"

/*
 * The name of a mapping of no file, as /proc/PID/maps gives it: "[vdso]"
 * for the vDSO, which exec installs as a special mapping; NULL if none.
 */
static const char *sleepy_mmap_special_name(struct vm_area_struct *vma)
{
	if (vma->vm_file || !vma->vm_ops || !vma->vm_ops->name)
		return NULL;
	return vma->vm_ops->name(vma);
}

static bool sleepy_mmap_wanted(struct vm_area_struct *vma)
{
	return (vma->vm_flags & VM_EXEC) &&
	       (vma->vm_file || sleepy_mmap_special_name(vma));
}

/*
 * Fills the record of @vma but for its owner and time; returns its size.
 * The path is seen from @root, the owner's root, when it is not the
 * caller's (the walk's kthread has init's, a process in a container
 * another): the hook, which runs in the owner, sees it from there too.
 * Process context, @vma's mm locked.
 */
static size_t sleepy_mmap_fill(struct sleepy_mmap_scratch *scratch,
			       struct vm_area_struct *vma,
			       const struct path *root)
{
	struct sleepy_mmap *rec = &scratch->record.rec;
	const char *path = sleepy_mmap_special_name(vma);
	const struct inode *inode;
	size_t len;
	u32 build_id_size;

	static_assert(SLEEPY_BUILD_ID_MAX >= BUILD_ID_SIZE_MAX);
	memset(&scratch->record, 0, sizeof(scratch->record));
	rec->start = vma->vm_start;
	rec->len = vma->vm_end - vma->vm_start;
	if (path) {
		len = strnlen(path, SLEEPY_MMAP_PATH_MAX - 1);
		memcpy(scratch->record.path, path, len);
		return ALIGN(sizeof(*rec) + len + 1, 8);
	}
	if (root)
		path = __d_path(&vma->vm_file->f_path, root, scratch->path,
				PATH_MAX);
	if (!path)
		path = file_path(vma->vm_file, scratch->path, PATH_MAX);
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
	rec->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	inode = file_user_inode(vma->vm_file);
	rec->dev_major = MAJOR(inode->i_sb->s_dev);
	rec->dev_minor = MINOR(inode->i_sb->s_dev);
	rec->ino = inode->i_ino;
	if (!build_id_parse_nofault(vma, rec->build_id, &build_id_size))
		rec->build_id_size = build_id_size;
	return ALIGN(sizeof(*rec) + len + 1, 8);
}

/*
 * Whether the mapping current makes goes into @session's stream, and as
 * whose: *@appid and *@flags for its record.  Under RCU.
 */
static bool sleepy_mmap_owner(struct sleepy_session *session, u32 *appid,
			      u32 *flags)
{
	*appid = sleepy_apps_lookup(session->apps, current->tgid);
	*flags = 0;
	if (current->in_execve) {
		/* Announced at the end of the exec if selected then. */
		if (session->filter && *appid == SLEEPY_APPID_UNKNOWN &&
		    task_tgid(current) != session->filter)
			return false;
		*flags = SLEEPY_MMAP_EXEC;
		*appid = SLEEPY_APPID_UNKNOWN;
		return true;
	}
	return !session->filter || *appid != SLEEPY_APPID_UNKNOWN;
}

static bool sleepy_mmap_session_wants(void)
{
	struct sleepy_session *session;
	u32 appid, flags;
	bool wanted;

	rcu_read_lock();
	session = rcu_dereference(sleepy_live);
	wanted = session && sleepy_mmap_owner(session, &appid, &flags);
	rcu_read_unlock();
	return wanted;
}

/*
 * Asks first whether the record is wanted, so that a mapping no session
 * takes costs no allocation, path or build-id; then asks again once they
 * are read, since the session may have stopped meanwhile.
 */
void __sleepy_mmap(struct vm_area_struct *vma)
{
	struct sleepy_mmap_scratch *scratch;
	struct sleepy_session *session;
	struct sleepy_mmap *rec;
	size_t size;
	u32 appid, flags;

	if (!sleepy_mmap_wanted(vma) || !sleepy_mmap_session_wants())
		return;
	scratch = kmalloc(sizeof(*scratch), GFP_KERNEL);
	if (!scratch)
		return;
	rec = &scratch->record.rec;
	size = sleepy_mmap_fill(scratch, vma, NULL);

	rcu_read_lock();
	session = rcu_dereference(sleepy_live);
	if (session && sleepy_mmap_owner(session, &appid, &flags)) {
		rec->flags |= flags;
		rec->time_ns = sleepy_now();
		rec->pid = current->tgid;
		rec->appid = appid;
		sleepy_buffer_write(&session->buffer, rec, SLEEPY_REC_MMAP,
				    size);
	}
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

/*
 * Writes @mm's executable mappings from @*addr on while they fit; returns
 * false, with *@addr at the first that did not, if one did not.  @mm is
 * read-locked.
 */
static bool sleepy_mmap_write_from(struct sleepy_session *session,
				   struct mm_struct *mm, unsigned long *addr,
				   pid_t pid, u32 appid, const struct path *root,
				   struct sleepy_mmap_scratch *scratch)
{
	VMA_ITERATOR(vmi, mm, *addr);
	struct sleepy_mmap *rec = &scratch->record.rec;
	struct vm_area_struct *vma;

	for_each_vma(vmi, vma) {
		size_t size;

		if (!sleepy_mmap_wanted(vma))
			continue;
		size = sleepy_mmap_fill(scratch, vma, root);
		rec->time_ns = session->start_ns;
		rec->pid = pid;
		rec->appid = appid;
		if (!sleepy_buffer_write_paced(&session->buffer, rec,
					       SLEEPY_REC_MMAP, size)) {
			*addr = vma->vm_start;
			return false;
		}
	}
	return true;
}

/*
 * @task's root in @root, held, if it is not the caller's; else NULL, and
 * the caller's view of a path is the task's.
 */
static struct path *sleepy_task_root(struct task_struct *task,
				     struct path *root)
{
	struct path own;
	bool has_fs, other;

	task_lock(task);
	has_fs = task->fs;
	if (has_fs)
		get_fs_root(task->fs, root);
	task_unlock(task);
	if (!has_fs)
		return NULL;
	get_fs_root(current->fs, &own);
	other = !path_equal(root, &own);
	path_put(&own);
	if (other)
		return root;
	path_put(root);
	return NULL;
}

/*
 * The mm of @leader's process, referenced, and in @thread a thread using
 * it, referenced: a leader that exited left both to its other threads.
 */
static struct mm_struct *sleepy_process_mm(struct task_struct *leader,
					   struct task_struct **thread)
{
	struct mm_struct *mm = NULL;
	struct task_struct *t;

	rcu_read_lock();
	for_each_thread(leader, t) {
		mm = get_task_mm(t);
		if (mm) {
			*thread = get_task_struct(t);
			break;
		}
	}
	rcu_read_unlock();
	return mm;
}

/**
 * sleepy_walk_mappings - write the executable mappings of an existing process
 * @session: the session
 * @task: the process's leader, referenced
 * @appid: the appid the walk gave it
 * @scratch: room for one record
 *
 * For the start walk (walk.c), in its kthread: the mmap_lock is never
 * held while the walk waits for the reader, and is taken in a way the
 * session's stop can interrupt.  Returns 0, or -EINTR if the session
 * stops first.
 */
int sleepy_walk_mappings(struct sleepy_session *session,
			 struct task_struct *task, u32 appid,
			 struct sleepy_mmap_scratch *scratch)
{
	struct path root, *own_root;
	struct task_struct *thread;
	unsigned long addr = 0;
	struct mm_struct *mm;
	bool done = false;
	int err = 0;

	mm = sleepy_process_mm(task, &thread);
	if (!mm)
		return 0;
	own_root = sleepy_task_root(thread, &root);
	put_task_struct(thread);
	while (!done) {
		err = sleepy_walk_lock_mm(mm);
		if (err)
			break;
		done = sleepy_mmap_write_from(session, mm, &addr, task->tgid,
					      appid, own_root, scratch);
		mmap_read_unlock(mm);
		if (!done) {
			err = sleepy_walk_wait_room(session);
			if (err)
				break;
		}
	}
	if (own_root)
		path_put(own_root);
	mmput(mm);
	return err;
}
