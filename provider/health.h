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
#include <string.h>

#include <emmintrin.h>

#include "samples.h"

/* Short-cycle test: a word may equal none of the last K words drawn. */
#define RDRAND_HISTORY_WORDS 32
/* Adaptive proportion test: window and cutoff per byte lane. */
#define RDRAND_APT_WINDOW 512
#define RDRAND_APT_CUTOFF 20
/* Each byte lane's count is kept plus this: its top bit sets at C. */
#define RDRAND_APT_BIAS (0x0101010101010101u * (0x80 - RDRAND_APT_CUTOFF))
/* Stuck-bit test: every bit takes both values in each block of this many. */
#define RDRAND_BIT_BLOCK 64
_Static_assert(RDRAND_BIT_BLOCK % RDRAND_HISTORY_WORDS == 0,
               "one counter serves the bit block and the history");
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
    uint64_t key[2];              /* digest key, never delivered */
    uint64_t bits_zero, bits_one; /* bits seen 0, seen 1 in this block */
    uint64_t apt_reference; /* a word never delivered: 8 lane references */
    uint64_t apt_counts;    /* lane match counts + 0x80 - C, a byte each */
    /*
     * Per-bit counts of ones in the current group of 8 words before its
     * last word, bit-sliced (planes of weight 1, 2, 4: at most 7).
     */
    uint64_t group[3];
    uint32_t apt_seen; /* words in the current window, 0: none */
    /*
     * Words in the current bit block; also (mod K, K divides the block)
     * the next slot of history: both advance by one every word.
     */
    uint32_t block_seen;
};

struct rdrand_health {
    /* Copied into locals for a request by the draw loop (registers). */
    struct rdrand_health_scalars s;
    uint64_t history[RDRAND_HISTORY_WORDS]; /* digests of the last K words */
    /* Their top 16 bits, newest first (struct rdrand_tags). */
    _Alignas(16) uint16_t tags[RDRAND_HISTORY_WORDS];
    /*
     * Per-bit counts of ones in the window's whole groups, bit-sliced
     * (plane i: bit i of each count); touched once per group.
     */
    uint64_t ones[RDRAND_BIT_PLANES];
    int keyed; /* key set (the first self-test of this stream) */
    int warm;  /* a self-test passed into this state */
    /*
     * The long-cycle test's table (samples.h), or NULL: none.  The
     * provider's thread states share the process's; unit tests give
     * theirs one each, or none.
     */
    struct rdrand_samples *samples;
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

#define RDRAND_BYTES(b) (0x0101010101010101u * (uint8_t)(b))

/* 128-bit product of a and b, folded to 64 bits (high half ^ low half). */
static inline uint64_t rdrand_health_fold(uint64_t a, uint64_t b)
{
    unsigned __int128 p = (unsigned __int128)a * b;

    return (uint64_t)(p >> 64) ^ (uint64_t)p;
}

/*
 * A keyed digest of a word, two folded multiplications: the short-cycle
 * test compares digests, so no delivered word is kept.  Each fold maps
 * 128 bits to 64, so it is not a permutation that the key would undo;
 * it is no proven one-way function either (docs/health-tests.md).  Equal
 * words give equal digests; distinct ones collide with probability about
 * 2^-64.  It costs a few instructions, which the test budget needs.
 */
static inline uint64_t rdrand_health_digest(const uint64_t key[2], uint64_t w)
{
    return rdrand_health_fold(
        rdrand_health_fold(w ^ key[0], key[1] | 1) ^ key[1], key[0] | 1);
}

/*
 * The 32 tags, newest first (lane 0 of v0), oldest last (lane 7 of v3).
 * In age order, not by history slot: the test asks only whether a tag is
 * among them, and the tag pushed out is always that of the digest whose
 * slot is overwritten (the oldest), so the tags stay those of the history.
 * A draw keeps them in four registers for the whole request: a 2-byte
 * store into memory read back by the next word's 16-byte loads cannot be
 * forwarded and stalls every word.
 */
struct rdrand_tags {
    __m128i v0, v1, v2, v3;
};

static inline struct rdrand_tags rdrand_tags_load(const struct rdrand_health *h)
{
    const __m128i *p = (const __m128i *)h->tags;

    return (struct rdrand_tags){_mm_load_si128(p), _mm_load_si128(p + 1),
                                _mm_load_si128(p + 2), _mm_load_si128(p + 3)};
}

static inline void rdrand_tags_store(struct rdrand_health *h,
                                     struct rdrand_tags t)
{
    __m128i *p = (__m128i *)h->tags;

