/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A context's first use by several threads at once never hangs.
 *
 * OpenSSL 4.0 lets racing threads each build a primary DRBG on the one
 * seed context, and each calls enable_locking on it and then lock: our
 * enable_locking, lock and get_seed run on one new context from several
 * threads at once.  A lock created lazily there can be created twice and
 * one lost while held, and every thread then waits forever (seen on
 * 4.0.2).  Each round is a new context and new threads, as a process's
 * first RAND_bytes is: a thread's first allocation (its malloc arena) is
 * what widened that window enough to hit it within a few hundred rounds.
 * A hang fails the test within a minute, not at CI's time limit.
 */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include <openssl/core_dispatch.h>

#include "rdrand_provider.h"

#include "fake_core.h"
#include "rand.h"

#define THREADS 8
#define ROUNDS 1000
#define HANG_SECONDS 60

#define RAND_FN(type, id)                                                      \
    ((OSSL_FUNC_rand_##type##_fn *)fake_dispatch_fn(rdrand_rand_functions, id))

struct first_use {
    void *ctx;
    pthread_barrier_t *start;
    int ok;
};

static void *first_use_run(void *arg)
{
    struct first_use *u = arg;
    unsigned char *seed;
    size_t n = 0;

    pthread_barrier_wait(u->start);
    if (RAND_FN(enable_locking, OSSL_FUNC_RAND_ENABLE_LOCKING)(u->ctx) == 1
        && RAND_FN(lock, OSSL_FUNC_RAND_LOCK)(u->ctx) == 1) {
        n = RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(u->ctx, &seed, 384, 48,
                                                       48, 0, NULL, 0);
        RAND_FN(unlock, OSSL_FUNC_RAND_UNLOCK)(u->ctx);
        if (n == 48)
            RAND_FN(clear_seed, OSSL_FUNC_RAND_CLEAR_SEED)(u->ctx, seed, n);
    }
    u->ok = n == 48;
    return NULL;
}

static void test_first_use_by_threads_at_once(void **state)
{
    void *provctx;
    const OSSL_DISPATCH *prov;
    pthread_barrier_t start;
    struct timespec deadline;

    (void)state;
    assert_int_equal(fake_provider_init("", NULL, &provctx, &prov), 1);
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (int round = 0; round < ROUNDS; round++) {
        struct first_use u[THREADS];
        pthread_t t[THREADS];
        void *ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(provctx, NULL, NULL);

        assert_non_null(ctx);
        /*
         * Per round: a slow machine (TSan, load) is not a hang.  On
         * CLOCK_REALTIME: TSan (GCC 12) knows pthread_timedjoin_np as a
         * join, not pthread_clockjoin_np, and reports the joined
         * threads' writes as races.
         */
        assert_int_equal(clock_gettime(CLOCK_REALTIME, &deadline), 0);
        deadline.tv_sec += HANG_SECONDS;
        assert_int_equal(RAND_FN(instantiate, OSSL_FUNC_RAND_INSTANTIATE)(
                             ctx, 0, 0, NULL, 0, NULL),
                         1);
        for (int i = 0; i < THREADS; i++) {
            u[i] = (struct first_use){.ctx = ctx, .start = &start};
            assert_int_equal(pthread_create(&t[i], NULL, first_use_run, &u[i]),
                             0);
        }
        for (int i = 0; i < THREADS; i++) {
            int rc = pthread_timedjoin_np(t[i], NULL, &deadline);

            if (rc != 0)
                fail_msg("round %d: thread %d still running after %d s "
                         "(pthread_timedjoin_np: %d): a hang in "
                         "enable_locking, lock, get_seed or unlock",
                         round, i, HANG_SECONDS, rc);
            assert_true(u[i].ok);
        }
        RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
    }
    assert_int_equal(fake_get_u64(prov, provctx, RDRAND_PARAM_SEED_REQUESTS),
                     (uint64_t)THREADS * ROUNDS);
    assert_int_equal(fake_get_u64(prov, provctx, RDRAND_PARAM_SEED_FAILURES),
                     0);
    assert_int_equal(pthread_barrier_destroy(&start), 0);
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_use_by_threads_at_once),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
