// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the appids and mappings a session writes: new instances on
 * fork, exec and pid reuse, executable mappings, the start walk (at the
 * reader's pace, without a reader, against zombies and a fork storm) and
 * pid filters.  Needs root.
 */
#define _GNU_SOURCE	/* before any header: sleepy_test.h's sched.h API */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "sleepy_test.h"

TEST_F(sleepy, fork_new_instance)
{
	struct sleepy_app_start *me, *child;
	struct stream s;
	pid_t pid;

	ASSERT_EQ(0, start(self, &self->attr));
	pid = fork();
	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	me = find_app(&s, getpid(), NULL, 0);
	child = find_app(&s, pid, NULL, 0);
	ASSERT_TRUE(me != NULL);
	ASSERT_TRUE(child != NULL);
	EXPECT_EQ(0, strncmp(me->name, child->name, sizeof(me->name)));
	EXPECT_NE(me->appid, child->appid);
	EXPECT_EQ(me->appid, child->parent_appid);
	EXPECT_GT(child->instance, me->instance);
	EXPECT_TRUE(has_exit(&s, child->appid));
	EXPECT_FALSE(has_exit(&s, me->appid));
	free(s.records);
}

TEST_F(sleepy, exec_new_instance)
{
	struct sleepy_app_start *first, *second, *forked;
	struct stream s;
	pid_t pid1, pid2;

	ASSERT_EQ(0, start(self, &self->attr));
	pid1 = run("/bin/true");
	pid2 = run("/bin/true");
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	/* Per-CPU streams are not in time order: tell them apart by name. */
	first = find_app(&s, pid1, "true", 0);
	second = find_app(&s, pid2, "true", 0);
	forked = find_app(&s, pid1, NULL, 0);
	if (forked == first)
		forked = find_app(&s, pid1, NULL, 1);
	ASSERT_TRUE(first != NULL);
	ASSERT_TRUE(second != NULL);
	ASSERT_TRUE(forked != NULL);
	EXPECT_EQ(first->instance + 1, second->instance);
	EXPECT_NE(first->appid, second->appid);
	EXPECT_NE(forked->appid, first->appid);
	EXPECT_LT(forked->appid, first->appid);
	EXPECT_EQ(forked->appid, first->parent_appid);
	EXPECT_TRUE(has_exit(&s, forked->appid));	/* retired by exec */
	EXPECT_TRUE(has_exit(&s, first->appid));
	free(s.records);
}

/* Whether @m names the file at @path by its device and inode. */
static bool is_file(const struct sleepy_mmap *m, const char *path)
{
	struct stat st;

	return !stat(path, &st) && m->ino == st.st_ino &&
	       m->dev_major == major(st.st_dev) &&
	       m->dev_minor == minor(st.st_dev);
}

/*
 * The first mapping record of @pid with @flags that starts at @start, or
 * (@exact false) anywhere but there, of the file at @path if not NULL.
 * The stream comes CPU by CPU, not in time order.
 */
static struct sleepy_mmap *find_mmap(struct stream *s, pid_t pid, uint32_t flags,
				     uint64_t start, bool exact, const char *path)
{
	struct sleepy_record_header *r;

	for_each_record(s, r) {
		struct sleepy_mmap *m = (void *)r;

		if (r->type == SLEEPY_REC_MMAP && m->pid == (uint32_t)pid &&
		    m->flags == flags && (m->start == start) == exact &&
		    (!path || is_file(m, path)))
			return m;
	}
	return NULL;
}

/* The mapping record of @pid that holds @addr (its text, for a function). */
static struct sleepy_mmap *find_mmap_of(struct stream *s, pid_t pid,
					uint64_t addr)
{
	struct sleepy_record_header *r;

	for_each_record(s, r) {
		struct sleepy_mmap *m = (void *)r;

		if (r->type == SLEEPY_REC_MMAP && m->pid == (uint32_t)pid &&
		    !m->flags && addr - m->start < m->len)
			return m;
	}
	return NULL;
}

#define JAIL "/tmp/sleepy-jail"
#define JAILED_SLEEP "SLEEPY_TEST_JAILED_SLEEP"

/*
 * A copy of this static program in the jail sleeps there, so that the
 * test needs no other program on the system (a Debian system has no
 * busybox).
 */
__attribute__((constructor)) static void jailed_sleep(void)
{
	if (getenv(JAILED_SLEEP))
		for (;;)
			pause();
}

/* Copies @from to @to, executable. */
static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY), out;
	char buf[65536];
	ssize_t n = -1;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out >= 0) {
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, n) != n)
				break;
		close(out);
	}
	close(in);
	return n ? -1 : 0;
}

