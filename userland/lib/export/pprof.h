/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sleepy-parse --pprof: the samples of a recording as a pprof profile
 * (gzip-compressed protobuf, pprof.proto), for go tool pprof and for
 * profile stores such as Pyroscope or Parca.  One pprof sample per
 * application instance and IP: values samples/count and, when the
 * recording has a frequency, cpu/nanoseconds (samples x period); labels
 * app ("name#instance") and pid.  Locations carry the function names
 * sleepy-parse found (kernel ones from the recording's symbols) and, where
 * the mapped file has DWARF, their source line and file; user locations
 * point at their file mapping, with its build-id, so a pprof reader can
 * also symbolise what sleepy-parse could not.
 */
#ifndef SLEEPY_PPROF_H
#define SLEEPY_PPROF_H

#include "model/profile.h"
#include "record/recording.h"
#include "report/view.h"

/*
 * Writes @profile, read from @rec, to @path ("-": standard output) as a
 * gzip-compressed pprof profile.  Of @opts, the application filter, the
 * symbols and top (the N heaviest samples) apply.  Returns 0, or -1 with
 * a message on stderr.
 */
int sleepy_pprof_write(const char *path,
		       const struct sleepy_report_options *opts,
		       struct sleepy_profile *profile,
		       const struct sleepy_recording *rec);

/*
 * The same for one interval of a continuous profile (sleepy-agent): the
 * samples @profile holds, taken at @frequency Hz (0: the tick) over
 * @duration_ns from @wall_start_ns (CLOCK_REALTIME), which become the
 * profile's time_nanos and duration_nanos.
 */
int sleepy_pprof_write_interval(const char *path,
				const struct sleepy_report_options *opts,
				struct sleepy_profile *profile,
				uint32_t frequency, int64_t wall_start_ns,
				uint64_t duration_ns);

#endif
