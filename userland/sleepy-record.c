// SPDX-License-Identifier: GPL-2.0
/* sleepy-record: profile one command from start to end. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/options.h"
#include "session/session.h"

static const char usage[] =
"USAGE: sleepy-record [-F HZ] [-k] [--sched] [--irq [--irq-interval SEC]] [-a]\n"
"                     [-b SIZE] [-o FILE] -- CMD [ARGS...]\n"
"\n"
"Run CMD under a sleepy session: only CMD and its children are sampled,\n"
"or every process with -a.  Prints the session summary at the end.\n"
"\n"
"EXAMPLES:\n"
"    sleepy-record -- ./btree           # tick-based, into sleepy.data\n"
"    sleepy-record -F 1000 -o r.data -- make -j2\n"
"    sleepy-record -a -- sleep 5        # everything, for 5 seconds\n"
"    sleepy-record -g -F 1000 -- ./app  # with call stacks\n"
"\n"
"OPTIONS:\n"
SLEEPY_SESSION_OPTIONS_HELP
"    -a, --all-cpus       sample every process, not only CMD\n"
"    -h, --help           show this help\n"
"    -V, --version        show the version\n"
"\n"
"Exit status: CMD's exit status (128+N if killed by signal N), 1 if\n"
"profiling failed, 2 bad usage, 127 CMD could not be run.\n";

int main(int argc, char **argv)
{
	struct sleepy_session_options opts;
	struct sleepy_summary summary;
	int go[2], status, ret;
	pid_t child, drainer;
	char byte = 0;

	ret = sleepy_session_options_parse(&opts, argc, argv, "sleepy-record",
					   usage, true);
	if (ret >= 0)
		return ret;
	if (optind == argc) {
		fprintf(stderr, "sleepy-record: no command given (see --help)\n");
		return SLEEPY_EXIT_USAGE;
	}

	/* The child waits until the session follows its pid, then execs. */
	if (pipe(go)) {
		perror("sleepy-record: pipe");
		return SLEEPY_EXIT_ERROR;
	}
	child = fork();
	if (child < 0) {
		perror("sleepy-record: fork");
		return SLEEPY_EXIT_ERROR;
	}
	if (!child) {
		close(go[1]);
		if (read(go[0], &byte, 1) != 1 || byte != 'g')
			_exit(SLEEPY_EXIT_ERROR);
		close(go[0]);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "sleepy-record: %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	close(go[0]);

	if (!opts.system_wide) {
		opts.attr.pid = child;
		opts.attr.flags |= SLEEPY_FLAG_FOLLOW_CHILDREN;
	}
	drainer = sleepy_session_begin(&opts.attr, opts.output,
				       opts.irq_interval_ms);
	if (drainer < 0) {
		close(go[1]);
		waitpid(child, &status, 0);
		return SLEEPY_EXIT_ERROR;
	}
	signal(SIGINT, SIG_IGN);	/* ^C goes to CMD; we still finish */
	if (write(go[1], "g", 1) != 1)
		perror("sleepy-record: starting the command");
	close(go[1]);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;

	if (sleepy_session_end(drainer, opts.output, SLEEPY_STALL_SECONDS,
			       &summary))
		return SLEEPY_EXIT_ERROR;
	sleepy_summary_print(&summary, opts.output);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
