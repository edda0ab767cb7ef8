/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mix = os (provider/mix.c, docs/mix.md): known answers against SHA-256
 * computed by libcrypto (not the provider's own), each input failing at
 * every position of a request with exact counters, the warning once,
 * threads and fork, through the RAND dispatch and a fake core.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "rdrand_provider.h"

#include "errors.h"
#include "fake_core.h"
#include "mix.h"
#include "prov.h"
#include "rand.h"
#include "sim.h"

#define RAND_FN(type, id)                                                      \
    ((OSSL_FUNC_rand_##type##_fn *)fake_dispatch_fn(rdrand_rand_functions, id))

/* The counters this test reads: process-wide, so read from a base. */
static const char *const counted[] = {
    RDRAND_PARAM_OS_BYTES,          RDRAND_PARAM_OS_FAILURES,
    RDRAND_PARAM_RDRAND_WORDS,      RDRAND_PARAM_RDRAND_FAILURES,
    RDRAND_PARAM_SEED_FAILURES,     RDRAND_PARAM_SEED_BYTES,
    RDRAND_PARAM_GENERATE_FAILURES, RDRAND_PARAM_HEALTH_TRIPS,
    RDRAND_PARAM_CONDITIONED_BLOCKS};
#define NCOUNTED (sizeof(counted) / sizeof(counted[0]))

struct fixture {
    void *provctx;
    const OSSL_DISPATCH *prov;
    void *ctx;
    uint64_t base[NCOUNTED]; /* each counter when the fixture came up */
};

static const char *const mix_os[] = {"mix", "os", "warn", "none", NULL};
static const char *const mix_none[] = {"warn", "none", NULL};

static void up(struct fixture *f, const char *sim, const char *const *config)
{
    memset(f, 0, sizeof(*f));
    assert_int_equal(fake_provider_init(sim, config, &f->provctx, &f->prov), 1);
    f->ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(f->provctx, NULL, NULL);
    assert_non_null(f->ctx);
    assert_int_equal(RAND_FN(instantiate, OSSL_FUNC_RAND_INSTANTIATE)(
                         f->ctx, 0, 0, NULL, 0, NULL),
                     1);
    for (size_t i = 0; i < NCOUNTED; i++)
        f->base[i] = fake_get_u64(f->prov, f->provctx, counted[i]);
}

static void down(struct fixture *f)
{
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(f->ctx);
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        f->prov, OSSL_FUNC_PROVIDER_TEARDOWN))(f->provctx);
}

/* A counter's growth since the fixture came up. */
static uint64_t ctr(struct fixture *f, const char *name)
{
    for (size_t i = 0; i < NCOUNTED; i++)
        if (strcmp(name, counted[i]) == 0)
            return fake_get_u64(f->prov, f->provctx, name) - f->base[i];
    fail_msg("counter %s is not in counted[]", name);
    return 0;
}

static int generate(struct fixture *f, unsigned char *out, size_t len)
{
    return RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(f->ctx, out, len, 0, 0,
                                                      NULL, 0);
}

static int all_zero(const unsigned char *p, size_t len)
{
    unsigned char any = 0;

    for (size_t i = 0; i < len; i++)
        any |= p[i];
    return any == 0;
}

/* The independent computation: SHA-256(R || O) by libcrypto, per block. */
static void expected_mix(const unsigned char *rd, const unsigned char *os,
                         unsigned char *out, size_t len)
{
    for (size_t b = 0; b * RDRAND_MIX_BLOCK < len; b++) {
        unsigned char in[RDRAND_MIX_RDRAND_BYTES + RDRAND_MIX_OS_BYTES];
        unsigned char md[32];
        size_t n = len - b * RDRAND_MIX_BLOCK;

        memcpy(in, rd + b * RDRAND_MIX_RDRAND_BYTES, RDRAND_MIX_RDRAND_BYTES);
        memcpy(in + RDRAND_MIX_RDRAND_BYTES, os + b * RDRAND_MIX_OS_BYTES,
               RDRAND_MIX_OS_BYTES);
        assert_int_equal(
            EVP_Digest(in, sizeof(in), md, NULL, EVP_sha256(), NULL), 1);
        memcpy(out + b * RDRAND_MIX_BLOCK, md, n < 32 ? n : 32);
    }
}

/* A words function that gives byte i of its stream as (7 i + 3) mod 256. */
static size_t pattern_at;
static size_t pattern_fail_from = SIZE_MAX;

static int pattern_words(struct rdrand_prov *prov, unsigned char *out,
                         size_t len)
{
    (void)prov;
    if (pattern_at + len > pattern_fail_from) {
        memset(out, 0, len);
        return RDRAND_R_RDRAND_FAILED;
    }
    for (size_t i = 0; i < len; i++)
        out[i] = (unsigned char)(7 * (pattern_at + i) + 3);
    pattern_at += len;
    return RDRAND_R_OK;
}

/*
 * mix.c alone: the output is SHA-256 over each block's 48 RDRAND bytes
 * and 32 OS bytes, for lengths around every block and read boundary;
 * one read per 8 blocks, of 32 bytes a block.
 */
static void test_known_answers(void **state)
{
    static const size_t lens[] = {1,   16,  31,  32,  33,  48,   64,  255,
                                  256, 257, 288, 600, 999, 1024, 4096};
    static unsigned char out[4096], want[4096], rd[4096 / 32 * 48 + 48],
        os[4096 + 32];
    struct fixture f;

    (void)state;
    up(&f, "os-value=a5", mix_os);
    memset(os, 0xa5, sizeof(os));
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        size_t len = lens[i], blocks = (len + 31) / 32;
        uint64_t bytes = ctr(&f, RDRAND_PARAM_OS_BYTES);
        uint64_t reads = rdrand_sim_os_reads();

        pattern_at = 0;
        assert_int_equal(
            rdrand_mix_fill(f.provctx, out, len, pattern_words, "test"),
            RDRAND_R_OK);
        assert_int_equal(pattern_at, blocks * 48);
        for (size_t j = 0; j < blocks * 48; j++)
            rd[j] = (unsigned char)(7 * j + 3);
        expected_mix(rd, os, want, len);
        assert_memory_equal(out, want, len);
        assert_int_equal(ctr(&f, RDRAND_PARAM_OS_BYTES) - bytes, blocks * 32);
        assert_int_equal(rdrand_sim_os_reads() - reads, (blocks + 7) / 8);
    }
    down(&f);
}

