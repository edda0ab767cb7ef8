/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Health failures end to end: OSSL_provider_init and the RAND dispatch
 * (get_seed, generate) against the fake core and the simulated CPU.  For
 * every fault pattern: the request fails closed (0, *pout NULL, the
 * caller's buffer wiped or untouched), exactly k RDRAND executions,
 * exact counter deltas, the right reason on the error queue, and the
 * latch of provider/fault.c (status, health-state, the context's state,
 * recovery through the self-test outside CoCo, never inside one).
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
#include <openssl/params.h>
#include <openssl/provider.h>

#include "rdrand_provider.h"

#include "counters.h"
#include "errors.h"
#include "fake_core.h"
#include "health.h"
#include "rand.h"
#include "recovery.h"
#include "seams.h"
#include "sim.h"
#include "source.h"

OSSL_provider_init_fn OSSL_provider_init;

#define SELFTEST RDRAND_SELFTEST_WORDS
#define COCO_INIT_WORDS (SELFTEST + 256 / 64) /* self-test + coco seed */
#define MAX_WORDS 256
#define FAILED_CLOSED "bytes failed closed: nothing was delivered"
/* What a request meets once the process's verdict is permanent. */
#define PERMANENT "the process will not use it again"

/*
 * A whole-word repeat (repetition, short cycle, long cycle) is a proof,
 * not a statistic: the first such trip is permanent at once (issue 31),
 * so nothing is drawn after it.  The rule, stated here on its own.
 */
static int is_repeat(int reason)
{
    return reason == RDRAND_R_REPEATED_WORD || reason == RDRAND_R_SHORT_CYCLE
           || reason == RDRAND_R_LONG_CYCLE;
}
#define COCO_LATCHED                                                           \
    "latched in a confidential guest (tdx): restart the process on "           \
    "working hardware"

static const char *const quiet[] = {"warn", "none", NULL};

/* ---- words for the simulated CPU ---- */

/* Distinct, uniform-looking words that pass every health test. */
static uint64_t good_word(uint64_t series, uint64_t i)
{
    uint64_t z = (series << 32 | i) * 0x9e3779b97f4a7c15ULL + 1;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A words=FILE script: the sim replays it from the start when exhausted. */
struct script {
    uint64_t value[MAX_WORDS];
    int fail[MAX_WORDS];
    size_t n;
};

static void script_add(struct script *s, uint64_t value, int fail)
{
    assert_true(s->n < MAX_WORDS);
    s->value[s->n] = value;
    s->fail[s->n] = fail;
    s->n++;
}

/* n good words of a series: what the init self-test consumes, etc. */
static void script_good(struct script *s, uint64_t series, size_t n)
{
    for (size_t i = 0; i < n; i++)
        script_add(s, good_word(series, i), 0);
}

/*
 * Write the script to a temporary file and make the spec
 * "[prefix,]words=PATH".  The sim reads the file when configured; the
 * fixture removes it right after.
 */
static void script_spec(const struct script *s, const char *prefix, char *path,
                        size_t pathlen, char *spec, size_t speclen)
{
    FILE *f;
    int fd;

    snprintf(path, pathlen, "/tmp/rdrand-health-seed-XXXXXX");
    assert_true((fd = mkstemp(path)) >= 0);
    assert_non_null(f = fdopen(fd, "w"));
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "%016llx%s\n", (unsigned long long)s->value[i],
                s->fail[i] ? " fail" : "");
    assert_int_equal(fclose(f), 0);
    snprintf(spec, speclen, "%s%swords=%s", prefix, prefix[0] ? "," : "", path);
}

/* ---- the provider under test ---- */

struct fixture {
    void *provctx;
    const OSSL_DISPATCH *prov;
    void *ctx;
    char path[64]; /* words file, removed once configured */
    char spec[128];
};

#define RAND_FN(type, id)                                                      \
    ((OSSL_FUNC_rand_##type##_fn *)fake_dispatch_fn(rdrand_rand_functions, id))

static void *new_ready_ctx(void *provctx)
{
    void *ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(provctx, NULL, NULL);

    assert_non_null(ctx);
    assert_int_equal(RAND_FN(instantiate, OSSL_FUNC_RAND_INSTANTIATE)(
                         ctx, 0, 0, NULL, 0, NULL),
                     1);
    return ctx;
}

/* Load the provider on this CPU (spec, or the script with prefix). */
static void fixture_up(struct fixture *f, const char *spec,
                       const struct script *s, const char *prefix)
{
    memset(f, 0, sizeof(*f));
    if (s != NULL)
        script_spec(s, prefix, f->path, sizeof(f->path), f->spec,
                    sizeof(f->spec));
    else
        snprintf(f->spec, sizeof(f->spec), "%s", spec);
    assert_int_equal(fake_provider_init(f->spec, quiet, &f->provctx, &f->prov),
                     1);
    if (f->path[0] != '\0')
        assert_int_equal(unlink(f->path), 0);
    assert_non_null(f->provctx);
    f->ctx = new_ready_ctx(f->provctx);
}

static void fixture_down(struct fixture *f)
{
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(f->ctx);
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        f->prov, OSSL_FUNC_PROVIDER_TEARDOWN))(f->provctx);
}

static int ctx_state(void *ctx)
{
    int st = -1;
    OSSL_PARAM p[] = {OSSL_PARAM_int(OSSL_RAND_PARAM_STATE, &st),
                      OSSL_PARAM_END};

    assert_int_equal(
        RAND_FN(get_ctx_params, OSSL_FUNC_RAND_GET_CTX_PARAMS)(ctx, p), 1);
    return st;
}

/* The counters as the provider reports them, and the sim's executions. */
struct counts {
    uint64_t exec, words, hw_fail, seed_req, seed_fail, seed_bytes, health;
};

static struct counts counts_of(const struct fixture *f)
{
    struct counts c;

    c.exec = rdrand_sim_executions();
    c.words = fake_get_u64(f->prov, f->provctx, RDRAND_PARAM_RDRAND_WORDS);
    c.hw_fail = fake_get_u64(f->prov, f->provctx, RDRAND_PARAM_RDRAND_FAILURES);
    c.seed_req = fake_get_u64(f->prov, f->provctx, RDRAND_PARAM_SEED_REQUESTS);
    c.seed_fail = fake_get_u64(f->prov, f->provctx, RDRAND_PARAM_SEED_FAILURES);
    c.seed_bytes = fake_get_u64(f->prov, f->provctx, RDRAND_PARAM_SEED_BYTES);
    c.health = fake_get_u64(f->prov, f->provctx, RDRAND_PARAM_HEALTH_FAILURES);
    return c;
}

/* Before a provider exists: the same process-wide counters, directly. */
static struct counts counts_raw(void)
{
    struct counts c = {0};

    c.words = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);
    c.hw_fail = rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES);
    c.seed_req = rdrand_counter_get(RDRAND_CTR_SEED_REQUESTS);
    c.seed_fail = rdrand_counter_get(RDRAND_CTR_SEED_FAILURES);
    c.seed_bytes = rdrand_counter_get(RDRAND_CTR_SEED_BYTES);
    c.health = rdrand_counter_get(RDRAND_CTR_HEALTH_FAILURES);
    return c;
}

