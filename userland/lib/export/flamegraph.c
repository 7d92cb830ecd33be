// SPDX-License-Identifier: GPL-2.0
/*
 * sleepy-parse --flamegraph; see flamegraph.h.  As flamegraph.pl does it:
 * the folded lines sorted by their text put every stack sharing a prefix
 * next to each other, so one pass with a stack of open frames finds every
 * frame's extent (a frame closes where the next line's stack leaves it).
 * Frames narrower than a tenth of a pixel are left out, which keeps the
 * file small; the script at the end zooms and searches what was drawn.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/flamegraph.h"
#include "report/output.h"

#define WIDTH		1200
#define XPAD		10
#define FRAME_HEIGHT	16
#define FONT_SIZE	12
#define FONT_WIDTH	0.59	/* of FONT_SIZE, per character */
#define MIN_WIDTH	0.1	/* pixels */
#define TOP_PAD		(3 * FONT_SIZE + 8)
#define BOTTOM_PAD	(2 * FONT_SIZE + 10)

struct frame {
	const char *name;	/* in a folded line, not terminated */
	size_t len;
	unsigned int depth;
	uint64_t start, end;	/* in weight, from the left */
};

struct frames {
	struct frame *v;
	size_t count, size;
	unsigned int max_depth;
};

static void push(struct frames *f, const struct frame *frame)
{
	if (f->count == f->size) {
		f->size = f->size ? 2 * f->size : 256;
		f->v = sleepy_xrealloc(f->v, f->size * sizeof(*f->v));
	}
	f->v[f->count++] = *frame;
	if (frame->depth > f->max_depth)
		f->max_depth = frame->depth;
}

/* Length of the frame at @s, up to ';' or the end. */
static size_t frame_len(const char *s)
{
	return strcspn(s, ";");
}

/*
 * Every frame of @lines (sorted by stack) with its extent, above one "all"
 * frame as wide as the total weight, which goes to *@total.
 */
static void layout(struct frames *out, const struct sleepy_folded_line *lines,
		   size_t n, uint64_t *total)
{
	struct frame *open = NULL;
	size_t nopen = 0, size = 0, i;
	uint64_t x = 0;

	for (i = 0; i < n; i++) {
		const char *s = lines[i].stack;
		size_t depth = 0;

		/* Frames still shared with the previous line stay open. */
		while (depth < nopen && *s &&
		       frame_len(s) == open[depth].len &&
		       !memcmp(s, open[depth].name, open[depth].len)) {
			s += open[depth].len;
			s += *s == ';';
			depth++;
		}
		while (nopen > depth) {
			open[--nopen].end = x;
			push(out, &open[nopen]);
		}
		for (; *s; s += *s == ';') {
			if (nopen == size) {
				size = size ? 2 * size : 16;
				open = sleepy_xrealloc(open, size * sizeof(*open));
			}
			open[nopen] = (struct frame) {
				.name = s, .len = frame_len(s),
				.depth = nopen + 1, .start = x,
			};
			s += open[nopen++].len;
		}
		x += lines[i].weight;
	}
	while (nopen) {
		open[--nopen].end = x;
		push(out, &open[nopen]);
	}
	free(open);
	push(out, &(struct frame) { .name = "all", .len = 3, .end = x });
	*total = x;
}

/* @len bytes of @s with XML's special characters escaped. */
static void put_escaped(FILE *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fputc(s[i], out);
		}
	}
}

/* flamegraph.pl's palettes: hot (user), orange (kernel), blue (off-CPU). */
static void color(const struct frame *f, bool offcpu, int rgb[3])
{
	uint64_t h = sleepy_fnv(SLEEPY_FNV_BASIS, f->name, f->len);
	double v1, v2, v3;

	v1 = (h & 0xff) / 255.0;
	v2 = ((h >> 8) & 0xff) / 255.0;
	v3 = ((h >> 16) & 0xff) / 255.0;
	if (offcpu) {
		rgb[0] = 80 * v1;
		rgb[1] = 80 + 100 * v2;
		rgb[2] = 190 + 65 * v3;
	} else if (f->len > 4 && !memcmp(f->name + f->len - 4, "_[k]", 4)) {
		rgb[0] = 200 + 55 * v1;
		rgb[1] = 110 + 60 * v2;
		rgb[2] = 20 * v3;
	} else {
		rgb[0] = 205 + 50 * v3;
		rgb[1] = 230 * v1;
		rgb[2] = 55 * v2;
	}
}

