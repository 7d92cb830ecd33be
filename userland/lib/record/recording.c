// SPDX-License-Identifier: GPL-2.0
/* Reading and writing recordings; see recording.h for the layout. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/recording.h"

/*
 * Records are read once, front to back: the pages more than this far
 * behind the reader leave memory again, so that a recording of any size
 * needs little of it, while the records just returned stay where they
 * are for callers that hold a few.  (The data stays in the page cache;
 * touching it again reads it back.)
 */
#define SLEEPY_RELEASE_BYTES	(8U << 20)

#if defined(__x86_64__)
#define SLEEPY_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define SLEEPY_MACHINE EM_AARCH64
#else
#error "add this architecture's ELF machine"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SLEEPY_BYTE_ORDER SLEEPY_BYTE_ORDER_LITTLE
#else
#define SLEEPY_BYTE_ORDER SLEEPY_BYTE_ORDER_BIG
#endif

void sleepy_file_header_init(struct sleepy_file_header *header,
			     const struct sleepy_attr *attr, uint32_t ncpus,
			     uint64_t start_time_ns)
{
	memset(header, 0, sizeof(*header));
	memcpy(header->magic, SLEEPY_FILE_MAGIC, sizeof(header->magic));
	header->version = SLEEPY_FILE_VERSION;
	header->header_size = sizeof(*header);
	header->machine = SLEEPY_MACHINE;
	header->byte_order = SLEEPY_BYTE_ORDER;
	header->pointer_size = sizeof(void *);
	header->ncpus = ncpus;
	header->frequency = attr->frequency;
	header->flags = attr->flags;
	header->start_time_ns = start_time_ns;
	header->buffer_size = attr->buffer_size ?: SLEEPY_DEFAULT_BUFFER_SIZE;
	header->pid = attr->pid;
}

static int fail(struct sleepy_recording *rec, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rec->error, sizeof(rec->error), fmt, ap);
	va_end(ap);
	return -1;
}

static int check_header(struct sleepy_recording *rec)
{
	struct sleepy_file_header *h = &rec->header;

	if (rec->size < 8 || memcmp(rec->data, SLEEPY_FILE_MAGIC, 8))
		return fail(rec, "not a sleepy recording (bad magic)");
	if (rec->size < sizeof(*h))
		return fail(rec, "truncated file header (%zu of %zu bytes)",
			    rec->size, sizeof(*h));
	memcpy(h, rec->data, sizeof(*h));
	if (h->byte_order != SLEEPY_BYTE_ORDER)
		return fail(rec, "recorded with the other byte order; convert it on a machine of that byte order");
	if (h->version != SLEEPY_FILE_VERSION)
		return fail(rec, "format version %u, this sleepy-parse reads version %u; use the sleepy tools that match the recording",
			    h->version, SLEEPY_FILE_VERSION);
	if (h->machine != SLEEPY_MACHINE || h->pointer_size != sizeof(void *))
		return fail(rec, "recorded on ELF machine %u, this is %u; parse it on that architecture",
			    h->machine, SLEEPY_MACHINE);
	if (h->header_size < sizeof(*h) || h->header_size > rec->size ||
	    h->header_size % 8)
		return fail(rec, "bad file header size %u", h->header_size);
	rec->offset = h->header_size;
	return 0;
}

int sleepy_recording_open_mem(struct sleepy_recording *rec,
			      const void *data, size_t size)
{
	memset(rec, 0, sizeof(*rec));
	rec->path = "<memory>";
	rec->data = (unsigned char *)data;
	rec->size = size;
	return check_header(rec);
}

