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
#include "health.h"

#define RDRAND_C RDRAND_APT_CUTOFF
#define RDRAND_W RDRAND_APT_WINDOW

/* splitmix64: a bijection of its counter, so no output ever repeats. */
static uint64_t rdrand_test_splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

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
    rdrand_health_init(&h);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(rdrand_health_check_word(&h, ~(uint64_t)0),
                         RDRAND_R_STUCK_ONES);
}

/* 0 takes precedence over the repeat it also is. */
static void test_constant_zero(void **state)
{
    struct rdrand_health h;

    (void)state;
    rdrand_health_init(&h);
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
        rdrand_health_init(&h);
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
    rdrand_health_init(&h);
    assert_int_equal(rdrand_test_feed(&h, w, 64, &reason), 1);
    assert_int_equal(reason, RDRAND_R_REPEATED_WORD);
    /* every second word fails, not only the first */
    for (size_t i = 2; i < 64; i += 2) {
        assert_int_equal(rdrand_health_check_word(&h, w[i]), RDRAND_R_OK);
        assert_int_equal(rdrand_health_check_word(&h, w[i + 1]),
                         RDRAND_R_REPEATED_WORD);
    }
}

/*
 * Two values alternating never repeat immediately, so only the APT sees
 * them: every lane matches its reference every second word.
 */
static void test_alternating_pair_trips_apt(void **state)
{
    const uint64_t a = 0x1111111111111111u, b = 0x2222222222222222u;
    struct rdrand_health h;
    int i, reason = RDRAND_R_OK;

    (void)state;
    rdrand_health_init(&h);
    for (i = 0; i < 1000; i++) {
        reason = rdrand_health_check_word(&h, (i & 1) ? b : a);
        if (reason != RDRAND_R_OK)
            break;
    }
    assert_int_equal(reason, RDRAND_R_ADAPTIVE_PROPORTION);
    assert_int_equal(i, 2 * (RDRAND_C - 1));
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

        rdrand_health_init(&h);
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
    rdrand_health_init(&h);
    assert_int_equal(rdrand_health_check_word(&h, 5), RDRAND_R_OK);
    assert_int_equal(rdrand_health_check_word(&h, 5), RDRAND_R_REPEATED_WORD);
    for (int i = 0; i < 100; i++)
        assert_int_equal(rdrand_health_check_word(&h, rdrand_test_splitmix(&s)),
                         RDRAND_R_OK);
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

            rdrand_health_init(&h);
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
    rdrand_health_init(&h);
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
    rdrand_health_init(&h);
    for (i = 0; i < 5 * RDRAND_W; i++) {
        size_t win = i / RDRAND_W, pos = i % RDRAND_W;
        int match;
        uint64_t w = rdrand_test_avoid(&s, 0, v);

        if (win == 0)
            match = pos == 0 || pos >= RDRAND_W - (RDRAND_C - 2);
        else if (win == 1)
            match = pos < RDRAND_C - 1;
        else
            match = !(win == 2 && pos == 0);
        if (match)
            w = rdrand_test_set_lane(w, 0, v);
        if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
            break;
    }
    assert_int_equal(reason, RDRAND_R_ADAPTIVE_PROPORTION);
    assert_int_equal(i, w3 + RDRAND_C - 1);
}

