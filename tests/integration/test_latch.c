/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a trip does to the rest of the process, through the real libcrypto
 * with the provider as a builtin on the simulated CPU:
 *   - a defect only the 512-word tests see stays latched: no request is
 *     served between their windows; a transient one clears;
 *   - a cycle longer than the self-test, drawn on a new thread per
 *     request, is caught by the process-wide long-cycle table; a biased
 *     bit, by windows each thread hands to the next;
 *   - in a confidential guest a fault met by one library context fails
 *     every other one, loaded before or after;
 *   - after a trip in one library context, another one on the same thread
 *     self-tests before it serves;
 *   - a thread's test state is wiped when the thread exits.
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

#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "rdrand_provider.h"

#include "fake_core.h"
#include "health.h"
#include "recovery.h"
#include "seams.h"
#include "seen_table.h"
#include "sim.h"
#include "source.h"
#include "test_key.h"

OSSL_provider_init_fn OSSL_provider_init;

/* Written out: the numbers the provider is documented with. */
#define SELFTEST 64  /* words of a self-test */
#define WINDOW 512   /* words of an APT / bit proportion window */
#define COCO_WORDS 4 /* a guest's check at load: 256 bits */

static uint64_t good_word(uint64_t series, uint64_t i)
{
    uint64_t z = (series << 32 | i) * 0x9e3779b97f4a7c15ULL + 1;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Bit 40 set in 3 of 4 words (SP 800-90B: a biased bit, p = 0.75). */
static uint64_t biased_word(uint64_t i)
{
    uint64_t w = good_word(21, i), bit = (uint64_t)1 << 40;

    return good_word(22, i) % 4 != 0 ? w | bit : w & ~bit;
}

/* The simulated CPU replays word(i) for i < n (then again, in a loop). */
static void sim_words(const char *prefix, size_t n, uint64_t (*word)(size_t))
{
    char path[] = "/tmp/rdrand-latch-XXXXXX", spec[96];
    FILE *f;
    int fd;

    assert_true((fd = mkstemp(path)) >= 0);
    assert_non_null(f = fdopen(fd, "w"));
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%016llx\n", (unsigned long long)word(i));
    assert_int_equal(fclose(f), 0);
    snprintf(spec, sizeof(spec), "%swords=%s", prefix, path);
    sim_or_fail(spec);
    assert_int_equal(unlink(path), 0);
    rdrand_source_forget(); /* a new simulated CPU */
}

struct session {
    OSSL_LIB_CTX *libctx;
    OSSL_PROVIDER *prov;
    EVP_RAND *rand;
    EVP_RAND_CTX *ctx;
};

/* Load the provider in a new library context; 0 if it refuses. */
static int session_up(struct session *s)
{
    memset(s, 0, sizeof(*s));
    assert_non_null(s->libctx = OSSL_LIB_CTX_new());
    assert_int_equal(OSSL_PROVIDER_add_builtin(s->libctx, RDRAND_PROVIDER_NAME,
                                               OSSL_provider_init),
                     1);
    if ((s->prov = OSSL_PROVIDER_load(s->libctx, RDRAND_PROVIDER_NAME))
        == NULL) {
        OSSL_LIB_CTX_free(s->libctx);
        return 0;
    }
    assert_non_null(s->rand = EVP_RAND_fetch(s->libctx, RDRAND_ALGORITHM_NAME,
                                             "provider=rdrand-sim"));
    assert_non_null(s->ctx = EVP_RAND_CTX_new(s->rand, NULL));
    assert_int_equal(EVP_RAND_instantiate(s->ctx, 256, 0, NULL, 0, NULL), 1);
    return 1;
}

static void session_down(struct session *s)
{
    EVP_RAND_CTX_free(s->ctx);
    EVP_RAND_free(s->rand);
    OSSL_PROVIDER_unload(s->prov);
    OSSL_LIB_CTX_free(s->libctx);
}

static int request(struct session *s, unsigned char *buf, size_t len)
{
    return EVP_RAND_generate(s->ctx, buf, len, 0, 0, NULL, 0);
}

/* ---- 1: a defect the windowed tests see stays latched ---- */

static uint64_t startup_then_biased(size_t i)
{
    return i < SELFTEST ? good_word(20, i) : biased_word(i);
}

struct thread_request {
    struct session *s;
    int served;
};

static void *thread_request_run(void *arg)
{
    struct thread_request *r = arg;
    unsigned char buf[48];

    r->served = request(r->s, buf, sizeof(buf));
    return NULL;
}

/*
 * A persistently biased bit: once the bit proportion test has seen it,
 * nothing more is served, on this thread or a new one (each recovery
 * judges a window of its own and fails).  Today's code served 98 % of
 * the requests after the first trip.
 */
static void test_biased_bit_stays_latched(void **state)
{
    unsigned char buf[48];
    struct session s;
    int first_fail = -1, served_after = 0, requests_after = 0;

    (void)state;
    sim_words("", 40000, startup_then_biased);
    assert_int_equal(session_up(&s), 1);
    for (int i = 0; i < 400 && rdrand_sim_executions() < 36000; i++) {
        int ok = request(&s, buf, sizeof(buf));

        if (!ok && first_fail < 0)
            first_fail = i;
        else if (first_fail >= 0) {
            requests_after++;
            served_after += ok;
        }
    }
    assert_true(first_fail >= 0);
    /* the trip comes at the end of the first window (448 biased words) */
    assert_true(first_fail * 6 <= 2 * WINDOW);
    assert_true(requests_after >= 20);
    assert_int_equal(served_after, 0);
    for (int i = 0; i < 4; i++) {
        struct thread_request r = {&s, 1};
        pthread_t t;

        assert_int_equal(pthread_create(&t, NULL, thread_request_run, &r), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(r.served, 0);
    }
    session_down(&s);
}

/*
 * The review's weaker biases after 20,000 clean words: bit 40 takes one
 * value in 70, 68 or 65 % of the words (the 512-word test trips in 94,
 * 69, 18 % of windows).  Before, a recovery that passed by chance served
 * again: 36,720 to 502,664 bytes after the first trip.  Now the first
 * trip's recovery judges 8192 words as a whole and fails, which makes
 * the verdict permanent: nothing after the first trip.
 */
#define CLEAN_WORDS 20000
static unsigned int bias_percent;

static uint64_t clean_then_weak_bias(size_t i)
{
    uint64_t w = good_word(25, i), bit = (uint64_t)1 << 40;

    if (i < CLEAN_WORDS)
        return w;
    return good_word(26, i) % 100 < bias_percent ? w & ~bit : w | bit;
}

static void test_weak_bias_nothing_after_trip(void **state)
{
    static const unsigned int percents[] = {70, 68, 65};
    unsigned char buf[48];

    (void)state;
    for (size_t k = 0; k < sizeof(percents) / sizeof(percents[0]); k++) {
        struct session s;
        int first_fail = -1, served_after = 0, requests_after = 0;
        OSSL_PARAM params[2];
        const char *verdict = NULL;

        bias_percent = percents[k];
        sim_words("", CLEAN_WORDS + 60000, clean_then_weak_bias);
        assert_int_equal(session_up(&s), 1);
        while (requests_after < 200 && rdrand_sim_executions() < 79000) {
            int ok = request(&s, buf, sizeof(buf));

            if (!ok && first_fail < 0)
                first_fail = (int)rdrand_sim_executions();
            else if (first_fail >= 0) {
                requests_after++;
                served_after += ok;
            }
        }
        print_message("bias %u %%: first trip at word %d, then %d of %d "
                      "requests served\n",
                      bias_percent, first_fail, served_after, requests_after);
        assert_true(first_fail > CLEAN_WORDS);
        assert_int_equal(requests_after, 200);
        assert_int_equal(served_after, 0);
        params[0] = OSSL_PARAM_construct_utf8_ptr(RDRAND_PARAM_HEALTH_VERDICT,
                                                  (char **)&verdict, 0);
        params[1] = OSSL_PARAM_construct_end();
        assert_int_equal(OSSL_PROVIDER_get_params(s.prov, params), 1);
        assert_string_equal(verdict, "permanent");
        session_down(&s);
    }
}

/*
 * The bias in the trip's window only (it ends with the window's last
 * word), then good words for good: the recovery sees none of it.
 */
#define TRANSIENT_END (WINDOW + 1)

static uint64_t transient_bias(size_t i)
{
    return i < SELFTEST || i >= TRANSIENT_END ? good_word(23, i)
                                              : biased_word(i);
}

/*
 * A transient bias clears: service resumes, but only from words drawn
 * after it ended, and after a recovery of 16 whole windows of
 * undelivered words.  (A bias still there at the recovery fails it, and
 * that is permanent: test_biased_bit_stays_latched.)
 */
static void test_transient_bias_clears(void **state)
{
    unsigned char buf[48];
    struct session s;
    int first_fail = -1, served_after = 0;

    (void)state;
    sim_words("", 24 * WINDOW, transient_bias);
    assert_int_equal(session_up(&s), 1);
    for (int i = 0; i < 200 && served_after < 10; i++) {
        uint64_t before = rdrand_sim_executions();
        int ok = request(&s, buf, sizeof(buf));

        if (!ok && first_fail < 0) {
            first_fail = i;
            /*
             * The first window's end: 64 + 448 = 512 words judged, plus
             * the next word, already drawn when the 512th was judged
             * (provider/draw.h: counted, wiped, never delivered).
             */
            assert_int_equal(rdrand_sim_executions(), WINDOW + 1);
        } else if (first_fail >= 0 && ok) {
            if (served_after++ == 0) {
                /* the recovery before it drew a self-test and 16 windows */
                assert_true(rdrand_sim_executions() - before
                            >= SELFTEST + RDRAND_RECOVERY_WINDOWS * WINDOW + 6);
                /* and what it served came after the bias */
                assert_true(rdrand_sim_executions() - 6 >= TRANSIENT_END);
            }
        }
    }
    assert_true(first_fail >= 0);
    assert_int_equal(served_after, 10);
    session_down(&s);
}

/* ---- 3: a cycle across threads ---- */

static uint64_t cycle_word(size_t i)
{
    return good_word(24, i);
}

static unsigned char thread_out[300][48];

struct fresh_request {
    OSSL_LIB_CTX *libctx;
    unsigned char *out;
    int served;
};

static void *fresh_request_run(void *arg)
{
    struct fresh_request *r = arg;
    EVP_RAND *rand =
        EVP_RAND_fetch(r->libctx, RDRAND_ALGORITHM_NAME, "provider=rdrand-sim");
    EVP_RAND_CTX *ctx = EVP_RAND_CTX_new(rand, NULL);

    r->served = ctx != NULL && EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL)
                && EVP_RAND_generate(ctx, r->out, 48, 0, 0, NULL, 0);
    EVP_RAND_CTX_free(ctx);
    EVP_RAND_free(rand);
    return NULL;
}

/*
 * A thread per request, each with a fresh context: each new thread's
 * tests start empty, and 70 words per thread never fill a window.  Before
 * the table all 300 were served, 299 of them byte-identical to thread
 * 0's.  Now a new thread's self-test meets the words of an earlier one's
 * in the process-wide table: a cycle of 70 is caught at once, one of
 * 1000 words (the table's reach, docs/health-tests.md) after a few
 * threads, and nothing repeated is delivered.
 */
static void cycle_across_threads(size_t period, int most_served)
{
    struct session s;
    int served = 0, same = 0, failed = 0;

    sim_words("", period, cycle_word);
    assert_int_equal(session_up(&s), 1);
    for (int i = 0; i < 300; i++) {
        struct fresh_request r = {s.libctx, thread_out[i], 0};
        pthread_t t;

        assert_int_equal(pthread_create(&t, NULL, fresh_request_run, &r), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        served += r.served;
        failed |= !r.served;
        /* once caught, caught for good: each self-test meets the table */
        assert_false(failed && r.served);
        for (int j = 0; r.served && j < i; j++)
            same += memcmp(thread_out[i], thread_out[j], 48) == 0;
    }
    printf("cycle of %zu, a thread per 48-byte request: %d of 300 served, "
           "%d identical to an earlier one\n",
           period, served, same);
    assert_true(served <= most_served);
    assert_int_equal(same, 0);
    session_down(&s);
}

static void test_cycle_across_threads(void **state)
{
    (void)state;
    cycle_across_threads(70, 0);
    cycle_across_threads(1000, 17);
}

/*
 * A biased bit (0.75, from the first word after a clean self-test) on a
 * new thread per 48-byte request: each thread draws 64 self-test words
 * and 7 for its request, never a 512-word window of its own.  Each one
 * hands its open windows to the next (handover.c), so the windows span
 * the threads: the first trip comes within a few windows, and nothing is
 * served after it.  Before, all 300 requests were served.
 */
static void test_bias_across_threads(void **state)
{
    struct session s;
    int first_fail = -1, served_after = 0;

    (void)state;
    sim_words("", 60000, startup_then_biased);
    assert_int_equal(session_up(&s), 1);
    for (int i = 0; i < 300; i++) {
        struct thread_request r = {&s, 0};
        pthread_t t;

        assert_int_equal(pthread_create(&t, NULL, thread_request_run, &r), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        if (!r.served && first_fail < 0)
            first_fail = i;
        else if (first_fail >= 0)
            served_after += r.served;
    }
    printf("bias 0.75, a thread per 48-byte request: first failure at "
           "request %d, %d served after it\n",
           first_fail, served_after);
    assert_true(first_fail >= 0);
    /* 70-71 words a thread: 2 windows are 15 threads; allow 4 windows */
    assert_true(first_fail <= 4 * WINDOW / (SELFTEST + 7));
    assert_int_equal(served_after, 0);
    session_down(&s);
}

/*
 * The process key is the OS's, from the load (review of round four, 2),
 * never the CPU's: a load whose sample repeats its first two words at its
 * end (w0 == w63, w1 == w62) gave the key {1, 1} in round three (D2),
 * under which a digest is the word itself.  Now that sample is a repeat
 * in the tree's tables, a permanent verdict at load, and the key is not
 * {1, 1}.  And over a clean stream, after 512 served 48-byte requests,
 * no delivered word is in the tables or the thread's last digest.
 */
static uint64_t weak_then_good(size_t i)
{
    if (i == SELFTEST - 1)
        return good_word(30, 0);
    if (i == SELFTEST - 2)
        return good_word(30, 1);
    return good_word(30, i);
}

static uint64_t all_good(size_t i)
{
    return good_word(31, i);
}

static int compare_words(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Whether w is one of the 512 * 6 sorted words out. */
static int delivered(const uint64_t *out, uint64_t w)
{
    return bsearch(&w, out, 512 * 6, sizeof(w), compare_words) != NULL;
}

static void test_key_from_the_os(void **state)
{
    static uint64_t out[512 * 6];
    struct session s;
    uint64_t key[2], dummy[SELFTEST] = {0};
    int aes;
    struct rdrand_seen *table;
    const struct rdrand_health *h;
    size_t found = 0;

    (void)state;
    sim_words("", 40000, weak_then_good);
    assert_int_equal(session_up(&s), 1); /* its self-test fails: a repeat */
    assert_int_equal(request(&s, (unsigned char *)out, 48), 0);
    /* the key set */
    assert_int_equal(rdrand_seen_process(key, &aes, &table, dummy, SELFTEST, 0),
                     1);
    assert_non_null(table);
    assert_false(key[0] == 1 || key[1] == 1);
    session_down(&s);

    sim_words("", 40000, all_good);
    assert_int_equal(session_up(&s), 1);
    for (size_t i = 0; i < 512; i++)
        assert_int_equal(request(&s, (unsigned char *)(out + 6 * i), 48), 1);
    assert_int_equal(rdrand_seen_process(key, &aes, &table, dummy, SELFTEST, 0),
                     1);
    h = rdrand_source_health();
    assert_ptr_equal(h->seen, table);
    /* No entry of the tables, nor the last digest, is a delivered word. */
    qsort(out, sizeof(out) / sizeof(out[0]), sizeof(out[0]), compare_words);
    for (size_t b = 0; b < RDRAND_RECENT_BUCKETS; b++)
        for (size_t j = 0; j < RDRAND_RECENT_WAYS; j++)
            found += delivered(out, atomic_load(&table->check[b][j]));
    for (size_t j = 0; j < RDRAND_POINT_SLOTS; j++)
        found += delivered(out, atomic_load(&table->point[j]));
    found += delivered(out, h->s.last);
    assert_int_equal(found, 0);
    /*
     * What they hold is the one-way check (AES-MMO under the OS's key, as
     * OpenSSL's AES computes it): every one of the last 3,072 delivered
     * words' checks is in its bucket (the buckets keep 4,096 words).
     */
    assert_true(h->digest.ready);
    found = 0;
    for (size_t i = 0; i < 512 * 6; i++) {
        uint64_t ref[2];
        size_t b;

        assert_true(rdrand_test_mmo(key, out[i], ref));
        b = ref[0] >> (64 - RDRAND_RECENT_BUCKETS_LOG2);
        for (size_t j = 0; j < RDRAND_RECENT_WAYS; j++)
            if (atomic_load(&table->check[b][j]) == ref[1]) {
                found++;
                break;
            }
    }
    assert_int_equal(found, 512 * 6);
    session_down(&s);
}

/* ---- 4: in a guest, a fault is the process's ---- */

static void coco_fault_scenario(void *arg)
{
    struct session one, two, three;
    unsigned char buf[48];
    char spec[48];

    (void)arg;
    /* loads: 2 x (64 + 4); the request in one: reference, 138, 139 */
    snprintf(spec, sizeof(spec), "coco=tdx,fail-at=%d",
             2 * (SELFTEST + COCO_WORDS) + 3);
    sim_or_fail(spec);
    rdrand_source_forget();
    assert_int_equal(session_up(&one), 1);
    assert_int_equal(session_up(&two), 1);
    assert_int_equal(rdrand_sim_executions(), 2 * (SELFTEST + COCO_WORDS));
    assert_int_equal(request(&one, buf, sizeof(buf)), 0); /* CF=0 at 139 */
    assert_int_equal(rdrand_sim_executions(), 2 * (SELFTEST + COCO_WORDS) + 3);
    assert_int_equal(request(&two, buf, sizeof(buf)), 0);
    /* the hardware is good again: nothing in this process serves */
    sim_or_fail("coco=tdx");
    for (int i = 0; i < 3; i++) {
        assert_int_equal(request(&two, buf, sizeof(buf)), 0);
        assert_int_equal(request(&one, buf, sizeof(buf)), 0);
    }
    assert_int_equal(rdrand_sim_executions(), 0);
    assert_int_equal(session_up(&three), 0); /* refused at load */
    session_down(&two);
    session_down(&one);
}

/*
 * Forked: the verdict cannot be reset in a process.  Today the already
 * loaded second library context served, and a third one loaded.
 */
static void test_coco_fault_fails_every_libctx(void **state)
{
    (void)state;
    fake_in_child(coco_fault_scenario, NULL);
}

/* ---- 5: a trip makes every instance recover ---- */

/*
 * CF=0 in one library context; another one on the same thread must run
 * the recovery before it serves: the self-test, the rest of the open
 * window (194 words judged: two self-tests, the request's reference and
 * the word after it, then the recovery's self-test), 16 windows, and a
 * reference before the request's 6 words.
 */
static void test_fault_makes_other_libctx_selftest(void **state)
{
    struct session one, two;
    unsigned char buf[48];
    char spec[32];

    (void)state;
    /* loads: 2 x 64; one's request: reference, then 131 fails */
    snprintf(spec, sizeof(spec), "fail-at=%d", 2 * SELFTEST + 3);
    sim_or_fail(spec);
    rdrand_source_forget();
    assert_int_equal(session_up(&one), 1);
    assert_int_equal(session_up(&two), 1);
    assert_int_equal(rdrand_sim_executions(), 2 * SELFTEST);
    assert_int_equal(request(&one, buf, sizeof(buf)), 0);
    assert_int_equal(rdrand_sim_executions(), 2 * SELFTEST + 3);
    assert_int_equal(request(&two, buf, sizeof(buf)), 1);
    assert_int_equal(rdrand_sim_executions(),
                     2 * SELFTEST + 3 + SELFTEST + (WINDOW - (3 * SELFTEST + 2))
                         + RDRAND_RECOVERY_WINDOWS * WINDOW + 1 + 6);
    session_down(&two);
    session_down(&one);
}

#define CYCLE40 40 /* longer than the 32-word history of round three */

static uint64_t good_then_cycle40(size_t i)
{
    return i < 2 * SELFTEST + 1000 ? good_word(25, i)
                                   : good_word(26, (i - 1000) % CYCLE40);
}

/*
 * A cycle of 40 that one library context trips on (the recent-words
 * test now, the APT in time in round two); another on the same thread
 * must not go on serving it.  In round two it served 63 more 48-byte
 * requests.
 */
static void test_trip_stops_other_libctx(void **state)
{
    struct session one, two;
    unsigned char buf[48];
    int tripped = 0, served = 0;

    (void)state;
    sim_words("", 2 * SELFTEST + 1000 + 200 * CYCLE40, good_then_cycle40);
    assert_int_equal(session_up(&one), 1);
    assert_int_equal(session_up(&two), 1);
    for (int i = 0; i < 2000 && !tripped; i++)
        tripped = !request(&one, buf, sizeof(buf));
    assert_true(tripped);
    assert_true(rdrand_sim_executions() > 2 * SELFTEST + 1000);
    for (int i = 0; i < 100; i++)
        served += request(&two, buf, sizeof(buf));
    assert_int_equal(served, 0);
    session_down(&two);
    session_down(&one);
}

/* ---- the thread's state is wiped when the thread exits ---- */

static pthread_key_t observer_key;
static int state_nonzero_before, state_nonzero_at_exit = -1;

static int nonzero(const void *p, size_t n)
{
    const unsigned char *b = p;
    int any = 0;

    for (size_t i = 0; i < n; i++)
        any |= b[i] != 0;
    return any;
}

/*
 * A key created after the provider's: glibc runs key destructors in the
 * order of the keys, so this one sees the state after the provider's
 * destructor and before the thread's TLS is freed.
 */
static void observe_at_exit(void *state)
{
    state_nonzero_at_exit = nonzero(state, sizeof(struct rdrand_health));
}

static void *draw_and_exit_run(void *arg)
{
    unsigned char buf[48];
    struct session *s = arg;

    if (request(s, buf, sizeof(buf))) {
        state_nonzero_before =
            nonzero(rdrand_source_health(), sizeof(struct rdrand_health));
        pthread_setspecific(observer_key, rdrand_source_health());
    }
    return NULL;
}

static void test_state_wiped_at_thread_exit(void **state)
{
    struct session s;
    pthread_t t;

    (void)state;
    sim_or_fail("");
    rdrand_source_forget();
    assert_int_equal(session_up(&s), 1); /* its self-test registers */
    assert_int_equal(pthread_key_create(&observer_key, observe_at_exit), 0);
    assert_int_equal(pthread_create(&t, NULL, draw_and_exit_run, &s), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(state_nonzero_before, 1);
    assert_int_equal(state_nonzero_at_exit, 0);
    assert_int_equal(pthread_key_delete(observer_key), 0);
    session_down(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_biased_bit_stays_latched),
        cmocka_unit_test(test_weak_bias_nothing_after_trip),
        cmocka_unit_test(test_transient_bias_clears),
        cmocka_unit_test(test_cycle_across_threads),
        cmocka_unit_test(test_bias_across_threads),
        cmocka_unit_test(test_key_from_the_os),
        cmocka_unit_test(test_coco_fault_fails_every_libctx),
        cmocka_unit_test(test_fault_makes_other_libctx_selftest),
        cmocka_unit_test(test_trip_stops_other_libctx),
        cmocka_unit_test(test_state_wiped_at_thread_exit),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
