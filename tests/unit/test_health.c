/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of provider/health.c: each fault pattern is fed as words and
 * the exact reason and the exact word it trips at are asserted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "errors.h"
#include "fake_core.h"
#include "handover.h"
#include "health.h"
#include "recovery.h"
#include "seams.h"
#include "seen_table.h"
#include "selftest_sample.h"
#include "sim.h"
#include "splitmix.h"
#include "test_key.h"

/*
 * The derived numbers, written out (docs/health-tests.md): a test written
 * with the header's macros would follow a wrong value of them and pass.
 */
#define RDRAND_C 20  /* APT cutoff per byte lane */
#define RDRAND_W 512 /* APT and bit proportion window */

static uint8_t rdrand_test_lane(uint64_t w, int lane)
{
    return (uint8_t)(w >> (8 * lane));
}

static uint64_t rdrand_test_set_lane(uint64_t w, int lane, uint8_t v)
{
    w &= ~((uint64_t)0xff << (8 * lane));
    return w | ((uint64_t)v << (8 * lane));
}

/* A random word whose byte in lane differs from v. */
static uint64_t rdrand_test_avoid(uint64_t *s, int lane, uint8_t v)
{
    uint64_t w = rdrand_test_splitmix(s);

    if (rdrand_test_lane(w, lane) == v)
        w = rdrand_test_set_lane(w, lane, (uint8_t)(v ^ 0x5a));
    return w;
}

/* Feed n words to h; the index of the first failure (n if none). */
/*
 * A fresh state with tables of its own (emptied): the provider's thread
 * states have the tree's from their first passing self-test (seen.c).
 */
static struct rdrand_seen rdrand_test_seen;

static void rdrand_test_state(struct rdrand_health *h)
{
    rdrand_health_init(h);
    memset(&rdrand_test_seen, 0, sizeof(rdrand_test_seen));
    h->seen = &rdrand_test_seen;
}

static size_t rdrand_test_feed(struct rdrand_health *h, const uint64_t *w,
                               size_t n, int *reason)
{
    for (size_t i = 0; i < n; i++) {
        if ((*reason = rdrand_health_check_word(h, w[i])) != RDRAND_R_OK)
            return i;
    }
    *reason = RDRAND_R_OK;
    return n;
}

/* ---- the cutoff itself ---- */

/* P(Bin(511, 2^-8) >= k), by the pmf recurrence (no libm needed). */
static double rdrand_test_tail(int k)
{
    double pmf = 1.0, tail = 0.0;

    for (int i = 0; i < RDRAND_W - 1; i++)
        pmf *= 255.0 / 256.0;
    for (int i = 0; i < RDRAND_W; i++) {
        if (i >= k)
            tail += pmf;
        pmf *= (double)(RDRAND_W - 1 - i) / (i + 1) / 255.0;
    }
    return tail;
}

/* C is the smallest cutoff with P(count >= C) <= 2^-40 per lane-window. */
static void test_apt_cutoff_is_smallest_for_2_40(void **state)
{
    const double alpha = 1.0 / 1099511627776.0; /* 2^-40 */

    (void)state;
    /* count = 1 + Bin(511, 2^-8): the reference always matches itself */
    assert_true(rdrand_test_tail(RDRAND_C - 1) <= alpha);
    assert_true(rdrand_test_tail(RDRAND_C - 2) > alpha);
    assert_true(rdrand_test_tail(RDRAND_C - 1) > 4.77e-13);
    assert_true(rdrand_test_tail(RDRAND_C - 1) < 4.78e-13);
}

/* ---- constants and repeats ---- */

static void test_constant_ones(void **state)
{
    struct rdrand_health h;

    (void)state;
    rdrand_test_state(&h);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(rdrand_health_check_word(&h, ~(uint64_t)0),
                         RDRAND_R_STUCK_ONES);
}

/* 0 takes precedence over the repeat it also is. */
static void test_constant_zero(void **state)
{
    struct rdrand_health h;

    (void)state;
    rdrand_test_state(&h);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(rdrand_health_check_word(&h, 0), RDRAND_R_STUCK_ZERO);
}

static void test_constant_other(void **state)
{
    /* an arbitrary constant, and Zen 2's 32-bit 0xFFFFFFFF in a word */
    static const uint64_t constants[] = {0x0123456789abcdefu,
                                         0x00000000ffffffffu, 1};
    uint64_t w[100];
    struct rdrand_health h;
    int reason;

    (void)state;
    for (size_t c = 0; c < sizeof(constants) / sizeof(constants[0]); c++) {
        for (size_t i = 0; i < 100; i++)
            w[i] = constants[c];
        rdrand_test_state(&h);
        assert_int_equal(rdrand_test_feed(&h, w, 100, &reason), 1);
        assert_int_equal(reason, RDRAND_R_REPEATED_WORD);
    }
}