static void assert_latched(const struct fixture *f, int reason)
{
    void *other = new_ready_ctx(f->provctx);

    assert_int_equal(fake_get_int(f->prov, f->provctx, "status"), 0);
    assert_string_equal(
        fake_get_utf8(f->prov, f->provctx, RDRAND_PARAM_HEALTH_STATE),
        rdrand_reason_text(reason));
    assert_int_equal(ctx_state(f->ctx), EVP_RAND_STATE_ERROR);
    /* The latch is the provider's: every context sees it. */
    assert_int_equal(ctx_state(other), EVP_RAND_STATE_ERROR);
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(other);
}

static void assert_healthy(const struct fixture *f)
{
    assert_int_equal(fake_get_int(f->prov, f->provctx, "status"), 1);
    assert_string_equal(
        fake_get_utf8(f->prov, f->provctx, RDRAND_PARAM_HEALTH_STATE), "ok");
    assert_int_equal(ctx_state(f->ctx), EVP_RAND_STATE_READY);
}

enum kind { SEED, GENERATE };

struct fail_expect {
    int reason;       /* raised on the error queue */
    uint64_t exec;    /* RDRAND executions by this request */
    uint64_t hw_fail; /* rdrand-failures delta */
    uint64_t health;  /* health-failures delta */
    int drew;         /* the draw ran: generate's buffer is wiped to 0 */
    const char *message;
};

/*
 * One request of len bytes that must fail closed exactly as e says.
 * generate writes into the caller's buffer: it must end up all zero (the
 * draw ran and was wiped) or untouched (stopped before any RDRAND word
 * was written), and nothing past len may change.
 */
static void request_fails(const struct fixture *f, enum kind kind, size_t len,
                          const struct fail_expect *e)
{
    static unsigned char buf[4096 + 16];
    struct counts before = counts_of(f), after;

    assert_true(len + 16 <= sizeof(buf));
    fake_core_reset(NULL);
    if (kind == SEED) {
        unsigned char *seed = (unsigned char *)1;

        assert_int_equal(RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(
                             f->ctx, &seed, 0, len, len, 0, NULL, 0),
                         0);
        assert_null(seed);
    } else {
        memset(buf, 0xA5, sizeof(buf));
        assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                             f->ctx, buf, len, 0, 0, NULL, 0),
                         0);
        for (size_t i = 0; i < len; i++)
            assert_int_equal(buf[i], e->drew ? 0x00 : 0xA5);
        for (size_t i = len; i < sizeof(buf); i++)
            assert_int_equal(buf[i], 0xA5);
    }
    assert_int_equal(fake_error_count, 1);
    assert_int_equal(fake_last_reason(), e->reason);
    if (strcmp(e->message, FAILED_CLOSED) == 0 /* "<request> of <n> ..." */
        || strcmp(e->message, PERMANENT) == 0)
        assert_non_null(strstr(fake_last_message(), e->message));
    else
        assert_string_equal(fake_last_message(), e->message);

    after = counts_of(f);
    assert_int_equal(after.exec - before.exec, e->exec);
    assert_int_equal(after.words - before.words, e->exec);
    assert_int_equal(after.hw_fail - before.hw_fail, e->hw_fail);
    assert_int_equal(after.health - before.health, e->health);
    assert_int_equal(after.seed_req - before.seed_req, kind == SEED);
    assert_int_equal(after.seed_fail - before.seed_fail, kind == SEED);
    assert_int_equal(after.seed_bytes - before.seed_bytes, 0);
}

