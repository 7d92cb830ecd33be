// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy_abi_attack: hostile input for sleepy_start() and sleepy_stop().
 *
 * Several worker processes call both system calls with random arguments
 * at once: attr blocks with random fields and size fields (0 to
 * UINT32_MAX), random flags, pointers that are NULL, unmapped,
 * PROT_NONE, kernel, non-canonical, beyond the end of a file, straddling
 * a PROT_NONE page or into random user memory.  Some workers are root,
 * some keep only CAP_PERFMON or CAP_SYS_ADMIN under uid 65534, some have
 * no capability at all (uid 65534, or uid 0 with every capability
 * dropped); churn processes fork, exec (also from a second thread) and
 * exit meanwhile.  A session a worker starts is stopped right away and
 * its file descriptor closed.
 *
 * Every result is checked twice:
 *  - documented: 0, or -1 with an errno the documentation lists for that
 *    call (Documentation/userspace-api/sleepy.rst); anything else is a bug;
 *  - expected: the errno the arguments call for.  Argument errors (EINVAL,
 *    E2BIG, EFAULT) come first, as perf_event_open()'s do, from what the
 *    kernel can see: flags, the size field, the bytes readable at attr,
 *    the fields; when several apply any of them will do.  Then a caller
 *    without CAP_PERFMON or CAP_SYS_ADMIN gets EACCES (perf_event_paranoid
 *    is 2), and so does one asking for kernel IPs without CAP_SYSLOG
 *    (kptr_restrict).  Only then may a call succeed or fail with EBUSY,
 *    ENOMEM or (with a pid) ESRCH.
 *
 * Prints a summary with the count of each errno per call and caller kind,
 * "ok - ..." / "not ok - ..." lines, and exits 1 if anything was wrong.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/capability.h>
#include <linux/sleepy.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

#define PAGE		4096UL
#define MAX_ATTR	PAGE	/* the kernel's limit for size: one page */
/* Largest PID_MAX_LIMIT of any 64-bit configuration. */
#define PID_LIMIT	(4U << 20)
#define MAX_WORKERS	32
#define MAX_CHURN	8
#define PID_RING	64
#define NERR		134	/* errno values counted one by one */
#define MAX_REPORTS	20	/* bad results printed in full */

enum { CALL_START, CALL_STOP, CALL_CLEANUP_STOP, NCALLS };
static const char *const call_name[NCALLS] = {
	"sleepy_start", "sleepy_stop", "sleepy_stop after a start"
};

/* What a worker may do, and whether the kernel must let it. */
enum role {
	ROLE_ROOT,		/* uid 0, every capability */
	ROLE_PERFMON,		/* uid 65534, CAP_PERFMON only */
	ROLE_SYS_ADMIN,		/* uid 65534, CAP_SYS_ADMIN only */
	ROLE_NOBODY,		/* uid 65534, no capability */
	ROLE_ROOT_NOCAPS,	/* uid 0, no capability */
};
static const char *const role_name[] = {
	"root", "uid 65534 + CAP_PERFMON", "uid 65534 + CAP_SYS_ADMIN",
	"uid 65534", "uid 0 without capabilities"
};

static bool role_privileged(enum role role)
{
	return role <= ROLE_SYS_ADMIN;
}

/* Sets of results: bit 0 success, bit e errno e; EOVERFLOW (75) takes 63. */
#define EOVERFLOW_BIT	63
#define BIT(e)	((e) == EOVERFLOW ? 1ULL << EOVERFLOW_BIT : \
		 (e) < EOVERFLOW_BIT ? 1ULL << (e) : 0)
#define DOC_START (BIT(0) | BIT(EACCES) | BIT(EPERM) | BIT(EBUSY) | \
		   BIT(EINVAL) | BIT(E2BIG) | BIT(EFAULT) | BIT(ESRCH) | \
		   BIT(ENOMEM) | BIT(EOVERFLOW))
#define DOC_STOP  (BIT(0) | BIT(EACCES) | BIT(EPERM) | BIT(EINVAL) | BIT(ESRCH))

/* Counters shared by every process of the run. */
struct shared {
	/* [call][privileged][errno, 0 for success, NERR for anything else] */
	unsigned long long count[NCALLS][2][NERR + 1];
	unsigned long long undocumented, unexpected, calls;
	unsigned long long huge_started, started_ns, started_max_ns;
	unsigned long long unknown_pointer;	/* checked as documented only */
	int reports;
	volatile int churn_stop;
	volatile pid_t pids[PID_RING];		/* recent churn children */
	volatile unsigned int pid_next;
	pid_t workers[MAX_WORKERS];
	char current[MAX_WORKERS][320];		/* the call in progress */
};

static struct shared *sh;
static long pid_max = 32768;
static long perf_max_stack = 127;	/* kernel.perf_event_max_stack */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int percent)
{
	return rnd_below(100) < percent;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long sys_start(const void *attr, unsigned long flags)
{
	return syscall(__NR_sleepy_start, attr, flags);
}

static long sys_stop(unsigned long flags)
{
	return syscall(__NR_sleepy_stop, flags);
}

/* Memory the worker points the kernel at. */
static unsigned char *rw;	/* two RW pages, then a PROT_NONE page */
static unsigned char *ro;	/* a read-only page of random bytes, then PROT_NONE */
static unsigned char *none;	/* a PROT_NONE page */
static unsigned char *hole;	/* a page nothing is mapped at */
static unsigned char *beyond_eof; /* a shared mapping of an empty file */

static void *map(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("sleepy_abi_attack: mmap");
		exit(2);
	}
	return p;
}

