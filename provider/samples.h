/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process-wide table of self-test samples: the one continuous test
 * that spans threads, run on the cold path only (a thread's self-tests).
 */
#ifndef RDRAND_SAMPLES_H
#define RDRAND_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

/* Slots of the table: the digests of about the last 16 samples. */
#define RDRAND_SAMPLE_SLOTS 1024

/*
 * Whether any of words[0..n) equals a word of an earlier self-test
 * sample of this process still in the table (1) or not (0); then the
 * words' digests are entered.  words are never delivered.
 */
int rdrand_samples_seen(const uint64_t *words, size_t n);

/* Forget every sample (rdrand_source_forget). */
void rdrand_samples_forget(void);

#endif
