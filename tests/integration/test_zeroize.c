/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Zeroization.  Allocation hooks (CRYPTO_set_mem_functions, installed
 * before libcrypto allocates anything) record every buffer allocated by
 * provider/ code and check, when it is freed, that every byte is zero.
 * The secure heap is left uninitialised on purpose: OPENSSL_secure_*
 * then fall through to CRYPTO_malloc/CRYPTO_free, so the hooks see the
 * provider's secure allocations too.  Then: the provider's live memory
 * holds no delivered word, the stack holds no run of
 * self-test or CoCo words after init, and the CoCo scratch is wiped; in
 * conditioning = reduce512, the key and the raw words leave no trace;
 * in mix = os, neither the raw words nor the OS's bytes do.
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
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

#include "fake_core.h"
#include "health.h"
#include "load.h"
#include "prov.h"
#include "rand.h"
#include "seams.h"
#include "sim.h"
#include "source.h"
#include "stack_scan.h"

/* ---- allocation hooks ---- */

struct alloc {
    void *p;
    size_t n;
    const char *file;
    int line;
};

static struct alloc live[256]; /* provider/ allocations not yet freed */
static size_t nlive;
static uint64_t checked_frees, dirty_frees, provider_allocs;
static char dirty_where[128];
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;

static int from_provider(const char *file)
{
    return file != NULL && strncmp(file, "provider/", 9) == 0;
}

static void track(void *p, size_t n, const char *file, int line)
{
    pthread_mutex_lock(&hooks_lock);
    if (nlive == sizeof(live) / sizeof(live[0]))
        abort(); /* more live provider buffers than any test makes */
    live[nlive++] = (struct alloc){p, n, file, line};
    provider_allocs++;
    pthread_mutex_unlock(&hooks_lock);
}

static void untrack_and_check(void *p)
{
    pthread_mutex_lock(&hooks_lock);
    for (size_t i = 0; i < nlive; i++) {
        if (live[i].p != p)
            continue;
        const unsigned char *b = p;
        unsigned char any = 0;

        for (size_t j = 0; j < live[i].n; j++)
            any |= b[j];
        checked_frees++;
        if (any != 0) {
            dirty_frees++;
            snprintf(dirty_where, sizeof(dirty_where), "%s:%d (%zu bytes)",
                     live[i].file, live[i].line, live[i].n);
        }
        live[i] = live[--nlive];
        break;
    }
    pthread_mutex_unlock(&hooks_lock);
}

static void *hook_malloc(size_t n, const char *file, int line)
{
    void *p = malloc(n);

    if (p != NULL && from_provider(file))
        track(p, n, file, line);
    return p;
}

static void *hook_realloc(void *p, size_t n, const char *file, int line)
{
    if (p != NULL)
        untrack_and_check(p); /* the old contents go back to the heap */
    p = realloc(p, n);
    if (p != NULL && from_provider(file))
        track(p, n, file, line);
    return p;
}

static void hook_free(void *p, const char *file, int line)
{
    (void)file, (void)line;
    if (p != NULL)
        untrack_and_check(p);
    free(p);
}

static void assert_all_freed_clean(uint64_t frees_before, uint64_t at_least)
{
    if (dirty_frees != 0)
        fail_msg("%llu provider buffers freed with data in them, last "
                 "allocated at %s",
                 (unsigned long long)dirty_frees, dirty_where);
    if (checked_frees - frees_before < at_least)
        fail_msg("only %llu provider buffers freed, expected %llu or more",
                 (unsigned long long)(checked_frees - frees_before),
                 (unsigned long long)at_least);
}

/* ---- the simulated CPU's words, known to the test ---- */

/*
 * More than any test here draws: the file replays in a loop, and a loop
 * is a cycle the long-cycle test catches.
 */
#define NWORDS 16384
static uint64_t words[NWORDS];
/* words sorted, with each one's index, for the scans' lookups */
static struct indexed {
    uint64_t value;
    int index;
} sorted[NWORDS];
static char words_path[] = "/tmp/rdrand-zeroize-XXXXXX";
static char words_spec[64];

