// SPDX-License-Identifier: GPL-2.0
/* sleepy-stop: stop the session, finish the recording, print a summary. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "session/options.h"
#include "session/session.h"

static const char usage[] =
"USAGE: sleepy-stop [-t SECONDS]\n"
"\n"
"Stop the running session, wait until the drainer started by sleepy-start\n"
"has written everything and the trailer, and print one summary line.  The\n"
"drainer is waited for as long as it works (a slow disk); one that does\n"
"nothing for SECONDS is given up on, and sleepy-stop can be run again.\n"
"\n"
"EXAMPLES:\n"
"    sleepy-start -o r.data; sleep 10; sleepy-stop\n"
"    sleepy-stop -t 600     # a drainer may stall for minutes (network file system)\n"
"\n"
"OPTIONS:\n"
"    -t, --stall-timeout SECONDS\n"
"                         give up on a drainer idle this long (default 60)\n"
"    -h, --help           show this help\n"
"    -V, --version        show the version\n"
"\n"
"Exit status: 0 stopped and the recording is complete, 1 failed, 2 bad usage.\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "stall-timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	unsigned int stall_seconds = SLEEPY_STALL_SECONDS;
	struct sleepy_summary summary;
	char output[PATH_MAX];
	uint64_t value;
	pid_t drainer;
	int c, err;

	while ((c = getopt_long(argc, argv, "t:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!sleepy_parse_u64(optarg, &value) || !value ||
			    value > 86400) {
				fprintf(stderr, "sleepy-stop: invalid stall timeout '%s' (1..86400 s)\n",
					optarg);
				return SLEEPY_EXIT_USAGE;
			}
			stall_seconds = value;
			break;
		case 'h':
			fputs(usage, stdout);
			return SLEEPY_EXIT_OK;
		case 'V':
			sleepy_print_version("sleepy-stop");
			return SLEEPY_EXIT_OK;
		default:
			return SLEEPY_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "sleepy-stop: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return SLEEPY_EXIT_USAGE;
	}

	if (sleepy_state_load(&drainer, output, sizeof(output))) {
		/* No drainer of ours: still end a session someone left. */
		err = sleepy_sys_stop(0);
		if (err == -ENOSYS) {
			fprintf(stderr, "sleepy-stop: %s\n",
				sleepy_explain("sleepy_stop", err));
			return SLEEPY_EXIT_ERROR;
		}
		fprintf(stderr, "sleepy-stop: no session started by sleepy-start (%s)%s\n",
			sleepy_state_path(),
			err ? "" : "; stopped the kernel session anyway");
		if (err && err != -ESRCH)
			fprintf(stderr, "sleepy-stop: %s\n", sleepy_explain("sleepy_stop", err));
		return SLEEPY_EXIT_ERROR;
	}
	err = sleepy_session_end(drainer, output, stall_seconds, &summary);
	if (err != -1)
		sleepy_state_remove();
	if (err)
		return SLEEPY_EXIT_ERROR;
	sleepy_summary_print(&summary, output);
	return SLEEPY_EXIT_OK;
}
