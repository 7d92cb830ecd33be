// SPDX-License-Identifier: GPL-2.0
/* sleepy-start: start a session and a drainer writing it to a file. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "session/options.h"
#include "session/session.h"

static const char usage[] =
"USAGE: sleepy-start [-F HZ] [-k] [--sched] [--irq [--irq-interval SEC]]\n"
"                    [-p PID [--follow]] [-b SIZE] [-o FILE]\n"
"\n"
"Start sampling every CPU and leave a drainer copying the samples into\n"
"FILE until sleepy-stop.\n"
"\n"
"EXAMPLES:\n"
"    sleepy-start                     # tick-based sampling into sleepy.data\n"
"    sleepy-start -F 10000 -o r.data  # 10 kHz per CPU\n"
"    sleepy-start -k -p 1234 --follow # pid 1234 and its children, kernel IPs too\n"
"    sleepy-start --sched -k          # and where tasks wait, and who wakes them\n"
"    sleepy-start -F 1000 -g -k       # call stacks, user and kernel\n"
"    sleepy-start --irq --irq-interval 1  # interrupt histograms, each second\n"
"\n"
"OPTIONS:\n"
SLEEPY_SESSION_OPTIONS_HELP
"    -h, --help           show this help\n"
"    -V, --version        show the version\n"
"\n"
"Exit status: 0 started, 1 failed, 2 bad usage.\n";

int main(int argc, char **argv)
{
	struct sleepy_session_options opts;
	pid_t drainer;
	int ret;

	ret = sleepy_session_options_parse(&opts, argc, argv, "sleepy-start",
					   usage, false);
	if (ret >= 0)
		return ret;
	if (optind != argc) {
		fprintf(stderr, "sleepy-start: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return SLEEPY_EXIT_USAGE;
	}

	drainer = sleepy_session_begin(&opts.attr, opts.output,
				       opts.irq_interval_ms);
	if (drainer < 0)
		return SLEEPY_EXIT_ERROR;
	if (sleepy_state_save(drainer, opts.output)) {
		fprintf(stderr, "sleepy-start: cannot write %s; stopping\n",
			sleepy_state_path());
		sleepy_session_end(drainer, opts.output, SLEEPY_STALL_SECONDS,
				   &(struct sleepy_summary){});
		return SLEEPY_EXIT_ERROR;
	}
	sleepy_session_detach();
	printf("sleepy: recording to %s (drainer pid %d); stop with sleepy-stop\n",
	       opts.output, (int)drainer);
	return SLEEPY_EXIT_OK;
}