static void test_each_word_twice(void **state)
{
    uint64_t s = 42, w[64];
    struct rdrand_health h;
    int reason;

    (void)state;
    for (size_t i = 0; i < 64; i += 2)
        w[i] = w[i + 1] = rdrand_test_splitmix(&s);
    rdrand_test_state(&h);
    assert_int_equal(rdrand_test_feed(&h, w, 64, &reason), 1);
    assert_int_equal(reason, RDRAND_R_REPEATED_WORD);
    /* every second word fails, not only the first */
    for (size_t i = 2; i < 64; i += 2) {
        assert_int_equal(rdrand_health_check_word(&h, w[i]), RDRAND_R_OK);
        assert_int_equal(rdrand_health_check_word(&h, w[i + 1]),
                         RDRAND_R_REPEATED_WORD);
    }
}

/* ---- recent words ---- */

/*
 * A cycle of period p: good words, then p distinct words repeated.  For
 * every p up to 4,096 (and beyond: 1 to 40, then powers of two) the first
 * word of the second period trips the recent-words test (p = 1: the
 * repetition test), whatever came before.  A state without the tables
 * sees only p = 1.
 */
static void test_short_cycles(void **state)
{
    static const size_t before[] = {0, 1, 37, 600};
    static uint64_t cycle[8192];
    uint64_t s = 4242, k0;
    struct rdrand_health h;

    (void)state;
    for (size_t p = 1; p <= 8192; p = p < 40 ? p + 1 : 2 * p) {
        for (size_t b = 0; b < sizeof(before) / sizeof(before[0]); b++) {
            size_t i, n = before[b] + 2 * p + 1;
            int reason = RDRAND_R_OK;

            for (size_t j = 0; j < p; j++)
                cycle[j] = rdrand_test_splitmix(&s);
            rdrand_test_state(&h);
            k0 = rdrand_test_splitmix(&s);
            rdrand_test_key(&h, k0, rdrand_test_splitmix(&s));
            if (p > 1 && b == 1)
                h.seen = NULL; /* without the tables: only the last word */
            for (i = 0; i < n; i++) {
                uint64_t w = i < before[b] ? rdrand_test_splitmix(&s)
                                           : cycle[(i - before[b]) % p];

                if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
                    break;
            }
            if (h.seen == NULL) {
                /* the statistical tests may see a cycle, never a repeat */
                assert_true(reason != RDRAND_R_SHORT_CYCLE
                            && reason != RDRAND_R_REPEATED_WORD
                            && reason != RDRAND_R_LONG_CYCLE);
                continue;
            }
            assert_int_equal(i, before[b] + p);
            assert_int_equal(reason, p == 1 ? RDRAND_R_REPEATED_WORD
                                            : RDRAND_R_SHORT_CYCLE);
        }
    }
}

/* Two values alternating: caught at the third word, before any APT. */
static void test_alternating_pair_is_a_cycle(void **state)
{
    const uint64_t a = 0x1111111111111111u, b = 0x2222222222222222u;
    struct rdrand_health h;
    int i, reason = RDRAND_R_OK;

    (void)state;
    rdrand_test_state(&h);
    for (i = 0; i < 1000; i++) {
        reason = rdrand_health_check_word(&h, (i & 1) ? b : a);
        if (reason != RDRAND_R_OK)
            break;
    }
    assert_int_equal(reason, RDRAND_R_SHORT_CYCLE);
    assert_int_equal(i, 2);
}

/*
 * The state and the tables hold digests of words, never a word itself,
 * nor any 16-bit part of one (the tags).
 */
static void test_history_keeps_no_word(void **state)
{
    uint64_t s = 808, w[600], k0;
    struct rdrand_health h;
    const struct rdrand_seen *t = &rdrand_test_seen;

    (void)state;
    rdrand_test_state(&h);
    k0 = rdrand_test_splitmix(&s);
    rdrand_test_key(&h, k0, rdrand_test_splitmix(&s));
    for (size_t i = 0; i < 600; i++) {
        w[i] = rdrand_test_splitmix(&s);
        assert_int_equal(rdrand_health_check_word(&h, w[i]), RDRAND_R_OK);
    }
    for (size_t j = 0; j < 600; j++) {
        assert_true(h.s.last != w[j]);
        for (size_t b = 0; b < RDRAND_RECENT_BUCKETS; b++)
            for (int i = 0; i < RDRAND_RECENT_WAYS; i++) {
                assert_true(t->check[b][i] != w[j]);
                /* a tag is its check's, not the word's */
                assert_true(t->tag[b][i] == t->check[b][i] >> 48);
            }
        for (size_t i = 0; i < RDRAND_POINT_SLOTS; i++)
            assert_true(t->point[i] != w[j]);
    }
    /* The APT reference is the first word: draw.c never delivers it. */
    assert_true(h.s.apt_reference == w[512]);
}

