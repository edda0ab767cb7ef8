/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conditioning = reduce512 (docs/conditioning.md).  Known answers for the
 * AES-NI CBC-MAC, computed independently with OpenSSL's AES-128-CBC (IV
 * 0: the last ciphertext block is the CBC-MAC) and FIPS 197's vector;
 * the whole provider path on a simulated CPU whose words the test knows
 * (the key is the two words drawn after the self-test at load); CF=0 at
 * every execution of a request fails it closed with exact counts; the
 * health tests still trip; no AES-NI and a failed key draw latch the
 * instance.
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

#include "rdrand_provider.h"

#include "aes.h"
#include "conditioning.h"
#include "counters.h"
#include "errors.h"
#include "fake_core.h"
#include "health.h"
#include "rand.h"
#include "seen_table.h"
#include "sim.h"
#include "source.h"

#define NWORDS 8192 /* a words file longer than any request here draws */
static uint64_t words[NWORDS];
static char words_path[] = "/tmp/rdrand-cond-XXXXXX";
static char words_spec[64];

static const char *const reduce512[] = {"conditioning", "reduce512", "warn",
                                        "none", NULL};

#define RAND_FN(type, id)                                                      \
    ((OSSL_FUNC_rand_##type##_fn *)fake_dispatch_fn(rdrand_rand_functions, id))

/*
 * The AES-NI code runs on the real CPU whatever the simulated one says
 * (rdrand_aes_present asks the simulated CPUID): without it, skip.
 */
static int real_aesni(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("aes");
}

/* ---- the reference: OpenSSL's AES-128-CBC, IV 0, no padding ---- */

static void evp_cbc_mac(const unsigned char key[16], const unsigned char *in,
                        size_t len, unsigned char mac[16])
{
    static const unsigned char iv[16];
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    unsigned char *ct = malloc(len);
    int n = 0;

    assert_non_null(c);
    assert_non_null(ct);
    assert_int_equal(EVP_EncryptInit_ex(c, EVP_aes_128_cbc(), NULL, key, iv),
                     1);
    assert_int_equal(EVP_CIPHER_CTX_set_padding(c, 0), 1);
    assert_int_equal(EVP_EncryptUpdate(c, ct, &n, in, (int)len), 1);
    assert_int_equal(n, (int)len);
    memcpy(mac, ct + len - 16, 16);
    EVP_CIPHER_CTX_free(c);
    free(ct);
}

/* A deterministic stream that passes the health tests (splitmix64). */
static uint64_t mix(uint64_t i)
{
    uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ULL + 0x5bd1e995;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void put_words(unsigned char *out, const uint64_t *w, size_t n)
{
    memcpy(out, w, n * sizeof(*w)); /* RDRAND words as the draw stores them */
}

/* ---- the unit ---- */

/* FIPS 197 appendix C.1: one block from a zero MAC is one encryption. */
static void test_fips197_vector(void **state)
{
    static const unsigned char key[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                          8, 9, 10, 11, 12, 13, 14, 15};
    static const unsigned char pt[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
                                         0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
                                         0xcc, 0xdd, 0xee, 0xff};
    static const unsigned char ct[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b,
                                         0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80,
                                         0x70, 0xb4, 0xc5, 0x5a};
    struct rdrand_aes_key k;
    unsigned char mac[16] = {0};

    (void)state;
    if (!real_aesni())
        skip();
    rdrand_aes_set_key(&k, key);
    rdrand_cond_mac(&k, mac, pt, sizeof(pt));
    assert_memory_equal(mac, ct, sizeof(ct));
    rdrand_aes_forget(&k);
    assert_int_equal(k.ready, 0);
}

/*
 * 512 samples under many keys: the MAC equals OpenSSL's, whether the
 * samples go in at once or in the draw's chunks.
 */
static void test_mac_matches_evp(void **state)
{
    unsigned char in[RDRAND_COND_WORDS * 8], key[16], want[16], got[16];
    struct rdrand_aes_key k;

    (void)state;
    if (!real_aesni())
        skip();
    for (uint64_t round = 0; round < 64; round++) {
        uint64_t w[RDRAND_COND_WORDS],
            kw[2] = {mix(round * 7 + 1000000), mix(round * 7 + 2000000)};

        for (size_t i = 0; i < RDRAND_COND_WORDS; i++)
            w[i] = mix(round * RDRAND_COND_WORDS + i);
        put_words(in, w, RDRAND_COND_WORDS);
        put_words(key, kw, 2);
        evp_cbc_mac(key, in, sizeof(in), want);
        rdrand_aes_set_key(&k, key);
        memset(got, 0, sizeof(got));
        rdrand_cond_mac(&k, got, in, sizeof(in));
        assert_memory_equal(got, want, 16);
        memset(got, 0, sizeof(got));
        for (size_t at = 0; at < sizeof(in); at += RDRAND_COND_CHUNK_WORDS * 8)
            rdrand_cond_mac(&k, got, in + at, RDRAND_COND_CHUNK_WORDS * 8);
        assert_memory_equal(got, want, 16);
    }
}

/*
 * The XMM registers right after the AES code returns, read before
 * anything else can use them.  x86-64 only, as is the AES code.
 */
#define DUMP_XMM(regs)                                                         \
    __asm__ volatile("movdqu %%xmm0, 0(%0)\n\tmovdqu %%xmm1, 16(%0)\n\t"       \
                     "movdqu %%xmm2, 32(%0)\n\tmovdqu %%xmm3, 48(%0)\n\t"      \
                     "movdqu %%xmm4, 64(%0)\n\tmovdqu %%xmm5, 80(%0)\n\t"      \
                     "movdqu %%xmm6, 96(%0)\n\tmovdqu %%xmm7, 112(%0)\n\t"     \
                     "movdqu %%xmm8, 128(%0)\n\tmovdqu %%xmm9, 144(%0)\n\t"    \
                     "movdqu %%xmm10, 160(%0)\n\tmovdqu %%xmm11, 176(%0)\n\t"  \
                     "movdqu %%xmm12, 192(%0)\n\tmovdqu %%xmm13, 208(%0)\n\t"  \
                     "movdqu %%xmm14, 224(%0)\n\tmovdqu %%xmm15, 240(%0)"      \
                     :                                                         \
                     : "r"(regs)                                               \
                     : "memory")

/* Any 8 bytes of any round key in any register half: a leak. */
static int xmm_hold_round_keys(const unsigned char regs[16][16],
                               const struct rdrand_aes_key *k)
{
    for (size_t r = 0; r < 16; r++)
        for (size_t h = 0; h < 16; h += 8)
            for (size_t i = 0; i < 11; i++)
                for (size_t j = 0; j < 16; j += 8)
                    if (memcmp(regs[r] + h, k->round[i] + j, 8) == 0)
                        return 1;
    return 0;
}

/*
 * The key (the first round key) and the others do not stay in XMM
 * registers after key setup nor after a MAC: the dynamic linker's
 * lazy-binding trampoline and signal frames would save them to the stack.
 */
static void test_xmm_cleared(void **state)
{
    _Alignas(16) unsigned char regs[16][16], in[64], mac[16] = {0};
    unsigned char key[16];
    struct rdrand_aes_key k;
    uint64_t kw[2] = {mix(3000000), mix(3000001)};

    (void)state;
    if (!real_aesni())
        skip();
    put_words(key, kw, 2);
    for (size_t i = 0; i < sizeof(in); i++)
        in[i] = (unsigned char)(i * 37 + 1);
    rdrand_aes_set_key(&k, key);
    DUMP_XMM(regs);
    assert_false(xmm_hold_round_keys(regs, &k));
    rdrand_cond_mac(&k, mac, in, sizeof(in));
    DUMP_XMM(regs);
    assert_false(xmm_hold_round_keys(regs, &k));
    rdrand_aes_forget(&k);
}

/* ---- the provider ---- */

struct run {
    void *provctx, *ctx;
    const OSSL_DISPATCH *prov;
};

static int run_up(struct run *r, const char *spec, const char *const *config)
{
    int ok = fake_provider_init(spec, config, &r->provctx, &r->prov);

    assert_int_equal(ok, 1);
    r->ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(r->provctx, NULL, NULL);
    assert_non_null(r->ctx);
    assert_int_equal(RAND_FN(instantiate, OSSL_FUNC_RAND_INSTANTIATE)(
                         r->ctx, 256, 0, NULL, 0, NULL),
                     1);
    return fake_get_int(r->prov, r->provctx, "status");
}

static void run_down(struct run *r)
{
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(r->ctx);
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        r->prov, OSSL_FUNC_PROVIDER_TEARDOWN))(r->provctx);
}

static int generate(struct run *r, unsigned char *out, size_t len)
{
    return RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(r->ctx, out, len, 256, 0,
                                                      NULL, 0);
}

static uint64_t ctr(struct run *r, const char *name)
{
    return fake_get_u64(r->prov, r->provctx, name);
}

/*
 * The stream as the draw consumes it: words from *at on, a word that
 * opens an APT window (*apt == 0) being its reference, never delivered
 * (provider/draw.h).  Fills n samples' words.
 */
static void take_samples(size_t *at, uint32_t *apt, uint64_t *w, size_t n)
{
    for (size_t got = 0; got < n; (*at)++) {
        int reference = *apt == 0;

        *apt = (*apt + 1) % RDRAND_APT_WINDOW;
        if (!reference)
            w[got++] = words[*at % NWORDS];
    }
}

/* What blocks of the stream condition to, computed with EVP. */
static void expected(const unsigned char key[16], size_t *at, uint32_t *apt,
                     unsigned char *out, size_t len)
{
    static uint64_t w[RDRAND_COND_WORDS];
    unsigned char in[sizeof(w)], mac[16];

    for (size_t done = 0; done < len; done += 16) {
        take_samples(at, apt, w, RDRAND_COND_WORDS);
        put_words(in, w, RDRAND_COND_WORDS);
        evp_cbc_mac(key, in, sizeof(in), mac);
        memcpy(out + done, mac, len - done < 16 ? len - done : 16);
    }
}

/*
 * Through the dispatch table: a generate of 40 bytes (the last block
 * truncated) and a 48-byte seed equal EVP's CBC-MAC of the known stream
 * under the key the provider drew at load (the two words after the
 * self-test); the counters say what was drawn and delivered.
 */
static void test_provider_kat(void **state)
{
    struct run r;
    unsigned char key[16], want[48], got[48], *seed = NULL;
    uint64_t words0 = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS), blocks0;
    uint32_t apt;
    size_t at = RDRAND_SELFTEST_WORDS + 2;

    (void)state;
    if (!real_aesni())
        skip();
    assert_int_equal(run_up(&r, words_spec, reduce512), 1);
    assert_string_equal(
        fake_get_utf8(r.prov, r.provctx, RDRAND_PARAM_CONDITIONING),
        "reduce512");
    /* The self-test, then the key's two words (no reference between). */
    assert_int_equal(rdrand_sim_executions(), at);
    put_words(key, &words[RDRAND_SELFTEST_WORDS], 2);
    apt = rdrand_source_health()->s.apt_seen;
    blocks0 = ctr(&r, RDRAND_PARAM_CONDITIONED_BLOCKS);

    memset(got, 0xa5, sizeof(got));
    assert_int_equal(generate(&r, got, 40), 1);
    expected(key, &at, &apt, want, 40);
    assert_memory_equal(got, want, 40);
    assert_int_equal(got[40], 0xa5); /* nothing past the request */
    assert_int_equal(ctr(&r, RDRAND_PARAM_CONDITIONED_BLOCKS) - blocks0, 3);
    assert_int_equal(rdrand_sim_executions(), at);

    assert_int_equal(RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(
                         r.ctx, &seed, 384, 48, 48, 0, NULL, 0),
                     48);
    expected(key, &at, &apt, want, 48);
    assert_memory_equal(seed, want, 48);
    RAND_FN(clear_seed, OSSL_FUNC_RAND_CLEAR_SEED)(r.ctx, seed, 48);
    assert_int_equal(ctr(&r, RDRAND_PARAM_CONDITIONED_BLOCKS) - blocks0, 6);
    /* Every execution counted: 6 * 1024 samples' words, references. */
    assert_int_equal(rdrand_sim_executions(), at);
    assert_true(at > RDRAND_SELFTEST_WORDS + 2 + 6 * RDRAND_COND_WORDS);
    assert_int_equal(rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS) - words0, at);
    run_down(&r);
}

