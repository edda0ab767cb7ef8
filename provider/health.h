/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Health tests on RDRAND output (SP 800-90B section 4.4 continuous tests
 * and a startup self-test).  Pure functions over words already drawn: this
 * file never touches the hardware, so tests feed it any pattern directly.
 * The cutoffs and their false-positive rates are derived in health.c and
 * docs/health-tests.md.
 */
#ifndef RDRAND_HEALTH_H
#define RDRAND_HEALTH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Short-cycle test: a word may equal none of the last K words drawn. */
#define RDRAND_HISTORY_WORDS 32
/* Adaptive proportion test: window and cutoff per byte lane. */
#define RDRAND_APT_WINDOW 512
#define RDRAND_APT_CUTOFF 20
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
 * provider keeps one per thread (source.c).  It keeps no delivered word:
 * digests, counts, a reference word that was never delivered, and the
 * OR of the current bit block and of its complement (docs/health-tests.md,
 * "What stays in memory").
 */
struct rdrand_health_scalars {
    uint64_t key[2];              /* digest key, never delivered */
    uint64_t bits_zero, bits_one; /* bits seen 0, seen 1 in this block */
    uint64_t apt_reference;     /* a word never delivered: 8 lane references */
    uint64_t apt_even, apt_odd; /* lane match counts, 4 x 16 bits each */
    uint64_t ones[RDRAND_BIT_PLANES]; /* per-bit counts of 1, bit-sliced */
    uint32_t apt_seen;                /* words in the current window, 0: none */
    uint32_t block_seen;              /* words in the current bit block */
    uint32_t history_next;            /* next slot of history */
};

struct rdrand_health {
    /* Copied into locals for a request by the draw loop (registers). */
    struct rdrand_health_scalars s;
    uint64_t history[RDRAND_HISTORY_WORDS]; /* digests of the last K words */
    /* Their top 16 bits, four to a word (host byte order). */
    uint64_t tags[RDRAND_HISTORY_WORDS / 4];
    int keyed; /* key set (the first self-test of this stream) */
    int warm;  /* a self-test passed into this state */
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
    RDRAND_FAIL_BIASED_BIT = 64
};

/*
 * The bit positions whose count of ones (planes: bit i of every count in
 * plane i) is >= RDRAND_BIT_CUTOFF or <= window - RDRAND_BIT_CUTOFF.
 */
uint64_t rdrand_health_biased_bits(const uint64_t ones[RDRAND_BIT_PLANES]);

/* The reason of the first failing test of a non-zero verdict. */
int rdrand_health_reason(unsigned int verdict);

#define RDRAND_BYTES(b) (0x0101010101010101u * (uint8_t)(b))
#define RDRAND_LANES16(v) (0x0001000100010001u * (uint16_t)(v))

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
 * Whether digest d is one of the last K.  The 16-bit tags are compared
 * first, four to a word (SWAR): a fresh digest matches one with
 * probability K * 2^-16 = 2^-11, and only then are the digests compared.
 * "Some 16-bit lane of x is zero" is exact as a whole (the borrow only
 * blurs which lane), so a repeated digest never passes.
 */
static inline unsigned int rdrand_health_seen(const struct rdrand_health *h,
                                              uint64_t d)
{
    uint64_t t = RDRAND_LANES16(d >> 48), any = 0;
    unsigned int hit = 0;

    for (int i = 0; i < RDRAND_HISTORY_WORDS / 4; i++) {
        uint64_t x = h->tags[i] ^ t;

        any |= (x - RDRAND_LANES16(1)) & ~x;
    }
    if ((any & RDRAND_LANES16(0x8000)) != 0)
        for (int i = 0; i < RDRAND_HISTORY_WORDS; i++)
            hit |= d == h->history[i];
    return hit;
}

/*
 * Every continuous test on one word, without a branch per test (one on
 * the combined result): returns
 * the verdict (0: passed, else RDRAND_FAIL_* bits).  c is h->s or the
 * caller's copy of it: inline, so that the draw loop keeps the scalars in
 * registers (out may alias h; a local copy cannot).  Every test sees
 * every word.
 * A failing APT window starts over (one defect, one failure); a bit block
 * starts over at its end anyway.
 */