static int by_value(const void *a, const void *b)
{
    uint64_t x = ((const struct indexed *)a)->value;
    uint64_t y = ((const struct indexed *)b)->value;

    return (x > y) - (x < y);
}

/* The index of word v, or -1 if it is none of the simulated CPU's. */
static int word_index(uint64_t v)
{
    struct indexed key = {v, 0};
    const struct indexed *hit =
        bsearch(&key, sorted, NWORDS, sizeof(sorted[0]), by_value);

    return hit != NULL ? hit->index : -1;
}

static int write_words(void **state)
{
    int fd = mkstemp(words_path);
    FILE *f;

    (void)state;
    if (fd < 0 || (f = fdopen(fd, "w")) == NULL)
        return -1;
    for (int i = 0; i < NWORDS; i++) {
        uint64_t z = (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ULL; /* splitmix */

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        words[i] = z ^ (z >> 31);
        fprintf(f, "%016llx\n", (unsigned long long)words[i]);
    }
    for (int i = 0; i < NWORDS; i++)
        sorted[i] = (struct indexed){words[i], i};
    qsort(sorted, NWORDS, sizeof(sorted[0]), by_value);
    snprintf(words_spec, sizeof(words_spec), "words=%s", words_path);
    return fclose(f) == 0 ? 0 : -1;
}

static int remove_words(void **state)
{
    (void)state;
    return unlink(words_path);
}

/* Any known word anywhere in [p, p + n), at any byte offset. */
static int holds_word(const volatile unsigned char *p, size_t n)
{
    for (size_t off = 0; off + 8 <= n; off++)
        if (word_index(load64(p + off)) >= 0)
            return 1;
    return 0;
}

/* A run the scan ignores: one starting at this word, or none (-1). */
static int scan_except = -1;

/*
 * Two consecutive known words side by side in the dead stack below this
 * frame: the trace of an undrained buffer (the self-test's words, the
 * CoCo scratch, a seed).  A lone word may be a register spill the
 * compiler made; a run of two is a buffer.
 */
__attribute__((noinline, no_sanitize("address", "thread"))) static int
stack_holds_buffer(void)
{
    const volatile unsigned char *sp = __builtin_frame_address(0);

    for (size_t off = 16; off <= 48 * 1024; off++) {
        int i = word_index(load64(sp - off));

        if (i >= 0 && i != scan_except && i + 1 < NWORDS
            && load64(sp - off + 8) == words[i + 1])
            return 1;
    }
    return 0;
}

/*
 * The scanner's positive control: a buffer left on the stack is found.
 * Called again with 0, the same frame overwrites it.
 */
__attribute__((noinline)) static void leave_buffer_on_stack(int leave)
{
    volatile uint64_t buf[4] = {0};

    if (leave)
        for (int i = 0; i < 4; i++)
            buf[i] = words[5 + i];
    (void)buf[0];
}

/*
 * The same from a frame 512 bytes deeper, where the provider's own frames
 * are: straight below the caller, the buffer shares the depth of the
 * scanner's own locals, which overwrite it in some builds (clang, gcc
 * -O0), and the calibration failed for a reason that is not the scan's.
 */
__attribute__((noinline)) static void leave_buffer_deep(int leave)
{
    unsigned char pad[512];

    OPENSSL_cleanse(pad, sizeof(pad)); /* the whole of it, in the frame */
    leave_buffer_on_stack(leave);
    OPENSSL_cleanse(pad, sizeof(pad));
}

/*
 * mix = os: the simulated OS gives every byte as MIX_OS_BYTE, so a run of
 * 16 of them in the dead stack is the trace of an undrained OS buffer
 * (or of a hash state holding its bytes).
 */
#define MIX_OS_BYTE 0xc3
__attribute__((noinline, no_sanitize("address", "thread"))) static int
stack_holds_os_bytes(void)
{
    const volatile unsigned char *sp = __builtin_frame_address(0);
    size_t run = 0;

    for (size_t off = 16; off <= 48 * 1024; off++) {
        run = sp[-(ptrdiff_t)off] == MIX_OS_BYTE ? run + 1 : 0;
        if (run == 16)
            return 1;
    }
    return 0;
}

/* 16 bytes of p anywhere in the dead stack: a delivered block left there. */
__attribute__((noinline, no_sanitize("address", "thread"))) static int
stack_holds_bytes(const unsigned char *p)
{
    const volatile unsigned char *sp = __builtin_frame_address(0);

    for (size_t off = 16; off <= 48 * 1024; off++) {
        size_t i = 0;

        while (i < 16 && sp[(ptrdiff_t)i - (ptrdiff_t)off] == p[i])
            i++;
        if (i == 16)
            return 1;
    }
    return 0;
}

/* The OS scan's positive control, as leave_buffer_deep's. */
__attribute__((noinline)) static void leave_os_bytes(int leave)
{
    volatile unsigned char buf[32];

    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = leave ? MIX_OS_BYTE : 0;
    (void)buf[0];
}

__attribute__((noinline)) static void leave_os_bytes_deep(int leave)
{
    unsigned char pad[512];

    OPENSSL_cleanse(pad, sizeof(pad));
    leave_os_bytes(leave);
    OPENSSL_cleanse(pad, sizeof(pad));
}

/* Zero the dead stack the scan looks at, so it starts from nothing. */
__attribute__((noinline)) static void wipe_dead_stack(void)
{
    unsigned char area[56 * 1024];

    OPENSSL_cleanse(area, sizeof(area));
}

/* ---- tests ---- */

#define RAND_FN(type, id)                                                      \
    ((OSSL_FUNC_rand_##type##_fn *)fake_dispatch_fn(rdrand_rand_functions, id))

/* A RAND context on provctx, instantiated at strength 256. */
static void *ready_ctx(void *provctx)
{
    void *ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(provctx, NULL, NULL);

    assert_non_null(ctx);
    assert_int_equal(RAND_FN(instantiate, OSSL_FUNC_RAND_INSTANTIATE)(
                         ctx, 256, 0, NULL, 0, NULL),
                     1);
    return ctx;
}

/* get_seed's buffer: wiped by clear_seed and on every failure path. */
static int zeroized(void *ctx)
{
    return RAND_FN(verify_zeroization, OSSL_FUNC_RAND_VERIFY_ZEROIZATION)(ctx);
}

static void test_seed_buffers(void **state)
{
    uint64_t before = checked_frees;
    const OSSL_DISPATCH *prov;
    void *provctx, *ctx;
    unsigned char *seed;
    char spec[32];
    size_t len;

    (void)state;
    assert_int_equal(fake_provider_init("", NULL, &provctx, &prov), 1);
    ctx = ready_ctx(provctx);
    /*
     * Success, then clear_seed; sizes that end mid-word too.  Seeds up to
     * 64 bytes are written into the context (rand.c) and wiped in place:
     * verify_zeroization reads that buffer.  Larger ones are heap buffers
     * the hooks check when they are freed.
     */
    for (size_t want = 1; want <= 96; want++) {
        len = RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(ctx, &seed, 0, want,
                                                         want, 0, NULL, 0);
        assert_int_equal(len, want);
        RAND_FN(clear_seed, OSSL_FUNC_RAND_CLEAR_SEED)(ctx, seed, len);
        assert_int_equal(zeroized(ctx), 1);
    }
    /* CF=0 at every word of a 48-byte seed: the buffer is freed wiped. */
    for (int k = 1; k <= 6; k++) {
        /* a new CPU each time (after forget: the self-test, then the seed) */
        snprintf(spec, sizeof(spec), "fail-at=%d", RDRAND_SELFTEST_WORDS + k);
        sim_or_fail(spec);
        rdrand_source_forget();
        assert_int_equal(RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(
                             ctx, &seed, 384, 48, 48, 0, NULL, 0),
                         0);
        assert_null(seed);
        assert_int_equal(zeroized(ctx), 1);
    }
    /* A health-test failure (a repeated word) half-way. */
    sim_or_fail("value=0123456789abcdef");
    rdrand_source_forget();
    assert_int_equal(RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(
                         ctx, &seed, 384, 48, 48, 0, NULL, 0),
                     0);
    assert_null(seed);
    assert_int_equal(zeroized(ctx), 1);
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
    /* The 32 seeds above 64 bytes, the context, the provider. */
    assert_all_freed_clean(before, 32 + 2);
    assert_int_equal(nlive, 0);
}

static uint64_t seed_requests(OSSL_PROVIDER *prov)
{
    uint64_t n = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_uint64(RDRAND_PARAM_SEED_REQUESTS, &n),
                      OSSL_PARAM_END};

    assert_int_equal(OSSL_PROVIDER_get_params(prov, p), 1);
    return n;
}

/*
 * The same through libcrypto: an RDRAND parent under a CTR-DRBG with
 * prediction resistance, so every generate takes one seed from the
 * parent and hands it back.  Afterwards the parent holds no seed
 * (verify_zeroization reads seed[] and whether it is out), and it was
 * asked for exactly one seed per generate.
 */
static void test_libcrypto_chain(void **state)
{
    uint64_t before = checked_frees, requests;
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov, *deflt;
    EVP_RAND *rdrand, *ctr;
    EVP_RAND_CTX *parent, *drbg;
    char aes[] = "AES-256-CTR";
    OSSL_PARAM cipher[] = {
        OSSL_PARAM_utf8_string(OSSL_DRBG_PARAM_CIPHER, aes, sizeof(aes) - 1),
        OSSL_PARAM_END};
    unsigned char buf[64];

    (void)state;
    sim_or_fail("");
    rdrand_source_forget(); /* a new CPU: no verdict of earlier tests */
    assert_non_null(libctx);
    assert_int_equal(OSSL_PROVIDER_add_builtin(libctx, RDRAND_PROVIDER_NAME,
                                               OSSL_provider_init),
                     1);
    assert_non_null(prov = OSSL_PROVIDER_load(libctx, RDRAND_PROVIDER_NAME));
    assert_non_null(deflt = OSSL_PROVIDER_load(libctx, "default"));
    assert_non_null(rdrand = EVP_RAND_fetch(libctx, RDRAND_ALGORITHM_NAME,
                                            "provider=rdrand-sim"));
    assert_non_null(ctr = EVP_RAND_fetch(libctx, "CTR-DRBG", NULL));
    assert_non_null(parent = EVP_RAND_CTX_new(rdrand, NULL));
    assert_int_equal(EVP_RAND_instantiate(parent, 256, 0, NULL, 0, NULL), 1);
    assert_non_null(drbg = EVP_RAND_CTX_new(ctr, parent));
    assert_int_equal(EVP_RAND_instantiate(drbg, 256, 1, NULL, 0, cipher), 1);
    assert_int_equal(EVP_RAND_verify_zeroization(parent), 1);
    requests = seed_requests(prov);
    for (int i = 0; i < 100; i++)
        assert_int_equal(
            EVP_RAND_generate(drbg, buf, sizeof(buf), 256, 1, NULL, 0), 1);
    assert_int_equal(seed_requests(prov) - requests, 100);
    assert_int_equal(EVP_RAND_verify_zeroization(parent), 1);
    EVP_RAND_CTX_free(drbg);
    EVP_RAND_CTX_free(parent);
    EVP_RAND_free(ctr);
    EVP_RAND_free(rdrand);
    OSSL_PROVIDER_unload(deflt);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    /* The RAND context and the provider context, freed wiped. */
    assert_all_freed_clean(before, 2);
    assert_int_equal(nlive, 0);
}

/*
 * What the provider keeps between calls: no byte of its live memory
 * (provider and RAND context) holds a delivered word, before or after
 * uninstantiate, and verify_zeroization says so.
 */
static void test_context_scan(void **state)
{
    const OSSL_DISPATCH *prov;
    void *provctx, *ctx;
    unsigned char out[100];
    unsigned char *seed;
    size_t len;

    (void)state;
    assert_int_equal(fake_provider_init(words_spec, NULL, &provctx, &prov), 1);
    ctx = ready_ctx(provctx);
    assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                         ctx, out, sizeof(out), 256, 0, NULL, 0),
                     1);
    assert_true(holds_word(out, sizeof(out))); /* the scan sees words */
    OPENSSL_cleanse(out, sizeof(out));
    len = RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(ctx, &seed, 256, 32, 32, 0,
                                                     NULL, 0);
    assert_int_equal(len, 32);
    RAND_FN(clear_seed, OSSL_FUNC_RAND_CLEAR_SEED)(ctx, seed, len);
    assert_int_equal(nlive, 2); /* the provider and the RAND context */
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            assert_int_equal(
                RAND_FN(uninstantiate, OSSL_FUNC_RAND_UNINSTANTIATE)(ctx), 1);
        assert_int_equal(
            RAND_FN(verify_zeroization, OSSL_FUNC_RAND_VERIFY_ZEROIZATION)(ctx),
            1);
        for (size_t i = 0; i < nlive; i++)
            if (holds_word(live[i].p, live[i].n))
                fail_msg("a delivered word is in %s:%d (%zu bytes)",
                         live[i].file, live[i].line, live[i].n);
    }
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
}