/* The default: RDRAND words as they come, no block counted. */
static void test_none_is_default(void **state)
{
    struct run r;
    unsigned char got[40];
    uint64_t blocks0 = rdrand_counter_get(RDRAND_CTR_CONDITIONED_BLOCKS);

    (void)state;
    assert_int_equal(run_up(&r, words_spec, NULL), 1);
    assert_string_equal(
        fake_get_utf8(r.prov, r.provctx, RDRAND_PARAM_CONDITIONING), "none");
    assert_int_equal(generate(&r, got, sizeof(got)), 1);
    assert_memory_equal(got, &words[RDRAND_SELFTEST_WORDS], sizeof(got));
    assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS + 5);
    assert_int_equal(ctr(&r, RDRAND_PARAM_CONDITIONED_BLOCKS), blocks0);
    run_down(&r);
}

/*
 * CF=0 at every execution of a two-block request, the APT references on
 * the way included: the request fails closed (out wiped, the first
 * block's bytes too), the drawing stops at the bad word, and the
 * rdrand-words counter and the simulated CPU agree on every execution.
 */
static void test_cf0_everywhere(void **state)
{
    struct run r;
    unsigned char out[32];
    static const unsigned char zero[sizeof(out)];
    uint64_t first = RDRAND_SELFTEST_WORDS + 3, last;
    char spec[128];

    (void)state;
    if (!real_aesni())
        skip();
    /* How many executions a good request takes from load on. */
    assert_int_equal(run_up(&r, words_spec, reduce512), 1);
    assert_int_equal(generate(&r, out, sizeof(out)), 1);
    last = rdrand_sim_executions();
    run_down(&r);
    assert_true(last > first + 2 * RDRAND_COND_WORDS);

    for (uint64_t n = first; n <= last; n++) {
        uint64_t words0, fails0, blocks0, gfail0;

        snprintf(spec, sizeof(spec), "%s,fail-at=%llu", words_spec,
                 (unsigned long long)n);
        words0 = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);
        fails0 = rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES);
        blocks0 = rdrand_counter_get(RDRAND_CTR_CONDITIONED_BLOCKS);
        gfail0 = rdrand_counter_get(RDRAND_CTR_GENERATE_FAILURES);
        assert_int_equal(run_up(&r, spec, reduce512), 1);
        memset(out, 0xa5, sizeof(out));
        fake_error_count = 0;
        if (generate(&r, out, sizeof(out)) != 0)
            fail_msg("CF=0 at execution %llu: the request succeeded",
                     (unsigned long long)n);
        assert_memory_equal(out, zero, sizeof(out));
        assert_int_equal(fake_last_reason(), RDRAND_R_RDRAND_FAILED);
        assert_non_null(strstr(fake_last_message(), "nothing was delivered"));
        assert_int_equal(rdrand_sim_executions(), n);
        assert_int_equal(rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS) - words0,
                         n);
        assert_int_equal(
            rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES) - fails0, 1);
        assert_int_equal(rdrand_counter_get(RDRAND_CTR_CONDITIONED_BLOCKS),
                         blocks0);
        assert_int_equal(
            rdrand_counter_get(RDRAND_CTR_GENERATE_FAILURES) - gfail0, 1);
        assert_int_equal(fake_get_int(r.prov, r.provctx, "status"), 0);
        run_down(&r);
    }
}

