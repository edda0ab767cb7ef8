/* SPDX-License-Identifier: Apache-2.0 */
/* The no-retry loop, word by word, against the simulated CPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "counters.h"
#include "draw.h"
#include "errors.h"
#include "fake_core.h"
#include "sim.h"

/* The simulated CPU's default stream, computed independently. */
static uint64_t expected_word(uint64_t index)
{
    uint64_t z = (index + 1) * 0x9e3779b97f4a7c15ULL;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

/*
 * Every length 1..600: ceil(len/8) executions, exact bytes, no overrun.
 * A fresh state first draws its APT reference (word 0), never delivered.
 */
static void test_every_length(void **state)
{
    unsigned char buf[600 + 16];

    (void)state;
    for (size_t len = 1; len <= 600; len++) {
        struct rdrand_health h;
        uint64_t words_before = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);

        sim_or_fail("");
        rdrand_health_init(&h);
        memset(buf, 0xA5, sizeof(buf));
        assert_int_equal(rdrand_draw(&h, buf, len), RDRAND_R_OK);
        assert_int_equal(rdrand_sim_executions(), 1 + (len + 7) / 8);
        assert_int_equal(rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS)
                             - words_before,
                         1 + (len + 7) / 8);
        for (size_t i = 0; i < len; i++) {
            uint64_t w = expected_word(1 + i / 8);
            unsigned char b;

            memcpy(&b, (unsigned char *)&w + i % 8, 1);
            assert_int_equal(buf[i], b);
        }
        assert_true(all_bytes(buf + len, sizeof(buf) - len, 0xA5));
    }
}

/*
 * One state, requests of 1..97 bytes over 2100 words: every window's
 * reference (executions 0, 512, 1024, ...) is drawn in the middle of
 * some request and never delivered; every other word is, in order, the
 * unused bytes of a partial last word dropped; executions exact.
 */
static void test_requests_across_windows(void **state)
{
    static unsigned char buf[97 + 16];
    struct rdrand_health h;
    uint64_t next = 0; /* the next execution's index */

    (void)state;
    sim_or_fail("");
    rdrand_health_init(&h);
    for (size_t len = 1; next < 2100; len = len % 97 + 1) {
        uint64_t before = rdrand_sim_executions();

        memset(buf, 0xA5, sizeof(buf));
        assert_int_equal(rdrand_draw(&h, buf, len), RDRAND_R_OK);
        for (size_t i = 0; i < len; i += 8) {
            uint64_t w;

            if (next % RDRAND_APT_WINDOW == 0)
                next++; /* the reference */
            w = expected_word(next++);
            assert_memory_equal(buf + i, &w, len - i < 8 ? len - i : 8);
        }
        assert_int_equal(rdrand_sim_executions() - before, next - before);
        assert_true(all_bytes(buf + len, sizeof(buf) - len, 0xA5));
    }
}

/*
 * The no-retry rule: a failure at word k of an n-word request executes
 * exactly k words, returns nothing (the buffer is wiped) and counts one
 * hardware failure.
 */
static void test_fail_at_word_k_executes_k(void **state)
{
    unsigned char buf[8 * 12];
    char spec[32];

    (void)state;
    for (size_t n = 1; n <= 12; n++) {
        for (size_t k = 1; k <= n; k++) {
            uint64_t failures = rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES);
            uint64_t words = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);
            struct rdrand_health h;

            snprintf(spec, sizeof(spec), "fail-at=%zu", k);
            sim_or_fail(spec);
            rdrand_health_init(&h);
            memset(buf, 0xA5, sizeof(buf));
            assert_int_equal(rdrand_draw(&h, buf, n * 8),
                             RDRAND_R_RDRAND_FAILED);
            assert_int_equal(rdrand_sim_executions(), k);
            assert_int_equal(
                rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS) - words, k);
            assert_int_equal(
                rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES) - failures, 1);
            assert_true(all_bytes(buf, n * 8, 0));
            assert_true(all_bytes(buf + n * 8, sizeof(buf) - n * 8, 0xA5));
        }
    }
}

/* An odd-length request that fails in its last, partial word. */
static void test_fail_in_partial_last_word(void **state)
{
    unsigned char buf[21 + 8];

    (void)state;
    sim_or_fail("fail-at=3");
    memset(buf, 0xA5, sizeof(buf));
    assert_int_equal(rdrand_draw(NULL, buf, 21), RDRAND_R_RDRAND_FAILED);
    assert_int_equal(rdrand_sim_executions(), 3);
    assert_true(all_bytes(buf, 21, 0));
    assert_true(all_bytes(buf + 21, 8, 0xA5));
}