/*
 * The startup self-test and the CoCo check at load (256 bits)
 * draw into stack buffers and wipe them: after OSSL_provider_init in a
 * simulated TDX guest, no run of those words is left on the stack.
 */
static void test_stack_after_init(void **state)
{
    const OSSL_DISPATCH *prov;
    void *provctx;
    char spec[96];

    (void)state;
    leave_buffer_deep(1);
    assert_true(stack_holds_buffer()); /* the scan finds a left buffer */
    leave_buffer_deep(0);
    wipe_dead_stack();
    assert_false(stack_holds_buffer());

    /* No CoCo: the self-test alone (its frame is not overwritten). */
    assert_int_equal(fake_provider_init(words_spec, NULL, &provctx, &prov), 1);
    assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS);
    assert_false(stack_holds_buffer());
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);

    wipe_dead_stack();
    snprintf(spec, sizeof(spec), "%s,coco=tdx", words_spec);
    assert_int_equal(fake_provider_init(spec, NULL, &provctx, &prov), 1);
    assert_int_equal(((struct rdrand_prov *)provctx)->coco_seed_bits, 256);
    assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS + 4);
    assert_false(stack_holds_buffer());
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
}

/*
 * conditioning = reduce512: the key drawn at load (two words, side by
 * side) and the chunks of raw words MACed per block leave no run on the
 * stack, after a good request and after one failing half-way (out wiped
 * then, the first block's bytes too); the expanded key goes with the
 * provider context, freed wiped.
 */