/* ---- stuck bits ---- */

/* The end of the first whole bit block at or after word `onset`. */
static size_t rdrand_test_block_end(size_t onset)
{
    return (onset + RDRAND_BIT_BLOCK - 1) / RDRAND_BIT_BLOCK * RDRAND_BIT_BLOCK
           + RDRAND_BIT_BLOCK - 1;
}

/*
 * Good words, then bit `bit` stuck at `v` from word `onset` on (the word
 * before it has the other value): the first whole block of stuck words
 * trips at its last word, so at most 2 * 64 - 1 stuck words pass.  Every
 * position, both values, three onsets.
 */
static void test_stuck_bit_every_position(void **state)
{
    static const size_t onsets[] = {1, 100, 1000};
    uint64_t s = 6464;
    struct rdrand_health h;

    (void)state;
    for (int bit = 0; bit < 64; bit++) {
        for (int v = 0; v < 2; v++) {
            for (size_t o = 0; o < 3; o++) {
                uint64_t mask = (uint64_t)1 << bit;
                size_t i, onset = onsets[o];
                int reason = RDRAND_R_OK;

                rdrand_test_state(&h);
                for (i = 0; i < onset + 200; i++) {
                    uint64_t w = rdrand_test_splitmix(&s) & ~mask;
                    int stuck = i >= onset ? v : i == onset - 1 ? !v : -1;

                    if (stuck == 1 || (stuck == -1 && (w >> (63 - bit) & 1)))
                        w |= mask;
                    if ((reason = rdrand_health_check_word(&h, w))
                        != RDRAND_R_OK)
                        break;
                }
                assert_int_equal(reason, RDRAND_R_STUCK_BIT);
                assert_int_equal(i, rdrand_test_block_end(onset));
                assert_true(i - onset < 2 * RDRAND_BIT_BLOCK - 1);
            }
        }
    }
}

/* The top bit of every byte lane stuck at 0 (7-bit data): the same. */
static void test_stuck_top_bit_of_every_lane(void **state)
{
    uint64_t s = 77;
    struct rdrand_health h;
    size_t i;
    int reason = RDRAND_R_OK;

    (void)state;
    rdrand_test_state(&h);
    /* word 0 has every top bit set, so block 0 does not trip */
    assert_int_equal(rdrand_health_check_word(&h, rdrand_test_splitmix(&s)
                                                      | RDRAND_BYTES(0x80)),
                     RDRAND_R_OK);
    for (i = 1; i < 1000; i++) {
        uint64_t w = rdrand_test_splitmix(&s) & ~RDRAND_BYTES(0x80);

        if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
            break;
    }
    assert_int_equal(reason, RDRAND_R_STUCK_BIT);
    assert_int_equal(i, rdrand_test_block_end(1));
}

/*
 * One defect, one failure per block: a bit that stays stuck trips once at
 * the end of each block, never on the words in between.
 */
static void test_stuck_bit_trips_once_per_block(void **state)
{
    uint64_t s = 13;
    struct rdrand_health h;
    size_t trips = 0;

    (void)state;
    rdrand_test_state(&h);
    assert_int_equal(rdrand_health_check_word(&h, rdrand_test_splitmix(&s) | 1),
                     RDRAND_R_OK);
    for (size_t i = 1; i < 11 * RDRAND_BIT_BLOCK; i++) {
        int reason = rdrand_health_check_word(&h, rdrand_test_splitmix(&s)
                                                      & ~(uint64_t)1);

        if (reason != RDRAND_R_OK) {
            assert_int_equal(reason, RDRAND_R_STUCK_BIT);
            assert_int_equal(i % RDRAND_BIT_BLOCK, RDRAND_BIT_BLOCK - 1);
            trips++;
        }
    }
    assert_int_equal(trips, 10);
}