/* One request that must succeed with exec executions (and these words). */
static void request_ok(const struct fixture *f, enum kind kind, size_t len,
                       uint64_t exec, const uint64_t *words)
{
    static unsigned char buf[4096];
    unsigned char *out = buf;
    struct counts before = counts_of(f), after;

    fake_core_reset(NULL);
    if (kind == SEED) {
        assert_int_equal(RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(
                             f->ctx, &out, 0, len, len, 0, NULL, 0),
                         len);
        assert_non_null(out);
    } else {
        assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                             f->ctx, buf, len, 0, 0, NULL, 0),
                         1);
    }
    if (words != NULL)
        assert_memory_equal(out, words, len);
    if (kind == SEED)
        RAND_FN(clear_seed, OSSL_FUNC_RAND_CLEAR_SEED)(f->ctx, out, len);
    assert_int_equal(fake_error_count, 0);

    after = counts_of(f);
    assert_int_equal(after.exec - before.exec, exec);
    assert_int_equal(after.words - before.words, exec);
    assert_int_equal(after.hw_fail - before.hw_fail, 0);
    assert_int_equal(after.health - before.health, 0);
    assert_int_equal(after.seed_req - before.seed_req, kind == SEED);
    assert_int_equal(after.seed_fail - before.seed_fail, 0);
    assert_int_equal(after.seed_bytes - before.seed_bytes,
                     kind == SEED ? len : 0);
}

/* ---- a fault at init: loaded, latched, silent ---- */

/*
 * The startup self-test fails inside OSSL_provider_init: the provider
 * still loads (nobody waits for an answer there, so nothing is raised),
 * latched with the reason.  The next request re-runs the self-test and
 * fails closed with 8 executions, or recovers if the CPU now passes.
 */
static void test_init_selftest_failure(void **state)
{
    static const struct {
        const char *name, *spec; /* spec NULL: the script below */
        int reason;
        uint64_t init_exec, init_hw_fail, init_health;
        int recovers;                   /* the next self-test passes */
        uint64_t exec, hw_fail, health; /* the next request, if it fails */
    } cases[] = {
        {"constant ~0", "value=ffffffffffffffff", RDRAND_R_STUCK_ONES, SELFTEST,
         0, 1, 0, SELFTEST, 0, 1},
        {"constant 0", "value=0", RDRAND_R_STUCK_ZERO, SELFTEST, 0, 1, 0,
         SELFTEST, 0, 1},
        {"constant", "value=0123456789abcdef", RDRAND_R_REPEATED_WORD, SELFTEST,
         0, 1, 0, SELFTEST, 0, 1},
        {"32-bit ~0 in a 64-bit word", "value=00000000ffffffff",
         RDRAND_R_REPEATED_WORD, SELFTEST, 0, 1, 0, SELFTEST, 0, 1},
        {"CF=0 at word 3", "fail-at=3", RDRAND_R_RDRAND_FAILED, 3, 1, 0, 1, 0,
         0, 0},
        {"CF=0 from word 5", "fail-from=5", RDRAND_R_RDRAND_FAILED, 5, 1, 0, 0,
         1, 1, 0},
        {"each word twice", NULL, RDRAND_R_REPEATED_WORD, SELFTEST, 0, 1, 0,
         SELFTEST, 0, 1},
        /* its high byte lanes never move: the APT trips at word 20 */
        {"a counter", NULL, RDRAND_R_ADAPTIVE_PROPORTION, SELFTEST, 0, 1, 0,
         SELFTEST, 0, 1},
        /*
         * A thread joins the tree's tables before its first sample is
         * judged (the key is the OS's, from the load): the recent-words
         * test catches the cycle in the sample, a proof
         */
        {"a cycle of 33 words", NULL, RDRAND_R_SHORT_CYCLE, SELFTEST, 0, 1, 0,
         SELFTEST, 0, 1},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fixture f;
        struct script s = {0};
        struct counts before = counts_raw(), after;

        print_message("init self-test: %s\n", cases[i].name);
        if (strcmp(cases[i].name, "each word twice") == 0)
            for (uint64_t w = 0; w < 2 * SELFTEST; w++)
                script_add(&s, good_word(1, w / 2), 0);
        /* two samples' worth: the recovery's must not replay the load's */
        if (strcmp(cases[i].name, "a counter") == 0)
            for (uint64_t w = 0; w < 2 * SELFTEST; w++)
                script_add(&s, good_word(1, 0) + w, 0);
        if (strcmp(cases[i].name, "a cycle of 33 words") == 0)
            script_good(&s, 1, 33);
        fixture_up(&f, cases[i].spec, cases[i].spec ? NULL : &s, "");

        assert_int_equal(fake_error_count, 0); /* nothing raised at init */
        assert_int_equal(rdrand_sim_executions(), cases[i].init_exec);
        after = counts_of(&f);
        assert_int_equal(after.words - before.words, cases[i].init_exec);
        assert_int_equal(after.hw_fail - before.hw_fail, cases[i].init_hw_fail);
        assert_int_equal(after.health - before.health, cases[i].init_health);
        assert_int_equal(after.seed_req - before.seed_req, 0);
        assert_int_equal(after.seed_fail - before.seed_fail, 0);
        assert_int_equal(
            fake_get_int(f.prov, f.provctx, RDRAND_PARAM_RDRAND_AVAILABLE), 1);
        assert_latched(&f, cases[i].reason);

        if (cases[i].recovers) {
            /*
             * The recovery: the self-test, the rest of the window it
             * leaves open (no word was judged at load), 16 windows; then
             * the request opens a window with a reference word.
             */
            request_ok(&f, SEED, 48,
                       SELFTEST + (RDRAND_APT_WINDOW - SELFTEST)
                           + RDRAND_RECOVERY_WINDOWS * RDRAND_APT_WINDOW + 1
                           + 6,
                       NULL);
            assert_healthy(&f);
        } else {
            /* The same fault again, found by the self-test: no draw. */
            const struct fail_expect e = {cases[i].reason,
                                          cases[i].exec,
                                          cases[i].hw_fail,
                                          cases[i].health,
                                          0,
                                          FAILED_CLOSED};

            /* A second trip so soon: permanent, no draw after it. */
            const struct fail_expect p = {cases[i].reason, 0, 0, 0, 0,
                                          PERMANENT};

            /* A repeat: permanent already, no recovery is tried. */
            request_fails(&f, SEED, 48, is_repeat(cases[i].reason) ? &p : &e);
            assert_latched(&f, cases[i].reason);
            assert_string_equal(
                fake_get_utf8(f.prov, f.provctx, RDRAND_PARAM_HEALTH_VERDICT),
                "permanent");
            request_fails(&f, GENERATE, 48, &p);
            assert_latched(&f, cases[i].reason);
        }
        fixture_down(&f);
    }
}