static const char *pattern_file(const char *name, uint64_t (*fn)(size_t),
                                size_t n);

/* The key's second word repeats its first: a health test fails on it. */
static uint64_t key_repeats(size_t i)
{
    return mix(i == RDRAND_SELFTEST_WORDS + 1 ? RDRAND_SELFTEST_WORDS : i);
}

/*
 * A CF=0 in a block latches the source as in none; the next request on a
 * working CPU runs the self-test, clears the latch and is conditioned
 * (the key is the one drawn at load).
 */
static void test_recovers(void **state)
{
    struct run r;
    unsigned char out[32];
    char spec[128];
    uint64_t blocks0;

    (void)state;
    if (!real_aesni())
        skip();
    snprintf(spec, sizeof(spec), "%s,fail-at=%d", words_spec,
             RDRAND_SELFTEST_WORDS + 500);
    assert_int_equal(run_up(&r, spec, reduce512), 1);
    assert_int_equal(generate(&r, out, sizeof(out)), 0);
    assert_int_equal(fake_get_int(r.prov, r.provctx, "status"), 0);
    sim_or_fail(""); /* another, working stream */
    blocks0 = ctr(&r, RDRAND_PARAM_CONDITIONED_BLOCKS);
    assert_int_equal(generate(&r, out, sizeof(out)), 1);
    assert_int_equal(ctr(&r, RDRAND_PARAM_CONDITIONED_BLOCKS) - blocks0, 2);
    assert_int_equal(fake_get_int(r.prov, r.provctx, "status"), 1);
    /* The self-test's 64 words, then two blocks and their references. */
    assert_true(rdrand_sim_executions()
                > RDRAND_SELFTEST_WORDS + 2 * RDRAND_COND_WORDS);
    run_down(&r);
}