/* Good output, then a defect; the state must catch it at once. */
static void test_good_then_stuck(void **state)
{
    static const struct {
        uint64_t value;
        size_t offset; /* first failing word after the switch */
        int reason;
    } faults[] = {
        {0x5555555555555555u, 1, RDRAND_R_REPEATED_WORD},
        {~(uint64_t)0, 0, RDRAND_R_STUCK_ONES},
        {0, 0, RDRAND_R_STUCK_ZERO},
    };
    const size_t good = 100000;
    uint64_t s = 7;
    struct rdrand_health h;

    (void)state;
    for (size_t f = 0; f < sizeof(faults) / sizeof(faults[0]); f++) {
        size_t i;
        int reason = RDRAND_R_OK;

        rdrand_test_state(&h);
        for (i = 0; i < good + 10; i++) {
            uint64_t w = i < good ? rdrand_test_splitmix(&s) : faults[f].value;

            if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
                break;
        }
        assert_int_equal(i, good + faults[f].offset);
        assert_int_equal(reason, faults[f].reason);
    }
}

/*
 * The checks judge each word; they do not latch (the caller does).  Good
 * words after a fault pass again.
 */
static void test_no_latch_in_health(void **state)
{
    uint64_t s = 99;
    struct rdrand_health h;

    (void)state;
    rdrand_test_state(&h);
    assert_int_equal(rdrand_health_check_word(&h, 5), RDRAND_R_OK);
    assert_int_equal(rdrand_health_check_word(&h, 5), RDRAND_R_REPEATED_WORD);
    for (int i = 0; i < 100; i++)
        assert_int_equal(rdrand_health_check_word(&h, rdrand_test_splitmix(&s)),
                         RDRAND_R_OK);
}

/* ---- bit proportion test ---- */

/*
 * A random word whose bit `bit` is 1 in exactly `ones` of each window's
 * 512 words, spread out (a long run of one value would trip the
 * stuck-bit test): word i has it iff (i * ones) mod 512 < ones.
 */
static uint64_t rdrand_test_bit_word(uint64_t *s, int bit, size_t i,
                                     unsigned int ones)
{
    uint64_t w = rdrand_test_splitmix(s) & ~((uint64_t)1 << bit);

    if ((i % RDRAND_W) * ones % RDRAND_W < ones)
        w |= (uint64_t)1 << bit;
    return w;
}

/*
 * Exactly at the cutoffs, in the first window: 342 ones or 170 ones pass,
 * 343 ones or 169 ones trip at the window's last word, whichever bit.
 */
static void test_bit_proportion_cutoffs(void **state)
{
    static const struct {
        unsigned int ones;
        int trips;
    } cases[] = {{342, 0}, {343, 1}, {170, 0}, {169, 1}};
    uint64_t s = 4711;
    struct rdrand_health h;

    (void)state;
    for (int bit = 0; bit < 64; bit += 9) {
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
            size_t i;
            int reason = RDRAND_R_OK;

            rdrand_test_state(&h);
            for (i = 0; i < RDRAND_W; i++) {
                uint64_t w = rdrand_test_bit_word(&s, bit, i, cases[c].ones);

                if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
                    break;
            }
            if (!cases[c].trips) {
                assert_int_equal(reason, RDRAND_R_OK);
                continue;
            }
            assert_int_equal(reason, RDRAND_R_BIASED_BIT);
            assert_int_equal(i, RDRAND_W - 1);
        }
    }
}

/*
 * A bit biased to 7/8 from word 1000 on: caught at the end of the first
 * whole window of it (the counts start over with every window).
 */
static void test_biased_bit_caught(void **state)
{
    uint64_t s = 8080;
    struct rdrand_health h;
    size_t i;
    int reason = RDRAND_R_OK;

    (void)state;
    rdrand_test_state(&h);
    for (i = 0; i < 4 * RDRAND_W; i++) {
        uint64_t w = rdrand_test_splitmix(&s), r = rdrand_test_splitmix(&s);

        if (i >= 1000 && (r & 7) != 0)
            w |= (uint64_t)1 << 40;
        if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
            break;
    }
    assert_int_equal(reason, RDRAND_R_BIASED_BIT);
    assert_int_equal(i, 3 * RDRAND_W - 1);
}

/* ---- adaptive proportion test ---- */

/*
 * Lane stuck at v on every `stride`-th word from word 0, other words
 * differ from v in that lane: the reference is v, the k-th match is word
 * (k - 1) * stride, so the test trips at word (C - 1) * stride, and never
 * on a repeated word.
 */
static void test_apt_trips_at_cutoff(void **state)
{
    static const size_t strides[] = {1, 2, 7, 26};
    uint64_t s = 1234;
    struct rdrand_health h;

    (void)state;
    for (int lane = 0; lane < 8; lane++) {
        for (size_t k = 0; k < sizeof(strides) / sizeof(strides[0]); k++) {
            size_t i, stride = strides[k];
            int reason = RDRAND_R_OK;

            rdrand_test_state(&h);
            for (i = 0; i < RDRAND_W; i++) {
                uint64_t w = rdrand_test_avoid(&s, lane, 0xa5);

                if (i % stride == 0)
                    w = rdrand_test_set_lane(w, lane, 0xa5);
                if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
                    break;
            }
            assert_int_equal(reason, RDRAND_R_ADAPTIVE_PROPORTION);
            assert_int_equal(i, (size_t)(RDRAND_C - 1) * stride);
        }
    }
}