/*
 * Each block takes its own OS bytes, in order: with os-value=count the
 * OS's stream is 0, 1, 2, ... across reads, so a block given another
 * block's bytes (or a read's bytes twice) does not match.
 */
static void test_known_answers_os_positions(void **state)
{
    static unsigned char out[600], want[600], rd[19 * 48], os[19 * 32];
    struct fixture f;

    (void)state;
    up(&f, "os-value=count", mix_os);
    pattern_at = 0;
    assert_int_equal(
        rdrand_mix_fill(f.provctx, out, sizeof(out), pattern_words, "test"),
        RDRAND_R_OK);
    for (size_t j = 0; j < sizeof(rd); j++)
        rd[j] = (unsigned char)(7 * j + 3);
    for (size_t j = 0; j < sizeof(os); j++)
        os[j] = (unsigned char)j;
    expected_mix(rd, os, want, sizeof(want));
    assert_memory_equal(out, want, sizeof(want));
    assert_int_equal(rdrand_sim_os_reads(), 3);
    down(&f);
}

/*
 * Through the provider: the words a mix = os request mixes are the words
 * a mix = none request of 48 bytes a block is given from the same CPU.
 */
static void test_known_answer_through_provider(void **state)
{
    unsigned char raw[96], os[64], got[48], want[48];
    struct fixture f;

    (void)state;
    up(&f, "os-value=3c", mix_none);
    assert_int_equal(generate(&f, raw, sizeof(raw)), 1);
    assert_int_equal(rdrand_sim_os_reads(), 0); /* none reads no OS */
    assert_int_equal(ctr(&f, RDRAND_PARAM_OS_BYTES), 0);
    assert_string_equal(fake_get_utf8(f.prov, f.provctx, RDRAND_PARAM_MIX),
                        "none");
    down(&f);

    up(&f, "os-value=3c", mix_os);
    assert_string_equal(fake_get_utf8(f.prov, f.provctx, RDRAND_PARAM_MIX),
                        "os");
    assert_int_equal(generate(&f, got, sizeof(got)), 1);
    memset(os, 0x3c, sizeof(os));
    expected_mix(raw, os, want, sizeof(want));
    assert_memory_equal(got, want, sizeof(want));
    assert_int_equal(ctr(&f, RDRAND_PARAM_OS_BYTES), 64);
    assert_int_equal(ctr(&f, RDRAND_PARAM_OS_FAILURES), 0);
    down(&f);
}

