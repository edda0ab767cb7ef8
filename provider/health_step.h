/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The continuous tests' step on one word, written once.  The draw loop
 * (draw.c) runs it on a copy of the state in locals, the APT counts and
 * reference in SSE registers; the self-test and the recovery run it
 * through rdrand_health_verdict (health.c).  The two differ only in when
 * a word meets the tables of words seen: at once in the verdict, some
 * words later in the draw loop (seen_table.h, RDRAND_SEEN_LAG).  SIMD
 * (SSE2, AES-NI): only the files that compute the tests include this.
 */
#ifndef RDRAND_HEALTH_STEP_H
#define RDRAND_HEALTH_STEP_H

#include <stdint.h>
#include <string.h>

#include <emmintrin.h>
#include <wmmintrin.h>

#include "aes.h"
#include "health_state.h"
#include "seen_table.h"

/*
 * Every step is inlined into its caller, in every build: one left out of
 * line (GCC at -O2 does that to a function with two callers) would take
 * the word as an argument, save the loop's registers, a delivered word
 * among them, below the frame the draw wipes, and keep the tests' state
 * in memory instead of registers (+29 instructions a word; review of
 * issue 32).  tests/check_module.sh fails if rdrand.so has an out-of-line
 * copy.  The digest is not forced: its AES-NI target must match its
 * caller's.
 */
#define RDRAND_STEP __attribute__((always_inline)) static inline

/* 128-bit product of a and b, folded to 64 bits (high half ^ low half). */
RDRAND_STEP uint64_t rdrand_health_fold(uint64_t a, uint64_t b)
{
    unsigned __int128 p = (unsigned __int128)a * b;

    return (uint64_t)(p >> 64) ^ (uint64_t)p;
}

/*
 * The keyed digest of a word, and its check: what the tests compare
 * instead of words, so that no delivered word is kept.  d is what the
 * repetition test compares and what picks a word's bucket and point
 * slot (seen.h); the check is what the tables hold.  Equal words give
 * equal digests and checks; distinct ones collide with probability
 * about 2^-64.
 *
 * The tables are shared with every fork()ed process of the tree, and
 * every process of it holds the key: the check must not give the word
 * back to one of them (a child that dropped its privileges reading its
 * siblings' seeds).  So, where the CPU has AES-NI, the digest is
 * Matyas-Meyer-Oseas over AES-128 under the key, E_k(w) ^ w, a one-way
 * function even to whoever holds k: a word from its check takes 2^64
 * AES evaluations (docs/health-tests.md, "What the shared tables
 * give away").  d is the low half, the check the high half.  Where the
 * CPU has no AES-NI, two folded multiplications: invertible in about
 * 2^32 steps by a holder of the key, so the tables are then the
 * process's own, never shared (seen.c).
 */
RDRAND_AESNI static inline uint64_t
rdrand_health_digest_aes(const struct rdrand_aes_key *k, uint64_t w,
                         uint64_t *check)
{
    const __m128i *rk = (const __m128i *)(const void *)k->round;
    __m128i x = _mm_cvtsi64_si128((long long)w);
    __m128i e = _mm_xor_si128(x, _mm_load_si128(rk));

    for (int r = 1; r < 10; r++)
        e = _mm_aesenc_si128(e, _mm_load_si128(rk + r));
    e = _mm_xor_si128(_mm_aesenclast_si128(e, _mm_load_si128(rk + 10)), x);
    *check = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(e, e));
    return (uint64_t)_mm_cvtsi128_si64(e);
}

/*
 * Without AES-NI: two folded multiplications; *check is the low half of
 * the last product, one-to-one with the last fold's input.
 */
RDRAND_STEP uint64_t rdrand_health_digest_mul(const uint64_t key[2], uint64_t w,
                                              uint64_t *check)
{
    uint64_t inner = rdrand_health_fold(w ^ key[0], key[1] | 1) ^ key[1];
    unsigned __int128 p = (unsigned __int128)inner * (key[0] | 1);

    *check = (uint64_t)p;
    return (uint64_t)(p >> 64) ^ (uint64_t)p;
}

/* The digest and check of w under h's key (h->s.key, or c's copy). */
RDRAND_AESNI static inline uint64_t
rdrand_health_digest(const struct rdrand_health *h, const uint64_t key[2],
                     uint64_t w, uint64_t *check)
{
    if (h->digest.ready)
        return rdrand_health_digest_aes(&h->digest, w, check);
    return rdrand_health_digest_mul(key, w, check);
}