static void setup_memory(void)
{
	char path[64];
	size_t i;
	int fd;

	rw = map(3 * PAGE, PROT_READ | PROT_WRITE);
	mprotect(rw + 2 * PAGE, PAGE, PROT_NONE);
	ro = map(2 * PAGE, PROT_READ | PROT_WRITE);
	for (i = 0; i < PAGE; i++)
		ro[i] = rnd();
	/* Now and then a block that is valid but for its random tail. */
	memset(ro, 0, 32);
	mprotect(ro, PAGE, PROT_READ);
	mprotect(ro + PAGE, PAGE, PROT_NONE);
	/* Two pages: no block of at most a page starting in the first gets out. */
	none = map(2 * PAGE, PROT_NONE);
	hole = map(3 * PAGE, PROT_NONE);
	munmap(hole + PAGE, PAGE);
	hole += PAGE;

	snprintf(path, sizeof(path), "/tmp/sleepy-abi-attack.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		beyond_eof = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
		if (beyond_eof == MAP_FAILED)
			beyond_eof = NULL;
		close(fd);
		unlink(path);
	}
}

/* A sleepy_start() call as the kernel will see it. */
struct start_call {
	const void *ptr;
	unsigned long flags;	/* as passed; the kernel takes 32 bits */
	unsigned long size;	/* the attr's size field */
	long readable;		/* bytes readable at ptr, -1 if unknown */
	const char *ptr_kind;
	const char *size_kind;
};

static pid_t some_pid(void)
{
	switch (rnd_below(10)) {
	case 0: return getpid();
	case 1: return getppid();
	case 2: return 1;
	case 3: return sh->workers[rnd_below(MAX_WORKERS)];
	case 4:
	case 5: return sh->pids[rnd_below(PID_RING)];
	case 6: return 1 + rnd_below(pid_max);
	case 7: return pid_max + rnd_below(PID_LIMIT - pid_max + 2);
	case 8: return (pid_t)rnd();
	default: return 0;
	}
}

static uint32_t some_frequency(bool valid)
{
	switch (rnd_below(valid ? 4 : 7)) {
	case 0: return 0;
	case 1: return SLEEPY_MAX_FREQUENCY;
	case 2: return 1 + rnd_below(SLEEPY_MAX_FREQUENCY);
	case 3: return 1 + rnd_below(20000);
	case 4: return SLEEPY_MAX_FREQUENCY + 1;
	case 5: return 0xffffffff;
	default: return rnd();
	}
}

static uint64_t some_buffer_size(bool valid, unsigned int huge_permille)
{
	if (valid) {
		if (rnd_below(1000) < huge_permille)
			return SLEEPY_MAX_BUFFER_SIZE;
		switch (rnd_below(4)) {
		case 0: return 0;
		case 1: return SLEEPY_MIN_BUFFER_SIZE;
		default: return SLEEPY_MIN_BUFFER_SIZE +
				PAGE * rnd_below((4U << 20) / PAGE);
		}
	}
	switch (rnd_below(12)) {
	case 0: return 0;
	case 1: return 1 + rnd_below(PAGE);		/* tiny */
	case 2: return PAGE;
	case 3: return SLEEPY_MIN_BUFFER_SIZE - PAGE;
	case 4: return SLEEPY_MIN_BUFFER_SIZE + 1 + rnd_below(PAGE - 1);
	case 5: return SLEEPY_MIN_BUFFER_SIZE + 8 * rnd_below(1 << 16);
	case 6: return SLEEPY_MAX_BUFFER_SIZE + PAGE;
	case 7: return SLEEPY_MAX_BUFFER_SIZE + 8;
	case 8: return 1ULL << (32 + rnd_below(32));	/* huge */
	case 9: return UINT64_MAX - rnd_below(PAGE);
	case 10: return rnd();
	default: return SLEEPY_MIN_BUFFER_SIZE + PAGE * rnd_below(64);
	}
}

static void random_attr(struct sleepy_attr *a, bool valid,
			unsigned int huge_permille)
{
	memset(a, 0, sizeof(*a));
	a->size = chance(50) ? sizeof(*a) : (uint32_t)rnd();
	a->frequency = some_frequency(valid);
	a->buffer_size = some_buffer_size(valid, huge_permille);
	if (valid) {
		a->flags = rnd_below(2) ? SLEEPY_FLAG_KERNEL : 0;
		if (chance(30)) {
			a->pid = chance(50) ? getpid() : some_pid();
			if (a->pid > PID_LIMIT || (pid_t)a->pid <= 0)
				a->pid = getpid();
			if (chance(50))
				a->flags |= SLEEPY_FLAG_FOLLOW_CHILDREN;
		}
		return;
	}
	switch (rnd_below(6)) {
	case 0: a->flags = 0; break;
	case 1: a->flags = rnd_below(SLEEPY_FLAGS_ALL + 1); break;
	case 2: a->flags = 1ULL << rnd_below(64); break;
	case 3: a->flags = rnd(); break;
	case 4: a->flags = SLEEPY_FLAG_FOLLOW_CHILDREN; break;
	default: a->flags = SLEEPY_FLAG_KERNEL; break;
	}
	a->pid = chance(50) ? 0 : some_pid();
	a->max_stack = chance(85) ? 0 : chance(50) ? rnd_below(1026) :
		       (uint32_t)rnd();
	if (chance(20))
		a->flags |= SLEEPY_FLAG_CALLCHAIN;
}