/*
 * Whether @pid runs the jail's sleeper, waiting up to 30 s for its exec,
 * so that the start walk sees it there.
 */
static bool runs_sleeper(pid_t pid)
{
	char link[64], target[256];
	int i;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	for (i = 0; i < 3000; i++) {
		ssize_t n = readlink(link, target, sizeof(target) - 1);

		if (n > 0) {
			target[n] = '\0';
			if (!strcmp(target, JAIL "/sleeper"))
				return true;
		}
		usleep(10000);
	}
	return false;
}

/*
 * A process in another root (a chroot, as in a container) names its
 * files from there, in the mmap hook's records; the start walk, run by a
 * kernel thread with init's root, names them the same way.
 */
TEST_F(sleepy, start_walk_paths_from_the_process_root)
{
	pid_t parent = getpid(), jailed;
	struct sleepy_mmap *m;
	struct stream s;

	ASSERT_EQ(0, mkdir(JAIL, 0755) && errno != EEXIST);
	ASSERT_EQ(0, copy_file("/proc/self/exe", JAIL "/sleeper"));
	jailed = fork();
	if (!jailed) {
		die_with_parent(parent);
		if (chroot(JAIL) || chdir("/") || setenv(JAILED_SLEEP, "1", 1))
			_exit(1);
		execl("/sleeper", "sleeper", (char *)NULL);
		_exit(2);
	}
	ASSERT_LT(0, jailed);
	ASSERT_TRUE(runs_sleeper(jailed));
	ASSERT_EQ(0, start(self, &self->attr));
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	m = find_mmap(&s, jailed, 0, 0, false, NULL);
	ASSERT_TRUE(m != NULL);
	EXPECT_STREQ("/sleeper", m->path);
	EXPECT_TRUE(is_file(m, JAIL "/sleeper"));
	kill(jailed, SIGKILL);
	waitpid(jailed, NULL, 0);
	unlink(JAIL "/sleeper");
	rmdir(JAIL);
	free(s.records);
}

/*
 * The executable mappings: this process's at the start (its text, with
 * the build-id every Debian binary has), one it maps while the session
 * runs (this file again, at an offset), one it maps read-only and then
 * makes executable with mprotect(), and the new image of an exec.
 */
TEST_F(sleepy, mappings)
{
	struct sleepy_app_start *me, *child;
	struct sleepy_mmap *text, *mapped, *protected, *exec;
	char exe[256];
	struct stream s;
	ssize_t len;
	void *map, *map_ro;
	pid_t pid;
	int fd;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_GT(len, 0);
	exe[len] = '\0';
	fd = open(exe, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start(self, &self->attr));
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 4096);
	ASSERT_TRUE(map != MAP_FAILED);
	map_ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 8192);
	ASSERT_TRUE(map_ro != MAP_FAILED);
	ASSERT_EQ(0, mprotect(map_ro, 4096, PROT_READ | PROT_EXEC));
	pid = run("/bin/true");
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	me = find_app(&s, getpid(), NULL, 0);
	child = find_app(&s, pid, "true", 0);
	ASSERT_TRUE(me != NULL);
	ASSERT_TRUE(child != NULL);

	text = find_mmap_of(&s, getpid(), (uintptr_t)find_mmap);
	ASSERT_TRUE(text != NULL);
	EXPECT_STREQ(exe, text->path);
	EXPECT_TRUE(is_file(text, exe));
	EXPECT_EQ(me->appid, text->appid);
	EXPECT_GT(text->len, 0);
	EXPECT_EQ(20, text->build_id_size);

	mapped = find_mmap(&s, getpid(), 0, (uintptr_t)map, true, NULL);
	ASSERT_TRUE(mapped != NULL);
	EXPECT_STREQ(exe, mapped->path);
	EXPECT_TRUE(is_file(mapped, exe));
	EXPECT_EQ(me->appid, mapped->appid);
	EXPECT_EQ(4096, mapped->len);
	EXPECT_EQ(4096, mapped->pgoff);
	EXPECT_EQ(0, memcmp(text->build_id, mapped->build_id, 20));
	EXPECT_GE(mapped->time_ns, text->time_ns);

	protected = find_mmap(&s, getpid(), 0, (uintptr_t)map_ro, true, NULL);
	ASSERT_TRUE(protected != NULL);
	EXPECT_STREQ(exe, protected->path);
	EXPECT_EQ(me->appid, protected->appid);
	EXPECT_EQ(4096, protected->len);
	EXPECT_EQ(8192, protected->pgoff);

	/*
	 * Mapped by the exec, before the new image is announced: an exec
	 * that moved CPU may have its vDSO's or interpreter's record first.
	 */
	exec = find_mmap(&s, pid, SLEEPY_MMAP_EXEC, 0, false, "/bin/true");
	ASSERT_TRUE(exec != NULL);
	EXPECT_EQ(0, exec->appid);
	EXPECT_TRUE(is_file(exec, exec->path));
	EXPECT_GT(exec->len, 0);
	EXPECT_LE(exec->time_ns, child->time_ns);
	EXPECT_EQ(0, exec->header.size % 8);
	EXPECT_LT(strlen(exec->path), exec->header.size - sizeof(*exec));
	munmap(map, 4096);
	munmap(map_ro, 4096);
	close(fd);
	free(s.records);
}