/* The reference is the first sample, not the most frequent one. */
static void test_apt_reference_is_first_sample(void **state)
{
    uint64_t s = 2024;
    struct rdrand_health h;
    size_t i;
    int reason = RDRAND_R_OK;

    (void)state;
    rdrand_health_init(&h);
    for (i = 0; i < 3 * RDRAND_W; i++) {
        uint64_t w = rdrand_test_avoid(&s, 6, 0x00);

        if (i > 0) /* stuck from word 1 on */
            w = rdrand_test_set_lane(w, 6, 0x00);
        if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
            break;
    }
    assert_int_equal(reason, RDRAND_R_ADAPTIVE_PROPORTION);
    assert_int_equal(i, (size_t)RDRAND_W + RDRAND_C - 1);
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

/* Patterns the continuous tests accept but a working DRBG never makes. */
static void test_selftest_few_changes(void **state)
{
    const size_t n = RDRAND_SELFTEST_WORDS;
    uint64_t counter[RDRAND_SELFTEST_WORDS], walk[RDRAND_SELFTEST_WORDS];
    struct rdrand_health h;
    int reason;

    (void)state;
    for (size_t i = 0; i < n; i++) {
        counter[i] = 0x1234567800000000u + i;
        walk[i] = 0x0f0f0f0f0f0f0f0fu ^ ((uint64_t)1 << (9 * i));
    }
    /* both pass every continuous test ... */
    rdrand_health_init(&h);
    assert_int_equal(rdrand_test_feed(&h, counter, n, &reason), n);
    rdrand_health_init(&h);
    assert_int_equal(rdrand_test_feed(&h, walk, n, &reason), n);
    /* ... and fail the self-test */
    assert_int_equal(rdrand_health_selftest_sample(counter, n),
                     RDRAND_R_SELFTEST_FAILED);
    assert_int_equal(rdrand_health_selftest_sample(walk, n),
                     RDRAND_R_SELFTEST_FAILED);
}

/*
 * A stuck bit is NOT caught: from 8 words a good source leaves some bit
 * unchanged with probability about 64 * 2^-7 = 0.4, so no rule with a
 * false-positive rate below 2^-40 can flag it.  This pins that limit.
 */
static void test_selftest_stuck_bit_passes(void **state)
{
    uint64_t s = 5, w[RDRAND_SELFTEST_WORDS];

    (void)state;
    for (int k = 0; k < 100; k++) {
        rdrand_test_sample(&s, w, RDRAND_SELFTEST_WORDS);
        for (size_t i = 0; i < RDRAND_SELFTEST_WORDS; i++)
            w[i] &= ~((uint64_t)1 << 63);
        assert_int_equal(
            rdrand_health_selftest_sample(w, RDRAND_SELFTEST_WORDS),
            RDRAND_R_OK);
    }
}

/*
 * A byte lane that holds one value in every word of the sample fails the
 * self-test, whichever lane; one differing word in that lane is enough.
 */
static void test_selftest_stuck_lane(void **state)
{
    (void)state;
    for (int lane = 0; lane < 8; lane++) {
        uint64_t s = 77 + (uint64_t)lane, w[RDRAND_SELFTEST_WORDS];

        for (int i = 0; i < RDRAND_SELFTEST_WORDS; i++)
            w[i] = rdrand_test_set_lane(rdrand_test_splitmix(&s), lane, 0x5a);
        assert_int_equal(
            rdrand_health_selftest_sample(w, RDRAND_SELFTEST_WORDS),
            RDRAND_R_SELFTEST_FAILED);
        w[RDRAND_SELFTEST_WORDS - 1] =
            rdrand_test_set_lane(w[RDRAND_SELFTEST_WORDS - 1], lane, 0x5b);
        assert_int_equal(
            rdrand_health_selftest_sample(w, RDRAND_SELFTEST_WORDS),
            RDRAND_R_OK);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apt_cutoff_is_smallest_for_2_40),
        cmocka_unit_test(test_constant_ones),
        cmocka_unit_test(test_constant_zero),
        cmocka_unit_test(test_constant_other),
        cmocka_unit_test(test_each_word_twice),
        cmocka_unit_test(test_alternating_pair_trips_apt),
        cmocka_unit_test(test_good_then_stuck),
        cmocka_unit_test(test_no_latch_in_health),
        cmocka_unit_test(test_apt_trips_at_cutoff),
        cmocka_unit_test(test_apt_one_below_cutoff_passes),
        cmocka_unit_test(test_apt_window_rollover),
        cmocka_unit_test(test_apt_reference_is_first_sample),
        cmocka_unit_test(test_selftest_good),
        cmocka_unit_test(test_selftest_too_short),
        cmocka_unit_test(test_selftest_continuous_reasons),
        cmocka_unit_test(test_selftest_change_floor),
        cmocka_unit_test(test_selftest_few_changes),
        cmocka_unit_test(test_selftest_stuck_bit_passes),
        cmocka_unit_test(test_selftest_stuck_lane),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