/* Each thread: its own context on the shared instance, three requests. */
static void *generate_thrice(void *arg)
{
    struct run *r = arg;
    void *ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(r->provctx, NULL, NULL);
    unsigned char out[32];
    intptr_t ok = ctx != NULL
                  && RAND_FN(instantiate, OSSL_FUNC_RAND_INSTANTIATE)(
                      ctx, 256, 0, NULL, 0, NULL);

    for (int i = 0; ok && i < 3; i++)
        ok = RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(ctx, out, sizeof(out),
                                                        256, 0, NULL, 0);
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
    return (void *)ok;
}

/*
 * Two threads conditioning at once under the one key of an instance
 * (read-only after load), each through its own thread's health tests
 * (TSan runs this): every block counted once.
 */
static void test_threads(void **state)
{
    struct run r;
    pthread_t t[2];
    void *ok[2];
    uint64_t blocks0;

    (void)state;
    if (!real_aesni())
        skip();
    assert_int_equal(run_up(&r, "", reduce512), 1);
    blocks0 = ctr(&r, RDRAND_PARAM_CONDITIONED_BLOCKS);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, generate_thrice, &r), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], &ok[i]), 0);
    assert_true(ok[0] != NULL && ok[1] != NULL);
    assert_int_equal(ctr(&r, RDRAND_PARAM_CONDITIONED_BLOCKS) - blocks0, 12);
    run_down(&r);
}