/* The label that fits @px pixels: the name, cut with "..", or nothing. */
static void put_label(FILE *out, const struct frame *f, double px)
{
	size_t fits = px / (FONT_SIZE * FONT_WIDTH);

	if (fits < 3)
		return;
	if (f->len <= fits) {
		put_escaped(out, f->name, f->len);
	} else {
		put_escaped(out, f->name, fits - 2);
		fputs("..", out);
	}
}

static const char script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"'use strict';\n"
"var W, details, matched, unzoom, frames;\n"
"function init() {\n"
"  W = +document.documentElement.getAttribute('data-w');\n"
"  details = document.getElementById('details');\n"
"  matched = document.getElementById('matched');\n"
"  unzoom = document.getElementById('unzoom');\n"
"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"  frames.forEach(function (g) {\n"
"    g.onmouseover = function () { details.textContent = g.querySelector('title').textContent; };\n"
"    g.onmouseout = function () { details.textContent = ' '; };\n"
"    g.onclick = function () { zoom(g); };\n"
"  });\n"
"  unzoom.onclick = function () { zoom(null); };\n"
"  document.getElementById('search').onclick = search;\n"
"}\n"
"function label(g, px) {\n"
"  var name = g.getAttribute('data-n'), fits = Math.floor(px / " SLEEPY_STR(FONT_SIZE) " / 0.59);\n"
"  if (fits < 3) return '';\n"
"  return name.length <= fits ? name : name.substring(0, fits - 2) + '..';\n"
"}\n"
"function place(g, x, w) {\n"
"  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
"  r.setAttribute('x', x); r.setAttribute('width', w);\n"
"  t.setAttribute('x', x + 3); t.textContent = label(g, w);\n"
"}\n"
"function zoom(target) {\n"
"  var zx = " SLEEPY_STR(XPAD) ", zw = W - 2 * " SLEEPY_STR(XPAD) ";\n"
"  if (target) { zx = +target.getAttribute('data-x'); zw = +target.getAttribute('data-w'); }\n"
"  var scale = (W - 2 * " SLEEPY_STR(XPAD) ") / zw;\n"
"  frames.forEach(function (g) {\n"
"    var x = +g.getAttribute('data-x'), w = +g.getAttribute('data-w');\n"
"    if (x + w <= zx + 1e-6 || x >= zx + zw - 1e-6) { g.style.display = 'none'; return; }\n"
"    var left = Math.max(x, zx), right = Math.min(x + w, zx + zw);\n"
"    g.style.display = '';\n"
"    place(g, " SLEEPY_STR(XPAD) " + (left - zx) * scale, (right - left) * scale);\n"
"  });\n"
"  unzoom.style.opacity = target ? 1 : 0;\n"
"}\n"
"function search() {\n"
"  var term = prompt('Search for (regular expression):', '');\n"
"  var re, spans = [], covered = 0, end = -1;\n"
"  if (term === null) return;\n"
"  try { re = new RegExp(term); } catch (e) { alert(e); return; }\n"
"  frames.forEach(function (g) {\n"
"    var r = g.querySelector('rect'), hit = term !== '' && re.test(g.getAttribute('data-n'));\n"
"    r.setAttribute('fill', hit ? 'rgb(230,0,230)' : g.getAttribute('data-c'));\n"
"    if (hit) spans.push([+g.getAttribute('data-x'), +g.getAttribute('data-x') + +g.getAttribute('data-w')]);\n"
"  });\n"
"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"  spans.forEach(function (s) {\n"
"    if (s[0] >= end) { covered += s[1] - s[0]; end = s[1]; }\n"
"    else if (s[1] > end) { covered += s[1] - end; end = s[1]; }\n"
"  });\n"
"  matched.textContent = term === '' ? ' ' :\n"
"    'Matched: ' + (100 * covered / (W - 2 * " SLEEPY_STR(XPAD) ")).toFixed(2) + '%';\n"
"}\n"
"]]></script>\n";

static void put_header(FILE *out, const char *title, const char *subtitle,
		       int height)
{
	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
		" xmlns=\"http://www.w3.org/2000/svg\" data-w=\"%d\" onload=\"init()\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }"
		" g.f:hover rect { stroke: black; stroke-width: 0.5; cursor: pointer; }"
		" #unzoom, #search { cursor: pointer; }</style>\n",
		WIDTH, height, WIDTH, height, WIDTH, FONT_SIZE);
	fputs(script, out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(248,248,248)\"/>\n",
		WIDTH, height);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" style=\"font-size: %dpx\">",
		WIDTH / 2, FONT_SIZE * 2, FONT_SIZE + 5);
	put_escaped(out, title, strlen(title));
	fputs("</text>\n", out);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" style=\"fill: rgb(120,120,120)\">",
		WIDTH / 2, FONT_SIZE * 3 - 2);
	put_escaped(out, subtitle, strlen(subtitle));
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"unzoom\" x=\"%d\" y=\"%d\" style=\"opacity: 0\">Reset Zoom</text>\n",
		XPAD, FONT_SIZE * 2);
	fprintf(out, "<text id=\"search\" x=\"%d\" y=\"%d\" text-anchor=\"end\">Search</text>\n",
		WIDTH - XPAD, FONT_SIZE * 2);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
		XPAD, height - FONT_SIZE / 2 - 2);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
		WIDTH - XPAD, height - FONT_SIZE / 2 - 2);
}