/* Mapped rather than read: no copy, and no memory for what was parsed. */
int sleepy_recording_open(struct sleepy_recording *rec, const char *path)
{
	struct stat st;
	void *data;
	int fd;

	memset(rec, 0, sizeof(*rec));
	rec->path = path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(rec, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(rec, "not a regular file");
	}
	rec->size = st.st_size;
	if (rec->size) {
		data = mmap(NULL, rec->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (data == MAP_FAILED) {
			close(fd);
			return fail(rec, "cannot read: %s", strerror(errno));
		}
		madvise(data, rec->size, MADV_SEQUENTIAL);
		rec->data = data;
		rec->mapped = true;
	}
	close(fd);
	return check_header(rec);
}

void sleepy_recording_close(struct sleepy_recording *rec)
{
	if (rec->mapped)
		munmap(rec->data, rec->size);
	rec->data = NULL;
	rec->mapped = false;
}

/* Lets the pages wholly before @offset leave memory. */
static void release_before(struct sleepy_recording *rec, size_t offset)
{
	size_t page = sysconf(_SC_PAGESIZE), end = offset / page * page;

	madvise(rec->data + rec->released, end - rec->released, MADV_DONTNEED);
	rec->released = end;
}

/* Smallest size a record of @type can have, 0 for types we skip. */
static size_t min_record_size(uint16_t type)
{
	switch (type) {
	case SLEEPY_REC_SAMPLE:
		return sizeof(struct sleepy_sample);
	case SLEEPY_REC_APP_START:
		return sizeof(struct sleepy_app_start);
	case SLEEPY_REC_APP_EXIT:
		return sizeof(struct sleepy_app_exit);
	case SLEEPY_REC_LOST:
		return sizeof(struct sleepy_lost);
	case SLEEPY_REC_SWITCH:
		return sizeof(struct sleepy_switch);
	case SLEEPY_REC_WAKEUP:
		return sizeof(struct sleepy_wakeup);
	case SLEEPY_REC_IRQ_HIST:
		return SLEEPY_IRQ_HIST_SIZE_NO_TIME;
	case SLEEPY_REC_IRQ_APP:
		return SLEEPY_IRQ_APP_SIZE_NO_TIME;
	case SLEEPY_REC_MMAP:
		return sizeof(struct sleepy_mmap);
	case SLEEPY_REC_IRQ_ACTION:
		return sizeof(struct sleepy_irq_action);
	case SLEEPY_REC_CPU_STATS:
		return SLEEPY_CPU_STATS_SIZE_VER0;
	case SLEEPY_REC_END:
		return SLEEPY_END_SIZE_VER0;
	case SLEEPY_REC_CUT:
		return sizeof(struct sleepy_cut);
	default:
		return sizeof(struct sleepy_record_header);
	}
}

/*
 * What is wrong inside a record whose size is right, NULL if nothing:
 * the readers of a record take its contents as checked here.
 */
static const char *record_damage(const struct sleepy_record_header *header)
{
	const struct sleepy_sample *sample = (const void *)header;
	const struct sleepy_mmap *map = (const void *)header;
	const struct sleepy_callchain *chain;

	if (header->type == SLEEPY_REC_SAMPLE &&
	    (chain = sleepy_sample_callchain(sample))) {
		if (header->size < sizeof(*sample) + sizeof(*chain) ||
		    header->size < sizeof(*sample) + sizeof(*chain) +
				   (chain->nr_kernel + chain->nr_user) *
				   sizeof(chain->ips[0]))
			return "stack longer than its record";
		return NULL;
	}
	if (header->type != SLEEPY_REC_MMAP)
		return NULL;
	if (map->build_id_size > SLEEPY_BUILD_ID_MAX)
		return "build-id too long";
	if (!memchr(map->path, '\0', header->size - sizeof(*map)))
		return "path not terminated";
	return NULL;
}

const struct sleepy_record_header *
sleepy_recording_next(struct sleepy_recording *rec)
{
	const struct sleepy_record_header *header;
	size_t left = rec->size - rec->offset;
	const char *damage;

	if (rec->error[0] || !left)
		return NULL;
	rec->bad_offset = rec->offset;
	if (left < sizeof(*header)) {
		fail(rec, "truncated record header at byte %zu", rec->offset);
		return NULL;
	}
	header = (const void *)(rec->data + rec->offset);
	if (header->size < min_record_size(header->type) || header->size % 8) {
		fail(rec, "corrupt record at byte %zu (type %u, size %u)",
		     rec->offset, header->type, header->size);
		return NULL;
	}
	if (header->size > left) {
		fail(rec, "truncated record at byte %zu (needs %u bytes, %zu left)",
		     rec->offset, header->size, left);
		return NULL;
	}
	if (rec->header.ncpus && header->cpu >= rec->header.ncpus) {
		fail(rec, "corrupt record at byte %zu (cpu %u of %u)",
		     rec->offset, header->cpu, rec->header.ncpus);
		return NULL;
	}
	damage = record_damage(header);
	if (damage) {
		fail(rec, "corrupt record at byte %zu (type %u: %s)",
		     rec->offset, header->type, damage);
		return NULL;
	}
	if (rec->mapped &&
	    rec->offset - rec->released >= 2 * SLEEPY_RELEASE_BYTES)
		release_before(rec, rec->offset - SLEEPY_RELEASE_BYTES);
	rec->offset += header->size;
	if (header->type == SLEEPY_REC_END)
		rec->finished = true;
	return header;
}

/* Copies @record into @out of @out_size bytes, zero past a shorter one. */
static void read_versioned(const struct sleepy_record_header *record,
			   void *out, size_t out_size)
{
	size_t size = record->size < out_size ? record->size : out_size;

	memset(out, 0, out_size);
	memcpy(out, record, size);
}

void sleepy_cpu_stats_read(const struct sleepy_record_header *record,
			   struct sleepy_cpu_stats *stats)
{
	read_versioned(record, stats, sizeof(*stats));
}

void sleepy_end_read(const struct sleepy_record_header *record,
		     struct sleepy_end *end)
{
	read_versioned(record, end, sizeof(*end));
}

double sleepy_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int sleepy_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int sleepy_vdso_write(int fd)
{
	const Elf64_Ehdr *ehdr = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t size;

	if (!ehdr || memcmp(ehdr->e_ident, ELFMAG, SELFMAG) ||
	    ehdr->e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	/* The whole file is mapped; its section headers come last. */
	size = ehdr->e_shoff + (size_t)ehdr->e_shnum * ehdr->e_shentsize;
	if (size >= SLEEPY_TEXT_MAX)
		return 0;
	return sleepy_text_write(fd, SLEEPY_REC_VDSO, (const char *)ehdr, size);
}

int sleepy_text_write(int fd, uint32_t type, const char *text, size_t len)
{
	struct sleepy_text *rec;
	int err;

	if (len >= SLEEPY_TEXT_MAX)
		return -1;
	rec = calloc(1, sizeof(*rec) + len + 8);
	if (!rec)
		return -1;
	memcpy(rec->text, text, len);
	rec->header.type = type;
	rec->header.size = (sizeof(*rec) + len + 1 + 7) & ~7UL;
	err = sleepy_write_all(fd, rec, rec->header.size);
	free(rec);
	return err;
}
