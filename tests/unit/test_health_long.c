/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Long false-positive test of provider/health.c: clean streams must never
 * trip.  With the cutoffs of health.c the chance that 10^7 good words trip
 * anything is <= 7.5e-8, and that 10^5 self-tests fail is <= 1.7e-9, so a
 * failure here means a bug, not bad luck.  Also checks that the APT counts
 * of a clean stream follow 1 + Binomial(511, 2^-8), which the stated
 * false-positive rate rests on.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <cmocka.h>

#include "errors.h"
#include "health.h"
#include "seen_table.h"
#include "selftest_sample.h"
#include "splitmix.h"
#include "test_key.h"

#define RDRAND_LONG_WORDS 10000000u
#define RDRAND_LONG_SELFTESTS 100000u
#define RDRAND_LONG_CHUNK 4096u
/* The many-threads run: 8 streams sharing one long-cycle table. */
#define RDRAND_LONG_THREADS 8
#define RDRAND_LONG_THREAD_WORDS 12500000u /* 10^8 in all */

/*
 * The long-cycle table every state here uses, as the provider's threads
 * share the process's: a clean stream must not trip it either.
 */
static struct rdrand_seen rdrand_test_table;

static void rdrand_test_state(struct rdrand_health *h, uint64_t k)
{
    rdrand_health_init(h);
    rdrand_test_key(h, 0x243f6a8885a308d3u, 0x13198a2e03707344u ^ k);
    h->seen = &rdrand_test_table;
}

static double rdrand_test_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sum of final APT counts over closed lane-windows, for the mean check. */
struct rdrand_test_apt_stats {
    uint64_t windows;
    uint64_t sum;
    unsigned max;
};

static void rdrand_test_collect(const struct rdrand_health *h,
                                struct rdrand_test_apt_stats *st)
{
    if (h->s.apt_seen != 0)
        return; /* all lanes close their windows together */
    for (int i = 0; i < 8; i++) {
        unsigned int count = rdrand_health_apt_count(h, i);

        st->windows++;
        st->sum += count;
        if (count > st->max)
            st->max = count;
    }
}

/*
 * Mean count per lane-window is 1 + 511/256 = 2.996 with standard
 * deviation 1.41; over 156248 windows the mean's standard error is 0.0036,
 * so +-0.03 (8 sigma) never fails by chance yet catches a test that
 * miscounts (e.g. not counting the reference gives 1.996).  The exact
 * window length is pinned by the trip tests in test_health.c.
 */
static void rdrand_test_check_stats(const char *name,
                                    const struct rdrand_test_apt_stats *st)
{
    double mean = (double)st->sum / (double)st->windows;

    printf("%s: %llu lane-windows, mean count %.4f (expect 2.9961), "
           "max %u (cutoff %d)\n",
           name, (unsigned long long)st->windows, mean, st->max,
           RDRAND_APT_CUTOFF);
    assert_true(st->windows >= 150000);
    assert_true(mean > 2.9961 - 0.03 && mean < 2.9961 + 0.03);
    assert_true(st->max < RDRAND_APT_CUTOFF);
}

static void rdrand_test_fail_at(const char *name, uint64_t i, uint64_t w,
                                int reason)
{
    print_error("%s: word %llu (0x%016llx) tripped reason %d\n", name,
                (unsigned long long)i, (unsigned long long)w, reason);
    fail();
}

static void test_long_splitmix(void **state)
{
    struct rdrand_health h;
    struct rdrand_test_apt_stats st = {0};
    uint64_t s = 0x0123456789abcdefu;
    double t0 = rdrand_test_now();

    (void)state;
    rdrand_test_state(&h, 0);
    for (uint64_t i = 0; i < RDRAND_LONG_WORDS; i++) {
        uint64_t w = rdrand_test_splitmix(&s);
        int reason = rdrand_health_check_word(&h, w);

        if (reason != RDRAND_R_OK)
            rdrand_test_fail_at("splitmix64", i, w, reason);
        rdrand_test_collect(&h, &st);
    }
    printf("splitmix64: %u words in %.2f s\n", RDRAND_LONG_WORDS,
           rdrand_test_now() - t0);
    rdrand_test_check_stats("splitmix64", &st);
}

