// SPDX-License-Identifier: GPL-2.0
/* Parsing of the options that describe a session. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/options.h"
#include "record/recording.h"
#include "session/session.h"

void sleepy_print_version(const char *tool)
{
	printf("%s (sleepy) %s, file format %u\n", tool, SLEEPY_VERSION,
	       SLEEPY_FILE_VERSION);
}

static int bad(const char *tool, const char *what, const char *value)
{
	fprintf(stderr, "%s: invalid %s '%s' (see --help)\n", tool, what, value);
	return SLEEPY_EXIT_USAGE;
}

/* "2", "0.5": seconds, to whole milliseconds. */
static bool parse_seconds_ms(const char *s, uint64_t *ms)
{
	char *end;
	double seconds;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	seconds = strtod(s, &end);
	if (errno || *end || !(seconds >= 0 && seconds <= 1e9))
		return false;
	*ms = (uint64_t)(seconds * 1000 + 0.5);
	return true;
}

/*
 * With -g the largest sample must fit into a record's size and into one
 * of the eight sub-buffers a CPU's buffer has at least (at most 128K
 * each): the kernel's rules, said here with the depth or size that would
 * do.
 */
static int stack_fits(const struct sleepy_session_options *opts,
		      const char *tool)
{
	const uint64_t fixed = sizeof(struct sleepy_sample) +
			       sizeof(struct sleepy_callchain);
	uint64_t depth = opts->attr.max_stack ?: SLEEPY_DEFAULT_MAX_STACK;
	uint64_t record = fixed + 2 * depth * 8;
	uint64_t buffer = opts->attr.buffer_size ?: SLEEPY_DEFAULT_BUFFER_SIZE;
	uint64_t subbuf = buffer / 8 < 128 << 10 ? buffer / 8 : 128 << 10;

	if (!(opts->attr.flags & SLEEPY_FLAG_CALLCHAIN))
		return -1;
	if (record > SLEEPY_RECORD_MAX_SIZE) {
		fprintf(stderr, "%s: --max-stack %" PRIu64 ": a sample holds at most %" PRIu64
			" frames a stack\n", tool, depth,
			(SLEEPY_RECORD_MAX_SIZE - fixed) / 16);
		return SLEEPY_EXIT_USAGE;
	}
	if (record <= subbuf - sizeof(struct sleepy_subbuf_header))
		return -1;
	fprintf(stderr, "%s: a buffer of %" PRIu64 "K holds no stack of %" PRIu64
		" frames: give -b %" PRIu64 "K or more, or a smaller --max-stack\n",
		tool, buffer >> 10, depth,
		((record + sizeof(struct sleepy_subbuf_header)) * 8 + 4095) / 4096 * 4);
	return SLEEPY_EXIT_USAGE;
}

int sleepy_session_options_parse(struct sleepy_session_options *opts,
				 int argc, char **argv, const char *tool,
				 const char *usage, bool for_record)
{
	enum { OPT_FOLLOW = 256, OPT_SCHED, OPT_IRQ, OPT_IRQ_INTERVAL, OPT_MAX_STACK };
	static const struct option longopts[] = {
		{ "frequency", required_argument, NULL, 'F' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "pid", required_argument, NULL, 'p' },
		{ "follow", no_argument, NULL, OPT_FOLLOW },
		{ "sched", no_argument, NULL, OPT_SCHED },
		{ "irq", no_argument, NULL, OPT_IRQ },
		{ "irq-interval", required_argument, NULL, OPT_IRQ_INTERVAL },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "buffer", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	const char *optstring = for_record ? "+F:kgb:o:ahV" : "F:kgp:b:o:hV";
	uint64_t value;
	int c;

	memset(opts, 0, sizeof(*opts));
	opts->attr.size = sizeof(opts->attr);
	opts->output = "sleepy.data";
	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (!sleepy_parse_u64(optarg, &value) || !value ||
			    value > SLEEPY_MAX_FREQUENCY)
				return bad(tool, "frequency (1.." SLEEPY_STR(SLEEPY_MAX_FREQUENCY) " Hz)", optarg);
			opts->attr.frequency = value;
			break;
		case 'k':
			opts->attr.flags |= SLEEPY_FLAG_KERNEL;
			break;
		case 'g':
			opts->attr.flags |= SLEEPY_FLAG_CALLCHAIN;
			break;
		case OPT_MAX_STACK:
			if (!sleepy_parse_u64(optarg, &value) || !value ||
			    value > UINT32_MAX)
				return bad(tool, "stack depth (1 up to kernel.perf_event_max_stack)", optarg);
			opts->attr.max_stack = value;
			break;
		case 'p':
			if (!sleepy_parse_u64(optarg, &value) || !value ||
			    value > 0x3fffffff)
				return bad(tool, "pid", optarg);
			opts->attr.pid = value;
			break;
		case OPT_FOLLOW:
			if (for_record)
				return bad(tool, "option", "--follow");
			opts->attr.flags |= SLEEPY_FLAG_FOLLOW_CHILDREN;
			break;
		case OPT_SCHED:
			opts->attr.flags |= SLEEPY_FLAG_SCHED;
			break;
		case OPT_IRQ:
			opts->attr.flags |= SLEEPY_FLAG_IRQ;
			break;
		case OPT_IRQ_INTERVAL:
			if (!parse_seconds_ms(optarg, &value) || value < 10 ||
			    value > 86400000)
				return bad(tool, "interval (0.01..86400 s)", optarg);
			opts->irq_interval_ms = value;
			break;
		case 'b':
			if (!sleepy_parse_size(optarg, &value) ||
			    value < SLEEPY_MIN_BUFFER_SIZE ||
			    value > SLEEPY_MAX_BUFFER_SIZE || value % 4096)
				return bad(tool, "buffer size (multiple of 4K, 8K..256M)",
					   optarg);
			opts->attr.buffer_size = value;
			break;
		case 'o':
			if (!*optarg)
				return bad(tool, "output", optarg);
			opts->output = optarg;
			break;
		case 'a':
			opts->system_wide = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return SLEEPY_EXIT_OK;
		case 'V':
			sleepy_print_version(tool);
			return SLEEPY_EXIT_OK;
		default:
			return SLEEPY_EXIT_USAGE;
		}
	}
	if ((opts->attr.flags & SLEEPY_FLAG_FOLLOW_CHILDREN) && !opts->attr.pid) {
		fprintf(stderr, "%s: --follow needs -p PID\n", tool);
		return SLEEPY_EXIT_USAGE;
	}
	if (opts->irq_interval_ms && !(opts->attr.flags & SLEEPY_FLAG_IRQ)) {
		fprintf(stderr, "%s: --irq-interval needs --irq\n", tool);
		return SLEEPY_EXIT_USAGE;
	}
	if (opts->attr.max_stack && !(opts->attr.flags & SLEEPY_FLAG_CALLCHAIN)) {
		fprintf(stderr, "%s: --max-stack needs -g\n", tool);
		return SLEEPY_EXIT_USAGE;
	}
	return stack_fits(opts, tool);
}