static pid_t clone_with_tid(pid_t tid)
{
	struct clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = (uintptr_t)&tid,
		.set_tid_size = 1,
	};

	return syscall(__NR_clone3, &args, sizeof(args));
}

TEST_F(sleepy, pid_reuse_new_appid)
{
	struct sleepy_app_start *first, *second;
	struct stream s;
	pid_t tid, pid;
	int i;

	/* A pid nobody uses. */
	for (tid = 20000; tid < 30000 && !(kill(tid, 0) && errno == ESRCH); tid++)
		;
	ASSERT_EQ(0, start(self, &self->attr));
	for (i = 0; i < 2; i++) {
		pid = clone_with_tid(tid);
		if (!pid)
			_exit(0);
		ASSERT_EQ(tid, pid) TH_LOG("clone3 set_tid: %s", strerror(errno));
		waitpid(pid, NULL, 0);
	}
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	first = find_app(&s, tid, NULL, 0);
	second = find_app(&s, tid, NULL, 1);
	ASSERT_TRUE(first != NULL);
	ASSERT_TRUE(second != NULL);
	if (first->appid > second->appid) {
		struct sleepy_app_start *t = first;

		first = second;
		second = t;
	}
	EXPECT_NE(first->appid, second->appid);
	EXPECT_EQ(first->instance + 1, second->instance);
	EXPECT_TRUE(has_exit(&s, first->appid));
	EXPECT_TRUE(has_exit(&s, second->appid));
	free(s.records);
}

/* @n children that wait for SIGKILL, their pids in @pids. */
static int spawn_waiters(pid_t *pids, int n)
{
	pid_t parent = getpid();
	int i;

	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (!pids[i]) {
			die_with_parent(parent);
			for (;;)
				pause();
		}
	}
	return 0;
}

static void kill_waiters(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
}

/* Executable mappings of files, and the vDSO, /proc/PID/maps lists for @pid. */
static int exec_mappings(pid_t pid)
{
	char path[64], line[512], perms[8];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* [vsyscall] is listed too, but is no mapping of the process. */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*x-%*x %7s", perms) == 1 && perms[2] == 'x' &&
		    (strchr(line, '/') || strstr(line, "[vdso]")))
			n++;
	fclose(f);
	return n;
}

/* Mapping records of @pid written by the start walk. */
static int walk_mappings(struct stream *s, pid_t pid)
{
	struct sleepy_record_header *r;
	int n = 0;

	for_each_record(s, r) {
		struct sleepy_mmap *m = (void *)r;

		n += r->type == SLEEPY_REC_MMAP && m->pid == (uint32_t)pid &&
		     !m->flags;
	}
	return n;
}

#define START_WALK_WAITERS 2000

/*
 * A session started with the smallest buffers beside thousands of
 * processes loses nothing of its start: the walk writes at the pace of a
 * reader, and sampling begins once it is done.
 */