/* C - 1 matches in each window, placed anywhere: never trips. */
static void test_apt_one_below_cutoff_passes(void **state)
{
    uint64_t s = 555;
    struct rdrand_health h;

    (void)state;
    rdrand_test_state(&h);
    for (size_t i = 0; i < 4 * RDRAND_W; i++) {
        size_t pos = i % RDRAND_W;
        /* reference at 0, then C - 2 more spread over the window */
        int match = pos == 0 || (pos % 20 == 7 && pos / 20 < RDRAND_C - 2);
        uint64_t w = rdrand_test_avoid(&s, 5, 0x3c);

        if (match)
            w = rdrand_test_set_lane(w, 5, 0x3c);
        assert_int_equal(rdrand_health_check_word(&h, w), RDRAND_R_OK);
    }
}

/*
 * Counts restart at each window: window 0 has the reference plus C - 2
 * matches at its very end, window 1 the reference plus C - 2 right at its
 * start (2 C - 3 matches in a row across the boundary, no trip).  Window 2
 * opens with another value, so v in the rest of it counts for nothing;
 * window 3 opens with v and trips at its C-th word.
 */
static void test_apt_window_rollover(void **state)
{
    const uint8_t v = 0x77;
    const size_t w3 = 3 * RDRAND_W;
    uint64_t s = 31337;
    struct rdrand_health h;
    size_t i;
    int reason = RDRAND_R_OK;

    (void)state;
    rdrand_test_state(&h);
    for (i = 0; i < 5 * RDRAND_W; i++) {
        size_t win = i / RDRAND_W, pos = i % RDRAND_W;
        int match;
        uint64_t w = rdrand_test_avoid(&s, 0, v);

        if (win == 0)
            match = pos == 0 || pos >= RDRAND_W - (RDRAND_C - 2);
        else if (win == 1)
            match = pos < RDRAND_C - 1;
        else if (win == 2) /* fewer than a stuck-bit run */
            match = pos >= 1 && pos <= 40;
        else
            match = 1;
        if (match)
            w = rdrand_test_set_lane(w, 0, v);
        if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
            break;
    }
    assert_int_equal(reason, RDRAND_R_ADAPTIVE_PROPORTION);
    assert_int_equal(i, w3 + RDRAND_C - 1);
}

/*
 * The reference is the first sample, not the most frequent one: lane 6
 * is 0x00 in every 8th word but word 0, so window 0 (reference word 0)
 * does not trip and window 1 (reference 0x00) trips at its C-th match.
 * (Every 2nd word would bias lane 6's bits to 0: the bit proportion test
 * would trip at the end of window 0.)
 */
static void test_apt_reference_is_first_sample(void **state)
{
    uint64_t s = 2024;
    struct rdrand_health h;
    size_t i;
    int reason = RDRAND_R_OK;

    (void)state;
    rdrand_test_state(&h);
    for (i = 0; i < 3 * RDRAND_W; i++) {
        uint64_t w = rdrand_test_avoid(&s, 6, 0x00);

        if (i > 0 && i % 8 == 0)
            w = rdrand_test_set_lane(w, 6, 0x00);
        if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
            break;
    }
    assert_int_equal(reason, RDRAND_R_ADAPTIVE_PROPORTION);
    assert_int_equal(i, (size_t)RDRAND_W + 8 * (RDRAND_C - 1));
}

/*
 * One APT trip, one failure: after a trip the window starts over (the
 * next word is its reference), so good words after a transient pass.  On
 * the old code every later word of the window tripped again.
 */
static void test_apt_trip_resets_window(void **state)
{
    uint64_t s = 99;
    struct rdrand_health h;
    size_t i;
    int reason = RDRAND_R_OK;

    (void)state;
    rdrand_test_state(&h);
    for (i = 0; i < RDRAND_W; i++) {
        uint64_t w = rdrand_test_set_lane(rdrand_test_splitmix(&s), 2, 0xc3);

        if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
            break;
    }
    assert_int_equal(reason, RDRAND_R_ADAPTIVE_PROPORTION);
    assert_int_equal(i, RDRAND_C - 1);
    assert_true(rdrand_health_opens_window(&h));
    for (i = 0; i < 3 * RDRAND_W; i++)
        assert_int_equal(
            rdrand_health_check_word(&h, rdrand_test_avoid(&s, 2, 0xc3)),
            RDRAND_R_OK);
}

