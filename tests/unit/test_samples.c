/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The long-cycle test (provider/samples.h) on streams fed word by word
 * through the continuous tests, each state with a table of its own:
 *  - after 20,000 clean words, cycles of 33 to 100,000 words trip it
 *    (reason long cycle), never before the first repeated word, and
 *    within the bound samples.c derives (2^-20 per cycle and key), for
 *    64 keys per period;
 *  - lag repeats: every odd word repeating the word 100 before, one word
 *    in 8 repeating the word 3,000 before;
 *  - across threads: one state draws a cycle's first period, another
 *    (the same table and key, its own history) the second;
 *  - a clean stream of 10^6 words never trips it.
 * The summary lines give the numbers of docs/health-tests.md.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "errors.h"
#include "health.h"
#include "samples.h"

#define CLEAN 20000 /* clean words before each defect, as in the review */
#define KEYS 64     /* keys (processes) per period */

static struct rdrand_samples *table;

static uint64_t splitmix(uint64_t x)
{
    uint64_t z = x * 0x9e3779b97f4a7c15u + 0x632be59bd9b4e019u;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A fresh state under key k, with the (emptied) test table. */
static void keyed_state(struct rdrand_health *h, uint64_t k)
{
    rdrand_health_init(h);
    memset(table, 0, sizeof(*table));
    h->s.key[0] = splitmix(k << 1);
    h->s.key[1] = splitmix(k << 1 | 1);
    h->keyed = 1;
    h->samples = table;
}

/* Clean word i of the stream for key k (distinct streams per key). */
static uint64_t clean_word(uint64_t k, uint64_t i)
{
    return splitmix(k << 40 ^ i);
}

/*
 * samples.c's bound: in the second period each word is caught with
 * probability q = e^(-p / 2^16) / 4 (sampled, and still in the table), so
 * more than ln(2^-20) / ln(1 - q) repeated words pass with probability
 * 2^-20.
 */
static double bound_words(double p)
{
    double q = exp(-p / (4.0 * RDRAND_SAMPLE_SLOTS)) / 4;

    return ceil(log(ldexp(1, -20)) / log(1 - q));
}

static int feed(struct rdrand_health *h, uint64_t w)
{
    return rdrand_health_check_word(h, w);
}

static void test_cycles_caught_within_bound(void **state)
{
    static const uint64_t periods[] = {33,   100,  200,   500,   1000,
                                       2000, 4096, 10000, 32768, 100000};

    (void)state;
    for (size_t j = 0; j < sizeof(periods) / sizeof(periods[0]); j++) {
        uint64_t p = periods[j], worst = 0, sum = 0;
        double bound = bound_words((double)p);

        for (uint64_t k = 0; k < KEYS; k++) {
            struct rdrand_health h;
            uint64_t i, repeated;
            int reason = RDRAND_R_OK;

            keyed_state(&h, k);
            for (i = 0; i < CLEAN; i++)
                assert_int_equal(feed(&h, clean_word(k, i)), RDRAND_R_OK);
            /* the cycle: CLEAN + (i - CLEAN) mod p, its words new */
            for (; reason == RDRAND_R_OK && i < CLEAN + 2 * p + 10000; i++)
                reason = feed(&h, clean_word(k + 1000, (i - CLEAN) % p));
            assert_int_equal(reason, RDRAND_R_LONG_CYCLE);
            /* i - 1 tripped; nothing before the first repeat can */
            assert_true(i - 1 >= CLEAN + p);
            repeated = i - 1 - (CLEAN + p);
            if (repeated > bound)
                fail_msg("cycle of %llu (key %llu): %llu repeated words "
                         "passed, bound %.0f",
                         (unsigned long long)p, (unsigned long long)k,
                         (unsigned long long)repeated, bound);
            worst = repeated > worst ? repeated : worst;
            sum += repeated;
        }
        printf("cycle of %6llu words: repeated words passed before the "
               "trip: mean %.1f, max %llu over %d keys (bound %.0f)\n",
               (unsigned long long)p, (double)sum / KEYS,
               (unsigned long long)worst, KEYS, bound);
    }
}

/*
 * Lag repeats.  Odd words repeating the word 100 before: each repeat is
 * caught with probability q = e^(-100 / 2^16) / 4 = 0.25, so with 2^-20
 * at most 49 repeats (98 words) pass.  One word in 8 repeating the word
 * 3,000 before: q = e^(-3000 / 2^16) / 4 = 0.239, 51 repeats (408 words).
 */
static void test_lag_repeats(void **state)
{
    static const struct {
        const char *name;
        uint64_t lag, every;
        double repeats; /* bound on repeats passed, as above */
    } kinds[] = {{"odd words repeat lag 100", 100, 2, 49},
                 {"1 in 8 words repeat lag 3000", 3000, 8, 51}};
    static uint64_t w[CLEAN + 20000];

    (void)state;
    for (size_t j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
        uint64_t worst = 0;

        for (uint64_t k = 0; k < KEYS; k++) {
            struct rdrand_health h;
            uint64_t i, repeats = 0;
            int reason = RDRAND_R_OK;

            keyed_state(&h, k);
            for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
                w[i] = i >= CLEAN + kinds[j].lag && i % kinds[j].every == 1
                           ? w[i - kinds[j].lag]
                           : clean_word(k, i);
            for (i = 0; reason == RDRAND_R_OK && i < sizeof(w) / sizeof(w[0]);
                 i++) {
                reason = feed(&h, w[i]);
                repeats += i >= CLEAN + kinds[j].lag && i % kinds[j].every == 1;
            }
            assert_int_equal(reason, RDRAND_R_LONG_CYCLE);
            assert_true(repeats >= 1);
            if ((double)(repeats - 1) > kinds[j].repeats)
                fail_msg("%s (key %llu): %llu repeats passed", kinds[j].name,
                         (unsigned long long)k,
                         (unsigned long long)(repeats - 1));
            worst = repeats - 1 > worst ? repeats - 1 : worst;
        }
        printf("%s: at most %llu repeats passed over %d keys (bound %.0f)\n",
               kinds[j].name, (unsigned long long)worst, KEYS,
               kinds[j].repeats);
    }
}

/*
 * Two threads' states: the process's key and table, a history each.  A
 * cycle of 1000 words whose first period one thread draws and whose
 * second the other: the second trips, within the bound.
 */
static void test_across_threads(void **state)
{
    struct rdrand_health a, b;
    int reason = RDRAND_R_OK;
    uint64_t i;

    (void)state;
    keyed_state(&a, 7);
    b = a;
    for (i = 0; i < 1000; i++)
        assert_int_equal(feed(&a, clean_word(99, i)), RDRAND_R_OK);
    for (i = 0; reason == RDRAND_R_OK && i < 1000; i++)
        reason = feed(&b, clean_word(99, i));
    assert_int_equal(reason, RDRAND_R_LONG_CYCLE);
    assert_true(i <= bound_words(1000));
    /* without the table, b's own tests see nothing */
    keyed_state(&a, 7);
    b = a;
    b.samples = NULL;
    for (i = 0; i < 1000; i++)
        assert_int_equal(feed(&a, clean_word(99, i)), RDRAND_R_OK);
    for (i = 0; i < 1000; i++)
        assert_int_equal(feed(&b, clean_word(99, i)), RDRAND_R_OK);
}

/*
 * A clean stream through the table: 10^6 words, 2.5 * 10^5 sampled, each
 * a false match with probability <= 2^-63.  test_health_long runs 10^7
 * more and test_health_clean 10^8 on 8 threads sharing a table.
 */
static void test_clean_never_trips(void **state)
{
    struct rdrand_health h;

    (void)state;
    keyed_state(&h, 3);
    for (uint64_t i = 0; i < 1000000; i++)
        if (feed(&h, clean_word(12345, i)) != RDRAND_R_OK)
            fail_msg("clean word %llu tripped", (unsigned long long)i);
}

/*
 * The slot compares 64 bits that the slot and sample bits do not fix
 * (review of round three, D1).  2^20 distinct words whose digests are
 * made to share one slot and the sample bits, with only 16 bits left
 * free: had the slot held the digest, about 2^20 * 2^-16 = 16 of them
 * would match an entry; the word's own check matches with probability
 * 2^20 * 2^-64.
 */
static void test_slot_compares_64_bits(void **state)
{
    const uint64_t k0 = 0x243f6a8885a308d3u, k1 = 0x13198a2e03707344u;
    uint64_t matches = 0;

    (void)state;
    memset(table, 0, sizeof(*table));
    for (uint64_t i = 0; i < (1u << 20); i++) {
        uint64_t d = (uint64_t)0x2a5 << 50 | (splitmix(i) & 0xffff) << 2;

        matches +=
            rdrand_samples_step(table, splitmix(i ^ 1ull << 63), d, k0, k1);
    }
    assert_int_equal(matches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycles_caught_within_bound),
        cmocka_unit_test(test_lag_repeats),
        cmocka_unit_test(test_across_threads),
        cmocka_unit_test(test_clean_never_trips),
        cmocka_unit_test(test_slot_compares_64_bits),
    };
    int rc;

    table = calloc(1, sizeof(*table));
    if (table == NULL)
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(table);
    return rc;
}