/*
 * At the end of each group of 8 words: add its counts (three planes) and
 * its last word w (as the carry in) into the window's ten planes.  In
 * memory: it runs once per 8 words.
 */
RDRAND_STEP void rdrand_health_close_group(struct rdrand_health *h,
                                           const uint64_t group[3], uint64_t w)
{
    uint64_t carry = w;

    for (int i = 0; i < RDRAND_BIT_PLANES; i++) {
        uint64_t a = h->ones[i], b = i < 3 ? group[i] : 0;

        h->ones[i] = a ^ b ^ carry;
        carry = (a & b) | (carry & (a ^ b));
    }
}

/* Stuck bit: w into the block's ORs; at a block's end, the bits it never
 * changed (0 otherwise).  A block starts over at its end. */
RDRAND_STEP uint64_t rdrand_health_block_step(struct rdrand_health_scalars *c,
                                              uint64_t w)
{
    uint64_t stuck = 0;

    c->bits_zero |= ~w;
    c->bits_one |= w;
    if (++c->block_seen == RDRAND_BIT_BLOCK) {
        stuck = ~(c->bits_zero & c->bits_one);
        c->bits_zero = c->bits_one = 0;
        c->block_seen = 0;
    }
    return stuck;
}

/*
 * The bit positions whose bit-sliced count x (planes[i]: bit i of each
 * count) is >= k, all 64 at once: from the top plane down, a count is
 * greater where it has a 1 against k's 0 while it was equal so far.
 */
RDRAND_STEP uint64_t rdrand_sliced_at_least(const uint64_t x[RDRAND_BIT_PLANES],
                                            unsigned int k)
{
    uint64_t greater = 0, equal = ~(uint64_t)0;

    for (int i = RDRAND_BIT_PLANES - 1; i >= 0; i--) {
        if (k >> i & 1) {
            equal &= x[i];
        } else {
            greater |= equal & x[i];
            equal &= ~x[i];
        }
    }
    return greater | equal;
}

/*
 * Once per window: the bit positions whose count of ones is >= cutoff or
 * <= window - cutoff.
 */
RDRAND_STEP uint64_t
rdrand_health_biased_bits(const uint64_t ones[RDRAND_BIT_PLANES])
{
    return rdrand_sliced_at_least(ones, RDRAND_BIT_CUTOFF)
           | ~rdrand_sliced_at_least(ones,
                                     RDRAND_APT_WINDOW - RDRAND_BIT_CUTOFF + 1);
}

/*
 * Bit proportion: each bit's ones, counted bit-sliced in groups of 8
 * words: the first seven rippled into three planes, the eighth added
 * with them into the window's ten planes; the counts are judged at the
 * window's natural end (the biased bits returned, 0 otherwise).  Also
 * advances the window position.
 */
RDRAND_STEP uint64_t rdrand_health_group_step(struct rdrand_health *h,
                                              struct rdrand_health_scalars *c,
                                              uint64_t w)
{
    c->apt_seen = (c->apt_seen + 1) % RDRAND_APT_WINDOW;
    if (c->apt_seen % 8 != 0) {
        uint64_t carry = c->group[0] & w, bit;

        c->group[0] ^= w;
        bit = c->group[1] & carry;
        c->group[1] ^= carry;
        c->group[2] ^= bit;
        return 0;
    }
    rdrand_health_close_group(h, c->group, w);
    c->group[0] = c->group[1] = c->group[2] = 0;
    return c->apt_seen == 0 ? rdrand_health_biased_bits(h->ones) : 0;
}

/* What the tests found on one word: non-zero where one failed. */
struct rdrand_health_findings {
    uint64_t repeat, seen, stuck, over, biased;
};

/*
 * The repetition test on a word, by its digest d (rdrand_health_digest):
 * d compared with the last word's.  The word itself is not passed: in a
 * build that does not inline, each call deeper than the draw loop's own
 * saves its arguments below the frame the draw wipes (draw.c).
 */
RDRAND_STEP uint64_t rdrand_health_repeat(struct rdrand_health_scalars *c,
                                          uint64_t d)
{
    uint64_t repeat = d == c->last;

    c->last = d;
    return repeat;
}

/* One test for the loop (w + 1 <= 1 is w == 0 or w == ~0); which tests
 * failed is worked out only then. */