/* The size argument; sets *tail to 0 (zeroed), 1 (a non-zero byte). */
static unsigned long random_size(bool valid, const char **kind)
{
	if (valid) {
		*kind = "valid";
		return chance(70) ? SLEEPY_ATTR_SIZE_VER0 :
		       SLEEPY_ATTR_SIZE_VER0 + rnd_below(MAX_ATTR - 31);
	}
	switch (rnd_below(13)) {
	case 0: *kind = "0"; return 0;
	case 1: *kind = "<VER0"; return 1 + rnd_below(SLEEPY_ATTR_SIZE_VER0 - 1);
	case 2: *kind = "VER0"; return SLEEPY_ATTR_SIZE_VER0;
	case 3:
	case 4: *kind = "larger"; return 33 + rnd_below(MAX_ATTR - 32);
	case 5: *kind = "page"; return MAX_ATTR;
	case 6: *kind = "page+1.."; return MAX_ATTR + 1 + rnd_below(1 << 16);
	case 7: *kind = "1M"; return 1UL << 20;
	case 8: *kind = "UINT_MAX"; return 0xffffffffUL;
	case 9: *kind = "SIZE_MAX"; return SIZE_MAX;
	case 10: *kind = "2^32+VER0"; return (1UL << 32) + SLEEPY_ATTR_SIZE_VER0;
	case 11: *kind = "2^32+small"; return (1UL << 32) + rnd_below(32);
	default: *kind = "random"; return rnd();
	}
}

/*
 * Puts attr (and a tail of @len - 32 bytes, zero or with one non-zero
 * byte) at a random place of the RW pages, or so that only @readable
 * bytes are readable before the PROT_NONE page.
 */
static const void *place(const struct sleepy_attr *attr, size_t len,
			 long readable, bool dirty_tail)
{
	size_t off, n;
	unsigned char *p;

	if (len < sizeof(*attr))
		len = sizeof(*attr);
	if (readable < 0)
		off = rnd_below(2 * PAGE - len + 1);
	else
		off = 2 * PAGE - readable;
	p = rw + off;
	n = readable < 0 ? len : (size_t)readable;
	memset(p, 0, n);
	memcpy(p, attr, n < sizeof(*attr) ? n : sizeof(*attr));
	if (dirty_tail && len > sizeof(*attr)) {
		size_t at = sizeof(*attr) + rnd_below(len - sizeof(*attr));

		if (at < n)
			p[at] = 1 + rnd_below(255);
	}
	return p;
}

static void random_start(struct start_call *c, struct sleepy_attr *attr,
			 bool valid, unsigned int huge_permille)
{
	uint32_t k;
	size_t len;
	bool dirty;

	random_attr(attr, valid, huge_permille);
	c->size = (uint32_t)random_size(valid, &c->size_kind);
	attr->size = c->size;
	c->flags = valid || chance(80) ? 0 :
		   chance(50) ? 1UL << rnd_below(64) : rnd();
	k = c->size ?: SLEEPY_ATTR_SIZE_VER0;
	len = k <= MAX_ATTR ? k : sizeof(*attr);
	dirty = !valid && chance(30);
	c->readable = -1;
	if (valid) {
		c->ptr_kind = "valid";
		c->ptr = place(attr, len, -1, false);
		c->readable = 2 * PAGE - ((const unsigned char *)c->ptr - rw);
		return;
	}
	switch (rnd_below(16)) {
	case 0: c->ptr_kind = "NULL"; c->ptr = NULL; c->readable = 0; break;
	case 1: c->ptr_kind = "PROT_NONE"; c->ptr = none + rnd_below(PAGE);
		c->readable = 0; break;
	case 2: c->ptr_kind = "unmapped"; c->ptr = hole + rnd_below(PAGE);
		c->readable = 0; break;
	case 3: c->ptr_kind = "kernel text";
		c->ptr = (void *)(0xffffffff81000000UL + rnd_below(1 << 24));
		c->readable = 0; break;
	case 4: c->ptr_kind = "kernel direct map";
		c->ptr = (void *)(0xffff888000000000UL + 8 * rnd_below(1 << 20));
		c->readable = 0; break;
	case 5: c->ptr_kind = "vsyscall"; c->ptr = (void *)0xffffffffff600000UL;
		c->readable = 0; break;
	case 6: c->ptr_kind = "non-canonical";
		c->ptr = (void *)((rnd() | (1UL << 62)) & ~(1UL << 63));
		c->readable = 0; break;
	case 7: c->ptr_kind = "top of user space";
		/* The block crosses the end of user space. */
		c->ptr = (void *)(0x7ffffffff000UL - rnd_below(32));
		c->readable = 0; break;
	case 8:
		if (beyond_eof) {
			c->ptr_kind = "beyond EOF";
			c->ptr = beyond_eof + rnd_below(64);
			c->readable = 0;
			break;
		}
		/* fall through */
	case 9:
	case 10: {
		/* Straddles the PROT_NONE page: some bytes are readable. */
		size_t need = len > sizeof(*attr) ? len : sizeof(*attr);

		c->ptr_kind = "straddling PROT_NONE";
		c->readable = rnd_below(need);
		c->ptr = place(attr, len, c->readable, dirty);
		break;
	}
	case 11: {
		size_t off = rnd_below(PAGE - 31);

		c->ptr_kind = "read-only random bytes";
		c->ptr = ro + (chance(50) ? 0 : off);
		c->readable = PAGE - ((const unsigned char *)c->ptr - ro);
		break;
	}
	case 12:
		c->ptr_kind = "random user address";
		c->ptr = (void *)(rnd() & 0x7fffffffffffUL);
		break;
	default:
		c->ptr_kind = "valid";
		c->ptr = place(attr, len, -1, dirty);
		c->readable = 2 * PAGE - ((const unsigned char *)c->ptr - rw);
		break;
	}
}

