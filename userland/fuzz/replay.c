// SPDX-License-Identifier: GPL-2.0
/*
 * Replays inputs through the fuzz target without libFuzzer: the seed
 * corpus and every crash the fuzzer found (regressions/).  Each file runs
 * in a child process so that a sanitizer report fails that file and the
 * others still run.  TAP output like the host unit tests; exit status 1
 * on any failure.
 *
 * Usage: replay_recording FILE|DIRECTORY...  (directories in name order)
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int failures, tests;

/* Runs in the child: exit status 0 unless a sanitizer complains. */
static int run_input(const char *path)
{
	unsigned char *data;
	struct stat st;
	FILE *f;

	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		perror(path);
		return 1;
	}
	/* A buffer of its own, so ASan sees reads past the input's end. */
	data = malloc(st.st_size ?: 1);
	if (!data || fread(data, 1, st.st_size, f) != (size_t)st.st_size) {
		perror(path);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, st.st_size);
	free(data);
	return 0;
}

static void replay_file(const char *path)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	/* exit(), not _exit(): LeakSanitizer checks at exit. */
	if (!pid)
		exit(run_input(path));
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		exit(1);
	}
	tests++;
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		printf("ok %d - replay %s\n", tests, path);
		return;
	}
	failures++;
	if (WIFSIGNALED(status))
		printf("not ok %d - replay %s (signal %d)\n", tests, path,
		       WTERMSIG(status));
	else
		printf("not ok %d - replay %s (exit status %d)\n", tests,
		       path, WEXITSTATUS(status));
}

static int visible(const struct dirent *entry)
{
	return entry->d_name[0] != '.';
}

/* Replays (or with !@run only counts) the regular files of @dir. */
static int replay_directory(const char *dir, bool run)
{
	const char *slash = dir[strlen(dir) - 1] == '/' ? "" : "/";
	struct dirent **entries;
	char path[4096];
	struct stat st;
	int n, i, files = 0;

	n = scandir(dir, &entries, visible, alphasort);
	if (n < 0) {
		perror(dir);
		exit(1);
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s%s%s", dir, slash,
			 entries[i]->d_name);
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			files++;
			if (run)
				replay_file(path);
		}
		free(entries[i]);
	}
	free(entries);
	return files;
}

/* Replays (or counts) the files and directories named by @argv. */
static int replay_all(int argc, char **argv, bool run)
{
	struct stat st;
	int i, files = 0;

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			exit(1);
		}
		if (S_ISDIR(st.st_mode)) {
			files += replay_directory(argv[i], run);
		} else {
			files++;
			if (run)
				replay_file(argv[i]);
		}
	}
	return files;
}

int main(int argc, char **argv)
{
	/* The plan first: the runner fails a replay that stops short. */
	printf("1..%d\n", replay_all(argc, argv, false));
	replay_all(argc, argv, true);
	return failures ? 1 : 0;
}
