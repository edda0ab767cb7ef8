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

#include "aes.h"

struct rdrand_seen; /* seen.h */

/* Adaptive proportion test: window and cutoff per byte lane. */
#define RDRAND_APT_WINDOW 512
#define RDRAND_APT_CUTOFF 20
/* Each byte lane's count is kept plus this: its top bit sets at C. */
#define RDRAND_APT_BIAS (0x0101010101010101u * (0x80 - RDRAND_APT_CUTOFF))
/* b in each of a word's eight bytes. */
#define RDRAND_BYTES(b) (0x0101010101010101u * (uint8_t)(b))
/* Stuck-bit test: every bit takes both values in each block of this many. */
#define RDRAND_BIT_BLOCK 64
/*
 * Bit proportion test: over each APT window (512 words) every bit takes
 * each value fewer than this many times.
 */
#define RDRAND_BIT_CUTOFF 343
#define RDRAND_BIT_PLANES 10 /* counts up to 512 */
/* Startup and recovery self-test: words drawn, all distinct. */
#define RDRAND_SELFTEST_WORDS 64

/*
 * Continuous-test state of one stream of words.  Not thread-safe: the
 * provider keeps one per thread (source.c).  It keeps no copy of a
 * delivered word, but its block ORs and window counts say much about the
 * recent ones, at times all of one (docs/health-tests.md, "What stays in
 * memory").
 */
struct rdrand_health_scalars {
    uint64_t key[2];              /* digest key (rdrand_health_set_key) */
    uint64_t last;                /* the digest of the last word */
    uint64_t bits_zero, bits_one; /* bits seen 0, seen 1 in this block */
    uint64_t apt_reference; /* a word never delivered: 8 lane references */
    uint64_t apt_counts;    /* lane match counts + 0x80 - C, a byte each */
    /*
     * Per-bit counts of ones in the current group of 8 words before its
     * last word, bit-sliced (planes of weight 1, 2, 4: at most 7).
     */
    uint64_t group[3];
    uint32_t apt_seen;   /* words in the current window, 0: none */
    uint32_t block_seen; /* words in the current bit block */
};

struct rdrand_health {
    /* Copied into locals for a request by the draw loop (registers). */
    struct rdrand_health_scalars s;
    /*
     * Per-bit counts of ones in the window's whole groups, bit-sliced
     * (plane i: bit i of each count); touched once per group.
     */
    uint64_t ones[RDRAND_BIT_PLANES];
    /* The digest's AES key, from key (ready: AES-NI digests). */
    struct rdrand_aes_key digest;
    int keyed; /* key set (the first self-test of this stream) */
    int warm;  /* a self-test passed into this state */
    /*
     * The words seen (seen.h: recent words and long cycles), or NULL:
     * none, and only the last word is compared.  The provider's thread
     * states share the process tree's; unit tests give theirs one each.
     */
    struct rdrand_seen *seen;
};

void rdrand_health_init(struct rdrand_health *h);

/* Which test failed, as bits of a verdict (several may be set). */
enum rdrand_health_fail {
    RDRAND_FAIL_ZERO = 1,
    RDRAND_FAIL_ONES = 2,
    RDRAND_FAIL_REPEAT = 4,
    RDRAND_FAIL_CYCLE = 8,
    RDRAND_FAIL_STUCK_BIT = 16,
    RDRAND_FAIL_APT = 32,
    RDRAND_FAIL_BIASED_BIT = 64,
    RDRAND_FAIL_LONG_CYCLE = 128
};

/*
 * The bit positions whose count of ones (planes: bit i of every count in
 * plane i) is >= RDRAND_BIT_CUTOFF or <= window - RDRAND_BIT_CUTOFF.
 */
uint64_t rdrand_health_biased_bits(const uint64_t ones[RDRAND_BIT_PLANES]);

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