/*
 * The OS failing at each read of a 600-byte request (19 blocks: reads of
 * 8, 8 and 3 blocks), each way it can: the request fails with nothing
 * delivered, exactly one failure is counted, the reads before it are
 * counted as read, and RDRAND's verdict is untouched: the next request
 * is served.
 */
static void test_os_fails_at_every_read(void **state)
{
    static const struct {
        const char *sim, *says;
    } kinds[] = {
        {"os-errno=EAGAIN,os-fail-at=", "EAGAIN"},
        {"os-errno=ENOSYS,os-fail-at=", "ENOSYS"},
        {"os-errno=EPERM,os-fail-at=", "EPERM"},
        {"os-errno=EINTR,os-fail-at=", "EINTR"},
        /* An errno without a usual cause here: its number (Linux's). */
        {"os-errno=EINVAL,os-fail-at=", "bytes failed (errno 22)"},
        {"os-errno=EFAULT,os-fail-at=", "failed (errno 14)"},
        {"os-short-at=", "returned 255 of 256 bytes (short read)"},
    };
    static unsigned char out[600];

    (void)state;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        for (unsigned int k = 1; k <= 3; k++) {
            char sim[96];
            const char *says = kinds[i].says;
            struct fixture f;
            uint64_t words;

            if (k == 3 && strstr(says, "short") != NULL)
                says = "returned 95 of 96 bytes (short read)";
            snprintf(sim, sizeof(sim), "os-value=11,%s%u", kinds[i].sim, k);
            up(&f, sim, mix_os);
            memset(out, 0xee, sizeof(out));
            assert_int_equal(generate(&f, out, sizeof(out)), 0);
            if (!all_zero(out, sizeof(out)))
                fail_msg("%s: a failed request left output behind", sim);
            assert_int_equal(fake_last_reason(), RDRAND_R_OS_ENTROPY_FAILED);
            if (strstr(fake_last_message(), says) == NULL
                || strstr(fake_last_message(), "generate request of 600 bytes")
                       == NULL)
                fail_msg("%s: \"%s\" lacks \"%s\"", sim, fake_last_message(),
                         says);
            assert_int_equal(ctr(&f, RDRAND_PARAM_OS_FAILURES), 1);
            assert_int_equal(ctr(&f, RDRAND_PARAM_OS_BYTES), 256 * (k - 1));
            assert_int_equal(ctr(&f, RDRAND_PARAM_GENERATE_FAILURES), 1);
            assert_int_equal(ctr(&f, RDRAND_PARAM_HEALTH_TRIPS), 0);
            assert_int_equal(ctr(&f, RDRAND_PARAM_RDRAND_FAILURES), 0);
            assert_string_equal(
                fake_get_utf8(f.prov, f.provctx, RDRAND_PARAM_HEALTH_VERDICT),
                "ok");
            words = ctr(&f, RDRAND_PARAM_RDRAND_WORDS);
            assert_int_equal(fake_get_int(f.prov, f.provctx, "status"), 1);
            assert_int_equal(generate(&f, out, sizeof(out)), 1);
            assert_false(all_zero(out, sizeof(out)));
            assert_int_equal(ctr(&f, RDRAND_PARAM_OS_BYTES),
                             256 * (k - 1) + 608);
            /* 19 blocks of 6 words, and the APT references among them. */
            assert_in_range(ctr(&f, RDRAND_PARAM_RDRAND_WORDS) - words, 114,
                            114 + 114 / 511 + 1);
            down(&f);
        }
}

