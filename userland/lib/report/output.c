// SPDX-License-Identifier: GPL-2.0
/* Text, CSV and JSON report writers. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/output.h"

bool sleepy_format_parse(const char *name, enum sleepy_format *format)
{
	if (!strcmp(name, "text"))
		*format = SLEEPY_FORMAT_TEXT;
	else if (!strcmp(name, "csv"))
		*format = SLEEPY_FORMAT_CSV;
	else if (!strcmp(name, "json"))
		*format = SLEEPY_FORMAT_JSON;
	else
		return false;
	return true;
}

void sleepy_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < ' ')
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/*
 * ",@s" as a CSV field: quoted, its quotes doubled, if it holds a comma or
 * a quote (RFC 4180), as C++ names do (hash_table<int_hash<int, 0, -1>>).
 */
static void csv_field(FILE *out, const char *s)
{
	fputc(',', out);
	if (!strpbrk(s, ",\"")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void sleepy_output_begin(struct sleepy_output *o, FILE *out,
			 enum sleepy_format format, const char *text_summary,
			 const char *json_summary)
{
	memset(o, 0, sizeof(*o));
	o->out = out;
	o->format = format;
	switch (format) {
	case SLEEPY_FORMAT_TEXT:
		fprintf(out, "%s\n", text_summary);
		break;
	case SLEEPY_FORMAT_CSV:
		break;
	case SLEEPY_FORMAT_JSON:
		fprintf(out, "{%s", json_summary);
		break;
	}
}

static void flush_text(struct sleepy_output *o)
{
	fwrite(o->text, 1, o->text_used, o->out);
	o->text_used = 0;
	o->row_kept = false;
}

static void report_end(struct sleepy_output *o)
{
	flush_text(o);
	if (!o->reports)
		return;
	if (o->format == SLEEPY_FORMAT_JSON)
		fprintf(o->out, "%s]", o->rows ? "\n  " : "");
	else if (o->format == SLEEPY_FORMAT_TEXT && !o->rows)
		fprintf(o->out, "  (%s)\n", o->table ? "none" : "no samples");
}

void sleepy_output_report(struct sleepy_output *o, const char *key,
			  const char *title, enum sleepy_columns columns)
{
	report_end(o);
	o->reports++;
	o->rows = 0;
	o->columns = columns;
	o->table = NULL;
	o->key = key;
	switch (o->format) {
	case SLEEPY_FORMAT_TEXT:
		fprintf(o->out, "\n== %s ==\n", title);
		fprintf(o->out, "%10s %7s  %-24s %s\n", "SAMPLES", "%",
			"APPLICATION", columns == SLEEPY_COLUMNS_APP ? "PID" :
			columns == SLEEPY_COLUMNS_IP ? "IP                 FUNCTION" :
			"FUNCTION");
		break;
	case SLEEPY_FORMAT_CSV:
		/* The sample reports share one header, before the first. */
		if (o->reports == 1)
			fprintf(o->out, "report,app,pid,ip,mode,function,samples,percent,dso\n");
		break;
	case SLEEPY_FORMAT_JSON:
		fprintf(o->out, ",\n  \"%s\": [", key);
		break;
	}
}

char *sleepy_format_hex(char *buf, uint64_t n)
{
	int digits = n ? (64 - __builtin_clzll(n) + 3) / 4 : 1;

	*buf++ = '0';
	*buf++ = 'x';
	buf[digits] = '\0';
	for (int i = digits; i--; n >>= 4)
		buf[i] = "0123456789abcdef"[n & 0xf];
	return buf + digits;
}

char *sleepy_format_decimal(char *buf, uint64_t n)
{
	char digits[20];
	int len = 0;

	do {
		digits[len++] = '0' + n % 10;
		n /= 10;
	} while (n);
	while (len)
		*buf++ = digits[--len];
	*buf = '\0';
	return buf;
}

/* Appends @s, @len long, padded to @width like "%-*s"; returns the end. */
static char *append_padded(char *p, const char *s, size_t len, size_t width)
{
	memcpy(p, s, len);
	if (len >= width)
		return p + len;
	memset(p + len, ' ', width - len);
	return p + width;
}

/*
 * Appends @s (@len bytes) to the text row at @p, in o->text; a text too
 * long for what is left of it goes out after what is there.
 */
static char *append_text(struct sleepy_output *o, char *p, const char *s,
			 size_t len)
{
	if (len + 128 <= sizeof(o->text) - (p - o->text))
		return (char *)memcpy(p, s, len) + len;
	o->text_used = p - o->text;
	flush_text(o);
	fwrite(s, 1, len, o->out);
	return o->text;
}

/*
 * The text row, built in o->text: with printf formatting every column,
 * writing the rows took longer than reading the recording.
 */
static void text_row(struct sleepy_output *o, const struct sleepy_row *r,
		     const char *ip)
{
	size_t app_len;
	char *p;

	if (!o->counts[0] || r->samples != o->counts_samples ||
	    r->percent != o->counts_percent) {
		/* Fits: a row's percentage is at most 100. */
		snprintf(o->counts, sizeof(o->counts), "%10" PRIu64 " %6.2f%%  ",
			 r->samples, r->percent);
		o->counts_samples = r->samples;
		o->counts_percent = r->percent;
	}
	/* Room for counts, a label shorter than 32, IP and the line's end. */
	o->row_kept = false;
	if (sizeof(o->text) - o->text_used < 128)
		flush_text(o);
	p = stpcpy(o->text + o->text_used, o->counts);
	app_len = strlen(r->app);
	if (app_len < 32) {
		p = append_padded(p, r->app, app_len, 24);
	} else {
		o->text_used = p - o->text;
		flush_text(o);
		fputs(r->app, o->out);
		p = o->text;
	}
	*p++ = ' ';
	if (o->columns == SLEEPY_COLUMNS_APP) {
		p += sprintf(p, "%u\n", r->pid);
	} else {
		if (o->columns == SLEEPY_COLUMNS_IP) {
			p = append_padded(p, ip, strlen(ip), 18);
			*p++ = ' ';
		}
		if (r->function)
			p = append_text(o, p, r->function, strlen(r->function));
		if (r->function && r->dso) {
			p = stpcpy(p, " (");
			p = append_text(o, p, r->dso, strlen(r->dso));
			*p++ = ')';
		}
		p = stpcpy(p, o->columns == SLEEPY_COLUMNS_IP && r->in_kernel ?
			   " [k]\n" : "\n");
	}
	o->text_used = p - o->text;
}

void sleepy_output_row(struct sleepy_output *o, const struct sleepy_row *r)
{
	char ip[32] = "";

	if (r->has_ip)
		sleepy_format_hex(ip, r->ip);
	switch (o->format) {
	case SLEEPY_FORMAT_TEXT:
		text_row(o, r, ip);
		break;
	case SLEEPY_FORMAT_CSV:
		/* dso last: scripts know the columns before it by number. */
		fputs(o->key, o->out);
		csv_field(o->out, r->app);
		fprintf(o->out, ",%u,%s,%s", r->pid, ip,
			r->has_ip ? (r->in_kernel ? "kernel" : "user") : "");
		csv_field(o->out, r->function ?: "");
		fprintf(o->out, ",%" PRIu64 ",%.4f", r->samples, r->percent);
		csv_field(o->out, r->dso ?: "");
		fputc('\n', o->out);
		break;
	case SLEEPY_FORMAT_JSON:
		fprintf(o->out, "%s\n    {\"app\": ", o->rows ? "," : "");
		sleepy_json_string(o->out, r->app);
		fprintf(o->out, ", \"pid\": %u", r->pid);
		if (r->has_ip)
			fprintf(o->out, ", \"ip\": \"%s\", \"mode\": \"%s\"",
				ip, r->in_kernel ? "kernel" : "user");
		if (o->columns != SLEEPY_COLUMNS_APP) {
			fputs(", \"function\": ", o->out);
			if (r->function)
				sleepy_json_string(o->out, r->function);
			else
				fputs("null", o->out);
			fputs(", \"dso\": ", o->out);
			if (r->dso)
				sleepy_json_string(o->out, r->dso);
			else
				fputs("null", o->out);
		}
		fprintf(o->out, ", \"samples\": %" PRIu64 ", \"percent\": %.4f}",
			r->samples, r->percent);
		break;
	}
	o->rows++;
}

void sleepy_output_table(struct sleepy_output *o, const char *key,
			 const char *title, const struct sleepy_column *columns,
			 unsigned int n)
{
	unsigned int i;

	report_end(o);
	o->reports++;
	o->rows = 0;
	o->table = columns;
	o->ncolumns = n;
	o->key = key;
	switch (o->format) {
	case SLEEPY_FORMAT_TEXT:
		fprintf(o->out, "\n== %s ==\n", title);
		for (i = 0; i < n; i++)
			fprintf(o->out, "%s%*s", i ? " " : "", columns[i].width,
				columns[i].title);
		fputc('\n', o->out);
		break;
	case SLEEPY_FORMAT_CSV:
		fprintf(o->out, "report");
		for (i = 0; i < n; i++)
			fprintf(o->out, ",%s", columns[i].name);
		fputc('\n', o->out);
		break;
	case SLEEPY_FORMAT_JSON:
		fprintf(o->out, ",\n  \"%s\": [", key);
		break;
	}
}

/* Appends @len bytes at @s to the text rows, or writes them if too many. */
static void text_append(struct sleepy_output *o, const char *s, size_t len)
{
	o->row_kept = false;
	if (sizeof(o->text) - o->text_used < len) {
		flush_text(o);
		if (len > sizeof(o->text)) {
			fwrite(s, 1, len, o->out);
			return;
		}
	}
	memcpy(o->text + o->text_used, s, len);
	o->text_used += len;
}

/* Appends @n spaces to the text rows. */
static void text_pad(struct sleepy_output *o, size_t n)
{
	static const char spaces[64] = { [0 ... 63] = ' ' };

	for (; n > sizeof(spaces); n -= sizeof(spaces))
		text_append(o, spaces, sizeof(spaces));
	text_append(o, spaces, n);
}

/* text_cells() of a row of any length, a piece at a time. */
static void text_cells_in_pieces(struct sleepy_output *o,
				 const char *const *cells)
{
	unsigned int i;

	for (i = 0; i < o->ncolumns; i++) {
		int width = o->table[i].width;
		size_t len = strlen(cells[i]);
		size_t pad = (size_t)abs(width) > len ? abs(width) - len : 0;

		if (i)
			text_append(o, " ", 1);
		if (width > 0)
			text_pad(o, pad);
		text_append(o, cells[i], len);
		if (width < 0)
			text_pad(o, pad);
	}
	text_append(o, "\n", 1);
}

/* Columns of a row text_cells() writes in place. */
#define IN_PLACE_COLUMNS 16

/*
 * A text table row as "%*s" per column would write it, built in o->text:
 * printf took most of a report of millions of rows.  A row that fits is
 * written in place, its padding by memset(); its first @same columns,
 * those of the row before, are copied from that row if it is still in
 * o->text.
 */
static void text_cells(struct sleepy_output *o, const char *const *cells,
		       unsigned int same)
{
	size_t len[IN_PLACE_COLUMNS], bytes = 1, copied = 0, start;
	unsigned int i;
	char *p;

	if (o->ncolumns > IN_PLACE_COLUMNS) {
		o->row_kept = false;
		text_cells_in_pieces(o, cells);
		return;
	}
	if (same > sizeof(o->column_end) / sizeof(o->column_end[0]) ||
	    same > o->ncolumns || !o->row_kept)
		same = 0;
	if (same)
		copied = o->column_end[same - 1];
	for (i = same; i < o->ncolumns; i++) {
		len[i] = strlen(cells[i]);
		bytes += 1 + (len[i] > (size_t)abs(o->table[i].width) ?
			      len[i] : (size_t)abs(o->table[i].width));
	}
	if (sizeof(o->text) - o->text_used < copied + bytes) {
		/* The row before goes out: its columns are written anew. */
		if (same) {
			text_cells(o, cells, 0);
			return;
		}
		flush_text(o);
		if (bytes > sizeof(o->text)) {
			text_cells_in_pieces(o, cells);
			return;
		}
	}
	start = o->text_used;
	p = o->text + start;
	memcpy(p, o->text + o->row_start, copied);
	p += copied;
	for (i = same; i < o->ncolumns; i++) {
		int width = o->table[i].width;
		size_t pad = (size_t)abs(width) > len[i] ? abs(width) - len[i] : 0;

		if (i)
			*p++ = ' ';
		if (width > 0) {
			memset(p, ' ', pad);
			p += pad;
		}
		memcpy(p, cells[i], len[i]);
		p += len[i];
		if (width < 0) {
			memset(p, ' ', pad);
			p += pad;
		}
		if (i < sizeof(o->column_end) / sizeof(o->column_end[0]))
			o->column_end[i] = p - (o->text + start);
	}
	*p++ = '\n';
	o->row_start = start;
	o->row_kept = true;
	o->text_used = p - o->text;
}

void sleepy_output_cells(struct sleepy_output *o, const char *const *cells)
{
	sleepy_output_cells_after(o, cells, 0);
}

void sleepy_output_cells_after(struct sleepy_output *o,
			       const char *const *cells, unsigned int same)
{
	unsigned int i;

	switch (o->format) {
	case SLEEPY_FORMAT_TEXT:
		text_cells(o, cells, same);
		break;
	case SLEEPY_FORMAT_CSV:
		fputs(o->key, o->out);
		for (i = 0; i < o->ncolumns; i++)
			csv_field(o->out, cells[i]);
		fputc('\n', o->out);
		break;
	case SLEEPY_FORMAT_JSON:
		fprintf(o->out, "%s\n    {", o->rows ? "," : "");
		for (i = 0; i < o->ncolumns; i++) {
			fprintf(o->out, "%s\"%s\": ", i ? ", " : "",
				o->table[i].name);
			if (o->table[i].numeric)
				fputs(cells[i], o->out);
			else
				sleepy_json_string(o->out, cells[i]);
		}
		fputc('}', o->out);
		break;
	}
	o->rows++;
}

FILE *sleepy_output_stream(struct sleepy_output *o)
{
	flush_text(o);
	return o->out;
}

void sleepy_output_end(struct sleepy_output *o)
{
	report_end(o);
	if (o->format == SLEEPY_FORMAT_JSON)
		fprintf(o->out, "\n}\n");
}
