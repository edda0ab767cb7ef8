/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The RDRAND source as the RAND algorithm sees it: availability, the
 * latched fault state, recovery through the self-test, and the failure
 * path (latch, count, error queue, one-shot warning).
 */
#ifndef RDRAND_SOURCE_H
#define RDRAND_SOURCE_H

#include <stddef.h>

struct rdrand_health;
#include "prov.h"

/*
 * Draw and judge RDRAND_SELFTEST_WORDS words (never delivered) through the
 * calling thread's continuous-test state, which it primes and marks warm.
 * RDRAND_R_OK or a reason.
 */
int rdrand_source_selftest(void);

/* The calling thread's continuous-test state (see source.c). */
struct rdrand_health *rdrand_source_health(void);

/*
 * Forget the calling thread's test state, the process's count of faults
 * and its self-test samples.  Nothing in the provider calls it: unit
 * tests do when they start a new simulated CPU (a new stream of words)
 * with no other thread drawing.
 */
void rdrand_source_forget(void);

/*
 * Fill out[0..len) with health-checked RDRAND output, all or nothing,
 * through the calling thread's continuous tests (after its self-test,
 * the first time).  request names the request in error messages
 * ("seed request").
 * Returns 1, or 0 with out wiped and the reason on the error queue.
 */
int rdrand_source_fill(struct rdrand_prov *prov, unsigned char *out, size_t len,
                       const char *request);

/*
 * Record a hardware fault: latch it, count it, raise it with detail what
 * (unless what is NULL: nobody is waiting for an answer), warn once.
 */
void rdrand_source_fault(struct rdrand_prov *prov, int reason,
                         const char *what);
/*
 * The same without the warning, for the load, which writes one line for
 * all it met (rdrand_source_warn, or a line of its own that claims it).
 */
void rdrand_source_record(struct rdrand_prov *prov, int reason,
                          const char *what);
/*
 * The process's warning for reason: the one-shot line, or, once the
 * verdict is permanent, the permanent one.
 */
void rdrand_source_warn(const struct rdrand_prov *prov, int reason);

/* The reason the source is latched in error, or RDRAND_R_OK. */
int rdrand_source_latched(const struct rdrand_prov *prov);

/* Latch a CoCo reason over whatever fault caused it (fail-closed). */
void rdrand_source_latch_coco(struct rdrand_prov *prov, int coco_reason);

/* 1 when a request would be attempted (RDRAND present, nothing latched). */
int rdrand_source_usable(const struct rdrand_prov *prov);

/* RDRAND_PARAM_HEALTH_STATE: "ok", or why requests fail (static text). */
const char *rdrand_source_state_text(const struct rdrand_prov *prov);

#endif
