/* SPDX-License-Identifier: Apache-2.0 */
/* rdrand-check's live check (check_live.c) and what it found. */
#ifndef RDRAND_CHECK_LIVE_H
#define RDRAND_CHECK_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "check.h"

/* The parameter key among those d read, or NULL. */
const struct check_value *check_param(const struct dynamic *d, const char *key);

/* The error queue into d->errors (appended), then cleared. */
void check_collect_errors(struct dynamic *d);
/*
 * Step 2 and 3: draw through the default library context (RAND_bytes,
 * then 1 + more prediction-resistant requests), prove from the
 * provider's counters where the seeds went, and report its health.
 */
void check_live(struct check_report *r, struct dynamic *d, long more);
/*
 * What the service draw found, unless this process found it too, as a
 * problem in r; exits CHECK_USAGE if that draw could not run at all.
 */
void check_service_finding(struct check_report *r);

/*
 * The check in a child, whose stderr passes through this process:
 * returns -1 in the child (go on and report), the child's exit status if
 * it exited (*reported: 1, it printed its report), or CHECK_UNHEALTHY
 * with the signal as a problem in r.
 */
int check_run_in_child(struct check_report *r, int *reported);

#endif