/* ---- faults after a clean start: the continuous tests ---- */

enum pattern {
    P_ONES,
    P_ZERO,
    P_CONSTANT,
    P_LOW_ONES,
    P_TWICE,
    P_GOOD_THEN_ONES,
    P_STUCK_LANE
};

static uint64_t pattern_word(enum pattern p, uint64_t i)
{
    switch (p) {
    case P_ONES:
        return ~(uint64_t)0;
    case P_ZERO:
        return 0;
    case P_CONSTANT:
        return 0x0123456789abcdefULL;
    case P_LOW_ONES:
        return 0x00000000ffffffffULL;
    case P_TWICE:
        return good_word(2, i / 2);
    case P_GOOD_THEN_ONES:
        return i < 3 ? good_word(2, i) : ~(uint64_t)0;
    case P_STUCK_LANE: /* every bit of lane 0 changes at word 1 */
        return (good_word(2, i) & ~(uint64_t)0xff) | (i == 0 ? 0xa5 : 0x5a);
    }
    return 0;
}

/*
 * Good words (the init self-test), then the pattern.  A request of 128
 * words meets the fault at word k of the pattern; the next request
 * re-runs the self-test on the next 64 pattern words.
 */
static void test_continuous_after_clean_start(void **state)
{
    static const struct {
        const char *name;
        enum pattern p;
        int reason;
        uint64_t k;        /* the word that trips */
        uint64_t second;   /* executions of the next request */
        int second_reason; /* what the next request raises, if not reason */
    } cases[] = {
        {"constant ~0", P_ONES, RDRAND_R_STUCK_ONES, 1, SELFTEST, 0},
        {"constant 0", P_ZERO, RDRAND_R_STUCK_ZERO, 1, SELFTEST, 0},
        {"another constant", P_CONSTANT, RDRAND_R_REPEATED_WORD, 2, SELFTEST,
         0},
        {"32-bit ~0 in a 64-bit word", P_LOW_ONES, RDRAND_R_REPEATED_WORD, 2,
         SELFTEST, 0},
        {"each word twice", P_TWICE, RDRAND_R_REPEATED_WORD, 2, SELFTEST, 0},
        {"3 good words, then ~0", P_GOOD_THEN_ONES, RDRAND_R_STUCK_ONES, 4,
         SELFTEST, 0},
        /*
         * A byte lane stuck from pattern word 1: the self-test filled bit
         * block 0, pattern words 0..63 are block 1 (word 0 differs), and
         * block 2 is all stuck: its last word, the 128th, trips the
         * stuck-bit test (the APT's window opened in the self-test, on
         * another value).  The recovery self-test (block 3) meets the bits
         * still stuck and keeps the source latched.
         */
        {"byte lane stuck at 0x5a", P_STUCK_LANE, RDRAND_R_STUCK_BIT,
         3 * RDRAND_BIT_BLOCK - SELFTEST, SELFTEST, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (enum kind kind = SEED; kind <= GENERATE; kind++) {
            struct fixture f;
            struct script s = {0};
            /* The next word is drawn before word k is judged, if needed. */
            struct fail_expect e = {
                cases[i].reason, cases[i].k + (cases[i].k < 128), 0, 1, 1,
                FAILED_CLOSED};

            print_message("%s: %s\n", kind == SEED ? "get_seed" : "generate",
                          cases[i].name);
            script_good(&s, 1, SELFTEST);
            for (uint64_t w = 0; w < 128 + SELFTEST; w++)
                script_add(&s, pattern_word(cases[i].p, w), 0);
            fixture_up(&f, NULL, &s, "");
            assert_int_equal(rdrand_sim_executions(), SELFTEST);
            assert_healthy(&f);

            request_fails(&f, kind, 1024, &e);
            assert_latched(&f, cases[i].reason);
            assert_string_equal(
                fake_get_utf8(f.prov, f.provctx, RDRAND_PARAM_HEALTH_VERDICT),
                is_repeat(cases[i].reason) ? "permanent" : "intermittent");

            e.exec = cases[i].second;
            e.drew = cases[i].second > SELFTEST;
            if (cases[i].second_reason != 0)
                e.reason = cases[i].second_reason;
            /* A repeat: nothing drawn again, not even a self-test. */
            if (is_repeat(cases[i].reason)) {
                e.exec = e.health = 0;
                e.drew = 0;
                e.message = PERMANENT;
            }
            request_fails(&f, kind, 1024, &e);
            assert_latched(&f, cases[i].reason);
            fixture_down(&f);
        }
    }
}

/* ---- CF=0 at every word of every request from 8 to 600 bytes ---- */

static void test_cf0_every_position(void **state)
{
    const struct fail_expect e = {RDRAND_R_RDRAND_FAILED, 0, 1, 0, 1,
                                  FAILED_CLOSED};

    (void)state;
    for (size_t len = 8; len <= 600; len++) {
        for (uint64_t k = 1; k <= (len + 7) / 8; k++) {
            for (enum kind kind = SEED; kind <= GENERATE; kind++) {
                struct fixture f;
                struct fail_expect ek = e;
                char spec[32];

                snprintf(spec, sizeof(spec), "fail-at=%llu",
                         (unsigned long long)(SELFTEST + k));
                fixture_up(&f, spec, NULL, "");
                ek.exec = k;
                request_fails(&f, kind, len, &ek);
                assert_latched(&f, RDRAND_R_RDRAND_FAILED);
                fixture_down(&f);
            }
        }
    }
}

/* ---- stuck mid-request, then recovered ---- */

/*
 * The script: init words, 3 good words, a word stuck 10 times, 133 good
 * words.  Request 1 (6 words) meets the repeat at its 5th word, having
 * drawn its 6th; request 2's self-test sees the stuck word 7 times; then
 * the hardware is good again.  init_words: what init consumes (more in a
 * CoCo guest).
 */
#define STUCK 0x7a3c5e91d2b4f068ULL
static void stuck_then_good_script(struct script *s, size_t init_words)
{
    script_good(s, 1, init_words);
    script_good(s, 2, 3);
    for (int i = 0; i < 10; i++)
        script_add(s, STUCK, 0);
    script_good(s, 3, 57 + SELFTEST + 12);
}

/*
 * A word repeated mid-request: a proof of a broken RDRAND, so the
 * verdict is permanent at once, and nothing is drawn or served again,
 * not even a recovery, though the words that follow are good.
 */
static void test_stuck_mid_request_is_permanent(void **state)
{
    const struct fail_expect first = {RDRAND_R_REPEATED_WORD, 6, 0, 1, 1,
                                      FAILED_CLOSED};
    const struct fail_expect after = {
        RDRAND_R_REPEATED_WORD, 0, 0, 0, 0, PERMANENT};
    struct fixture f;
    struct script s = {0};

    (void)state;
    stuck_then_good_script(&s, SELFTEST);
    fixture_up(&f, NULL, &s, "");
    assert_healthy(&f);

    request_fails(&f, GENERATE, 48, &first);
    assert_latched(&f, RDRAND_R_REPEATED_WORD);
    assert_string_equal(
        fake_get_utf8(f.prov, f.provctx, RDRAND_PARAM_HEALTH_VERDICT),
        "permanent");
    assert_int_equal(rdrand_sim_executions(), SELFTEST + 6);
    request_fails(&f, SEED, 48, &after);
    assert_non_null(strstr(fake_last_message(),
                           "RDRAND repeated a 64-bit word drawn before"));
    assert_int_equal(rdrand_sim_executions(), SELFTEST + 6);

    request_fails(&f, GENERATE, 48, &after);
    request_fails(&f, SEED, 48, &after);
    assert_latched(&f, RDRAND_R_REPEATED_WORD);
    fixture_down(&f);
}

/* The first fault is the one health-state keeps. */
static void test_first_fault_is_kept(void **state)
{
    const struct fail_expect cf = {RDRAND_R_RDRAND_FAILED, 2, 1, 0, 1,
                                   FAILED_CLOSED};
    const struct fail_expect ones = {RDRAND_R_STUCK_ONES, SELFTEST, 0, 1, 0,
                                     FAILED_CLOSED};
    struct fixture f;
    struct script s = {0};

    (void)state;
    script_good(&s, 1, SELFTEST + 1);
    script_add(&s, 0, 1); /* CF=0 */
    for (int i = 0; i < SELFTEST; i++)
        script_add(&s, ~(uint64_t)0, 0);
    fixture_up(&f, NULL, &s, "");

    request_fails(&f, SEED, 32, &cf);
    assert_latched(&f, RDRAND_R_RDRAND_FAILED);
    request_fails(&f, SEED, 32, &ones); /* raised: the new reason */
    assert_latched(&f, RDRAND_R_RDRAND_FAILED);
    fixture_down(&f);
}

/* ---- in a confidential guest the latch never clears ---- */

static void coco_latch_holds(struct fixture *f, int reason)
{
    const struct fail_expect latched = {reason, 0, 0, 0, 0, COCO_LATCHED};

    assert_latched(f, reason);
    for (int i = 0; i < 3; i++) {
        request_fails(f, SEED, 48, &latched);
        request_fails(f, GENERATE, 48, &latched);
        assert_latched(f, reason);
    }
    /* The CPU is good again (the default stream): still latched. */
    sim_or_fail("coco=tdx");
    for (int i = 0; i < 3; i++) {
        request_fails(f, SEED, 32, &latched);
        request_fails(f, GENERATE, 600, &latched);
        assert_latched(f, reason);
    }
    assert_int_equal(rdrand_sim_executions(), 0);
}

static void coco_stuck_latches_forever_scenario(void *arg)
{
    const struct fail_expect first = {RDRAND_R_REPEATED_WORD, 6, 0, 1, 1,
                                      FAILED_CLOSED};
    struct fixture f;
    struct script s = {0};

    (void)arg;
    stuck_then_good_script(&s, COCO_INIT_WORDS);
    fixture_up(&f, NULL, &s, "coco=tdx");
    assert_int_equal(rdrand_sim_executions(), COCO_INIT_WORDS);
    assert_string_equal(
        fake_get_utf8(f.prov, f.provctx, RDRAND_PARAM_COCO_PLATFORM), "tdx");
    assert_int_equal(
        fake_get_u64(f.prov, f.provctx, RDRAND_PARAM_COCO_SEED_BITS), 256);
    assert_healthy(&f);

    request_fails(&f, SEED, 48, &first);
    coco_latch_holds(&f, RDRAND_R_REPEATED_WORD);
    fixture_down(&f);
}

/* Forked: the fault is the process's CoCo verdict, for good. */
static void test_coco_stuck_latches_forever(void **state)
{
    (void)state;
    fake_in_child(coco_stuck_latches_forever_scenario, NULL);
}

static void coco_cf0_latches_forever_scenario(void *arg)
{
    const struct fail_expect first = {RDRAND_R_RDRAND_FAILED, 3, 1, 0, 1,
                                      FAILED_CLOSED};
    struct fixture f;
    char spec[48];

    (void)arg;
    snprintf(spec, sizeof(spec), "coco=tdx,fail-at=%d", COCO_INIT_WORDS + 3);
    fixture_up(&f, spec, NULL, "");
    assert_int_equal(rdrand_sim_executions(), COCO_INIT_WORDS);
    assert_healthy(&f);

    request_fails(&f, GENERATE, 64, &first);
    coco_latch_holds(&f, RDRAND_R_RDRAND_FAILED);
    fixture_down(&f);
}

/* Forked: the fault is the process's CoCo verdict, for good. */
static void test_coco_cf0_latches_forever(void **state)
{
    (void)state;
    fake_in_child(coco_cf0_latches_forever_scenario, NULL);
}

/* ---- the CoCo verdict is the process's ---- */

/*
 * A failed check at load, then the hardware is good again: a second
 * provider instance (OSSL_provider_init again) and a second library
 * context must fail the same way without drawing a word; under
 * fail-closed the later instance loads latched.  Forked: the verdict
 * cannot be reset in a process.  Fails on the per-instance verdict.
 */
static void coco_verdict_scenario(void *arg)
{
    static const char *const refuse[] = {"warn", "none", NULL};
    static const char *const closed[] = {"warn", "none", "on_coco_failure",
                                         "fail-closed", NULL};
    static int handle;
    void *provctx = NULL;
    const OSSL_DISPATCH *prov = NULL;
    char spec[48];
    OSSL_LIB_CTX *libctx;

    (void)arg;
    snprintf(spec, sizeof(spec), "coco=tdx,fail-at=%d", SELFTEST + 2);
    assert_int_equal(fake_provider_init(spec, refuse, &provctx, &prov), 0);
    assert_int_equal(rdrand_sim_executions(), SELFTEST + 2);
    assert_int_equal(fake_last_reason(), RDRAND_R_COCO_SEED_FAILED);

    /* The hardware is good now; the module still says no, at once. */
    sim_or_fail("coco=tdx");
    fake_core_reset(refuse);
    assert_int_equal(OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle,
                                        fake_core_dispatch(), &prov, &provctx),
                     0);
    assert_int_equal(fake_last_reason(), RDRAND_R_COCO_SEED_FAILED);
    assert_non_null(strstr(fake_last_message(), "RDRAND reported failure"));
    fake_core_reset(closed);
    assert_int_equal(OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle,
                                        fake_core_dispatch(), &prov, &provctx),
                     1);
    assert_int_equal(fake_get_int(prov, provctx, "status"), 0);
    assert_string_equal(fake_get_utf8(prov, provctx, RDRAND_PARAM_HEALTH_STATE),
                        rdrand_reason_text(RDRAND_R_COCO_SEED_FAILED));
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);

    /* Through libcrypto: another library context cannot load it either. */
    assert_non_null(libctx = OSSL_LIB_CTX_new());
    assert_int_equal(OSSL_PROVIDER_add_builtin(libctx, RDRAND_PROVIDER_NAME,
                                               OSSL_provider_init),
                     1);
    assert_null(OSSL_PROVIDER_load(libctx, RDRAND_PROVIDER_NAME));
    OSSL_LIB_CTX_free(libctx);
    /*
     * Nothing drew: the verdict is permanent, so neither the later
     * loads' self-tests nor a CoCo draw ran again.
     */
    assert_int_equal(rdrand_sim_executions(), 0);
}