/*
 * CF=0 on either word of the key at load: the instance loads latched
 * (status 0, health-state naming the key), draws nothing more, and every
 * request fails; a later working CPU does not clear it.
 */
static void test_key_draw_fails(void **state)
{
    struct run r;
    unsigned char out[16];
    char spec[128];

    (void)state;
    if (!real_aesni())
        skip();
    for (int n = RDRAND_SELFTEST_WORDS + 1; n <= RDRAND_SELFTEST_WORDS + 2;
         n++) {
        uint64_t fails0 = rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES);

        snprintf(spec, sizeof(spec), "%s,fail-at=%d", words_spec, n);
        assert_int_equal(run_up(&r, spec, reduce512), 0);
        assert_int_equal(rdrand_sim_executions(), n);
        assert_int_equal(
            rdrand_counter_get(RDRAND_CTR_RDRAND_FAILURES) - fails0, 1);
        assert_non_null(
            strstr(fake_get_utf8(r.prov, r.provctx, RDRAND_PARAM_HEALTH_STATE),
                   "drawing the CBC-MAC key"));
        sim_or_fail(words_spec); /* the CPU works again */
        for (int i = 0; i < 2; i++) {
            fake_error_count = 0;
            memset(out, 0xa5, sizeof(out));
            assert_int_equal(generate(&r, out, sizeof(out)), 0);
            assert_int_equal(fake_last_reason(), RDRAND_R_RDRAND_FAILED);
            assert_non_null(strstr(fake_last_message(), "CBC-MAC key"));
        }
        assert_int_equal(rdrand_sim_executions(), 0);
        run_down(&r);
    }
    /* A health test fails on the key's words: latched the same way. */
    assert_int_equal(
        run_up(&r, pattern_file("keyrep", key_repeats, 256), reduce512), 0);
    assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS + 2);
    assert_non_null(
        strstr(fake_get_utf8(r.prov, r.provctx, RDRAND_PARAM_HEALTH_STATE),
               rdrand_reason_text(RDRAND_R_REPEATED_WORD)));
    fake_error_count = 0;
    assert_int_equal(generate(&r, out, sizeof(out)), 0);
    assert_int_equal(fake_last_reason(), RDRAND_R_REPEATED_WORD);
    run_down(&r);
    /* A self-test failed at load: no key is drawn from that CPU. */
    assert_int_equal(run_up(&r, "value=0123456789abcdef", reduce512), 0);
    assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS);
    assert_non_null(
        strstr(fake_get_utf8(r.prov, r.provctx, RDRAND_PARAM_HEALTH_STATE),
               "no CBC-MAC key was drawn"));
    run_down(&r);
}

/*
 * cpu-vendor: CPUID leaf 0's vendor through the seam, so an operator can
 * tell whose reseed bound reduce512's derivation rests on.
 */
static void test_cpu_vendor(void **state)
{
    static const struct {
        const char *spec, *vendor;
    } cases[] = {
        {"", "AuthenticAMD"},
        {"coco=epyc-host", "AuthenticAMD"},
        {"coco=intel-vm", "GenuineIntel"},
        {"coco=tdx", "GenuineIntel"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        void *provctx;
        const OSSL_DISPATCH *prov;

        assert_int_equal(
            fake_provider_init(cases[i].spec, NULL, &provctx, &prov), 1);
        assert_string_equal(
            fake_get_utf8(prov, provctx, RDRAND_PARAM_CPU_VENDOR),
            cases[i].vendor);
        ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
            prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
    }
}

/* No AES-NI: latched at load with the alternative named; no key drawn. */
static void test_no_aesni(void **state)
{
    struct run r;
    unsigned char out[16];
    const char *hs;

    (void)state;
    assert_int_equal(run_up(&r, "aesni=absent", reduce512), 0);
    assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS);
    hs = fake_get_utf8(r.prov, r.provctx, RDRAND_PARAM_HEALTH_STATE);
    assert_non_null(strstr(hs, "AES-NI"));
    assert_non_null(strstr(hs, "conditioning = none"));
    fake_error_count = 0;
    assert_int_equal(generate(&r, out, sizeof(out)), 0);
    assert_int_equal(fake_last_reason(), RDRAND_R_NO_AESNI);
    assert_non_null(strstr(fake_last_message(), "conditioning = none"));
    assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS);
    run_down(&r);
    /* conditioning = none needs no AES-NI. */
    assert_int_equal(run_up(&r, "aesni=absent", NULL), 1);
    assert_int_equal(generate(&r, out, sizeof(out)), 1);
    run_down(&r);
}