/* ---- start-up self-test ---- */

static void rdrand_test_sample(uint64_t *s, uint64_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        w[i] = rdrand_test_splitmix(s);
}

static void test_selftest_good(void **state)
{
    uint64_t s = 1, w[64];

    (void)state;
    for (int k = 0; k < 1000; k++) {
        rdrand_test_sample(&s, w, RDRAND_SELFTEST_WORDS);
        assert_int_equal(
            rdrand_health_selftest_sample(w, RDRAND_SELFTEST_WORDS),
            RDRAND_R_OK);
    }
    rdrand_test_sample(&s, w, 64);
    assert_int_equal(rdrand_health_selftest_sample(w, 64), RDRAND_R_OK);
}

static void test_selftest_too_short(void **state)
{
    uint64_t s = 2, w[RDRAND_SELFTEST_WORDS];

    (void)state;
    rdrand_test_sample(&s, w, RDRAND_SELFTEST_WORDS);
    assert_int_equal(
        rdrand_health_selftest_sample(w, RDRAND_SELFTEST_WORDS - 1),
        RDRAND_R_SELFTEST_FAILED);
    assert_int_equal(rdrand_health_selftest_sample(w, 0),
                     RDRAND_R_SELFTEST_FAILED);
    assert_int_equal(rdrand_health_selftest_sample(NULL, RDRAND_SELFTEST_WORDS),
                     RDRAND_R_SELFTEST_FAILED);
}

/* A bad word at each position returns the continuous test's reason. */
static void test_selftest_continuous_reasons(void **state)
{
    uint64_t s = 3, w[RDRAND_SELFTEST_WORDS];
    const size_t n = RDRAND_SELFTEST_WORDS;

    (void)state;
    for (size_t pos = 0; pos < n; pos++) {
        rdrand_test_sample(&s, w, n);
        w[pos] = 0;
        assert_int_equal(rdrand_health_selftest_sample(w, n),
                         RDRAND_R_STUCK_ZERO);
        w[pos] = ~(uint64_t)0;
        assert_int_equal(rdrand_health_selftest_sample(w, n),
                         RDRAND_R_STUCK_ONES);
        if (pos > 0) {
            /* distance 0 too, but the repeat is named, not the floor */
            w[pos] = w[pos - 1];
            assert_int_equal(rdrand_health_selftest_sample(w, n),
                             RDRAND_R_REPEATED_WORD);
        }
    }
}

/* Exactly at the floor: 3 flipped bits fail, 4 pass; at any position. */
static void test_selftest_change_floor(void **state)
{
    uint64_t s = 4, w[RDRAND_SELFTEST_WORDS];
    const size_t n = RDRAND_SELFTEST_WORDS;

    (void)state;
    for (size_t pos = 1; pos < n; pos++) {
        rdrand_test_sample(&s, w, n);
        w[pos] = w[pos - 1] ^ 0x8000000000010001u;
        assert_int_equal(rdrand_health_selftest_sample(w, n),
                         RDRAND_R_SELFTEST_FAILED);
        w[pos] = w[pos - 1] ^ 0x8000001000010001u;
        assert_int_equal(rdrand_health_selftest_sample(w, n), RDRAND_R_OK);
    }
}

/*
 * A state without the tree's tables (seen.c) sees no cycle as a repeat
 * in its continuous tests (the last word only; a short one may trip a
 * statistical test), but the self-test does: two equal words in its
 * sample are a repeat, a proof (review of the round-four fix: it was a
 * temporary "self-test failed").  Every period 2 .. 63.
 */
static void test_selftest_long_cycle(void **state)
{
    const size_t n = RDRAND_SELFTEST_WORDS;
    uint64_t s = 5, w[RDRAND_SELFTEST_WORDS];
    struct rdrand_health h;
    int reason;

    (void)state;
    for (size_t p = 2; p < n; p++) {
        rdrand_test_sample(&s, w, p);
        for (size_t i = p; i < n; i++)
            w[i] = w[i - p];
        rdrand_health_init(&h);
        (void)rdrand_test_feed(&h, w, n, &reason);
        assert_true(reason != RDRAND_R_REPEATED_WORD
                    && reason != RDRAND_R_SHORT_CYCLE
                    && reason != RDRAND_R_LONG_CYCLE);
        /*
         * the sample fails; from 33 on the statistics cannot tell, and
         * the sample's two equal words are a repeat, a proof
         */
        if (p < 33)
            assert_int_not_equal(rdrand_health_selftest_sample(w, n),
                                 RDRAND_R_OK);
        else
            assert_int_equal(rdrand_health_selftest_sample(w, n),
                             RDRAND_R_SHORT_CYCLE);
    }
}