/* Fill buf from getrandom(); 0 on success, -1 if the kernel has none. */
static int rdrand_test_getrandom(uint64_t *buf, size_t n)
{
    unsigned char *p = (unsigned char *)buf;
    size_t left = n * sizeof(*buf);

    while (left > 0) {
        ssize_t got = getrandom(p, left, 0);

        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        left -= (size_t)got;
    }
    return 0;
}

static void test_long_getrandom(void **state)
{
    static uint64_t buf[RDRAND_LONG_CHUNK];
    struct rdrand_health h;
    struct rdrand_test_apt_stats st = {0};
    double t0 = rdrand_test_now();

    (void)state;
    if (rdrand_test_getrandom(buf, 1) != 0) {
        printf("getrandom() unavailable (errno %d); skipped\n", errno);
        skip();
    }
    rdrand_test_state(&h, 0);
    for (uint64_t i = 0; i < RDRAND_LONG_WORDS; i++) {
        uint64_t w;
        int reason;

        if (i % RDRAND_LONG_CHUNK == 0)
            assert_int_equal(rdrand_test_getrandom(buf, RDRAND_LONG_CHUNK), 0);
        w = buf[i % RDRAND_LONG_CHUNK];
        if ((reason = rdrand_health_check_word(&h, w)) != RDRAND_R_OK)
            rdrand_test_fail_at("getrandom", i, w, reason);
        rdrand_test_collect(&h, &st);
    }
    printf("getrandom: %u words in %.2f s\n", RDRAND_LONG_WORDS,
           rdrand_test_now() - t0);
    rdrand_test_check_stats("getrandom", &st);
}

static void test_long_selftests(void **state)
{
    uint64_t s = 0xfeedfacecafebeefu, w[RDRAND_SELFTEST_WORDS];
    double t0 = rdrand_test_now();
    int sources = 1;

    (void)state;
    for (uint64_t k = 0; k < RDRAND_LONG_SELFTESTS; k++) {
        int reason;

        for (size_t i = 0; i < RDRAND_SELFTEST_WORDS; i++)
            w[i] = rdrand_test_splitmix(&s);
        reason = rdrand_health_selftest_sample(w, RDRAND_SELFTEST_WORDS);
        if (reason != RDRAND_R_OK)
            rdrand_test_fail_at("selftest", k, w[0], reason);
    }
    if (rdrand_test_getrandom(w, RDRAND_SELFTEST_WORDS) == 0) {
        sources = 2;
        for (uint64_t k = 0; k < RDRAND_LONG_SELFTESTS; k++) {
            int reason;

            assert_int_equal(rdrand_test_getrandom(w, RDRAND_SELFTEST_WORDS),
                             0);
            reason = rdrand_health_selftest_sample(w, RDRAND_SELFTEST_WORDS);
            if (reason != RDRAND_R_OK)
                rdrand_test_fail_at("selftest/getrandom", k, w[0], reason);
        }
    }
    printf("selftest: %u fresh samples from each of %d sources in %.2f s\n",
           RDRAND_LONG_SELFTESTS, sources, rdrand_test_now() - t0);
}

/*
 * 10^8 clean words at once on 8 threads, one state each, all sharing the
 * long-cycle table and its key (as the provider's threads do), each a
 * splitmix64 stream of its own seed: no trip of any test.  Over 10^8
 * words every test together trips a clean source with probability about
 * 2e5 windows * 2^-37.7 = 9e-7.
 */
struct rdrand_test_thread {
    uint64_t seed, tripped_at;
    int reason;
};

