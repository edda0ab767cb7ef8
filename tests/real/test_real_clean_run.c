/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The long clean run on the real CPU: the shipped rdrand.so, loaded by
 * the real libcrypto, draws 10^7 health-checked words through
 * EVP_RAND_generate (4096-byte requests) on one thread, then 10^7 more on
 * 8 threads at once (each its own context; every word through the
 * process's long-cycle table), and must not trip once: health-failures
 * and health-trips stay as they were, health-verdict stays "ok".  With
 * the false-positive rates of docs/health-tests.md a trip here means a
 * bug or a defective CPU, not bad luck.  Exits 77 (a skip for ctest)
 * where CPUID has no RDRAND.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/provider.h>

#include "rdrand_provider.h"

#define WORDS 10000000ULL
#define REQUEST 4096
#define THREADS 8

static EVP_RAND *rand_alg;

/* One thread's share of the second 10^7 words; 1 if all were served. */
static void *draw_share(void *arg)
{
    static _Thread_local unsigned char buf[REQUEST];
    EVP_RAND_CTX *ctx = EVP_RAND_CTX_new(rand_alg, NULL);
    int *ok = arg;

    *ok = ctx != NULL && EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL);
    for (uint64_t n = 0; *ok && n < WORDS / THREADS / (REQUEST / 8) + 1; n++)
        *ok = EVP_RAND_generate(ctx, buf, sizeof(buf), 256, 0, NULL, 0);
    EVP_RAND_CTX_free(ctx);
    return NULL;
}

static uint64_t counter(OSSL_PROVIDER *prov, const char *name)
{
    uint64_t v = UINT64_MAX;
    OSSL_PARAM p[] = {OSSL_PARAM_uint64(name, &v), OSSL_PARAM_END};

    return OSSL_PROVIDER_get_params(prov, p) ? v : UINT64_MAX;
}

int main(void)
{
    static unsigned char buf[REQUEST];
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, RDRAND_PROVIDER_NAME);
    EVP_RAND *rand;
    EVP_RAND_CTX *ctx;
    int available = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_int(RDRAND_PARAM_RDRAND_AVAILABLE, &available),
                      OSSL_PARAM_END};
    uint64_t words_before, health_before, words, n;
    struct timespec t0, t1;

    if (prov == NULL) {
        fprintf(stderr, "cannot load rdrand.so (OPENSSL_MODULES?)\n");
        return 1;
    }
    if (!OSSL_PROVIDER_get_params(prov, p) || available != 1) {
        printf("SKIP: CPUID reports no RDRAND on this machine\n");
        return 77;
    }
    rand = EVP_RAND_fetch(libctx, RDRAND_ALGORITHM_NAME, RDRAND_PROPERTY_QUERY);
    if (rand == NULL || (ctx = EVP_RAND_CTX_new(rand, NULL)) == NULL
        || !EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL)) {
        fprintf(stderr, "cannot instantiate RDRAND\n");
        return 1;
    }
    words_before = counter(prov, RDRAND_PARAM_RDRAND_WORDS);
    health_before = counter(prov, RDRAND_PARAM_HEALTH_FAILURES);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (n = 0; n < WORDS / (REQUEST / 8) + 1; n++) {
        if (!EVP_RAND_generate(ctx, buf, sizeof(buf), 256, 0, NULL, 0)) {
            fprintf(stderr, "request %llu of %d bytes failed: a trip\n",
                    (unsigned long long)n, REQUEST);
            return 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    words = counter(prov, RDRAND_PARAM_RDRAND_WORDS) - words_before;
    printf("%llu words (%llu requests of %d bytes) in %.2f s, %llu health "
           "failures\n",
           (unsigned long long)words, (unsigned long long)n, REQUEST,
           (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
           (unsigned long long)(counter(prov, RDRAND_PARAM_HEALTH_FAILURES)
                                - health_before));
    if (words < WORDS
        || counter(prov, RDRAND_PARAM_HEALTH_FAILURES) != health_before) {
        fprintf(stderr, "fewer words than asked for, or a health failure\n");
        return 1;
    }
    {
        pthread_t t[THREADS];
        int ok[THREADS];
        const char *verdict = NULL; /* a utf8_ptr parameter */
        OSSL_PARAM q[] = {OSSL_PARAM_utf8_ptr(RDRAND_PARAM_HEALTH_VERDICT,
                                              (char **)&verdict, 0),
                          OSSL_PARAM_END};

        rand_alg = rand;
        words_before = counter(prov, RDRAND_PARAM_RDRAND_WORDS);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 0; i < THREADS; i++)
            if (pthread_create(&t[i], NULL, draw_share, &ok[i]) != 0)
                return 1;
        for (int i = 0; i < THREADS; i++)
            pthread_join(t[i], NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        words = counter(prov, RDRAND_PARAM_RDRAND_WORDS) - words_before;
        printf("%llu words on %d threads in %.2f s, %llu health failures, "
               "%llu trips\n",
               (unsigned long long)words, THREADS,
               (double)(t1.tv_sec - t0.tv_sec)
                   + (t1.tv_nsec - t0.tv_nsec) / 1e9,
               (unsigned long long)(counter(prov, RDRAND_PARAM_HEALTH_FAILURES)
                                    - health_before),
               (unsigned long long)counter(prov, RDRAND_PARAM_HEALTH_TRIPS));
        for (int i = 0; i < THREADS; i++)
            if (!ok[i]) {
                fprintf(stderr, "thread %d: a request failed: a trip\n", i);
                return 1;
            }
        if (words < WORDS
            || counter(prov, RDRAND_PARAM_HEALTH_FAILURES) != health_before
            || counter(prov, RDRAND_PARAM_HEALTH_TRIPS) != 0
            || !OSSL_PROVIDER_get_params(prov, q) || verdict == NULL
            || strcmp(verdict, "ok") != 0) {
            fprintf(stderr, "threads: fewer words, a health failure, a trip "
                            "or a verdict other than ok\n");
            return 1;
        }
    }
    EVP_RAND_CTX_free(ctx);
    EVP_RAND_free(rand);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    return 0;
}
