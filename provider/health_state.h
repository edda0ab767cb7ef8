/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The health tests' state and constants: what health.h's functions and
 * the step (health_step.h) both work on, so that neither includes the
 * other.  The cutoffs and their false-positive rates are derived in
 * docs/health-tests.md ("Continuous tests", "False-positive rates").
 */
#ifndef RDRAND_HEALTH_STATE_H
#define RDRAND_HEALTH_STATE_H

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
/*
 * The recent words' reach: a word repeated within this many words of the
 * tree is caught with probability 1 - 2^-41.6 (seen_table.h; seen.c ties
 * it to the buckets).
 */
#define RDRAND_RECENT_REACH 4096
/* The recovery: whole 512-word windows judged, and the words that makes. */
#define RDRAND_RECOVERY_WINDOWS 16
#define RDRAND_RECOVERY_WORDS 8192
_Static_assert(RDRAND_RECOVERY_WORDS
                   == RDRAND_RECOVERY_WINDOWS * RDRAND_APT_WINDOW,
               "the recovery's words are its windows'");
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

#endif
