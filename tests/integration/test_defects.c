/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every defect class through the real libcrypto, with the provider as a
 * builtin on the simulated CPU: a stream of good words, then the defect,
 * drawn with small and large requests, on one context, on a fresh context
 * per request, on a fresh library context per request, on a new thread
 * per request, and as the seed source of libcrypto's DRBGs.  For each,
 * count the defective bytes delivered before the first failed request,
 * assert the bound the tests promise, and print the table that
 * docs/health-tests.md quotes.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

#include "fake_core.h"
#include "health.h"
#include "seams.h"
#include "sim.h"
#include "source.h"

OSSL_provider_init_fn OSSL_provider_init;

#define DEFECT_WORDS 8192 /* the defect runs this long: no wrap-around */
#define MAX_DRAWN 6000    /* stop a defect nothing catches after this */
#define MAX_REQUESTS 10000

static uint64_t good_word(uint64_t series, uint64_t i)
{
    uint64_t z = (series << 32 | i) * 0x9e3779b97f4a7c15ULL + 1;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

enum defect_kind { CYCLE, STUCK_BIT, TOP_BITS, CONSTANT, STUCK_LANE, BIASED };

struct defect {
    const char *name;
    enum defect_kind kind;
    int arg, value; /* period; bit and value; lane */
    size_t bound;   /* most defective bytes any mode may deliver */
};

static uint64_t defect_word(const struct defect *d, uint64_t i)
{
    uint64_t w = good_word(8, i);

    switch (d->kind) {
    case CYCLE:
        return good_word(7, i % (uint64_t)d->arg);
    case STUCK_BIT:
        w &= ~((uint64_t)1 << d->arg);
        return w | (uint64_t)d->value << d->arg;
    case TOP_BITS:
        return w & ~RDRAND_BYTES(0x80);
    case CONSTANT:
        return 0x0123456789abcdefULL;
    case BIASED: /* bit arg is 1 in 7 words of 8 */
        return good_word(9, i) & 7 ? w | (uint64_t)1 << d->arg
                                   : w & ~((uint64_t)1 << d->arg);
    case STUCK_LANE:
        w &= ~((uint64_t)0xff << (8 * d->arg));
        return w | (uint64_t)0x5a << (8 * d->arg);
    }
    return 0;
}

/* The defect's words, sorted, to recognise them in the output. */
static uint64_t defect_set[DEFECT_WORDS];
static size_t defect_set_n;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static size_t defective_bytes(const unsigned char *buf, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i + 8 <= len; i += 8) {
        uint64_t w;

        memcpy(&w, buf + i, 8);
        n += bsearch(&w, defect_set, defect_set_n, sizeof(w), cmp_u64) ? 8 : 0;
    }
    return n;
}

/* Good words (init self-test + onset), then the defect, as a sim spec. */
static void configure(const struct defect *d, size_t onset, char *path)
{
    FILE *f;
    int fd;
    char spec[96];

    strcpy(path, "/tmp/rdrand-defects-XXXXXX");
    assert_true((fd = mkstemp(path)) >= 0);
    assert_non_null(f = fdopen(fd, "w"));
    for (size_t i = 0; i < RDRAND_SELFTEST_WORDS + onset; i++)
        fprintf(f, "%016llx\n", (unsigned long long)good_word(6, i));
    for (size_t i = 0; i < DEFECT_WORDS; i++) {
        defect_set[i] = defect_word(d, i);
        fprintf(f, "%016llx\n", (unsigned long long)defect_set[i]);
    }
    assert_int_equal(fclose(f), 0);
    qsort(defect_set, DEFECT_WORDS, sizeof(uint64_t), cmp_u64);
    defect_set_n = DEFECT_WORDS;
    snprintf(spec, sizeof(spec), "words=%s", path);
    sim_or_fail(spec);
    assert_int_equal(unlink(path), 0);
    /* A new simulated CPU: this thread's tests start over with it. */
    rdrand_source_forget();
}

enum mode { SAME_CTX, FRESH_CTX, FRESH_LIBCTX, NEW_THREAD, SEED, NMODES };
static const char *const mode_names[] = {
    "one context", "fresh context per request",
    "fresh library context per request", "new thread per request",
    "seed source of libcrypto's DRBG (48-byte get_seed)"};

struct session {
    OSSL_LIB_CTX *libctx;
    OSSL_PROVIDER *prov, *deflt;
    EVP_RAND *rand;
    EVP_RAND_CTX *ctx;
};