static void test_coco_verdict_is_process_wide(void **state)
{
    (void)state;
    fake_in_child(coco_verdict_scenario, NULL);
}

/* ---- the APT reference word, drawn inside a request ---- */

/*
 * A request that crosses an APT window boundary draws the new window's
 * reference first, never delivered.  A CF=0 on that reference word stops
 * the request at once, wiped, counted; a CF=0 on the word after it too.
 */
static void test_cf0_at_window_reference(void **state)
{
    /* init: 64 words of window 0; a 448-word request fills it exactly */
    const uint64_t boundary = RDRAND_APT_WINDOW;

    (void)state;
    for (uint64_t extra = 1; extra <= 2; extra++) {
        for (enum kind kind = SEED; kind <= GENERATE; kind++) {
            struct fixture f;
            struct fail_expect e = {RDRAND_R_RDRAND_FAILED, extra, 1, 0, 1,
                                    FAILED_CLOSED};
            char spec[32];

            snprintf(spec, sizeof(spec), "fail-at=%llu",
                     (unsigned long long)(boundary + extra));
            fixture_up(&f, spec, NULL, "");
            request_ok(&f, kind, 8 * (boundary - SELFTEST), boundary - SELFTEST,
                       NULL);
            request_fails(&f, kind, 16, &e);
            assert_latched(&f, RDRAND_R_RDRAND_FAILED);
            fixture_down(&f);
        }
    }
}

