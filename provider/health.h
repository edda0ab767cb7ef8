/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Health tests on RDRAND output (SP 800-90B section 4.4 continuous tests
 * and a startup self-test).  Pure functions over words already drawn: this
 * file never touches the hardware, so tests feed it any pattern directly.
 */
#ifndef RDRAND_HEALTH_H
#define RDRAND_HEALTH_H

#include <stddef.h>
#include <stdint.h>

/* Adaptive proportion test: window and cutoff per byte lane (see health.c). */
#define RDRAND_APT_WINDOW 512
#define RDRAND_APT_CUTOFF 20
/* Startup self-test: words drawn. */
#define RDRAND_SELFTEST_WORDS 8

/* Continuous-test state.  Not thread-safe: the owner serialises access. */
struct rdrand_health {
    uint64_t last_word;
    int have_last;
    /*
     * APT: the eight byte lanes open and close their windows together.
     * Match counts are packed four 16-bit lanes to a word: byte lanes
     * 0, 2, 4, 6 in apt_even and 1, 3, 5, 7 in apt_odd (a count never
     * exceeds the window, 512, so no lane carries into the next).
     */
    uint64_t apt_reference; /* first word of the window: 8 lane references */
    uint64_t apt_even, apt_odd;
    unsigned int apt_seen; /* words in the current window */
};

void rdrand_health_init(struct rdrand_health *h);

/* The APT count of byte lane 0..7 in the current window (for tests). */
unsigned int rdrand_health_apt_count(const struct rdrand_health *h, int lane);

/*
 * Run every continuous test on one word.  Returns RDRAND_R_OK, or the
 * reason (RDRAND_R_STUCK_ZERO, RDRAND_R_STUCK_ONES, RDRAND_R_REPEATED_WORD,
 * RDRAND_R_ADAPTIVE_PROPORTION) of the first test it fails.
 */
int rdrand_health_check_word(struct rdrand_health *h, uint64_t word);

/*
 * Judge a startup sample of n >= RDRAND_SELFTEST_WORDS words: each word
 * passes the continuous tests from a fresh state, and the sample shows
 * enough changes between consecutive words.  Returns RDRAND_R_OK or the
 * reason of the first failure.
 */
int rdrand_health_selftest_sample(const uint64_t *words, size_t n);

#endif