TEST_F_TIMEOUT(sleepy, start_walk_paced_by_reader, 600)
{
	static pid_t waiters[START_WALK_WAITERS];
	int fds[MAX_CPUS], i, unannounced = 0, unmapped = 0, expected;
	uint64_t dropped = 0;
	struct stream s = {};

	ASSERT_EQ(0, spawn_waiters(waiters, START_WALK_WAITERS));
	expected = exec_mappings(waiters[0]);
	ASSERT_LT(0, expected);
	self->attr.frequency = 1000;
	self->attr.buffer_size = SLEEPY_MIN_BUFFER_SIZE;
	self->fd = sys_start(&self->attr, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_LT(0, open_buffers(self->fd, fds));
	for (i = 0; !wait_sampling(self->fd, 0) && i < 30000; i++) {
		ASSERT_EQ(0, read_buffers(fds, &s));
		usleep(1000);
	}
	EXPECT_LT(i, 30000) TH_LOG("the start walk never ended");
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_buffers(fds, &s));
	close_buffers(fds);
	sum_counters(self->fd, &dropped);
	EXPECT_EQ(0, dropped);
	count_records(&s);
	for (i = 0; i < MAX_CPUS; i++)
		EXPECT_EQ(0, s.lost[i]);
	for (i = 0; i < START_WALK_WAITERS; i++) {
		unannounced += !find_app(&s, waiters[i], NULL, 0);
		unmapped += walk_mappings(&s, waiters[i]) != expected;
	}
	EXPECT_EQ(0, unannounced);
	EXPECT_EQ(0, unmapped)
		TH_LOG("%d of %d processes without their %d executable mappings",
		       unmapped, START_WALK_WAITERS, expected);
	TH_LOG("%zu bytes through buffers of %u bytes per CPU",
	       s.size, SLEEPY_MIN_BUFFER_SIZE);
	free(s.records);
	kill_waiters(waiters, START_WALK_WAITERS);
}

/*
 * A walk that waits for a reader who never reads is no hang: the stop,
 * the owner's death and the next start all go through, and nothing is
 * counted lost.
 */
TEST_F_TIMEOUT(sleepy, start_walk_without_reader_stops, 300)
{
	static pid_t waiters[START_WALK_WAITERS];
	uint64_t dropped;
	int status;
	pid_t owner;

	ASSERT_EQ(0, spawn_waiters(waiters, START_WALK_WAITERS));
	self->attr.buffer_size = SLEEPY_MIN_BUFFER_SIZE;
	self->fd = sys_start(&self->attr, 0);
	ASSERT_LE(0, self->fd);
	EXPECT_FALSE(wait_sampling(self->fd, 200));
	ASSERT_EQ(0, sys_stop(0));
	sum_counters(self->fd, &dropped);
	EXPECT_EQ(0, dropped);

	owner = session_owner(&self->attr);
	ASSERT_LT(0, owner);
	usleep(200000);
	kill(owner, SIGKILL);
	ASSERT_EQ(owner, waitpid(owner, &status, 0));
	EXPECT_ERRNO(ESRCH, sys_stop(0));
	self->attr.buffer_size = 0;
	ASSERT_EQ(0, start(self, &self->attr));
	EXPECT_EQ(0, sys_stop(0));
	kill_waiters(waiters, START_WALK_WAITERS);
}

/* Every APP_START and APP_EXIT of @s, counted per appid. */
static void count_announcements(struct stream *s, unsigned int *starts,
				unsigned int *exits, unsigned int max)
{
	struct sleepy_record_header *r;

	memset(starts, 0, max * sizeof(*starts));
	memset(exits, 0, max * sizeof(*exits));
	for_each_record(s, r) {
		uint32_t appid = r->type == SLEEPY_REC_APP_START ?
				 ((struct sleepy_app_start *)r)->appid :
				 r->type == SLEEPY_REC_APP_EXIT ?
				 ((struct sleepy_app_exit *)r)->appid : 0;

		if (!appid || appid >= max)
			continue;
		if (r->type == SLEEPY_REC_APP_START)
			starts[appid]++;
		else
			exits[appid]++;
	}
}

/*
 * A zombie's exit hook ran before the session: the start walk must not
 * announce it (it would never see an exit), nor any process twice while
 * others fork and exit as fast as they can.
 */
TEST_F(sleepy, start_walk_zombies_and_fork_storm)
{
	enum { MAX_APPID = 1 << 16 };
	static unsigned int starts[MAX_APPID], exits[MAX_APPID];
	pid_t zombie, stormers[2];
	struct stream s;
	int i, round, bad = 0;

	zombie = fork();
	if (!zombie)
		_exit(0);
	ASSERT_LT(0, zombie);
	for (i = 0; i < 2; i++) {
		stormers[i] = fork();
		if (!stormers[i]) {
			for (;;) {
				pid_t p = fork();

				if (!p)
					_exit(0);
				waitpid(p, NULL, 0);
			}
		}
	}
	usleep(100000);	/* the zombie has exited, the storm runs */
	for (round = 0; round < 5; round++) {
		ASSERT_EQ(0, start(self, &self->attr));
		usleep(50000);
		ASSERT_EQ(0, sys_stop(0));
		ASSERT_EQ(0, read_stream(self->fd, &s));
		EXPECT_TRUE(find_app(&s, zombie, NULL, 0) == NULL);
		count_announcements(&s, starts, exits, MAX_APPID);
		for (i = 1; i < MAX_APPID; i++)
			if (starts[i] != 1 && (starts[i] || exits[i]))
				bad++;
			else if (exits[i] > 1)
				bad++;
		EXPECT_EQ(0, bad)
			TH_LOG("round %d: %d appids without one start and at most one exit",
			       round, bad);
		free(s.records);
	}
	for (i = 0; i < 2; i++) {
		kill(stormers[i], SIGKILL);
		waitpid(stormers[i], NULL, 0);
	}
	waitpid(zombie, NULL, 0);
}