/*
 * Without a key the fill draws nothing and fails whole: out wiped,
 * nothing counted (the load refuses the mode first, so only a caller
 * that skipped it could ask).
 */
static void test_fill_without_key(void **state)
{
    struct rdrand_aes_key k;
    unsigned char out[40];
    uint64_t blocks = rdrand_counter_get(RDRAND_CTR_CONDITIONED_BLOCKS);

    (void)state;
    memset(&k, 0, sizeof(k));
    sim_or_fail("");
    memset(out, 0xa5, sizeof(out));
    assert_int_equal(
        rdrand_cond_fill(&k, rdrand_source_health(), out, sizeof(out)),
        RDRAND_R_INTERNAL);
    assert_int_equal(rdrand_sim_executions(), 0);
    for (size_t i = 0; i < sizeof(out); i++)
        assert_int_equal(out[i], 0);
    assert_true(rdrand_counter_get(RDRAND_CTR_CONDITIONED_BLOCKS) == blocks);
}

/*
 * reduce512 asked of an instance already refused (another key's value)
 * or without RDRAND: no AES-NI check, no key; the instance says its
 * first reason.
 */
static void test_reduce512_after_refusal_or_no_rdrand(void **state)
{
    static const char *const refused[] = {
        "conditioning", "reduce512", "warn", "none", "mix", "loud", NULL};
    struct run r;
    const char *hs;

    (void)state;
    assert_int_equal(run_up(&r, "aesni=absent", refused), 0);
    hs = fake_get_utf8(r.prov, r.provctx, RDRAND_PARAM_HEALTH_STATE);
    assert_non_null(strstr(hs, rdrand_reason_text(RDRAND_R_BAD_CONFIG)));
    assert_null(strstr(hs, "AES-NI"));
    assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS);
    run_down(&r);
    assert_int_equal(run_up(&r, "aesni=absent,rdrand=absent", reduce512), 0);
    hs = fake_get_utf8(r.prov, r.provctx, RDRAND_PARAM_HEALTH_STATE);
    assert_string_equal(hs, rdrand_reason_text(RDRAND_R_NO_RDRAND));
    assert_int_equal(rdrand_sim_executions(), 0);
    run_down(&r);
}

/* No CPUID, or no CPUID leaf 1 to ask: AES-NI is not found. */
static void test_no_cpuid_no_aesni(void **state)
{
    (void)state;
    sim_or_fail("cpuid=absent");
    assert_false(rdrand_aes_present());
    sim_or_fail("cpuid=leaf0");
    assert_false(rdrand_aes_present());
    sim_or_fail("aesni=absent");
    assert_false(rdrand_aes_present());
    sim_or_fail("aesni=present");
    assert_true(rdrand_aes_present());
}

/* Write a words file of n words from fn(i); returns its spec. */
static const char *pattern_file(const char *name, uint64_t (*fn)(size_t),
                                size_t n)
{
    static char spec[128];
    char path[64];
    FILE *f;

    snprintf(path, sizeof(path), "%s.%s", words_path, name);
    assert_non_null(f = fopen(path, "w"));
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%016llx\n", (unsigned long long)fn(i));
    assert_int_equal(fclose(f), 0);
    snprintf(spec, sizeof(spec), "words=%s", path);
    return spec;
}

static uint64_t cycle_of_8(size_t i)
{
    return mix(i % 8 + 500000);
}

static uint64_t bit_9_stuck(size_t i)
{
    return mix(i + 600000) & ~((uint64_t)1 << 9);
}

/*
 * The simulated CPU's defects from the first word of a conditioned
 * request on (the CPU changes after load): each fails the request closed
 * with its health test's reason, counted once.  test_health_mid_block
 * meets them inside the second block.
 */
