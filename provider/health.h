/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Health tests on RDRAND output (SP 800-90B section 4.4 continuous tests
 * and a startup self-test).  Pure functions over words already drawn: this
 * file never touches the hardware, so tests feed it any pattern directly.
 * The cutoffs and their false-positive rates are derived in
 * docs/health-tests.md ("Continuous tests", "False-positive rates").
 */
#ifndef RDRAND_HEALTH_H
#define RDRAND_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "health_state.h"

void rdrand_health_init(struct rdrand_health *h);

/* The reason of the first failing test of a non-zero verdict. */
int rdrand_health_reason(unsigned int verdict);

/*
 * Key h's digest: key[0..1] is the AES key where aes (the CPU has AES-NI,
 * and the process's tables use it), else the multiplications'.
 */
void rdrand_health_set_key(struct rdrand_health *h, const uint64_t key[2],
                           int aes);

/*
 * Every continuous test on one word, through h (health_step.h says how):
 * the verdict, 0 if it passed, else RDRAND_FAIL_* bits.
 */
unsigned int rdrand_health_verdict(struct rdrand_health *h, uint64_t w);

/* The APT count of byte lane 0..7 in the current window (recovery.c). */
unsigned int rdrand_health_apt_count(const struct rdrand_health *h, int lane);

/* The count of ones of bit 0..63 in the current window (recovery.c). */
unsigned int rdrand_health_bit_count(const struct rdrand_health *h, int bit);

/* 1 when the next word checked opens an APT window (it becomes the reference).
 */
static inline int rdrand_health_opens_window(const struct rdrand_health *h)
{
    return h->s.apt_seen == 0;
}

/*
 * Run every continuous test on one word.  Returns RDRAND_R_OK, or the
 * reason of the first test it fails, in the order zero, all ones,
 * repetition, recent words, stuck bit, adaptive proportion, bit
 * proportion, long cycle.
 */
int rdrand_health_check_word(struct rdrand_health *h, uint64_t word);

/*
 * Judge a self-test sample of n >= RDRAND_SELFTEST_WORDS words (never
 * delivered) through h's continuous tests, which it primes (and, the
 * first time, keys from the sample, keeping the key only if the sample
 * passes), then the sample rules: all words distinct (two equal words are
 * a repeat, a proof), every bit takes both values, enough bit changes
 * between neighbours.  Returns RDRAND_R_OK (and marks h warm) or the
 * reason of the first failure.
 */
int rdrand_health_selftest(struct rdrand_health *h, const uint64_t *words,
                           size_t n);

/*
 * The sample rules alone (no state): all n words distinct, every bit
 * takes both values, neighbours differ in enough bits.  1 if they hold.
 */
int rdrand_health_sample_rules(const uint64_t *words, size_t n);
/* 1 if two of words[0..n) are equal. */
int rdrand_health_sample_repeats(const uint64_t *words, size_t n);

#endif