/* ---- nothing gives a defective CPU a fresh start ---- */

/*
 * A constant word after a clean start, asked for 8 bytes at a time on a
 * fresh context each time (the old code served 300 of 300), after a
 * re-instantiation, on a second provider instance: each request fails.
 * The first request delivers the constant's first occurrence (8 bytes);
 * nothing more is ever delivered.
 */
static void test_no_fresh_start(void **state)
{
    static int handle;
    struct fixture f;
    struct script s = {0};
    void *provctx2;
    const OSSL_DISPATCH *prov2;
    size_t served = 0;

    (void)state;
    script_good(&s, 1, SELFTEST);
    for (int i = 0; i < 128; i++)
        script_add(&s, 0x0123456789abcdefULL, 0);
    fixture_up(&f, NULL, &s, "");
    for (int i = 0; i < 300; i++) {
        void *ctx = new_ready_ctx(f.provctx);
        unsigned char buf[8];

        fake_core_reset(NULL);
        served += RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
            ctx, buf, sizeof(buf), 0, 0, NULL, 0);
        if (i % 2 == 1) { /* re-instantiate: no reset either */
            RAND_FN(uninstantiate, OSSL_FUNC_RAND_UNINSTANTIATE)(ctx);
            RAND_FN(instantiate, OSSL_FUNC_RAND_INSTANTIATE)
            (ctx, 0, 0, NULL, 0, NULL);
        }
        RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
    }
    assert_int_equal(served, 1);
    /* A second provider instance in the process: its self-test fails. */
    fake_core_reset(quiet);
    assert_int_equal(OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle,
                                        fake_core_dispatch(), &prov2,
                                        &provctx2),
                     1);
    assert_int_equal(fake_get_int(prov2, provctx2, "status"), 0);
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov2, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx2);
    fixture_down(&f);
}