static void test_health_trips(void **state)
{
    char cycle[128], stuck[128];
    const struct {
        const char *spec;
        int reason;
    } cases[] = {
        {"value=0123456789abcdef", RDRAND_R_REPEATED_WORD},
        {cycle, RDRAND_R_SHORT_CYCLE},
        {stuck, RDRAND_R_STUCK_BIT},
        {"value=0", RDRAND_R_STUCK_ZERO},
    };

    (void)state;
    if (!real_aesni())
        skip();
    snprintf(cycle, sizeof(cycle), "%s", pattern_file("cycle", cycle_of_8, 8));
    snprintf(stuck, sizeof(stuck), "%s",
             pattern_file("stuck", bit_9_stuck, 4096));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct run r;
        unsigned char out[32];
        static const unsigned char zero[sizeof(out)];
        uint64_t health0;

        assert_int_equal(run_up(&r, words_spec, reduce512), 1);
        health0 = rdrand_counter_get(RDRAND_CTR_HEALTH_FAILURES);
        sim_or_fail(cases[i].spec);
        memset(out, 0xa5, sizeof(out));
        fake_error_count = 0;
        assert_int_equal(generate(&r, out, sizeof(out)), 0);
        assert_memory_equal(out, zero, sizeof(out));
        if (fake_last_reason() != cases[i].reason)
            fail_msg("%s: reason %d, not %d", cases[i].spec, fake_last_reason(),
                     cases[i].reason);
        assert_int_equal(
            rdrand_counter_get(RDRAND_CTR_HEALTH_FAILURES) - health0, 1);
        assert_int_equal(fake_get_int(r.prov, r.provctx, "status"), 0);
        run_down(&r);
    }
}

/*
 * ---- defects inside a block ----
 * One words file from load on: good words (the stream of setup) up to
 * index defect_at (0-based; execution defect_at + 1), then the defect.
 */
static size_t defect_at;

static uint64_t repeat_at(size_t i)
{
    return mix(i == defect_at ? i - 1 : i);
}

static uint64_t cycle_from(size_t i)
{
    return mix(i >= defect_at ? defect_at - 8 + (i - defect_at) % 8 : i);
}

static uint64_t zero_at(size_t i)
{
    return i == defect_at ? 0 : mix(i);
}

static uint64_t stuck_from(size_t i)
{
    return i >= defect_at ? mix(i) & ~((uint64_t)1 << 9) : mix(i);
}

/* The top byte lane 0xa5 in every word from a window's reference on. */
static uint64_t lane_from(size_t i)
{
    return i >= defect_at
               ? (mix(i) & ~((uint64_t)0xff << 56)) | (uint64_t)0xa5 << 56
               : mix(i);
}

/* Bit 40 set in 7 words of 8 (at random) from a window's reference on. */
static uint64_t biased_from(size_t i)
{
    return i >= defect_at && (mix(i + 700000) & 7) != 0
               ? mix(i) | (uint64_t)1 << 40
               : mix(i);
}

/*
 * Defects met inside the second block of a request (block 1 is
 * executions 67 to about 1092 from load): a word repeated, a short cycle
 * starting, a zero word, a stuck bit at execution 1501; a repeated word
 * exactly on an APT reference word (never delivered, still tested); and
 * the windowed tests, a byte lane stuck from a reference on (adaptive
 * proportion) and a biased bit over a whole window.  Each fails the
 * request closed (out wiped, the first block's bytes too) at the
 * execution its test predicts, with its reason, counted once, and the
 * simulated CPU and the rdrand-words counter agree.
 */