/* Whether a sample with stacks fits into a sub-buffer of @a's buffer. */
static bool stack_fits(const struct sleepy_attr *a)
{
	uint64_t depth = a->max_stack ?: SLEEPY_DEFAULT_MAX_STACK;
	uint64_t record = sizeof(struct sleepy_sample) +
			  sizeof(struct sleepy_callchain) + 2 * depth * 8;
	uint64_t buffer = a->buffer_size ?: SLEEPY_DEFAULT_BUFFER_SIZE;
	uint64_t subbuf = buffer / 8 < 128 << 10 ? buffer / 8 : 128 << 10;

	return record <= subbuf - sizeof(struct sleepy_subbuf_header);
}

static bool attr_fields_valid(const struct sleepy_attr *a)
{
	if (a->flags & ~(uint64_t)SLEEPY_FLAGS_ALL)
		return false;
	if (a->max_stack && !(a->flags & SLEEPY_FLAG_CALLCHAIN))
		return false;
	if (a->frequency > SLEEPY_MAX_FREQUENCY)
		return false;
	if (a->buffer_size && (a->buffer_size < SLEEPY_MIN_BUFFER_SIZE ||
			       a->buffer_size > SLEEPY_MAX_BUFFER_SIZE ||
			       a->buffer_size % PAGE))
		return false;
	if ((a->flags & SLEEPY_FLAG_FOLLOW_CHILDREN) && !a->pid)
		return false;
	if ((a->flags & SLEEPY_FLAG_CALLCHAIN) && !stack_fits(a))
		return false;
	return a->pid <= PID_LIMIT;
}

/*
 * The results the arguments allow, as a bit set of errnos (bit 0:
 * success), or 0 if the memory at the pointer is unknown.
 */
static uint64_t expect_start(const struct start_call *c, enum role role)
{
	const unsigned char *p = c->ptr;
	struct sleepy_attr a;
	uint64_t errors = 0;
	uint32_t k;
	size_t i;

	if ((unsigned int)c->flags)
		return BIT(EINVAL);
	if (c->readable < 0)
		return 0;
	if (c->readable < (long)sizeof(k))
		return BIT(EFAULT);
	memcpy(&k, p, sizeof(k));	/* what the kernel reads: a ro page too */
	if (!k)
		k = SLEEPY_ATTR_SIZE_VER0;
	if (k < SLEEPY_ATTR_SIZE_VER0 || k > MAX_ATTR)
		return BIT(E2BIG);
	if (c->readable < (long)sizeof(a))
		return BIT(EFAULT);
	memcpy(&a, p, sizeof(a));
	for (i = sizeof(a); i < k && (long)i < c->readable; i++)
		if (p[i])
			errors |= BIT(E2BIG);
	if (c->readable < (long)k)
		errors |= BIT(EFAULT);
	if (!attr_fields_valid(&a))
		errors |= BIT(EINVAL);
	if (errors)
		return errors;
	if (a.max_stack > perf_max_stack)
		return BIT(EOVERFLOW);
	if (!role_privileged(role) ||
	    ((a.flags & SLEEPY_FLAG_KERNEL) && role != ROLE_ROOT))
		return BIT(EACCES);
	/*
	 * Above pid_max no process can be: out of range or just not there.
	 * Without CAP_IPC_LOCK the buffers may be more than the user may
	 * lock (perf_event_mlock_kb per CPU, then RLIMIT_MEMLOCK), counting
	 * those of its sessions not closed yet.
	 */
	if (a.pid > pid_max)
		return BIT(EINVAL) | BIT(EBUSY) | BIT(ENOMEM) | BIT(ESRCH);
	return BIT(0) | BIT(EBUSY) | BIT(ENOMEM) | (a.pid ? BIT(ESRCH) : 0) |
	       (role != ROLE_ROOT ? BIT(EPERM) : 0);
}

/* Another user's session is not a CAP_PERFMON user's to stop. */
static uint64_t expect_stop(unsigned long flags, enum role role)
{
	if ((unsigned int)flags)
		return BIT(EINVAL);
	if (!role_privileged(role))
		return BIT(EACCES);
	return BIT(0) | BIT(ESRCH) | (role == ROLE_PERFMON ? BIT(EPERM) : 0);
}

