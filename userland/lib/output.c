// SPDX-License-Identifier: GPL-2.0
/* Text, CSV and JSON report writers. */
#include <inttypes.h>
#include <string.h>

#include "output.h"

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

/* Names are sanitised when read; quote anyway for JSON's sake. */
static void json_string(FILE *out, const char *s)
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
		fprintf(out, "report,app,pid,ip,mode,function,samples,percent\n");
		break;
	case SLEEPY_FORMAT_JSON:
		fprintf(out, "{%s", json_summary);
		break;
	}
}

static void report_end(struct sleepy_output *o)
{
	if (!o->reports)
		return;
	if (o->format == SLEEPY_FORMAT_JSON)
		fprintf(o->out, "%s]", o->rows ? "\n  " : "");
	else if (o->format == SLEEPY_FORMAT_TEXT && !o->rows)
		fprintf(o->out, "  (no samples)\n");
}

void sleepy_output_report(struct sleepy_output *o, const char *key,
			  const char *title, enum sleepy_columns columns)
{
	report_end(o);
	o->reports++;
	o->rows = 0;
	o->columns = columns;
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
		break;
	case SLEEPY_FORMAT_JSON:
		fprintf(o->out, ",\n  \"%s\": [", key);
		break;
	}
}

void sleepy_output_row(struct sleepy_output *o, const struct sleepy_row *r)
{
	char ip[32] = "";

	if (r->has_ip)
		snprintf(ip, sizeof(ip), "0x%" PRIx64, r->ip);
	switch (o->format) {
	case SLEEPY_FORMAT_TEXT:
		fprintf(o->out, "%10" PRIu64 " %6.2f%%  %-24s ", r->samples,
			r->percent, r->app);
		if (o->columns == SLEEPY_COLUMNS_APP)
			fprintf(o->out, "%u\n", r->pid);
		else if (o->columns == SLEEPY_COLUMNS_IP)
			fprintf(o->out, "%-18s %s%s\n", ip, r->function ?: "",
				r->in_kernel ? " [k]" : "");
		else
			fprintf(o->out, "%s\n", r->function ?: "");
		break;
	case SLEEPY_FORMAT_CSV:
		fprintf(o->out, "%s,%s,%u,%s,%s,%s,%" PRIu64 ",%.4f\n",
			o->key, r->app, r->pid, ip,
			r->has_ip ? (r->in_kernel ? "kernel" : "user") : "",
			r->function ?: "", r->samples, r->percent);
		break;
	case SLEEPY_FORMAT_JSON:
		fprintf(o->out, "%s\n    {\"app\": ", o->rows ? "," : "");
		json_string(o->out, r->app);
		fprintf(o->out, ", \"pid\": %u", r->pid);
		if (r->has_ip)
			fprintf(o->out, ", \"ip\": \"%s\", \"mode\": \"%s\"",
				ip, r->in_kernel ? "kernel" : "user");
		if (o->columns != SLEEPY_COLUMNS_APP) {
			fputs(", \"function\": ", o->out);
			if (r->function)
				json_string(o->out, r->function);
			else
				fputs("null", o->out);
		}
		fprintf(o->out, ", \"samples\": %" PRIu64 ", \"percent\": %.4f}",
			r->samples, r->percent);
		break;
	}
	o->rows++;
}

void sleepy_output_end(struct sleepy_output *o)
{
	report_end(o);
	if (o->format == SLEEPY_FORMAT_JSON)
		fprintf(o->out, "\n}\n");
}