static void session_up(struct session *s, int seed)
{
    memset(s, 0, sizeof(*s));
    assert_non_null(s->libctx = OSSL_LIB_CTX_new());
    assert_int_equal(OSSL_PROVIDER_add_builtin(s->libctx, RDRAND_PROVIDER_NAME,
                                               OSSL_provider_init),
                     1);
    assert_non_null(s->prov =
                        OSSL_PROVIDER_load(s->libctx, RDRAND_PROVIDER_NAME));
    if (seed) {
        assert_non_null(s->deflt = OSSL_PROVIDER_load(s->libctx, "default"));
        assert_int_equal(RAND_set_seed_source_type(s->libctx,
                                                   RDRAND_ALGORITHM_NAME,
                                                   "provider=rdrand-sim"),
                         1);
        return;
    }
    assert_non_null(s->rand = EVP_RAND_fetch(s->libctx, RDRAND_ALGORITHM_NAME,
                                             "provider=rdrand-sim"));
}

static void session_new_ctx(struct session *s)
{
    EVP_RAND_CTX_free(s->ctx);
    assert_non_null(s->ctx = EVP_RAND_CTX_new(s->rand, NULL));
    assert_int_equal(EVP_RAND_instantiate(s->ctx, 256, 0, NULL, 0, NULL), 1);
}

static void session_down(struct session *s)
{
    EVP_RAND_CTX_free(s->ctx);
    EVP_RAND_free(s->rand);
    if (s->deflt != NULL)
        OSSL_PROVIDER_unload(s->deflt);
    OSSL_PROVIDER_unload(s->prov);
    OSSL_LIB_CTX_free(s->libctx);
}

static uint64_t seed_bytes(const struct session *s)
{
    uint64_t v = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_uint64(RDRAND_PARAM_SEED_BYTES, &v),
                      OSSL_PARAM_END};

    assert_int_equal(OSSL_PROVIDER_get_params(s->prov, p), 1);
    return v;
}

struct request {
    EVP_RAND_CTX *ctx;
    unsigned char *buf;
    size_t len;
    int ok;
};

static void *request_run(void *arg)
{
    struct request *r = arg;

    r->ok = EVP_RAND_generate(r->ctx, r->buf, r->len, 0, 0, NULL, 0);
    return NULL;
}

/*
 * Requests of len bytes until one fails (the trip); returns the defective
 * bytes delivered before it, or (size_t)-1 if nothing failed.
 */
static size_t measure(enum mode mode, size_t len, size_t onset)
{
    static unsigned char buf[4096];
    struct session s;
    size_t delivered = 0;
    int failed = 0;

    session_up(&s, mode == SEED);
    if (mode == SEED) {
        /*
         * Request 0 creates the DRBGs (the primary's seed); each later
         * prediction-resistant request makes one get_seed.
         */
        EVP_RAND_CTX *pub = NULL;

        for (int i = 0;
             i < MAX_REQUESTS && !failed && rdrand_sim_executions() < MAX_DRAWN;
             i++) {
            uint64_t before = rdrand_sim_executions(), bytes = seed_bytes(&s);
            uint64_t onset_exec = RDRAND_SELFTEST_WORDS + onset, after, bad;

            if (i == 0)
                failed = (pub = RAND_get0_public(s.libctx)) == NULL;
            else
                failed = !EVP_RAND_generate(pub, buf, 16, 0, 1, NULL, 0);
            /* defective words this request drew: executions past onset */
            after = rdrand_sim_executions();
            bad = after > onset_exec
                      ? after - (before > onset_exec ? before : onset_exec)
                      : 0;
            bytes = seed_bytes(&s) - bytes;
            if (!failed)
                delivered += (size_t)(8 * bad < bytes ? 8 * bad : bytes);
        }
        session_down(&s);
        return failed ? delivered : (size_t)-1;
    }
    session_new_ctx(&s);
    for (int i = 0;
         i < MAX_REQUESTS && !failed && rdrand_sim_executions() < MAX_DRAWN;
         i++) {
        struct request r = {s.ctx, buf, len, 0};

        if (mode == FRESH_CTX)
            session_new_ctx(&s);
        if (mode == FRESH_LIBCTX) {
            session_down(&s);
            session_up(&s, 0);
            session_new_ctx(&s);
            r.ctx = s.ctx;
        }
        if (mode == NEW_THREAD) {
            pthread_t t;

            assert_int_equal(pthread_create(&t, NULL, request_run, &r), 0);
            assert_int_equal(pthread_join(t, NULL), 0);
        } else {
            r.ctx = s.ctx;
            request_run(&r);
        }
        if (!(failed = !r.ok))
            delivered += defective_bytes(buf, len);
    }
    session_down(&s);
    return failed ? delivered : (size_t)-1;
}