/*
 * A bit stuck through the sample fails it (the stuck-bit block, which a
 * fresh state's self-test fills exactly): every position, both values.
 * With 8 words (the old self-test) no rule could: some bit of 8 clean
 * words stays put with probability 0.4.
 */
static void test_selftest_stuck_bit_fails(void **state)
{
    uint64_t s = 5, w[RDRAND_SELFTEST_WORDS];

    (void)state;
    for (int bit = 0; bit < 64; bit++) {
        for (int v = 0; v < 2; v++) {
            rdrand_test_sample(&s, w, RDRAND_SELFTEST_WORDS);
            for (size_t i = 0; i < RDRAND_SELFTEST_WORDS; i++)
                w[i] = (w[i] & ~((uint64_t)1 << bit)) | (uint64_t)v << bit;
            assert_int_equal(
                rdrand_health_selftest_sample(w, RDRAND_SELFTEST_WORDS),
                RDRAND_R_STUCK_BIT);
        }
    }
}

/* A byte lane holding one value fails the self-test, whichever lane. */
static void test_selftest_stuck_lane(void **state)
{
    (void)state;
    for (int lane = 0; lane < 8; lane++) {
        uint64_t s = 77 + (uint64_t)lane, w[RDRAND_SELFTEST_WORDS];

        for (int i = 0; i < RDRAND_SELFTEST_WORDS; i++)
            w[i] = rdrand_test_set_lane(rdrand_test_splitmix(&s), lane, 0x5a);
        assert_int_equal(
            rdrand_health_selftest_sample(w, RDRAND_SELFTEST_WORDS),
            RDRAND_R_ADAPTIVE_PROPORTION);
    }
}

/* A self-test primes the state it runs in, and keys it once. */
static void test_selftest_primes_state(void **state)
{
    uint64_t s = 31, w[RDRAND_SELFTEST_WORDS], key0;
    struct rdrand_health h;

    (void)state;
    rdrand_test_state(&h);
    rdrand_test_sample(&s, w, RDRAND_SELFTEST_WORDS);
    assert_int_equal(rdrand_health_selftest(&h, w, RDRAND_SELFTEST_WORDS),
                     RDRAND_R_OK);
    assert_true(h.warm && h.keyed);
    key0 = h.s.key[0];
    /* The last self-test word, delivered now, is a repeat: it trips. */
    assert_int_equal(rdrand_health_check_word(&h, w[RDRAND_SELFTEST_WORDS - 1]),
                     RDRAND_R_REPEATED_WORD);
    /* A word of it from 63 words back: the recent-words test. */
    assert_int_equal(rdrand_health_check_word(&h, w[0]), RDRAND_R_SHORT_CYCLE);
    /* A second self-test (recovery) keeps the key. */
    rdrand_test_sample(&s, w, RDRAND_SELFTEST_WORDS);
    assert_int_equal(rdrand_health_selftest(&h, w, RDRAND_SELFTEST_WORDS),
                     RDRAND_R_OK);
    assert_true(h.s.key[0] == key0);
    /* A self-test that fails leaves the state cold. */
    rdrand_test_sample(&s, w, RDRAND_SELFTEST_WORDS);
    w[5] = w[4];
    assert_int_equal(rdrand_health_selftest(&h, w, RDRAND_SELFTEST_WORDS),
                     RDRAND_R_REPEATED_WORD);
    assert_false(h.warm);
}

/* A fresh state has opened no window: every lane's count is 0. */
static void test_apt_count_before_any_window(void **state)
{
    struct rdrand_health h;

    (void)state;
    rdrand_health_init(&h);
    for (int lane = 0; lane < 8; lane++)
        assert_int_equal(rdrand_health_apt_count(&h, lane), 0);
}

/* The recovery's verdict on its sums: each cutoff, and one short of it. */
static void test_recovery_judge_cutoffs(void **state)
{
    const uint32_t n = RDRAND_RECOVERY_WINDOWS * RDRAND_APT_WINDOW;
    struct rdrand_recovery_sums s;

    (void)state;
    for (int b = 0; b < 64; b++)
        s.ones[b] = n / 2;
    for (int lane = 0; lane < 8; lane++)
        s.apt[lane] = 0;
    assert_int_equal(rdrand_recovery_judge(&s), RDRAND_R_OK);
    s.ones[17] = RDRAND_RECOVERY_BIT_CUTOFF; /* too many ones */
    assert_int_equal(rdrand_recovery_judge(&s), RDRAND_R_RECOVERY_FAILED);
    s.ones[17] = RDRAND_RECOVERY_BIT_CUTOFF - 1;
    assert_int_equal(rdrand_recovery_judge(&s), RDRAND_R_OK);
    s.ones[17] = n - RDRAND_RECOVERY_BIT_CUTOFF; /* too many zeros */
    assert_int_equal(rdrand_recovery_judge(&s), RDRAND_R_RECOVERY_FAILED);
    s.ones[17] = n - RDRAND_RECOVERY_BIT_CUTOFF + 1;
    assert_int_equal(rdrand_recovery_judge(&s), RDRAND_R_OK);
    s.apt[5] = RDRAND_RECOVERY_APT_CUTOFF;
    assert_int_equal(rdrand_recovery_judge(&s), RDRAND_R_RECOVERY_FAILED);
    s.apt[5] = RDRAND_RECOVERY_APT_CUTOFF - 1;
    assert_int_equal(rdrand_recovery_judge(&s), RDRAND_R_OK);
}