static void put_frame(FILE *out, const struct frame *f, uint64_t total,
		      double x, double w, int y, bool offcpu)
{
	const char *unit = offcpu ? "ns" : "samples";
	int rgb[3];

	color(f, offcpu, rgb);
	fprintf(out, "<g class=\"f\" data-x=\"%.2f\" data-w=\"%.2f\" data-c=\"rgb(%d,%d,%d)\" data-n=\"",
		x, w, rgb[0], rgb[1], rgb[2]);
	put_escaped(out, f->name, f->len);
	fputs("\"><title>", out);
	put_escaped(out, f->name, f->len);
	fprintf(out, " (%" PRIu64 " %s, %.2f%%)</title>", f->end - f->start, unit,
		100.0 * (f->end - f->start) / total);
	fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
		x, y, w, FRAME_HEIGHT - 1, rgb[0], rgb[1], rgb[2]);
	fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3,
		y + FRAME_HEIGHT - 4.5);
	put_label(out, f, w);
	fputs("</text></g>\n", out);
}

int sleepy_flamegraph(FILE *out, const struct sleepy_report_options *opts,
		      enum sleepy_folded_kind kind,
		      struct sleepy_profile *profile,
		      const struct sleepy_recording *rec)
{
	bool offcpu = kind == SLEEPY_FOLDED_OFFCPU;
	struct sleepy_folded_line *lines;
	struct frames frames = {};
	double scale;
	uint64_t total;
	size_t n, i;
	int height;

	lines = sleepy_folded_lines(opts, kind, profile, rec, &n);
	if (!lines)
		return -1;
	if (n)
		qsort(lines, n, sizeof(*lines), sleepy_folded_cmp_stacks);
	layout(&frames, lines, n, &total);
	height = TOP_PAD + (frames.max_depth + 1) * FRAME_HEIGHT + BOTTOM_PAD;
	put_header(out, offcpu ? "Off-CPU Flame Graph (ns off CPU)" : "CPU Flame Graph (samples)",
		   opts->path ?: "", height);
	scale = total ? (WIDTH - 2.0 * XPAD) / total : 0;
	for (i = 0; i < frames.count; i++) {
		const struct frame *f = &frames.v[i];
		double w = (f->end - f->start) * scale;

		if (w < MIN_WIDTH)
			continue;
		put_frame(out, f, total, XPAD + f->start * scale, w,
			  height - BOTTOM_PAD - (f->depth + 1) * FRAME_HEIGHT,
			  offcpu);
	}
	if (!total)
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">No %s in this recording</text>\n",
			WIDTH / 2, height / 2, offcpu ? "off-CPU time" : "samples");
	fputs("</svg>\n", out);
	free(frames.v);
	sleepy_folded_lines_free(lines, n);
	return 0;
}