static int outlive_leader(void *unused)
{
	for (;;)
		pause();
	return 0;
}

/* Whether the leader thread of process @pid has exited (state Z). */
static bool leader_exited(pid_t pid)
{
	char path[64], stat[256];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return !read_file(path, stat, sizeof(stat)) && strstr(stat, ") Z ");
}

/*
 * A process whose leader thread exited while another runs on: the start
 * walk announces it with its mappings, which are the other thread's now.
 */
TEST_F(sleepy, start_walk_leader_exited)
{
	static char stack[64 << 10];
	struct stream s;
	pid_t pid;
	int i;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (clone(outlive_leader, stack + sizeof(stack),
			  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			  CLONE_THREAD, NULL) < 0)
			_exit(1);
		syscall(SYS_exit, 0);	/* this thread only */
	}
	for (i = 0; i < 500 && !leader_exited(pid); i++)
		usleep(10000);
	ASSERT_TRUE(leader_exited(pid));
	ASSERT_EQ(0, start(self, &self->attr));
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	EXPECT_TRUE(find_app(&s, pid, NULL, 0) != NULL);
	EXPECT_TRUE(find_mmap_of(&s, pid, (uintptr_t)outlive_leader) != NULL);
	free(s.records);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A pid-filtered session announces the selected process only. */
TEST_F(sleepy, pid_filter_announces_selected_only)
{
	struct sleepy_record_header *r;
	struct stream s;
	int others = 0, mine = 0;
	pid_t child;

	self->attr.pid = getpid();
	self->attr.frequency = 1000;
	ASSERT_EQ(0, start(self, &self->attr));
	child = run("/bin/true");	/* not followed: not announced */
	spin(100);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	for_each_record(&s, r) {
		if (r->type != SLEEPY_REC_APP_START)
			continue;
		if (((struct sleepy_app_start *)r)->pid == (uint32_t)getpid())
			mine++;
		else
			others++;
	}
	EXPECT_EQ(1, mine);
	EXPECT_EQ(0, others) TH_LOG("child %d", child);
	free(s.records);

	/* With --follow the child is in. */
	self->attr.flags = SLEEPY_FLAG_FOLLOW_CHILDREN;
	ASSERT_EQ(0, start(self, &self->attr));
	child = run("/bin/true");
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	EXPECT_TRUE(find_app(&s, child, "true", 0) != NULL);
	free(s.records);
}

/* The filter holds the process, not its number: a reused pid is out. */
TEST_F(sleepy, pid_filter_survives_pid_reuse)
{
	struct stream s;
	int ready[2];
	pid_t first, second;
	char byte;

	ASSERT_EQ(0, pipe(ready));
	first = fork();
	if (!first) {
		/* Waits until the session holds it, then exits. */
		close(ready[1]);
		if (read(ready[0], &byte, 1) != 1)
			_exit(1);
		_exit(0);
	}
	ASSERT_LT(0, first);
	self->attr.pid = first;
	self->attr.flags = SLEEPY_FLAG_FOLLOW_CHILDREN;
	ASSERT_EQ(0, start(self, &self->attr));
	ASSERT_EQ(1, write(ready[1], "x", 1));
	ASSERT_EQ(first, waitpid(first, NULL, 0));
	/* Another process with the same pid, which forks and execs. */
	second = clone_with_tid(first);
	if (!second) {
		pid_t child = fork();

		if (!child) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(child, NULL, 0);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(first, second) TH_LOG("clone3 set_tid: %s", strerror(errno));
	waitpid(second, NULL, 0);
	ASSERT_EQ(0, sys_stop(0));
	ASSERT_EQ(0, read_stream(self->fd, &s));
	EXPECT_TRUE(find_app(&s, 0, "true", 0) == NULL);
	EXPECT_TRUE(find_app(&s, first, NULL, 1) == NULL);
	free(s.records);
	close(ready[0]);
	close(ready[1]);
}

TEST_HARNESS_MAIN