static void test_health_mid_block(void **state)
{
    enum { MID = 1500, LEN = 48 };
    struct run r;
    size_t ref;
    const struct {
        const char *name;
        uint64_t (*fn)(size_t);
        int on_reference;
        int reason;
        size_t trips_after; /* its execution - defect_at, or 0: a range */
    } cases[] = {
        {"repeat", repeat_at, 0, RDRAND_R_REPEATED_WORD, 1},
        {"cycle", cycle_from, 0, RDRAND_R_SHORT_CYCLE, 1},
        {"zero", zero_at, 0, RDRAND_R_STUCK_ZERO, 1},
        {"stuck", stuck_from, 0, RDRAND_R_STUCK_BIT, 0},
        {"refrepeat", repeat_at, 1, RDRAND_R_REPEATED_WORD, 1},
        {"lane", lane_from, 1, RDRAND_R_ADAPTIVE_PROPORTION, RDRAND_APT_CUTOFF},
        {"biased", biased_from, 1, RDRAND_R_BIASED_BIT, RDRAND_APT_WINDOW},
    };

    (void)state;
    if (!real_aesni())
        skip();
    /* Where the APT windows open: the phase after load, as in the KAT. */
    assert_int_equal(run_up(&r, words_spec, reduce512), 1);
    ref = RDRAND_SELFTEST_WORDS + 2
          + (RDRAND_APT_WINDOW - rdrand_source_health()->s.apt_seen)
                % RDRAND_APT_WINDOW;
    run_down(&r);
    while (ref < MID)
        ref += RDRAND_APT_WINDOW; /* the first reference in block 2 */
    assert_true(ref + RDRAND_APT_WINDOW
                < RDRAND_SELFTEST_WORDS + 2 + 3 * RDRAND_COND_WORDS);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned char out[LEN];
        static const unsigned char zero[LEN];
        uint64_t health0, words0, blocks0, n;
        char path[96];

        defect_at = cases[i].on_reference ? ref : MID;
        words0 = rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS);
        assert_int_equal(
            run_up(&r, pattern_file(cases[i].name, cases[i].fn, NWORDS),
                   reduce512),
            1);
        /* The file's phase is the good stream's: the defect is unseen. */
        assert_int_equal(
            rdrand_source_health()->s.apt_seen,
            (RDRAND_APT_WINDOW
             - (ref - RDRAND_SELFTEST_WORDS - 2) % RDRAND_APT_WINDOW)
                % RDRAND_APT_WINDOW);
        health0 = rdrand_counter_get(RDRAND_CTR_HEALTH_FAILURES);
        blocks0 = rdrand_counter_get(RDRAND_CTR_CONDITIONED_BLOCKS);
        memset(out, 0xa5, sizeof(out));
        fake_error_count = 0;
        assert_int_equal(generate(&r, out, sizeof(out)), 0);
        assert_memory_equal(out, zero, sizeof(out));
        n = rdrand_sim_executions();
        if (fake_last_reason() != cases[i].reason)
            fail_msg("%s: reason %d, not %d, at execution %llu", cases[i].name,
                     fake_last_reason(), cases[i].reason,
                     (unsigned long long)n);
        /*
         * The word that trips is execution defect_at + trips_after; the
         * draw may have issued one more (draw.c: at most one, counted),
         * and a repeat that only the tables find is found up to
         * RDRAND_SEEN_LAG words after it (seen.h).
         */
        if (cases[i].trips_after != 0)
            assert_in_range(n, defect_at + cases[i].trips_after,
                            defect_at + cases[i].trips_after + 1
                                + (cases[i].reason == RDRAND_R_SHORT_CYCLE)
                                      * RDRAND_SEEN_LAG);
        else /* a stuck bit: at the end of the first whole bit block */
            assert_in_range(n, defect_at + RDRAND_BIT_BLOCK + 1,
                            defect_at + 2 * RDRAND_BIT_BLOCK + 1);
        assert_true(n > RDRAND_SELFTEST_WORDS + 2 + RDRAND_COND_WORDS);
        assert_int_equal(rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS) - words0,
                         n);
        assert_int_equal(
            rdrand_counter_get(RDRAND_CTR_HEALTH_FAILURES) - health0, 1);
        assert_int_equal(rdrand_counter_get(RDRAND_CTR_CONDITIONED_BLOCKS),
                         blocks0);
        assert_int_equal(fake_get_int(r.prov, r.provctx, "status"), 0);
        run_down(&r);
        snprintf(path, sizeof(path), "%s.%s", words_path, cases[i].name);
        unlink(path);
    }
}

static int setup(void **state)
{
    int fd = mkstemp(words_path);
    FILE *f;

    (void)state;
    if (fd < 0 || (f = fdopen(fd, "w")) == NULL)
        return -1;
    for (size_t i = 0; i < NWORDS; i++) {
        words[i] = mix(i);
        fprintf(f, "%016llx\n", (unsigned long long)words[i]);
    }
    snprintf(words_spec, sizeof(words_spec), "words=%s", words_path);
    return fclose(f) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    char path[64];

    (void)state;
    snprintf(path, sizeof(path), "%s.cycle", words_path);
    unlink(path);
    snprintf(path, sizeof(path), "%s.stuck", words_path);
    unlink(path);
    snprintf(path, sizeof(path), "%s.keyrep", words_path);
    unlink(path);
    return unlink(words_path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fips197_vector),
        cmocka_unit_test(test_mac_matches_evp),
        cmocka_unit_test(test_xmm_cleared),
        cmocka_unit_test(test_provider_kat),
        cmocka_unit_test(test_none_is_default),
        cmocka_unit_test(test_cf0_everywhere),
        cmocka_unit_test(test_recovers),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_key_draw_fails),
        cmocka_unit_test(test_no_aesni),
        cmocka_unit_test(test_fill_without_key),
        cmocka_unit_test(test_reduce512_after_refusal_or_no_rdrand),
        cmocka_unit_test(test_no_cpuid_no_aesni),
        cmocka_unit_test(test_cpu_vendor),
        cmocka_unit_test(test_health_trips),
        cmocka_unit_test(test_health_mid_block),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