    _mm_store_si128(p, t.v0);
    _mm_store_si128(p + 1, t.v1);
    _mm_store_si128(p + 2, t.v2);
    _mm_store_si128(p + 3, t.v3);
}

/* Whether d's tag is among the 32, all compared at once (SSE2). */
static inline int rdrand_tags_match(struct rdrand_tags t, uint64_t d)
{
    __m128i x = _mm_set1_epi16((short)(d >> 48));
    __m128i any = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi16(x, t.v0), _mm_cmpeq_epi16(x, t.v1)),
        _mm_or_si128(_mm_cmpeq_epi16(x, t.v2), _mm_cmpeq_epi16(x, t.v3)));

    return _mm_movemask_epi8(any) != 0;
}

/*
 * d's tag in front, the oldest out: each register moves up one lane.  The
 * tag goes in by an OR into the lane the shift emptied, not by
 * _mm_insert_epi16 (a macro without optimisation, whose int-to-short
 * conversion -Wconversion refuses in config.c's Debug builds).
 */
static inline struct rdrand_tags rdrand_tags_push(struct rdrand_tags t,
                                                  uint64_t d)
{
    return (struct rdrand_tags){
        _mm_or_si128(_mm_slli_si128(t.v0, 2),
                     _mm_cvtsi32_si128((int)(uint32_t)(d >> 48))),
        _mm_or_si128(_mm_slli_si128(t.v1, 2), _mm_srli_si128(t.v0, 14)),
        _mm_or_si128(_mm_slli_si128(t.v2, 2), _mm_srli_si128(t.v1, 14)),
        _mm_or_si128(_mm_slli_si128(t.v3, 2), _mm_srli_si128(t.v2, 14))};
}

/* Whether digest d is one of the last K (after a tag matched: 2^-11). */
static inline unsigned int
rdrand_health_in_history(const struct rdrand_health *h, uint64_t d)
{
    unsigned int hit = 0;

    for (int i = 0; i < RDRAND_HISTORY_WORDS; i++)
        hit |= d == h->history[i];
    return hit;
}

/*
 * Whether digest d is one of the last K.  The 16-bit tags are compared
 * first, all 32 at once: a fresh digest matches one with probability
 * K * 2^-16 = 2^-11, and only then are the digests compared.  Equal
 * digests have equal tags, so a repeated digest never passes.
 */
static inline unsigned int rdrand_health_seen(const struct rdrand_health *h,
                                              struct rdrand_tags t, uint64_t d)
{
    return rdrand_tags_match(t, d) ? rdrand_health_in_history(h, d) : 0;
}

/*
 * At the end of each group of 8 words: add its counts (three planes) and
 * its last word w (as the carry in) into the window's ten planes.  In
 * memory: it runs once per 8 words.
 */