/*
 * Two instances in one process: a CF=0 latches the one whose request met
 * it, and the process's verdict has a trip to answer.  The other
 * instance's next request recovers (the self-test and the recovery's
 * windows) and answers it; the first instance's next request then only
 * self-tests (RDRAND_ADMIT_RETEST), and serves.
 */
static void test_retest_after_another_recovery(void **state)
{
    static int handle;
    static unsigned char buf[32];
    char path[64], spec[128];
    struct fixture f;
    void *provctx2, *ctx2;
    const OSSL_DISPATCH *prov2;
    uint64_t before;
    FILE *flag;
    int fd;

    (void)state;
    snprintf(path, sizeof(path), "/tmp/rdrand-retest-XXXXXX");
    assert_true((fd = mkstemp(path)) >= 0);
    assert_int_equal(close(fd), 0);
    assert_int_equal(unlink(path), 0);
    snprintf(spec, sizeof(spec), "fail-while=%s", path);
    fixture_up(&f, spec, NULL, "");
    fake_core_reset(quiet);
    assert_int_equal(OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle,
                                        fake_core_dispatch(), &prov2,
                                        &provctx2),
                     1);
    ctx2 = new_ready_ctx(provctx2);
    assert_int_equal(fake_get_int(prov2, provctx2, "status"), 1);

    /* the CPU fails while the file exists: the first instance latches */
    assert_non_null(flag = fopen(path, "w"));
    assert_int_equal(fclose(flag), 0);
    fake_core_reset(NULL);
    assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                         f.ctx, buf, sizeof(buf), 0, 0, NULL, 0),
                     0);
    assert_int_equal(fake_last_reason(), RDRAND_R_RDRAND_FAILED);
    assert_latched(&f, RDRAND_R_RDRAND_FAILED);
    assert_int_equal(unlink(path), 0);

    /* the other instance recovers */
    before = rdrand_sim_executions();
    fake_core_reset(NULL);
    assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                         ctx2, buf, sizeof(buf), 0, 0, NULL, 0),
                     1);
    assert_true(rdrand_sim_executions() - before
                >= SELFTEST + RDRAND_RECOVERY_WINDOWS * RDRAND_APT_WINDOW);
    assert_int_equal(fake_get_int(prov2, provctx2, "status"), 1);

    /* the first: a self-test, no recovery, then its request served */
    assert_latched(&f, RDRAND_R_RDRAND_FAILED);
    before = rdrand_sim_executions();
    fake_core_reset(NULL);
    assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                         f.ctx, buf, sizeof(buf), 0, 0, NULL, 0),
                     1);
    assert_int_equal(fake_error_count, 0);
    assert_true(rdrand_sim_executions() - before >= SELFTEST);
    assert_true(rdrand_sim_executions() - before < 2 * SELFTEST);
    assert_healthy(&f);

    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx2);
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov2, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx2);
    fixture_down(&f);
}

