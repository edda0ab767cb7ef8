/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The RDRAND source as the RAND algorithm sees it: the calling thread's
 * continuous tests, its self-test and recovery draws, and the request
 * that fault.c admits and that reports its failure there.
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
 * Fill out[0..len) with health-checked RDRAND output, all or nothing,
 * through the calling thread's continuous tests (after its self-test,
 * the first time).  request names the request in error messages
 * ("seed request").
 * Returns 1, or 0 with out wiped and the reason on the error queue
 * (reported to fault.c when the hardware failed).
 */
int rdrand_source_fill(struct rdrand_prov *prov, unsigned char *out, size_t len,
                       const char *request);

#endif