static void test_conditioning_buffers(void **state)
{
    static const char *const config[] = {"conditioning", "reduce512", "warn",
                                         "none", NULL};
    static const unsigned char zero[48];
    uint64_t before = checked_frees;
    const OSSL_DISPATCH *prov;
    void *provctx, *ctx;
    unsigned char out[48];
    char spec[96];

    (void)state;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("aes"))
        skip(); /* the AES-NI code runs on the real CPU */
    wipe_dead_stack();
    assert_int_equal(fake_provider_init(words_spec, config, &provctx, &prov),
                     1);
    assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS + 2);
    assert_true(((struct rdrand_prov *)provctx)->cond_key.ready);
    assert_false(stack_holds_buffer());
    ctx = ready_ctx(provctx);
    wipe_dead_stack();
    assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                         ctx, out, sizeof(out), 256, 0, NULL, 0),
                     1);
    assert_false(holds_word(out, sizeof(out))); /* blocks, not words */
#ifndef __OPTIMIZE__
    /*
     * The first round key is the key itself (words 64 and 65), which an
     * unoptimised build (Debug, the sanitizers) leaves in the AES code's
     * dead frame: not secret (docs/conditioning.md).  An optimised build
     * keeps it in XMM registers, cleared before the AES code returns, so
     * there the key may leave no run either.  No run of the raw words
     * may be there in any build.
     */
    scan_except = RDRAND_SELFTEST_WORDS;