static const char *errno_name(int e)
{
	switch (e) {
	case 0: return "success";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ESRCH: return "ESRCH";
	case E2BIG: return "E2BIG";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case EINTR: return "EINTR";
	case EOVERFLOW: return "EOVERFLOW";
	default: return NULL;
	}
}

static void report(const char *what, int call, long ret, int err,
		   uint64_t expected, const char *detail)
{
	char set[256] = "";
	int e;

	if (__atomic_fetch_add(&sh->reports, 1, __ATOMIC_RELAXED) >= MAX_REPORTS)
		return;
	for (e = 0; e < 64; e++)
		if (expected & (1ULL << e))
			snprintf(set + strlen(set), sizeof(set) - strlen(set),
				 " %s", errno_name(e == EOVERFLOW_BIT ? EOVERFLOW : e) ?: "?");
	fprintf(stderr, "sleepy_abi_attack: %s: %s returned %ld errno %d (%s), expected one of:%s; %s\n",
		what, call_name[call], ret, ret == -1 ? err : 0,
		ret == -1 ? strerror(err) : "-", set, detail);
}

/* Counts one result; false if it was not documented or not expected. */
static bool account(int call, bool privileged, long ret, int err,
		    uint64_t documented, uint64_t expected, const char *detail)
{
	int e = ret >= 0 ? 0 : ret == -1 ? err : -1;
	bool good = true;

	__atomic_fetch_add(&sh->count[call][privileged][e >= 0 && e < NERR ? e : NERR],
			   1, __ATOMIC_RELAXED);
	if (e < 0 || !(documented & BIT(e))) {
		__atomic_fetch_add(&sh->undocumented, 1, __ATOMIC_RELAXED);
		report("undocumented result", call, ret, err, documented, detail);
		return false;
	}
	if (expected && !(expected & BIT(e))) {
		__atomic_fetch_add(&sh->unexpected, 1, __ATOMIC_RELAXED);
		report("unexpected result", call, ret, err, expected, detail);
		good = false;
	}
	return good;
}

static int set_caps(uint64_t caps)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {
		{ .effective = caps, .permitted = caps },
		{ .effective = caps >> 32, .permitted = caps >> 32 },
	};

	return syscall(SYS_capset, &hdr, data);
}

static uint64_t get_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return ~0ULL;
	return data[0].effective | (uint64_t)data[1].effective << 32;
}