static inline void rdrand_health_close_group(struct rdrand_health *h,
                                             const uint64_t group[3],
                                             uint64_t w)
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
static inline uint64_t rdrand_health_block_step(struct rdrand_health_scalars *c,
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
 * Bit proportion: each bit's ones, counted bit-sliced in groups of 8
 * words: the first seven rippled into three planes, the eighth added
 * with them into the window's ten planes; the counts are judged at the
 * window's natural end (the biased bits returned, 0 otherwise).  Also
 * advances the window position.
 */
static inline uint64_t rdrand_health_group_step(struct rdrand_health *h,
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
    uint64_t digest, cycle, stuck, over, biased, long_cycle;
};

/* One test for the loop (a repeat is also a cycle; w + 1 <= 1 is w == 0
 * or w == ~0); which tests failed is worked out only then. */
static inline int rdrand_health_any(const struct rdrand_health_findings *f,
                                    uint64_t w)
{
    return (f->stuck | f->over | f->biased | f->cycle | f->long_cycle
            | (w + 1 <= 1))
           != 0;
}

/*
 * The verdict bits of a word that failed (rdrand_health_any); slot is the
 * history slot its digest went into.  A failing APT window starts over
 * (one defect, one failure).
 */
static inline unsigned int
rdrand_health_failed(const struct rdrand_health *h,
                     struct rdrand_health_scalars *c, unsigned int slot,
                     const struct rdrand_health_findings *f, uint64_t w)
{
    unsigned int prev = (slot - 1) % RDRAND_HISTORY_WORDS;

    if (f->over != 0)
        c->apt_seen = 0;
    return (unsigned int)(w == 0) * RDRAND_FAIL_ZERO
           | (unsigned int)(w == ~(uint64_t)0) * RDRAND_FAIL_ONES
           | (unsigned int)(f->digest == h->history[prev]) * RDRAND_FAIL_REPEAT
           | (unsigned int)(f->cycle != 0) * RDRAND_FAIL_CYCLE
           | (unsigned int)(f->stuck != 0) * RDRAND_FAIL_STUCK_BIT
           | (unsigned int)(f->over != 0) * RDRAND_FAIL_APT
           | (unsigned int)(f->biased != 0) * RDRAND_FAIL_BIASED_BIT
           | (unsigned int)(f->long_cycle != 0) * RDRAND_FAIL_LONG_CYCLE;
}

/*
 * Every continuous test on one word: returns the verdict (0: passed, else
 * RDRAND_FAIL_* bits), working through h.  The self-test and the
 * recovery window use it; the draw loop (draw.c) runs the same steps on
 * a copy of the state in registers.  Every test sees every word.  The
 * common path is straight-line; the branches are taken at a window's or
 * block's end (or a group's, every 8 words), on a tag match (2^-11) and
 * on a failure.
 */
static inline unsigned int
rdrand_health_verdict(struct rdrand_health *h, struct rdrand_health_scalars *c,
                      uint64_t w)
{
    struct rdrand_health_findings f = {0};
    unsigned int slot = c->block_seen % RDRAND_HISTORY_WORDS;
    struct rdrand_tags tags = rdrand_tags_load(h);

    /* Short cycle: seen among the last K, then remembered. */
    f.digest = rdrand_health_digest(c->key, w);
    f.cycle = rdrand_health_seen(h, tags, f.digest);
    h->history[slot] = f.digest;
    rdrand_tags_store(h, rdrand_tags_push(tags, f.digest));
    /* Long cycle: seen in the process's table, then entered. */
    if (h->samples != NULL)
        f.long_cycle =
            rdrand_samples_step(h->samples, w, f.digest, c->key[0], c->key[1]);

    f.stuck = rdrand_health_block_step(c, w);

    /* A window opens on its reference word: all its counts start over. */
    if (c->apt_seen == 0) {
        c->apt_reference = w;
        c->apt_counts = RDRAND_APT_BIAS;
        c->group[0] = c->group[1] = c->group[2] = 0;
        memset(h->ones, 0, sizeof(h->ones));
    }

    /*
     * APT on the eight byte lanes at once (SSE2 on the low 8 bytes): a
     * matching lane compares to 0xff, and subtracting it counts one.  Each
     * lane counts up from 0x80 - C, so its top bit sets when it reaches C;
     * it never passes C (its window starts over there).
     */
    c->apt_counts = (uint64_t)_mm_cvtsi128_si64(_mm_sub_epi8(
        _mm_cvtsi64_si128((long long)c->apt_counts),
        _mm_cmpeq_epi8(_mm_cvtsi64_si128((long long)w),
                       _mm_cvtsi64_si128((long long)c->apt_reference))));
    f.over = c->apt_counts & RDRAND_BYTES(0x80);

    f.biased = rdrand_health_group_step(h, c, w);

    if (!rdrand_health_any(&f, w))
        return 0;
    return rdrand_health_failed(h, c, slot, &f, w);
}

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
 * repetition, short cycle, stuck bit, adaptive proportion, bit
 * proportion, long cycle.
 */
int rdrand_health_check_word(struct rdrand_health *h, uint64_t word);

/*
 * Judge a self-test sample of n >= RDRAND_SELFTEST_WORDS words (never
 * delivered) through h's continuous tests, which it primes (and keys, the
 * first time), then the sample rules: all words distinct, every bit takes
 * both values, enough bit changes between neighbours.  Returns RDRAND_R_OK
 * (and marks h warm) or the reason of the first failure.
 */
int rdrand_health_selftest(struct rdrand_health *h, const uint64_t *words,
                           size_t n);

/*
 * The sample rules alone (no state): all n words distinct, every bit
 * takes both values, neighbours differ in enough bits.  1 if they hold.
 */
int rdrand_health_sample_rules(const uint64_t *words, size_t n);

#endif