#endif
    assert_false(stack_holds_buffer());
    /* CF=0 in the second block: the first block's bytes wiped too. */
    snprintf(spec, sizeof(spec), "%s,fail-at=1500", words_spec);
    sim_or_fail(spec);
    /* A new CPU replaying the same words: the request self-tests first. */
    rdrand_source_forget();
    wipe_dead_stack();
    memset(out, 0xa5, sizeof(out));
    assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                         ctx, out, sizeof(out), 256, 0, NULL, 0),
                     0);
    assert_int_equal(rdrand_sim_executions(), 1500);
    assert_memory_equal(out, zero, sizeof(out));
    assert_false(stack_holds_buffer());
    scan_except = -1;
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
    /* The RAND context and the provider context (the key), wiped. */
    assert_all_freed_clean(before, 2);
    assert_int_equal(nlive, 0);
}

/*
 * mix = os: the RDRAND words and the OS's bytes of each chunk, and the
 * hash state, leave no run on the stack after a good request, after one
 * whose second OS read fails and after one whose RDRAND fails half-way
 * (out wiped then, the first chunk's blocks too); none allocates.
 */
static void test_mix_buffers(void **state)
{
    static const char *const config[] = {"mix", "os", "warn", "none", NULL};
    static unsigned char out[600];
    static const unsigned char zero[sizeof(out)];
    const OSSL_DISPATCH *prov;
    void *provctx, *ctx;
    char spec[128];
    uint64_t allocs;

    (void)state;
    leave_os_bytes_deep(1);
    assert_true(stack_holds_os_bytes()); /* the scan finds a left buffer */
    leave_os_bytes_deep(0);
    wipe_dead_stack();
    assert_false(stack_holds_os_bytes());

    for (int round = 0; round < 3; round++) {
        static const char *const faults[] = {"", ",os-fail-at=2",
                                             ",fail-at=150"};

        snprintf(spec, sizeof(spec), "%s,os-value=%x%s", words_spec,
                 MIX_OS_BYTE, faults[round]);
        assert_int_equal(fake_provider_init(spec, config, &provctx, &prov), 1);
        ctx = ready_ctx(provctx);
        wipe_dead_stack();
        memset(out, 0xa5, sizeof(out));
        allocs = provider_allocs;
        assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                             ctx, out, sizeof(out), 256, 0, NULL, 0),
                         round == 0);
        /* No allocation on the path (the thread's state is static TLS). */
        assert_int_equal(provider_allocs, allocs);
        if (round == 0) {
            assert_false(holds_word(out, sizeof(out))); /* digests */
            /* The last full block is a digest the mix made: not left. */
            assert_false(stack_holds_bytes(out + 576));
        } else
            assert_memory_equal(out, zero, sizeof(out));
        assert_true(rdrand_sim_os_reads() >= 1);
        assert_false(stack_holds_buffer());
        assert_false(stack_holds_os_bytes());
        RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
        ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
            prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
    }
}