/*
 * RDRAND failing (CF=0) at each word of a 48-byte seed with mix = os:
 * the seed fails closed as with RDRAND alone, the OS's read that came
 * first is counted as read, and no OS failure is counted.
 */
static void test_rdrand_fails_at_every_word(void **state)
{
    struct fixture f;
    unsigned char warm[16];
    uint64_t before, after;

    (void)state;
    /* The dry run: where the seed's words fall in the CPU's executions. */
    up(&f, "os-value=11", mix_os);
    assert_int_equal(generate(&f, warm, sizeof(warm)), 1);
    before = rdrand_sim_executions();
    {
        unsigned char *seed = NULL;
        size_t n = RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(
            f.ctx, &seed, 384, 48, 48, 0, NULL, 0);

        assert_int_equal(n, 48);
        RAND_FN(clear_seed, OSSL_FUNC_RAND_CLEAR_SEED)(f.ctx, seed, n);
    }
    after = rdrand_sim_executions();
    down(&f);
    assert_in_range(after - before, 12, 13); /* 2 blocks of 6 words */

    for (uint64_t k = before + 1; k <= after; k++) {
        char sim[64];
        unsigned char *seed = (unsigned char *)1;
        size_t n;

        snprintf(sim, sizeof(sim), "os-value=11,fail-at=%llu",
                 (unsigned long long)k);
        up(&f, sim, mix_os);
        assert_int_equal(generate(&f, warm, sizeof(warm)), 1);
        n = RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(f.ctx, &seed, 384, 48,
                                                       48, 0, NULL, 0);
        assert_int_equal(n, 0);
        assert_null(seed);
        assert_int_equal(fake_last_reason(), RDRAND_R_RDRAND_FAILED);
        assert_int_equal(ctr(&f, RDRAND_PARAM_RDRAND_FAILURES), 1);
        assert_int_equal(ctr(&f, RDRAND_PARAM_SEED_FAILURES), 1);
        assert_int_equal(ctr(&f, RDRAND_PARAM_SEED_BYTES), 0);
        assert_int_equal(ctr(&f, RDRAND_PARAM_OS_BYTES), 32 + 64);
        assert_int_equal(ctr(&f, RDRAND_PARAM_OS_FAILURES), 0);
        assert_int_equal(ctr(&f, RDRAND_PARAM_HEALTH_TRIPS), 1);
        down(&f);
    }
}

/* stderr into a file, for the child that checks the warning lines. */
static FILE *capture_stderr(void)
{
    FILE *file = tmpfile();

    assert_non_null(file);
    fflush(stderr);
    assert_true(dup2(fileno(file), STDERR_FILENO) >= 0);
    return file;
}

static size_t count_lines(FILE *file, const char *needle)
{
    char line[1024];
    size_t n = 0;

    fflush(stderr);
    rewind(file);
    while (fgets(line, sizeof(line), file) != NULL)
        n += strstr(line, needle) != NULL;
    return n;
}

/*
 * Two OS failures: one line, naming getrandom and the errno.  A CF=0
 * after them still gets the hardware's own line: the OS's warning does
 * not use it up.
 */
