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
#include <wmmintrin.h>

#include "aes.h"
#include "seen.h"

/* Adaptive proportion test: window and cutoff per byte lane. */
#define RDRAND_APT_WINDOW 512
#define RDRAND_APT_CUTOFF 20
/* Each byte lane's count is kept plus this: its top bit sets at C. */
#define RDRAND_APT_BIAS (0x0101010101010101u * (0x80 - RDRAND_APT_CUTOFF))
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

#define RDRAND_BYTES(b) (0x0101010101010101u * (uint8_t)(b))

/* 128-bit product of a and b, folded to 64 bits (high half ^ low half). */
static inline uint64_t rdrand_health_fold(uint64_t a, uint64_t b)
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
static inline uint64_t rdrand_health_digest_mul(const uint64_t key[2],
                                                uint64_t w, uint64_t *check)
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
 * Key h's digest: key[0..1] is the AES key where aes (the CPU has AES-NI,
 * and the process's tables use it), else the multiplications'.
 */
void rdrand_health_set_key(struct rdrand_health *h, const uint64_t key[2],
                           int aes);

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
    uint64_t repeat, seen, stuck, over, biased;
};

/*
 * The repetition and the seen words' tests on a word, by its digest d
 * and check (rdrand_health_digest): d compared with the last word's,
 * then looked up in and entered into the tree's tables (seen.h), if the
 * state has them.  The word itself is not passed: in a build that does
 * not inline, each call deeper than the draw loop's own saves its
 * arguments below the frame the draw wipes (draw.c).
 */
static inline uint64_t rdrand_health_repeat(struct rdrand_health_scalars *c,
                                            uint64_t d)
{
    uint64_t repeat = d == c->last;

    c->last = d;
    return repeat;
}

static inline void rdrand_health_seen_step(struct rdrand_health_findings *f,
                                           struct rdrand_seen *seen,
                                           struct rdrand_health_scalars *c,
                                           uint64_t d, uint64_t check)
{
    f->repeat = rdrand_health_repeat(c, d);
    if (seen != NULL)
        f->seen = rdrand_seen_step(seen, d, check);
}

/* One test for the loop (w + 1 <= 1 is w == 0 or w == ~0); which tests
 * failed is worked out only then. */
static inline int rdrand_health_any(const struct rdrand_health_findings *f,
                                    uint64_t w)
{
    return (f->stuck | f->over | f->biased | f->repeat | f->seen | (w + 1 <= 1))
           != 0;
}

/* The verdict bits of a word found in the tables (RDRAND_SEEN_* bits). */
static inline unsigned int rdrand_health_seen_verdict(uint64_t seen)
{
    return (unsigned int)((seen & RDRAND_SEEN_RECENT) != 0) * RDRAND_FAIL_CYCLE
           | (unsigned int)((seen & RDRAND_SEEN_POINT) != 0)
                 * RDRAND_FAIL_LONG_CYCLE;
}

/*
 * The verdict bits of a word that failed (rdrand_health_any).  A failing
 * APT window starts over (one defect, one failure).
 */
static inline unsigned int
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

/*
 * Every continuous test on one word: returns the verdict (0: passed, else
 * RDRAND_FAIL_* bits), working through h.  The self-test and the
 * recovery window use it; the draw loop (draw.c) runs the same steps on
 * a copy of the state in registers.  Every test sees every word.  The
 * common path is straight-line; the branches are taken at a window's or
 * block's end (or a group's, every 8 words), on a tag match (2^-12), on a
 * distinguished point (2^-8) and
 * on a failure.
 */
RDRAND_AESNI static inline unsigned int
rdrand_health_verdict(struct rdrand_health *h, struct rdrand_health_scalars *c,
                      uint64_t w)
{
    struct rdrand_health_findings f = {0};
    uint64_t check, d = rdrand_health_digest(h, c->key, w, &check);

    rdrand_health_seen_step(&f, h->seen, c, d, check);

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
    return rdrand_health_failed(c, &f, w);
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