/* The CoCo scratch is wiped after a good draw and after a failed one. */
static void test_coco_scratch(void **state)
{
    const OSSL_DISPATCH *prov;
    void *provctx;
    unsigned char scratch[512];
    static const unsigned char zero[sizeof(scratch)];

    (void)state;
    assert_int_equal(fake_provider_init(words_spec, NULL, &provctx, &prov), 1);
    memset(scratch, 0xa5, sizeof(scratch));
    assert_int_equal(rdrand_coco_seed_check(provctx, scratch, sizeof(scratch)),
                     0);
    assert_memory_equal(scratch, zero, sizeof(scratch));
    sim_or_fail("fail-at=3");
    memset(scratch, 0xa5, sizeof(scratch));
    assert_int_not_equal(
        rdrand_coco_seed_check(provctx, scratch, sizeof(scratch)), 0);
    assert_memory_equal(scratch, zero, sizeof(scratch));
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_buffers),
        cmocka_unit_test(test_libcrypto_chain),
        cmocka_unit_test(test_context_scan),
        cmocka_unit_test(test_stack_after_init),
        cmocka_unit_test(test_coco_scratch),
        cmocka_unit_test(test_conditioning_buffers),
        cmocka_unit_test(test_mix_buffers),
    };

    /* Before libcrypto's first allocation, or the call fails. */
    if (!CRYPTO_set_mem_functions(hook_malloc, hook_realloc, hook_free)) {
        fprintf(stderr, "CRYPTO_set_mem_functions failed\n");
        return 1;
    }
    return cmocka_run_group_tests(tests, write_words, remove_words);
}
