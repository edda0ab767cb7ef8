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

/* Short-cycle test: a word may equal none of the last K words drawn. */
#define RDRAND_HISTORY_WORDS 32
/* Adaptive proportion test: window and cutoff per byte lane. */
#define RDRAND_APT_WINDOW 512
#define RDRAND_APT_CUTOFF 20
/*
 * Stuck-bit test: a bit position that repeats its value this many times
 * in a row (a run of RDRAND_BIT_RUN_CUTOFF + 1 equal bits) fails.  The
 * detection below relies on it being 56 = 0b111000.
 */
#define RDRAND_BIT_RUN_CUTOFF 56
/* Startup and recovery self-test: words drawn, all distinct. */
#define RDRAND_SELFTEST_WORDS 64

/*
 * Continuous-test state of one stream of words.  Not thread-safe: the
 * provider keeps one per thread (source.c).  It holds no delivered word
 * except `last` (see docs/health-tests.md, "What stays in memory").
 */
struct rdrand_health {
    uint64_t key[2];                        /* digest key, never delivered */
    uint64_t history[RDRAND_HISTORY_WORDS]; /* digests of the last K words */
    uint64_t last;                          /* the last word, its bits */
    uint64_t run[6];        /* per-bit repeat counts, bit-sliced (6 planes) */
    uint64_t apt_reference; /* a word never delivered: 8 lane references */
    uint64_t apt_even, apt_odd; /* lane match counts, 4 x 16 bits each */
    uint32_t apt_seen;          /* words in the current window, 0: none */
    uint32_t history_next;      /* next slot of history */
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
    RDRAND_FAIL_APT = 32
};

/* The reason of the first failing test of a non-zero verdict. */
int rdrand_health_reason(unsigned int verdict);

#define RDRAND_BYTES(b) (0x0101010101010101u * (uint8_t)(b))
#define RDRAND_LANES16(v) (0x0001000100010001u * (uint16_t)(v))

/*
 * A keyed one-way digest of a word (SipHash's round, 2 + 2 rounds on one
 * block): the short-cycle test compares digests, so no delivered word is
 * kept.  Two distinct words share a digest with probability 2^-64.
 */
#define RDRAND_SIPROUND(v0, v1, v2, v3)                                        \
    do {                                                                       \
        v0 += v1, v1 = v1 << 13 | v1 >> 51, v1 ^= v0,                          \
                  v0 = v0 << 32 | v0 >> 32;                                    \
        v2 += v3, v3 = v3 << 16 | v3 >> 48, v3 ^= v2;                          \
        v0 += v3, v3 = v3 << 21 | v3 >> 43, v3 ^= v0;                          \
        v2 += v1, v1 = v1 << 17 | v1 >> 47, v1 ^= v2,                          \
                  v2 = v2 << 32 | v2 >> 32;                                    \
    } while (0)

static inline uint64_t rdrand_health_digest(const uint64_t key[2], uint64_t w)
{
    uint64_t v0 = key[0] ^ 0x736f6d6570736575u;
    uint64_t v1 = key[1] ^ 0x646f72616e646f6du;
    uint64_t v2 = key[0] ^ 0x6c7967656e657261u;
    uint64_t v3 = key[1] ^ 0x7465646279746573u ^ w;

    RDRAND_SIPROUND(v0, v1, v2, v3);
    RDRAND_SIPROUND(v0, v1, v2, v3);
    v0 ^= w;
    v2 ^= 0xff;
    RDRAND_SIPROUND(v0, v1, v2, v3);
    RDRAND_SIPROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

/*
 * Every continuous test on one word, without a branch per test: returns
 * the verdict (0: passed, else RDRAND_FAIL_* bits).  Inline so that the
 * draw loop keeps the state in registers; every test sees every word.
 */
static inline unsigned int rdrand_health_verdict(struct rdrand_health *h,
                                                 uint64_t w)
{
    uint64_t d = rdrand_health_digest(h->key, w), same, carry, stuck;
    uint64_t diff, low7, zero, over;
    unsigned int cycle = 0, verdict;

    /* Short cycle: no digest equal to one of the last K. */
    for (int i = 0; i < RDRAND_HISTORY_WORDS; i++)
        cycle |= d == h->history[i];
    h->history[h->history_next] = d;
    h->history_next = (h->history_next + 1) % RDRAND_HISTORY_WORDS;

    /* Stuck bit: bit-sliced repeat counters, reset where the bit changed. */
    same = ~(w ^ h->last);
    carry = same;
    for (int i = 0; i < 6; i++) {
        uint64_t next = h->run[i] & carry;

        h->run[i] = (h->run[i] ^ carry) & same;
        carry = next;
    }
    stuck = h->run[5] & h->run[4] & h->run[3]; /* count >= 56 */

    /* APT on the eight byte lanes at once (SWAR); see health.c. */
    if (h->apt_seen == 0) {
        h->apt_reference = w;
        h->apt_even = h->apt_odd = 0;
    }
    diff = w ^ h->apt_reference;
    low7 = (diff & RDRAND_BYTES(0x7f)) + RDRAND_BYTES(0x7f);
    zero = (~(low7 | diff) & RDRAND_BYTES(0x80)) >> 7;
    h->apt_even += zero & RDRAND_LANES16(0x00ff);
    h->apt_odd += (zero >> 8) & RDRAND_LANES16(0x00ff);
    over = (h->apt_even + RDRAND_LANES16(0x8000 - RDRAND_APT_CUTOFF))
           | (h->apt_odd + RDRAND_LANES16(0x8000 - RDRAND_APT_CUTOFF));
    over &= RDRAND_LANES16(0x8000);
    h->apt_seen = (h->apt_seen + 1) % RDRAND_APT_WINDOW;

    verdict = (unsigned int)(w == 0) * RDRAND_FAIL_ZERO
              | (unsigned int)(w == ~(uint64_t)0) * RDRAND_FAIL_ONES
              | (unsigned int)(w == h->last) * RDRAND_FAIL_REPEAT
              | cycle * RDRAND_FAIL_CYCLE
              | (unsigned int)(stuck != 0) * RDRAND_FAIL_STUCK_BIT
              | (unsigned int)(over != 0) * RDRAND_FAIL_APT;
    h->last = w;
    /* One defect, one failure: a failing window or bit run starts over. */
    for (int i = 0; i < 6; i++)
        h->run[i] &= ~stuck;
    h->apt_seen = over != 0 ? 0 : h->apt_seen;
    return verdict;
}

/* The APT count of byte lane 0..7 in the current window (for tests). */
unsigned int rdrand_health_apt_count(const struct rdrand_health *h, int lane);

/* 1 when the next word checked opens an APT window (it becomes the reference).
 */
int rdrand_health_opens_window(const struct rdrand_health *h);

/*
 * Run every continuous test on one word.  Returns RDRAND_R_OK, or the
 * reason of the first test it fails, in the order zero, all ones,
 * repetition, short cycle, stuck bit, adaptive proportion.  A failing
 * APT window or bit run is reset, so one defect is one failure.
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