RDRAND_STEP int rdrand_health_any(const struct rdrand_health_findings *f,
                                  uint64_t w)
{
    return (f->stuck | f->over | f->biased | f->repeat | f->seen | (w + 1 <= 1))
           != 0;
}

/* The verdict bits of a word found in the tables (RDRAND_SEEN_* bits). */
RDRAND_STEP unsigned int rdrand_health_seen_verdict(uint64_t seen)
{
    return (unsigned int)((seen & RDRAND_SEEN_RECENT) != 0) * RDRAND_FAIL_CYCLE
           | (unsigned int)((seen & RDRAND_SEEN_POINT) != 0)
                 * RDRAND_FAIL_LONG_CYCLE;
}

/*
 * The verdict bits of a word that failed (rdrand_health_any).  A failing
 * APT window starts over (one defect, one failure).
 */
RDRAND_STEP unsigned int
rdrand_health_failed(struct rdrand_health_scalars *c,
                     const struct rdrand_health_findings *f, uint64_t w)
{
    if (f->over != 0)
        c->apt_seen = 0;
    return (unsigned int)(w == 0) * RDRAND_FAIL_ZERO
           | (unsigned int)(w == ~(uint64_t)0) * RDRAND_FAIL_ONES
           | (unsigned int)(f->repeat != 0) * RDRAND_FAIL_REPEAT
           | rdrand_health_seen_verdict(f->seen)
           | (unsigned int)(f->stuck != 0) * RDRAND_FAIL_STUCK_BIT
           | (unsigned int)(f->over != 0) * RDRAND_FAIL_APT
           | (unsigned int)(f->biased != 0) * RDRAND_FAIL_BIASED_BIT;
}

/* The APT's state in SSE registers: lane counts and reference word. */
struct rdrand_apt {
    __m128i counts, reference;
};

RDRAND_STEP struct rdrand_apt
rdrand_apt_load(const struct rdrand_health_scalars *c)
{
    return (struct rdrand_apt){_mm_cvtsi64_si128((long long)c->apt_counts),
                               _mm_cvtsi64_si128((long long)c->apt_reference)};
}

RDRAND_STEP void rdrand_apt_store(struct rdrand_health_scalars *c,
                                  const struct rdrand_apt *a)
{
    c->apt_counts = (uint64_t)_mm_cvtsi128_si64(a->counts);
    c->apt_reference = (uint64_t)_mm_cvtsi128_si64(a->reference);
}

/*
 * APT on the eight byte lanes of x at once: a lane equal to the
 * reference's compares to 0xff, and subtracting it counts one.  Each
 * lane counts up from 0x80 - C, so its top bit sets when it reaches C
 * (the lanes that did are returned); it never passes C (its window
 * starts over there).  Lanes 0..7 only: the upper ones compare zeros and
 * mean nothing.
 */
RDRAND_STEP uint64_t rdrand_health_apt_step(struct rdrand_apt *apt, __m128i x)
{
    apt->counts = _mm_sub_epi8(apt->counts, _mm_cmpeq_epi8(x, apt->reference));
    return (unsigned int)_mm_movemask_epi8(apt->counts) & 0xffu;
}

/*
 * Every test but the tables' on word w, whose digest is d: the
 * repetition, the stuck bit, the APT and the bit proportion, their
 * findings into f (f->seen is the caller's: at once or lagged).  Returns
 * 1 if w opened an APT window: it is the window's reference, judged but
 * never delivered.  Every test sees every word.  The common path is
 * straight-line; the branches are taken at a window's or block's end (or
 * a group's, every 8 words).
 */
RDRAND_STEP int rdrand_health_tests(struct rdrand_health *h,
                                    struct rdrand_health_scalars *c,
                                    struct rdrand_apt *apt, uint64_t w,
                                    uint64_t d,
                                    struct rdrand_health_findings *f)
{
    int opens = c->apt_seen == 0;
    __m128i x = _mm_cvtsi64_si128((long long)w);

    f->repeat = rdrand_health_repeat(c, d);
    f->stuck = rdrand_health_block_step(c, w);

    /* A window opens on its reference word: all its counts start over. */
    if (opens) {
        apt->reference = x;
        apt->counts = _mm_cvtsi64_si128((long long)RDRAND_APT_BIAS);
        c->group[0] = c->group[1] = c->group[2] = 0;
        memset(h->ones, 0, sizeof(h->ones));
    }
    f->over = rdrand_health_apt_step(apt, x);

    f->biased = rdrand_health_group_step(h, c, w);
    return opens;
}

#endif
