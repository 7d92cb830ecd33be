// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-parse --speedscope; see speedscope.h.  The folded lines, sorted
 * by their root frame, come a root at a time; each line is cut into its
 * frames in place, each distinct frame name gets one index in the shared
 * frame list, and the profiles are written heaviest root first.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/output.h"
#include "export/speedscope.h"

/* One application's lines: [first, end) of the sorted lines. */
struct app_group {
	size_t first, end;
	uint64_t weight;
};

struct frame_slot {
	const char *name;
	size_t index;
};

static int cmp_groups(const void *a, const void *b)
{
	const struct app_group *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int same_name(const void *slot, const void *arg)
{
	return !strcmp(((const struct frame_slot *)slot)->name, arg);
}

/* The index of frame @name, appended to @names if new. */
static size_t frame_index(struct sleepy_table *frames, const char ***names,
			  size_t *count, const char *name)
{
	struct frame_slot *slot = sleepy_table_get(frames, sleepy_hash_string(name),
						   same_name, name);

	if (!slot->name) {
		slot->name = name;
		slot->index = (*count)++;
		*names = sleepy_xrealloc(*names, *count * sizeof(**names));
		(*names)[slot->index] = name;
	}
	return slot->index;
}

/* The frames of a line after its first, NUL-separated in place. */
static const char *frames_after_app(char *stack)
{
	char *p = strchr(stack, ';');

	if (!p)
		return NULL;
	*p = '\0';
	return p + 1;
}

/* Writes the ';'-separated @frames_text as frame indices, cutting it. */
static void put_stack(FILE *out, struct sleepy_table *frames,
		      const char ***names, size_t *count, char *frames_text)
{
	char *name = frames_text, *next;
	bool first = true;

	fputc('[', out);
	for (; name; name = next) {
		next = strchr(name, ';');
		if (next)
			*next++ = '\0';
		fprintf(out, "%s%zu", first ? "" : ",",
			frame_index(frames, names, count, name));
		first = false;
	}
	fputc(']', out);
}

int sleepy_speedscope(FILE *out, const struct sleepy_report_options *opts,
		      enum sleepy_folded_kind kind,
		      struct sleepy_profile *profile,
		      const struct sleepy_recording *rec)
{
	struct sleepy_folded_line *lines;
	struct app_group *groups = NULL;
	const char **names = NULL, **rest;
	struct sleepy_table frames;
	size_t n, ngroups = 0, nnames = 0, i, g;
	char *body = NULL;
	size_t body_size = 0;
	FILE *profiles;

	lines = sleepy_folded_lines(opts, kind, profile, rec, &n);
	if (!lines)
		return -1;
	if (n)
		qsort(lines, n, sizeof(*lines), sleepy_folded_cmp_stacks);
	rest = sleepy_xrealloc(NULL, n * sizeof(*rest));
	for (i = 0; i < n; i++) {
		rest[i] = frames_after_app(lines[i].stack);
		if (!ngroups || strcmp(lines[i].stack,
				       lines[groups[ngroups - 1].first].stack)) {
			groups = sleepy_xrealloc(groups, ++ngroups * sizeof(*groups));
			groups[ngroups - 1] = (struct app_group) { .first = i };
		}
		groups[ngroups - 1].end = i + 1;
		groups[ngroups - 1].weight += lines[i].weight;
	}
	if (ngroups)
		qsort(groups, ngroups, sizeof(*groups), cmp_groups);

	/* The profiles first, in memory: they name the frames. */
	sleepy_table_init(&frames, sizeof(struct frame_slot));
	profiles = open_memstream(&body, &body_size);
	if (!profiles) {
		fprintf(stderr, "sleepy: out of memory\n");
		exit(1);
	}
	for (g = 0; g < ngroups; g++) {
		fprintf(profiles, "%s{\"type\": \"sampled\", \"name\": ", g ? ",\n" : "");
		sleepy_json_string(profiles, lines[groups[g].first].stack);
		fprintf(profiles, ", \"unit\": \"%s\", \"startValue\": 0, \"endValue\": %" PRIu64
			",\n \"samples\": [",
			kind == SLEEPY_FOLDED_OFFCPU ? "nanoseconds" : "none",
			groups[g].weight);
		for (i = groups[g].first; i < groups[g].end; i++) {
			if (i > groups[g].first)
				fputc(',', profiles);
			if (rest[i])
				put_stack(profiles, &frames, &names, &nnames,
					  (char *)rest[i]);
			else
				fputs("[]", profiles);
		}
		fputs("],\n \"weights\": [", profiles);
		for (i = groups[g].first; i < groups[g].end; i++)
			fprintf(profiles, "%s%" PRIu64, i > groups[g].first ? "," : "",
				lines[i].weight);
		fputs("]}", profiles);
	}
	fclose(profiles);

	fputs("{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
	      " \"exporter\": \"sleepy-parse " SLEEPY_VERSION "\", \"name\": ", out);
	sleepy_json_string(out, opts->path ?: "sleepy");
	fputs(", \"activeProfileIndex\": 0,\n \"shared\": {\"frames\": [", out);
	for (i = 0; i < nnames; i++) {
		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
		sleepy_json_string(out, names[i]);
		fputc('}', out);
	}
	fprintf(out, "]},\n \"profiles\": [%s]}\n", body ?: "");
	free(body);
	free(names);
	free(rest);
	free(groups);
	sleepy_table_free(&frames);
	sleepy_folded_lines_free(lines, n);
	return 0;
}