static const size_t onsets[] = {0, 37, 1000};
static const size_t sizes[] = {8, 48, 4096};

static void run_defect(const struct defect *d)
{
    char path[64];

    for (enum mode m = 0; m < NMODES; m++) {
        for (size_t o = 0; o < sizeof(onsets) / sizeof(onsets[0]); o++) {
            for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
                size_t got;

                if (m == SEED && z > 0)
                    continue; /* libcrypto asks for 48-byte seeds */
                configure(d, onsets[o], path);
                got = measure(m, sizes[z], onsets[o]);
                if (got == (size_t)-1)
                    printf("| %s | %s | %zu | %zu | not caught in %d words |\n",
                           d->name, mode_names[m], onsets[o],
                           m == SEED ? 48 : sizes[z], MAX_DRAWN);
                else
                    printf("| %s | %s | %zu | %zu | %zu |\n", d->name,
                           mode_names[m], onsets[o], m == SEED ? 48 : sizes[z],
                           got);
                /*
                 * A biased bit is judged over a 512-word window: a thread
                 * that lives for one request never fills one, and its
                 * self-test (64 words) cannot see a bias.  No bound there
                 * (docs/health-tests.md).  Fresh library contexts on one
                 * thread are bound: the loads fill windows, and the
                 * recovery after the trip judges a window of its own.
                 */
                if (d->kind == BIASED && m == NEW_THREAD)
                    continue;
                if (d->bound != (size_t)-1 && got > d->bound)
                    fail_msg("%s, %s, onset %zu, %zu-byte requests: %zu "
                             "defective bytes delivered, bound %zu",
                             d->name, mode_names[m], onsets[o], sizes[z], got,
                             d->bound);
            }
        }
    }
}

/*
 * The bounds: a cycle of period p <= 4096 delivers at most its first
 * period (p words: the recent-words test catches its first repeated
 * word); a stuck bit at most 2 * 64 - 1 words (the first whole block of
 * it trips at its end); a biased bit at most 2 * 512 - 1 words (the
 * first whole window of it trips at its end); a constant its first word.
 */
static const struct defect defects[] = {
    {"constant", CONSTANT, 0, 0, 8},
    {"alternating pair", CYCLE, 2, 0, 2 * 8},
    {"cycle of 3", CYCLE, 3, 0, 3 * 8},
    {"cycle of 5", CYCLE, 5, 0, 5 * 8},
    {"cycle of 12", CYCLE, 12, 0, 12 * 8},
    {"cycle of 16", CYCLE, 16, 0, 16 * 8},
    {"cycle of 32", CYCLE, 32, 0, 32 * 8},
    {"cycle of 33", CYCLE, 33, 0, 33 * 8},
    {"cycle of 1000", CYCLE, 1000, 0, 1000 * 8},
    {"bit 0 stuck at 0", STUCK_BIT, 0, 0, (2 * RDRAND_BIT_BLOCK - 1) * 8},
    {"bit 0 stuck at 1", STUCK_BIT, 0, 1, (2 * RDRAND_BIT_BLOCK - 1) * 8},
    {"bit 31 stuck at 1", STUCK_BIT, 31, 1, (2 * RDRAND_BIT_BLOCK - 1) * 8},
    {"bit 63 stuck at 0", STUCK_BIT, 63, 0, (2 * RDRAND_BIT_BLOCK - 1) * 8},
    {"bit 63 stuck at 1", STUCK_BIT, 63, 1, (2 * RDRAND_BIT_BLOCK - 1) * 8},
    {"top bit of every byte lane stuck at 0", TOP_BITS, 0, 0,
     (2 * RDRAND_BIT_BLOCK - 1) * 8},
    {"byte lane 3 stuck at 0x5a", STUCK_LANE, 3, 0,
     (2 * RDRAND_BIT_BLOCK - 1) * 8},
    {"bit 40 biased to 7/8", BIASED, 40, 0, (2 * RDRAND_APT_WINDOW - 1) * 8},
};

static void test_defect_table(void **state)
{
    (void)state;
    printf("| defect | how it is drawn | onset (good words after the "
           "self-test) | request bytes | defective bytes delivered before "
           "the trip |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof(defects) / sizeof(defects[0]); i++)
        run_defect(&defects[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defect_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