/* fail-from: the request fails at its first word; nothing more runs. */
static void test_fail_from(void **state)
{
    unsigned char buf[64];

    (void)state;
    sim_or_fail("fail-from=1");
    assert_int_equal(rdrand_draw(NULL, buf, sizeof(buf)),
                     RDRAND_R_RDRAND_FAILED);
    assert_int_equal(rdrand_draw(NULL, buf, sizeof(buf)),
                     RDRAND_R_RDRAND_FAILED);
    assert_int_equal(rdrand_sim_executions(), 2);
}

/* Health tests are applied when a state is given, and only then. */
static void test_stuck_value_needs_health(void **state)
{
    unsigned char buf[32];
    struct rdrand_health h;

    (void)state;
    sim_or_fail("value=ffffffffffffffff");
    rdrand_health_init(&h);
    assert_int_equal(rdrand_draw(&h, buf, sizeof(buf)), RDRAND_R_STUCK_ONES);
    /* The second word was requested before the first was judged. */
    assert_int_equal(rdrand_sim_executions(), 2);
    assert_true(all_bytes(buf, sizeof(buf), 0));
    assert_int_equal(rdrand_draw(NULL, buf, sizeof(buf)), RDRAND_R_OK);
    assert_true(all_bytes(buf, sizeof(buf), 0xff));
}

/*
 * A word that fails a test, then CF=0 on the word drawn after it: the
 * test's reason (the first bad word in stream order), the CF=0 counted.
 */
static void test_trip_then_cf0(void **state)
{
    unsigned char buf[32];
    struct rdrand_health h;
    uint64_t failures = rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES);

    (void)state;
    sim_or_fail("value=ffffffffffffffff,fail-at=2");
    rdrand_health_init(&h);
    memset(buf, 0xA5, sizeof(buf));
    assert_int_equal(rdrand_draw(&h, buf, sizeof(buf)), RDRAND_R_STUCK_ONES);
    assert_int_equal(rdrand_sim_executions(), 2);
    assert_int_equal(rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES) - failures,
                     1);
    assert_true(all_bytes(buf, sizeof(buf), 0));
}

/*
 * After every request the current group's bit counts have gone into the
 * window's (right after a group's first word they would be that word),
 * and no delivered word is in the digests, counts or APT state.  (The bit
 * block's ORs are the documented exception, docs/health-tests.md.)
 */
static void test_no_delivered_word_kept(void **state)
{
    struct rdrand_health h;
    uint64_t words[40];

    (void)state;
    sim_or_fail("");
    rdrand_health_init(&h);
    h.s.key[0] = 0x243f6a8885a308d3u;
    h.s.key[1] = 0x13198a2e03707344u;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        assert_int_equal(rdrand_draw(&h, (unsigned char *)&words[i], 8),
                         RDRAND_R_OK);
        for (int p = 0; p < 3; p++)
            assert_true(h.s.group[p] == 0);
        for (size_t j = 0; j <= i; j++) {
            assert_true(h.s.apt_reference != words[j]);
            assert_true(h.s.apt_counts != words[j]);
            for (int k = 0; k < RDRAND_HISTORY_WORDS; k++)
                assert_true(h.history[k] != words[j]);
            for (int k = 0; k < RDRAND_BIT_PLANES; k++)
                assert_true(h.ones[k] != words[j]);
        }
    }
}

static void test_zero_length(void **state)
{
    unsigned char buf[1] = {0x5A};

    (void)state;
    sim_or_fail("");
    assert_int_equal(rdrand_draw(NULL, buf, 0), RDRAND_R_OK);
    assert_int_equal(rdrand_sim_executions(), 0);
    assert_int_equal(buf[0], 0x5A);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_length),
        cmocka_unit_test(test_requests_across_windows),
        cmocka_unit_test(test_fail_at_word_k_executes_k),
        cmocka_unit_test(test_fail_in_partial_last_word),
        cmocka_unit_test(test_fail_from),
        cmocka_unit_test(test_stuck_value_needs_health),
        cmocka_unit_test(test_trip_then_cf0),
        cmocka_unit_test(test_no_delivered_word_kept),
        cmocka_unit_test(test_zero_length),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