static inline unsigned int
rdrand_health_verdict(struct rdrand_health *h, struct rdrand_health_scalars *c,
                      uint64_t w)
{
    uint64_t d = rdrand_health_digest(c->key, w), end, stuck, biased = 0;
    uint64_t carry = w;
    uint64_t diff, low7, zero, over, open = -(uint64_t)(c->apt_seen == 0);
    unsigned int prev = (c->history_next - 1) % RDRAND_HISTORY_WORDS;
    unsigned int cycle = rdrand_health_seen(h, d);
    unsigned int repeat = d == h->history[prev];
    uint16_t tag = (uint16_t)(d >> 48);

    /* Short cycle: remember the digest. */
    h->history[c->history_next] = d;
    memcpy((unsigned char *)h->tags + 2 * (size_t)c->history_next, &tag, 2);
    c->history_next = (c->history_next + 1) % RDRAND_HISTORY_WORDS;

    /* Stuck bit: a bit that kept one value through a whole block. */
    c->bits_zero |= ~w;
    c->bits_one |= w;
    c->block_seen = (c->block_seen + 1) % RDRAND_BIT_BLOCK;
    end = -(uint64_t)(c->block_seen == 0);
    stuck = ~(c->bits_zero & c->bits_one) & end;
    c->bits_zero &= ~end;
    c->bits_one &= ~end;

    /* APT on the eight byte lanes at once (SWAR); see health.c. */
    c->apt_reference = (c->apt_reference & ~open) | (w & open);
    c->apt_even &= ~open;
    c->apt_odd &= ~open;
    diff = w ^ c->apt_reference;
    low7 = (diff & RDRAND_BYTES(0x7f)) + RDRAND_BYTES(0x7f);
    zero = (~(low7 | diff) & RDRAND_BYTES(0x80)) >> 7;
    c->apt_even += zero & RDRAND_LANES16(0x00ff);
    c->apt_odd += (zero >> 8) & RDRAND_LANES16(0x00ff);
    over = (c->apt_even + RDRAND_LANES16(0x8000 - RDRAND_APT_CUTOFF))
           | (c->apt_odd + RDRAND_LANES16(0x8000 - RDRAND_APT_CUTOFF));
    over &= RDRAND_LANES16(0x8000);

    /*
     * Bit proportion: count each bit's ones over the window (bit-sliced
     * counters, reset where a window opens), judged at its natural end.
     */
    if (open != 0)
        memset(c->ones, 0, sizeof(c->ones));
#define RDRAND_ONES_PLANE(i)                                                   \
    do {                                                                       \
        uint64_t next = c->ones[i] & carry;                                    \
        c->ones[i] ^= carry;                                                   \
        carry = next;                                                          \
    } while (0)
    /* Written out (constant indices) so that the planes stay in registers. */
    RDRAND_ONES_PLANE(0);
    RDRAND_ONES_PLANE(1);
    RDRAND_ONES_PLANE(2);
    RDRAND_ONES_PLANE(3);
    RDRAND_ONES_PLANE(4);
    RDRAND_ONES_PLANE(5);
    RDRAND_ONES_PLANE(6);
    RDRAND_ONES_PLANE(7);
    RDRAND_ONES_PLANE(8);
    RDRAND_ONES_PLANE(9);
#undef RDRAND_ONES_PLANE
    if (c->apt_seen == RDRAND_APT_WINDOW - 1)
        biased = rdrand_health_biased_bits(c->ones);
    c->apt_seen = over != 0 ? 0 : (c->apt_seen + 1) % RDRAND_APT_WINDOW;

    /* One test for the loop (a repeat is also a cycle; w + 1 <= 1 is
     * w == 0 or w == ~0); which tests failed is worked out only then. */
    if ((stuck | over | biased | cycle | (w + 1 <= 1)) == 0)
        return 0;
    return (unsigned int)(w == 0) * RDRAND_FAIL_ZERO
           | (unsigned int)(w == ~(uint64_t)0) * RDRAND_FAIL_ONES
           | repeat * RDRAND_FAIL_REPEAT | cycle * RDRAND_FAIL_CYCLE
           | (unsigned int)(stuck != 0) * RDRAND_FAIL_STUCK_BIT
           | (unsigned int)(over != 0) * RDRAND_FAIL_APT
           | (unsigned int)(biased != 0) * RDRAND_FAIL_BIASED_BIT;
}

/* The APT count of byte lane 0..7 in the current window (for tests). */
unsigned int rdrand_health_apt_count(const struct rdrand_health *h, int lane);

/* 1 when the next word checked opens an APT window (it becomes the reference).
 */
static inline int rdrand_health_opens_window(const struct rdrand_health *h)
{
    return h->s.apt_seen == 0;
}

/*
 * Run every continuous test on one word.  Returns RDRAND_R_OK, or the
 * reason of the first test it fails, in the order zero, all ones,
 * repetition, short cycle, stuck bit, adaptive proportion.
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

/* The same on a fresh state (for tests and tools). */
int rdrand_health_selftest_sample(const uint64_t *words, size_t n);

#endif