static void warns_once(void *arg)
{
    static const char *const config[] = {"mix", "os", "warn", "stderr", NULL};
    unsigned char out[32];
    struct fixture f;
    FILE *lines;

    (void)arg;
    lines = capture_stderr();
    up(&f, "os-value=11,os-fail-from=1,os-errno=EPERM", config);
    assert_int_equal(generate(&f, out, sizeof(out)), 0);
    assert_int_equal(generate(&f, out, sizeof(out)), 0);
    assert_int_equal(count_lines(lines, "getrandom"), 1);
    assert_int_equal(count_lines(lines, "EPERM: a seccomp filter"), 1);
    assert_int_equal(count_lines(lines, "CF=0"), 0);
    assert_int_equal(ctr(&f, RDRAND_PARAM_OS_FAILURES), 2);
    down(&f);
    /* Now RDRAND fails (CF=0) within a few requests: its line comes. */
    up(&f, "os-value=11,fail-at=100", config);
    for (int i = 0; i < 20 && generate(&f, out, sizeof(out)) == 1; i++)
        ;
    assert_int_equal(fake_last_reason(), RDRAND_R_RDRAND_FAILED);
    down(&f);
    assert_int_equal(count_lines(lines, "CF=0"), 1);
    assert_int_equal(count_lines(lines, "getrandom"), 1);
}

static void test_warns_once(void **state)
{
    (void)state;
    fake_in_child(warns_once, NULL);
}

/* Threads: every request is served, and every OS byte is counted once. */
#define THREADS 8
#define ROUNDS 200

struct worker {
    struct fixture *f;
    unsigned char first[ROUNDS][8];
    int ok;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    OSSL_FUNC_rand_get_seed_fn *get_seed =
        RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED);
    OSSL_FUNC_rand_clear_seed_fn *clear_seed =
        RAND_FN(clear_seed, OSSL_FUNC_RAND_CLEAR_SEED);

    w->ok = 0;
    for (int i = 0; i < ROUNDS; i++) {
        unsigned char *seed = NULL;
        size_t n = get_seed(w->f->ctx, &seed, 384, 48, 48, 0, NULL, 0);

        if (n != 48)
            return NULL;
        memcpy(w->first[i], seed, 8);
        clear_seed(w->f->ctx, seed, n);
    }
    w->ok = 1;
    return NULL;
}

static int cmp8(const void *a, const void *b)
{
    return memcmp(a, b, 8);
}