static void *rdrand_test_thread_run(void *arg)
{
    struct rdrand_test_thread *t = arg;
    struct rdrand_health h;
    uint64_t s = t->seed;

    rdrand_test_state(&h, 0);
    for (uint64_t i = 0; i < RDRAND_LONG_THREAD_WORDS; i++) {
        int reason = rdrand_health_check_word(&h, rdrand_test_splitmix(&s));

        if (reason != RDRAND_R_OK) {
            t->reason = reason;
            t->tripped_at = i;
            break;
        }
    }
    return NULL;
}

static void test_long_threads(void **state)
{
    struct rdrand_test_thread t[RDRAND_LONG_THREADS];
    pthread_t id[RDRAND_LONG_THREADS];
    double t0 = rdrand_test_now();

    (void)state;
    memset(&rdrand_test_table, 0, sizeof(rdrand_test_table));
    for (int i = 0; i < RDRAND_LONG_THREADS; i++) {
        /* seeds 2^61 apart: no stream reaches another within 10^8 steps */
        t[i] = (struct rdrand_test_thread){(uint64_t)i << 61 | 0x5eed, 0, 0};
        assert_int_equal(
            pthread_create(&id[i], NULL, rdrand_test_thread_run, &t[i]), 0);
    }
    for (int i = 0; i < RDRAND_LONG_THREADS; i++)
        assert_int_equal(pthread_join(id[i], NULL), 0);
    for (int i = 0; i < RDRAND_LONG_THREADS; i++)
        if (t[i].reason != RDRAND_R_OK)
            fail_msg("thread %d: word %llu tripped reason %d", i,
                     (unsigned long long)t[i].tripped_at, t[i].reason);
    printf("threads: %d x %u clean words, one long-cycle table, no trip, "
           "in %.2f s\n",
           RDRAND_LONG_THREADS, RDRAND_LONG_THREAD_WORDS,
           rdrand_test_now() - t0);
}

/*
 * The packed APT against a plain per-lane implementation of 90B 4.4.2,
 * on bytes drawn from small alphabets so that counts reach the cutoff
 * (and the window restarts) all the time: every count, after every word,
 * equal.
 */
static void test_apt_matches_reference(void **state)
{
    struct rdrand_health h;
    uint64_t s = 12345;
    unsigned int ref_count[8] = {0}, seen = 0;
    uint8_t ref[8] = {0};

    (void)state;
    rdrand_health_init(&h);
    for (long n = 0; n < 3 * 1000 * 1000; n++) {
        uint64_t r = rdrand_test_splitmix(&s), w = 0;
        /* lane i draws from an alphabet of 1 << (i % 4) values */
        for (int i = 0; i < 8; i++)
            w |= ((r >> (8 * i)) & ((1u << (i % 4)) - 1)) << (8 * i);
        w ^= (uint64_t)n << 1; /* keep words distinct; bit 0 stays biased */
        for (int i = 0; i < 8; i++) {
            uint8_t b = (uint8_t)(w >> (8 * i));

            if (seen == 0)
                ref[i] = b, ref_count[i] = 0;
            ref_count[i] += b == ref[i];
        }
        seen = (seen + 1) % RDRAND_APT_WINDOW;
        for (int i = 0; i < 8; i++) /* a trip: the next word opens a window */
            if (ref_count[i] >= RDRAND_APT_CUTOFF)
                seen = 0;
        (void)rdrand_health_check_word(&h, w);
        for (int i = 0; i < 8; i++)
            if (rdrand_health_apt_count(&h, i) != ref_count[i])
                fail_msg("word %ld lane %d: %u != %u", n, i,
                         rdrand_health_apt_count(&h, i), ref_count[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_splitmix),
        cmocka_unit_test(test_long_getrandom),
        cmocka_unit_test(test_long_selftests),
        cmocka_unit_test(test_long_threads),
        cmocka_unit_test(test_apt_matches_reference),
    };
    double t0 = rdrand_test_now();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);

    printf("test_health_long: %.2f s in total\n", rdrand_test_now() - t0);
    return rc;
}
