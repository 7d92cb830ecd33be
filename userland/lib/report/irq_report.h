/* SPDX-License-Identifier: GPL-2.0 */
/* sleepy-parse's reports of a --irq recording (irq_report.c). */
#ifndef SLEEPY_IRQ_REPORT_H
#define SLEEPY_IRQ_REPORT_H

#include <stdint.h>

#include "report/output.h"
#include "model/profile.h"
#include "report/view.h"

/* The reports of a --irq recording. */
void sleepy_irq_report(struct sleepy_output *out,
		       const struct sleepy_report_options *opts,
		       struct sleepy_profile *profile, uint64_t start_ns);

#endif