/*
 * Where the load got no key from the OS, a thread's self-test keys its
 * state only from a sample that passes the sample rules: a failed sample
 * leaves it unkeyed (and the self-test fails); a good one keys it.
 */
static void test_selftest_without_os_key(void **state)
{
    (void)state;
    sim_or_fail("value=0123456789abcdef");
    rdrand_source_forget();
    rdrand_seen_seam_unkey();
    assert_int_not_equal(rdrand_source_selftest(), RDRAND_R_OK);
    assert_false(rdrand_source_health()->keyed);
    sim_or_fail("");
    assert_int_equal(rdrand_source_selftest(), RDRAND_R_OK);
    assert_true(rdrand_source_health()->keyed);
    rdrand_source_forget();
}

/*
 * The key that wipes a thread's state at its exit: where the process has
 * no thread-local key left to make (PTHREAD_KEYS_MAX reached), or the one
 * made cannot be set, the self-test still passes and the state is not
 * registered; made and set, it is.  Forked: the keys are the process's.
 */
static void exit_key_scenario(void *arg)
{
    pthread_key_t k, last = 0;
    int made = 0;

    (void)arg;
    sim_or_fail("");
    rdrand_source_forget();
    while (pthread_key_create(&k, NULL) == 0) {
        last = k;
        made++;
    }
    assert_true(made > 0);
    rdrand_source_seam_exit_key_again(0);
    assert_int_equal(rdrand_source_selftest(), RDRAND_R_OK);
    assert_false(rdrand_source_seam_wiped_at_exit());
    assert_int_equal(pthread_key_delete(last), 0); /* one free again */

    rdrand_source_seam_exit_key_again(1);
    assert_int_equal(rdrand_source_selftest(), RDRAND_R_OK);
    assert_false(rdrand_source_seam_wiped_at_exit());

    rdrand_source_seam_exit_key_again(0);
    assert_int_equal(rdrand_source_selftest(), RDRAND_R_OK);
    assert_true(rdrand_source_seam_wiped_at_exit());
}

static void test_exit_key_refused(void **state)
{
    (void)state;
    fake_in_child(exit_key_scenario, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_selftest_failure),
        cmocka_unit_test(test_continuous_after_clean_start),
        cmocka_unit_test(test_cf0_every_position),
        cmocka_unit_test(test_stuck_mid_request_is_permanent),
        cmocka_unit_test(test_first_fault_is_kept),
        cmocka_unit_test(test_coco_stuck_latches_forever),
        cmocka_unit_test(test_coco_cf0_latches_forever),
        cmocka_unit_test(test_coco_verdict_is_process_wide),
        cmocka_unit_test(test_cf0_at_window_reference),
        cmocka_unit_test(test_no_fresh_start),
        cmocka_unit_test(test_retest_after_another_recovery),
        cmocka_unit_test(test_selftest_without_os_key),
        cmocka_unit_test(test_exit_key_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