static int become(enum role role)
{
	uint64_t caps = 0;

	switch (role) {
	case ROLE_ROOT:
		return 0;
	case ROLE_PERFMON:
		caps = 1ULL << CAP_PERFMON;
		break;
	case ROLE_SYS_ADMIN:
		caps = 1ULL << CAP_SYS_ADMIN;
		break;
	case ROLE_NOBODY:
		break;
	case ROLE_ROOT_NOCAPS:
		/* Keeps uid 0: nothing but the capability set says no. */
		return set_caps(0) || get_caps() ? -1 : 0;
	}
	if (prctl(PR_SET_KEEPCAPS, caps ? 1 : 0, 0, 0, 0) ||
	    setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return -1;
	if (caps && set_caps(caps))
		return -1;
	return get_caps() == caps ? 0 : -1;
}

static void worker(int index, enum role role, unsigned long calls,
		   uint64_t seed, unsigned int valid_percent,
		   unsigned int huge_permille)
{
	bool privileged = role_privileged(role);
	struct sleepy_attr attr;
	int session_fd;
	uint64_t expected, t0;
	struct start_call c;
	char detail[300];
	unsigned long i;
	long ret;
	int err;

	rng_state = seed * 0x9e3779b97f4a7c15ULL + index + 1;
	setup_memory();
	if (become(role)) {
		fprintf(stderr, "sleepy_abi_attack: worker %d cannot become %s: %s\n",
			index, role_name[role], strerror(errno));
		_exit(3);
	}

	for (i = 0; i < calls; i++) {
		__atomic_fetch_add(&sh->calls, 1, __ATOMIC_RELAXED);
		if (chance(30)) {
			unsigned long flags;

			switch (rnd_below(6)) {
			case 0: flags = 1UL << rnd_below(64); break;
			case 1: flags = rnd(); break;
			case 2: flags = (unsigned long)rnd() << 32; break;
			case 3: flags = 0xffffffffUL; break;
			default: flags = 0; break;
			}
			snprintf(detail, sizeof(detail), "%s, flags %#lx",
				 role_name[role], flags);
			snprintf(sh->current[index], sizeof(sh->current[index]),
				 "sleepy_stop: %s", detail);
			errno = 0;
			ret = sys_stop(flags);
			err = errno;
			account(CALL_STOP, privileged, ret, err, DOC_STOP,
				expect_stop(flags, role), detail);
			continue;
		}

		random_start(&c, &attr, chance(valid_percent), huge_permille);
		if (c.readable < 0)
			__atomic_fetch_add(&sh->unknown_pointer, 1, __ATOMIC_RELAXED);
		/* The attr as made (not what a read-only page holds). */
		snprintf(detail, sizeof(detail),
			 "%s, syscall flags %#lx, size %#lx (%s), attr %p (%s, %ld readable): frequency %u flags %#llx pid %u max_stack %u buffer_size %#llx",
			 role_name[role], c.flags, c.size, c.size_kind, c.ptr, c.ptr_kind,
			 c.readable, attr.frequency, (unsigned long long)attr.flags,
			 attr.pid, attr.max_stack,
			 (unsigned long long)attr.buffer_size);
		expected = expect_start(&c, role);
		snprintf(sh->current[index], sizeof(sh->current[index]),
			 "sleepy_start: %s", detail);
		t0 = now_ns();

		errno = 0;
		ret = sys_start(c.ptr, c.flags);
		err = errno;
		account(CALL_START, privileged, ret, err, DOC_START, expected,
			detail);
		if (ret < 0)
			continue;
		session_fd = ret;

		/* Ours: stop it now, memory stays bounded to one session. */
		t0 = now_ns() - t0;
		__atomic_fetch_add(&sh->started_ns, t0, __ATOMIC_RELAXED);
		if (t0 > sh->started_max_ns)
			sh->started_max_ns = t0;	/* racy, a hint */
		if (c.readable >= (long)sizeof(attr) &&
		    ((const struct sleepy_attr *)c.ptr)->buffer_size ==
		    SLEEPY_MAX_BUFFER_SIZE)
			__atomic_fetch_add(&sh->huge_started, 1, __ATOMIC_RELAXED);
		snprintf(sh->current[index], sizeof(sh->current[index]),
			 "sleepy_stop(0) after a start: %s", role_name[role]);
		errno = 0;
		ret = sys_stop(0);
		err = errno;
		account(CALL_CLEANUP_STOP, privileged, ret, err, DOC_STOP,
			expect_stop(0, role), role_name[role]);
		close(session_fd);
	}
	_exit(0);
}

/* Exec from a thread that is not the group leader. */
static void *exec_thread(void *unused)
{
	char *argv[] = { "true", NULL };

	execv("/bin/true", argv);
	_exit(127);
}

static void churn(int index, uint64_t seed)
{
	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1000 + index;
	while (!sh->churn_stop) {
		pid_t pid = fork();

		if (pid == 0) {
			pthread_t t;

			switch (rnd_below(5)) {
			case 0:
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			case 1:
				if (pthread_create(&t, NULL, exec_thread, NULL) == 0)
					pthread_join(t, NULL);
				_exit(126);
			case 2:	/* an orphan, for the subreaper (main) */
				if (fork() == 0)
					_exit(0);
				_exit(0);
			default:
				_exit(0);
			}
		}
		if (pid > 0) {
			sh->pids[__atomic_fetch_add(&sh->pid_next, 1, __ATOMIC_RELAXED) %
				 PID_RING] = pid;
			waitpid(pid, NULL, 0);
		}
	}
	_exit(0);
}

static void print_counts(void)
{
	int call, priv, e;

	for (call = 0; call < NCALLS; call++)
		for (priv = 1; priv >= 0; priv--) {
			char line[1024];
			unsigned long long total = 0;

			line[0] = 0;
			for (e = 0; e <= NERR; e++) {
				unsigned long long n = sh->count[call][priv][e];
				const char *name = e == NERR ? "other" : errno_name(e);
				char num[16];

				if (!n)
					continue;
				total += n;
				if (!name) {
					snprintf(num, sizeof(num), "errno%d", e);
					name = num;
				}
				snprintf(line + strlen(line), sizeof(line) - strlen(line),
					 " %s=%llu", name, n);
			}
			if (total)
				printf("abi-attack: %s, %s: %llu:%s\n", call_name[call],
				       priv ? "privileged" : "unprivileged", total, line);
		}
}

static int failures;

static void tap(bool good, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tap(bool good, const char *fmt, ...)
{
	va_list ap;

	printf("%s - abi attack: ", good ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	failures += !good;
}

/* MemAvailable of /proc/meminfo, in bytes; 0 if unknown. */
static unsigned long long mem_available(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb << 10;
}

static int main_session_fd = -1;

/* sleepy_start() with a valid attr; its time in *ns.  Returns errno. */
static int start_session(uint64_t buffer_size, uint64_t *ns)
{
	struct sleepy_attr attr = {
		.size = sizeof(attr),
		.buffer_size = buffer_size,
	};
	uint64_t t0 = now_ns();
	long ret = sys_start(&attr, 0);
	int err = errno;

	*ns = now_ns() - t0;
	if (ret < 0)
		return err;
	main_session_fd = ret;
	return 0;
}

/* sleepy_stop() and the close that frees the buffers, timed together. */
static int stop_session(uint64_t *ns)
{
	uint64_t t0 = now_ns();
	long ret = sys_stop(0);
	int err = errno;

	close(main_session_fd);
	main_session_fd = -1;
	*ns = now_ns() - t0;
	return ret ? err : 0;
}

/* Uncontended start and stop, for comparison with the attack's. */
static void baseline(void)
{
	uint64_t start_ns = 0, stop_ns = 0, ns;
	int i, bad = 0;

	for (i = 0; i < 10; i++) {
		bad += !!start_session(0, &ns);
		start_ns += ns;
		bad += !!stop_session(&ns);
		stop_ns += ns;
	}
	tap(!bad, "10 sessions alone: start %.1f ms, stop %.1f ms on average",
	    start_ns / 1e7, stop_ns / 1e7);
}

/*
 * The largest buffers: SLEEPY_MAX_BUFFER_SIZE on every CPU.  They start
 * when they fit twice into the available memory and fail with ENOMEM,
 * without waking the OOM killer, when they would take most of it.
 */
static void largest_buffers(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long need = (unsigned long long)SLEEPY_MAX_BUFFER_SIZE * ncpus;
	unsigned long long avail = mem_available(), after, eat = 0;
	uint64_t ns, stop_ns;
	void *hog = MAP_FAILED;
	int err;

	/* Leave 1.5 times what they need: too little. */
	if (avail > need * 3 / 2) {
		eat = avail - need * 3 / 2;
		hog = mmap(NULL, eat, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	}
	after = mem_available();
	err = start_session(SLEEPY_MAX_BUFFER_SIZE, &ns);
	if (!err)
		stop_session(&stop_ns);
	tap(err == ENOMEM,
	    "%u MiB per CPU with %llu MiB available: %s (ENOMEM expected)",
	    SLEEPY_MAX_BUFFER_SIZE >> 20, after >> 20,
	    err ? errno_name(err) ?: strerror(err) : "started");
	if (hog != MAP_FAILED)
		munmap(hog, eat);
	/* The next start frees what a stopped session kept. */
	if (!start_session(0, &ns))
		stop_session(&ns);

	avail = mem_available();
	err = start_session(SLEEPY_MAX_BUFFER_SIZE, &ns);
	after = mem_available();
	if (!err)
		stop_session(&stop_ns);
	/* The guests boot with memory for this; less is a failed setup. */
	tap(avail >= 2 * need && !err,
	    "%u MiB per CPU with %llu MiB available (%llu needed): %s in %.0f ms, %llu MiB taken",
	    SLEEPY_MAX_BUFFER_SIZE >> 20, avail >> 20, (2 * need) >> 20,
	    err ? errno_name(err) ?: strerror(err) : "started", ns / 1e6,
	    avail > after ? (avail - after) >> 20 : 0);
	if (!start_session(0, &ns))
		stop_session(&ns);
}

/* Where a process that does not finish is. */
static void dump_process(const char *what, pid_t pid)
{
	char path[64], buf[2048];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	printf("abi-attack: %s %d: %s", what, pid, n > 0 ? buf : "gone\n");
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		printf("%s", buf);
	}
	if (fd >= 0)
		close(fd);
}

static void usage(FILE *f)
{
	fprintf(f,
		"USAGE: sleepy_abi_attack [-n CALLS] [-w PRIVILEGED] [-u UNPRIVILEGED]\n"
		"                         [-c CHURN] [-s SEED] [-V VALID%%] [-H HUGE‰] [-t SECONDS] [-L]\n"
		"  -n  system calls in all (default 100000)\n"
		"  -w  privileged workers: root, CAP_PERFMON only, CAP_SYS_ADMIN only (default 4)\n"
		"  -u  unprivileged workers: uid 65534, uid 0 without capabilities (default 2)\n"
		"  -c  processes that fork, exec and exit meanwhile (default 2)\n"
		"  -s  random seed (default: from the clock; printed)\n"
		"  -V  percent of sleepy_start calls with valid arguments (default 1)\n"
		"  -H  per mille of the valid ones with the largest buffers (default 0:\n"
		"      those are checked once, alone, unless -L)\n"
		"  -t  give up after SECONDS (default 1800)\n"
		"  -L  skip the checks of the largest buffers (with and without memory)\n"
		"Needs root.  Exit status 0 if every result was right.\n");
}

static pid_t spawn(void (*fn)(int, uint64_t), int index, uint64_t seed)
{
	pid_t pid = fork();

	if (pid == 0)
		fn(index, seed);
	return pid;
}

int main(int argc, char **argv)
{
	unsigned long calls = 100000;
	unsigned int nprivileged = 4, nunprivileged = 2, nchurn = 2;
	unsigned int valid_percent = 1, huge_permille = 0, timeout = 1800;
	static const enum role privileged_roles[] = {
		ROLE_ROOT, ROLE_PERFMON, ROLE_ROOT, ROLE_SYS_ADMIN,
	};
	static const enum role unprivileged_roles[] = {
		ROLE_NOBODY, ROLE_ROOT_NOCAPS,
	};
	pid_t churners[MAX_CHURN];
	uint64_t seed = 0, t0, next_progress = 60;
	unsigned int nworkers, w, i;
	bool workers_ok = true, timed_out = false, largest = true;
	int opt, status;
	long ret;
	FILE *f;

	while ((opt = getopt(argc, argv, "n:w:u:c:s:V:H:t:Lh")) != -1) {
		switch (opt) {
		case 'n': calls = strtoul(optarg, NULL, 0); break;
		case 'w': nprivileged = atoi(optarg); break;
		case 'u': nunprivileged = atoi(optarg); break;
		case 'c': nchurn = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'V': valid_percent = atoi(optarg); break;
		case 'H': huge_permille = atoi(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'L': largest = false; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	nworkers = nprivileged + nunprivileged;
	if (optind != argc || !nworkers || nworkers > MAX_WORKERS ||
	    nchurn > MAX_CHURN || valid_percent > 100 || huge_permille > 1000) {
		usage(stderr);
		return 2;
	}
	if (!seed)
		seed = now_ns() ^ getpid();
	if (geteuid() != 0) {
		fprintf(stderr, "sleepy_abi_attack: needs root\n");
		return 2;
	}
	f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		if (fscanf(f, "%ld", &pid_max) != 1)
			pid_max = 32768;
		fclose(f);
	}
	f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	if (f) {
		if (fscanf(f, "%ld", &perf_max_stack) != 1)
			perf_max_stack = 127;
		fclose(f);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Orphans of the churn come here to be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("sleepy_abi_attack: mmap");
		return 2;
	}
	printf("abi-attack: %lu calls, %u privileged + %u unprivileged workers, %u churn processes, seed %llu, %u%% valid, %u‰ of those with %u MiB buffers per CPU\n",
	       calls, nprivileged, nunprivileged, nchurn,
	       (unsigned long long)seed, valid_percent, huge_permille,
	       SLEEPY_MAX_BUFFER_SIZE >> 20);

	sys_stop(0);	/* a session someone left */
	baseline();
	if (largest)
		largest_buffers();

	t0 = now_ns();
	for (i = 0; i < nchurn; i++)
		churners[i] = spawn(churn, i, seed);
	for (w = 0; w < nworkers; w++) {
		enum role role = w < nprivileged ?
			privileged_roles[w % 4] :
			unprivileged_roles[(w - nprivileged) % 2];
		unsigned long share = calls / nworkers + (w < calls % nworkers);
		pid_t pid = fork();

		if (pid == 0)
			worker(w, role, share, seed, valid_percent, huge_permille);
		sh->workers[w] = pid;
	}

	/* Wait for the workers, at most timeout seconds. */
	for (w = 0; w < nworkers; ) {
		pid_t pid = waitpid(-1, &status, WNOHANG);
		bool mine = false;

		if (pid == 0) {
			uint64_t elapsed = now_ns() - t0;

			if (elapsed > timeout * 1000000000ULL) {
				timed_out = true;
				break;
			}
			if (elapsed > next_progress * 1000000000ULL) {
				printf("abi-attack: %llu calls after %llu s\n",
				       sh->calls, (unsigned long long)next_progress);
				next_progress += 60;
			}
			usleep(100000);
			continue;
		}
		if (pid < 0)
			break;
		for (i = 0; i < nworkers; i++)
			mine |= sh->workers[i] == pid;
		if (!mine)
			continue;
		w++;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			workers_ok = false;
			fprintf(stderr, "sleepy_abi_attack: worker %d ended with status %#x\n",
				pid, status);
		}
	}
	if (timed_out) {
		printf("abi-attack: timed out after %u s with %llu calls made\n",
		       timeout, sh->calls);
		for (i = 0; i < nworkers; i++) {
			dump_process("worker", sh->workers[i]);
			printf("abi-attack: worker %u was in %s\n", i, sh->current[i]);
		}
		for (i = 0; i < nchurn; i++)
			dump_process("churn", churners[i]);
		for (i = 0; i < nworkers; i++)
			kill(sh->workers[i], SIGKILL);
	}
	sh->churn_stop = 1;
	for (i = 0; i < nchurn; i++)
		waitpid(churners[i], &status, 0);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	t0 = now_ns() - t0;

	/* Whatever a worker left running. */
	errno = 0;
	ret = sys_stop(0);
	tap(ret == 0 || errno == ESRCH,
	    "the last sleepy_stop(0) returns 0 or ESRCH (%ld, %s)", ret,
	    ret ? strerror(errno) : "ok");

	print_counts();
	{
		unsigned long long started = sh->count[CALL_START][1][0];

		printf("abi-attack: %llu calls in %.1f s; %llu sessions started (%llu with %u MiB per CPU), start took %.2f ms on average, %.1f ms at most; %llu calls with a pointer to unknown memory checked as documented only\n",
		       sh->calls, t0 / 1e9, started, sh->huge_started,
		       SLEEPY_MAX_BUFFER_SIZE >> 20,
		       started ? sh->started_ns / 1e6 / started : 0.0,
		       sh->started_max_ns / 1e6, sh->unknown_pointer);
	}
	tap(!timed_out && sh->calls == calls,
	    "%llu of %lu calls made within %u s", sh->calls, calls, timeout);
	tap(workers_ok && !timed_out, "%u workers (%u privileged) ran to the end",
	    nworkers, nprivileged);
	tap(!sh->undocumented, "every result is 0 or a documented errno (%llu undocumented)",
	    sh->undocumented);
	tap(!sh->unexpected, "every result is one the arguments allow (%llu not)",
	    sh->unexpected);
	{
		unsigned long long all = 0;

		for (i = 0; i < NCALLS; i++)
			for (w = 0; w <= NERR; w++)
				all += sh->count[i][0][w];
		tap(all && !sh->count[CALL_START][0][0] &&
		    !sh->count[CALL_STOP][0][0] && sh->count[CALL_START][0][EACCES],
		    "no call without CAP_PERFMON or CAP_SYS_ADMIN succeeded (%llu calls, %llu EACCES on start)",
		    all, sh->count[CALL_START][0][EACCES]);
	}
	tap(sh->count[CALL_START][1][0] > 0,
	    "sessions started and stopped under attack (%llu)",
	    sh->count[CALL_START][1][0]);
	return failures ? 1 : 0;
}