/* A CF=0 in the recovery's windows ends it at once: that reason. */
static void test_recovery_cf0(void **state)
{
    struct rdrand_health h;

    (void)state;
    sim_or_fail("fail-at=100");
    rdrand_health_init(&h);
    rdrand_test_key(&h, 0x243f6a8885a308d3u, 0x13198a2e03707344u);
    assert_int_equal(rdrand_recovery_windows(&h), RDRAND_R_RDRAND_FAILED);
    /* two chunks of 64 words: the second's 36th execution failed */
    assert_int_equal(rdrand_sim_executions(), 100);
    sim_or_fail("");
    rdrand_health_init(&h);
    rdrand_test_key(&h, 0x243f6a8885a308d3u, 0x13198a2e03707344u);
    assert_int_equal(rdrand_recovery_windows(&h), RDRAND_R_OK);
    assert_int_equal(rdrand_sim_executions(),
                     RDRAND_RECOVERY_WINDOWS * RDRAND_APT_WINDOW);
}

/*
 * An exiting thread hands over an open window only from a keyed state:
 * an unkeyed one's windows (under a key of their own) are not handed.
 */
static void test_handover_needs_key(void **state)
{
    struct rdrand_health gone, next;

    (void)state;
    rdrand_handover_forget();
    rdrand_health_init(&gone);
    gone.s.apt_seen = 5;
    rdrand_handover_put(&gone);
    rdrand_health_init(&next);
    rdrand_handover_take(&next);
    assert_int_equal(next.s.apt_seen, 0);
    /* the control: keyed, it is handed over */
    rdrand_test_key(&gone, 0x243f6a8885a308d3u, 0x13198a2e03707344u);
    gone.s.apt_seen = 5;
    rdrand_handover_put(&gone);
    rdrand_handover_take(&next);
    assert_int_equal(next.s.apt_seen, 5);
    rdrand_handover_forget();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apt_cutoff_is_smallest_for_2_40),
        cmocka_unit_test(test_apt_count_before_any_window),
        cmocka_unit_test(test_recovery_judge_cutoffs),
        cmocka_unit_test(test_recovery_cf0),
        cmocka_unit_test(test_handover_needs_key),
        cmocka_unit_test(test_constant_ones),
        cmocka_unit_test(test_constant_zero),
        cmocka_unit_test(test_constant_other),
        cmocka_unit_test(test_each_word_twice),
        cmocka_unit_test(test_short_cycles),
        cmocka_unit_test(test_alternating_pair_is_a_cycle),
        cmocka_unit_test(test_history_keeps_no_word),
        cmocka_unit_test(test_stuck_bit_every_position),
        cmocka_unit_test(test_stuck_top_bit_of_every_lane),
        cmocka_unit_test(test_stuck_bit_trips_once_per_block),
        cmocka_unit_test(test_good_then_stuck),
        cmocka_unit_test(test_no_latch_in_health),
        cmocka_unit_test(test_apt_trips_at_cutoff),
        cmocka_unit_test(test_apt_one_below_cutoff_passes),
        cmocka_unit_test(test_apt_window_rollover),
        cmocka_unit_test(test_apt_reference_is_first_sample),
        cmocka_unit_test(test_apt_trip_resets_window),
        cmocka_unit_test(test_bit_proportion_cutoffs),
        cmocka_unit_test(test_biased_bit_caught),
        cmocka_unit_test(test_selftest_good),
        cmocka_unit_test(test_selftest_too_short),
        cmocka_unit_test(test_selftest_continuous_reasons),
        cmocka_unit_test(test_selftest_change_floor),
        cmocka_unit_test(test_selftest_long_cycle),
        cmocka_unit_test(test_selftest_stuck_bit_fails),
        cmocka_unit_test(test_selftest_stuck_lane),
        cmocka_unit_test(test_selftest_primes_state),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