static void test_threads(void **state)
{
    static struct worker workers[THREADS];
    static unsigned char all[THREADS * ROUNDS][8];
    pthread_t tid[THREADS];
    struct fixture f;

    (void)state;
    up(&f, "", mix_os); /* the real getrandom */
    for (int t = 0; t < THREADS; t++) {
        workers[t].f = &f;
        assert_int_equal(pthread_create(&tid[t], NULL, work, &workers[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(tid[t], NULL), 0);
        assert_true(workers[t].ok);
        memcpy(all[t * ROUNDS], workers[t].first, sizeof(workers[t].first));
    }
    assert_int_equal(ctr(&f, RDRAND_PARAM_OS_BYTES),
                     (uint64_t)THREADS * ROUNDS * 64);
    assert_int_equal(ctr(&f, RDRAND_PARAM_OS_FAILURES), 0);
    assert_int_equal(ctr(&f, RDRAND_PARAM_SEED_BYTES),
                     (uint64_t)THREADS * ROUNDS * 48);
    qsort(all, THREADS * ROUNDS, 8, cmp8);
    for (size_t i = 1; i < THREADS * ROUNDS; i++)
        assert_int_not_equal(memcmp(all[i - 1], all[i], 8), 0);
    down(&f);
}

/*
 * fork(): with the simulated CPU's stream shared with the child
 * (stream=shared), as a real CPU's is, parent and child draw the CPU's
 * next words, each its own, and the child counts its own 64 bytes of the
 * OS's under mix = os, none under mix = none.  The control: on a CPU
 * whose child replays the words its parent is about to draw
 * (stream=process), the child is served first and the parent's next
 * request fails, under mix = none and mix = os alike: the RDRAND words
 * are judged before anything is mixed, and the tables of words seen are
 * shared with the child.  *child_ok and *parent_ok: who was served.
 */
static void seeds_after_fork(const char *sim, const char *const *config,
                             unsigned char *parent, unsigned char *child,
                             uint64_t *child_os_bytes, int *child_ok,
                             int *parent_ok)
{
    struct fixture f;
    unsigned char warm[16];
    int fds[2], status;
    pid_t pid;

    up(&f, sim, config);
    assert_int_equal(generate(&f, warm, sizeof(warm)), 1);
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    assert_true((pid = fork()) >= 0);
    if (pid == 0) {
        unsigned char out[48];
        uint64_t before = ctr(&f, RDRAND_PARAM_OS_BYTES), delta;

        if (generate(&f, out, sizeof(out)) != 1)
            _exit(4);
        delta = ctr(&f, RDRAND_PARAM_OS_BYTES) - before;
        if (write(fds[1], out, sizeof(out)) != (ssize_t)sizeof(out)
            || write(fds[1], &delta, sizeof(delta)) != (ssize_t)sizeof(delta))
            _exit(3);
        _exit(0);
    }
    close(fds[1]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    *child_ok = WEXITSTATUS(status) == 0;
    if (*child_ok) {
        assert_int_equal(read(fds[0], child, 48), 48);
        assert_int_equal(read(fds[0], child_os_bytes, sizeof(*child_os_bytes)),
                         sizeof(*child_os_bytes));
    } else {
        assert_int_equal(WEXITSTATUS(status), 4);
    }
    close(fds[0]);
    /* after the child: with a shared stream the parent's words are new */
    *parent_ok = generate(&f, parent, 48) == 1;
    down(&f);
}

static void test_fork(void **state)
{
    unsigned char parent[48], child[48];
    uint64_t child_os;
    int child_ok, parent_ok;

    (void)state;
    seeds_after_fork("stream=shared", mix_none, parent, child, &child_os,
                     &child_ok, &parent_ok);
    assert_true(child_ok && parent_ok);
    assert_memory_not_equal(parent, child, 48);
    assert_int_equal(child_os, 0);
    seeds_after_fork("stream=shared", mix_os, parent, child, &child_os,
                     &child_ok, &parent_ok);
    assert_true(child_ok && parent_ok);
    assert_memory_not_equal(parent, child, 48);
    assert_int_equal(child_os, 64);
    /* the control: the parent may not serve what its child already did */
    seeds_after_fork("stream=process", mix_none, parent, child, &child_os,
                     &child_ok, &parent_ok);
    assert_true(child_ok && !parent_ok);
    seeds_after_fork("stream=process", mix_os, parent, child, &child_os,
                     &child_ok, &parent_ok);
    assert_true(child_ok && !parent_ok);
}

/*
 * reduce512 under the mix: its blocks are the words mixed (6 AES blocks
 * for the 96 bytes of a 48-byte request).  The AES code runs on this
 * machine's CPU, which must have AES-NI.
 */
static void test_reduce512_mixed(void **state)
{
    static const char *const config[] = {
        "mix", "os", "conditioning", "reduce512", "warn", "none", NULL};
    unsigned char out[48];
    struct fixture f;

    (void)state;
    if (!__builtin_cpu_supports("aes"))
        skip();
    up(&f, "os-value=11", config);
    assert_int_equal(generate(&f, out, sizeof(out)), 1);
    assert_int_equal(ctr(&f, RDRAND_PARAM_CONDITIONED_BLOCKS), 6);
    assert_int_equal(ctr(&f, RDRAND_PARAM_OS_BYTES), 64);
    down(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_known_answers_os_positions),
        cmocka_unit_test(test_known_answer_through_provider),
        cmocka_unit_test(test_os_fails_at_every_read),
        cmocka_unit_test(test_rdrand_fails_at_every_word),
        cmocka_unit_test(test_warns_once),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_fork),
        cmocka_unit_test(test_reduce512_mixed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
