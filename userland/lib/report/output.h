/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Report writers: the same rows as aligned text, CSV or JSON.  A report
 * is a titled table of rows; every row is an application (and possibly an
 * instruction pointer and function) with a sample count and percentage.
 */
#ifndef SLEEPY_OUTPUT_H
#define SLEEPY_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The version the outputs name their writer by (make sets it). */
#ifndef SLEEPY_VERSION
#define SLEEPY_VERSION "unknown"
#endif

#define SLEEPY_XSTR(x) #x
#define SLEEPY_STR(x) SLEEPY_XSTR(x)

enum sleepy_format { SLEEPY_FORMAT_TEXT, SLEEPY_FORMAT_CSV, SLEEPY_FORMAT_JSON };

/* What identifies a row besides the application. */
enum sleepy_columns {
	SLEEPY_COLUMNS_APP,		/* pid */
	SLEEPY_COLUMNS_IP,		/* instruction pointer and function */
	SLEEPY_COLUMNS_FUNCTION,	/* function */
};

struct sleepy_row {
	const char *app;	/* name#instance */
	uint32_t pid;
	bool has_ip;
	uint64_t ip;
	bool in_kernel;
	const char *function;	/* NULL when unknown */
	const char *dso;	/* file of the function, if named by a mapping */
	uint64_t samples;
	double percent;
};

/*
 * A column of a report whose rows are not sample counts (the scheduler's
 * reports): cells come formatted; numeric ones are bare in JSON.
 */
struct sleepy_column {
	const char *name;	/* JSON key and CSV header */
	const char *title;	/* text header */
	int width;		/* text width; negative: left-aligned */
	bool numeric;
};

struct sleepy_output {
	FILE *out;
	enum sleepy_format format;
	const char *key;	/* current report's name */
	enum sleepy_columns columns;
	const struct sleepy_column *table;	/* NULL: a sample report */
	unsigned int ncolumns;
	unsigned int reports;	/* begun so far */
	unsigned int rows;	/* in the current report */
	/*
	 * Text: the last row's "SAMPLES %" columns.  Rows come sorted by
	 * samples, so most rows repeat them and skip printf's float code.
	 */
	uint64_t counts_samples;
	double counts_percent;
	char counts[48];
	/* Text rows, written a buffer at a time rather than each alone. */
	char text[16 << 10];
	size_t text_used;
	/*
	 * The text table row written last, if still in @text: where it
	 * starts and where each of its first columns ends, so that the
	 * next row copies the columns it repeats (see
	 * sleepy_output_cells_after()).
	 */
	bool row_kept;
	size_t row_start;
	size_t column_end[4];
};

/*
 * "0x%" PRIx64 and "%" PRIu64 of @n into @buf (19 and 21 bytes at most),
 * without printf (reports have millions of rows); return the NUL's place.
 */
char *sleepy_format_hex(char *buf, uint64_t n);
char *sleepy_format_decimal(char *buf, uint64_t n);

/* Parses "text", "csv" or "json"; false if unknown. */
bool sleepy_format_parse(const char *name, enum sleepy_format *format);
/*
 * @s as a JSON string: names are sanitised when read, but '"', '\\' and
 * control bytes are escaped anyway.
 */
void sleepy_json_string(FILE *out, const char *s);

/* @summary: one line (text), JSON object members, or nothing for CSV. */
void sleepy_output_begin(struct sleepy_output *o, FILE *out,
			 enum sleepy_format format, const char *text_summary,
			 const char *json_summary);
void sleepy_output_report(struct sleepy_output *o, const char *key,
			  const char *title, enum sleepy_columns columns);
void sleepy_output_row(struct sleepy_output *o, const struct sleepy_row *row);
/* A report of @n @columns; rows come through sleepy_output_cells(). */
void sleepy_output_table(struct sleepy_output *o, const char *key,
			 const char *title, const struct sleepy_column *columns,
			 unsigned int n);
/* One row of the current table: a formatted cell per column. */
void sleepy_output_cells(struct sleepy_output *o, const char *const *cells);
/*
 * sleepy_output_cells() of a row whose first @same cells are those of the
 * row before it: a text table copies their columns from it, as they were
 * written.  Reports of sorted rows repeat their leading columns row after
 * row.
 */
void sleepy_output_cells_after(struct sleepy_output *o,
			       const char *const *cells, unsigned int same);
/*
 * The stream, after the rows written so far: for what a report writes
 * there itself (text rows are buffered).
 */
FILE *sleepy_output_stream(struct sleepy_output *o);
void sleepy_output_end(struct sleepy_output *o);

#endif
