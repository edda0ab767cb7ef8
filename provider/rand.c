/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The RDRAND RAND algorithm: a seed source for OpenSSL's DRBGs.
 *
 * get_seed is what the primary DRBG calls; generate serves direct
 * EVP_RAND_generate users and the FIPS provider's nonces.  Both go
 * through rdrand_source_fill(), so both are health-checked, all or
 * nothing, and counted.
 */
#include <stdatomic.h>
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "counters.h"
#include "errors.h"
#include "fault.h"
#include "params.h"
#include "prov.h"
#include "rand.h"
#include "source.h"

/* A DRBG's seed: 32 to 48 bytes (strength 256, with or without a nonce). */
#define RDRAND_SEED_BUF 64

struct rdrand_ctx {
    struct rdrand_prov *prov;
    atomic_int state;     /* EVP_RAND_STATE_* of this context */
    atomic_bool seed_out; /* seed[] handed out, not yet cleared */
    unsigned char seed[RDRAND_SEED_BUF]; /* see rdrand_seed_take */
};

static OSSL_FUNC_rand_newctx_fn rdrand_newctx;
static OSSL_FUNC_rand_freectx_fn rdrand_freectx;
static OSSL_FUNC_rand_instantiate_fn rdrand_instantiate;
static OSSL_FUNC_rand_uninstantiate_fn rdrand_uninstantiate;
static OSSL_FUNC_rand_generate_fn rdrand_generate;
static OSSL_FUNC_rand_reseed_fn rdrand_reseed;
static OSSL_FUNC_rand_gettable_ctx_params_fn rdrand_gettable_ctx_params;
static OSSL_FUNC_rand_get_ctx_params_fn rdrand_get_ctx_params;
static OSSL_FUNC_rand_verify_zeroization_fn rdrand_verify_zeroization;
static OSSL_FUNC_rand_enable_locking_fn rdrand_enable_locking;
static OSSL_FUNC_rand_lock_fn rdrand_lock;
static OSSL_FUNC_rand_unlock_fn rdrand_unlock;
static OSSL_FUNC_rand_get_seed_fn rdrand_get_seed;
static OSSL_FUNC_rand_clear_seed_fn rdrand_clear_seed;

static void *rdrand_newctx(void *provctx, void *parent,
                           const OSSL_DISPATCH *parent_calls)
{
    struct rdrand_ctx *ctx;

    (void)parent_calls;
    if (parent != NULL) {
        RDRAND_RAISE(provctx, RDRAND_R_PARENT_REFUSED,
                     "RDRAND reads the CPU directly");
        return NULL;
    }
    /*
     * The continuous tests' state is the thread's, not the context's
     * (source.c): a new context is no fresh start for a defective CPU.
     */
    if ((ctx = OPENSSL_secure_zalloc(sizeof(*ctx))) == NULL) {
        RDRAND_RAISE(provctx, RDRAND_R_OUT_OF_MEMORY, "RDRAND context");
        return NULL;
    }
    ctx->prov = provctx;
    atomic_init(&ctx->state, EVP_RAND_STATE_UNINITIALISED);
    atomic_init(&ctx->seed_out, 0);
    return ctx;
}

/* OPENSSL_secure_clear_free(NULL, ...) does nothing. */
static void rdrand_freectx(void *vctx)
{
    OPENSSL_secure_clear_free(vctx, sizeof(struct rdrand_ctx));
}

static int rdrand_check_strength(struct rdrand_ctx *ctx, unsigned int strength)
{
    if (strength <= RDRAND_STRENGTH)
        return 1;
    RDRAND_RAISE(ctx->prov, RDRAND_R_STRENGTH_TOO_HIGH,
                 "%u bits requested; use a DRBG of at most %d bits above it",
                 strength, RDRAND_STRENGTH);
    return 0;
}

static int rdrand_instantiate(void *vctx, unsigned int strength,
                              int prediction_resistance,
                              const unsigned char *pstr, size_t pstr_len,
                              const OSSL_PARAM params[])
{
    struct rdrand_ctx *ctx = vctx;

    (void)prediction_resistance, (void)pstr, (void)pstr_len, (void)params;
    if (!rdrand_check_strength(ctx, strength))
        return 0;
    atomic_store(&ctx->state, EVP_RAND_STATE_READY);
    return 1;
}

static int rdrand_uninstantiate(void *vctx)
{
    struct rdrand_ctx *ctx = vctx;

    atomic_store(&ctx->state, EVP_RAND_STATE_UNINITIALISED);
    return 1;
}

static int rdrand_check_request(struct rdrand_ctx *ctx, unsigned int strength)
{
    if (atomic_load(&ctx->state) != EVP_RAND_STATE_READY) {
        RDRAND_RAISE(ctx->prov, RDRAND_R_NOT_INSTANTIATED,
                     "call EVP_RAND_instantiate first");
        return 0;
    }
    return rdrand_check_strength(ctx, strength);
}

static int rdrand_generate(void *vctx, unsigned char *out, size_t outlen,
                           unsigned int strength, int prediction_resistance,
                           const unsigned char *adin, size_t adin_len)
{
    struct rdrand_ctx *ctx = vctx;

    (void)prediction_resistance, (void)adin, (void)adin_len;
    rdrand_counter_add(RDRAND_CTR_GENERATE_REQUESTS, 1);
    if (rdrand_check_request(ctx, strength)
        && rdrand_source_fill(ctx->prov, out, outlen, "generate request"))
        return 1;
    rdrand_counter_add(RDRAND_CTR_GENERATE_FAILURES, 1);
    return 0;
}

/* Every request is drawn fresh from the CPU: there is no state to reseed. */
static int rdrand_reseed(void *vctx, int prediction_resistance,
                         const unsigned char *ent, size_t ent_len,
                         const unsigned char *adin, size_t adin_len)
{
    (void)vctx, (void)prediction_resistance, (void)ent, (void)ent_len;
    (void)adin, (void)adin_len;
    return 1;
}

/*
 * Where a seed is written.  The context lives in the secure heap, so its
 * seed[] is as protected as a secure-heap allocation, and it costs no
 * allocation and no allocator lock.  get_seed and clear_seed are not
 * called under one lock (the DRBG releases our lock before it hands the
 * seed back), so two children may hold seeds at once: seed_out gives
 * seed[] to one holder at a time, and the others get a secure-heap
 * buffer as before.  clear_seed wipes either before it is reused.
 */
static unsigned char *rdrand_seed_take(struct rdrand_ctx *ctx, size_t len)
{
    if (len <= sizeof(ctx->seed)
        && !atomic_exchange_explicit(&ctx->seed_out, 1, memory_order_acquire))
        return ctx->seed;
    return OPENSSL_secure_malloc(len);
}

/*
 * seed[] is wiped and released only by a call that finds it marked out
 * (a holder has it): a caller that clears the same seed twice
 * finds it not out and must neither wipe it nor release it, or it would
 * destroy the seed of whoever took seed[] in between.  That is a bug in
 * the caller: it is raised as an internal error (not an abort, which
 * would take the application down over a buffer it no longer uses).  The
 * limit: a second clear that comes after another holder took seed[] again
 * finds it out and releases that holder's seed; nothing in a bare pointer
 * tells the two holders apart.
 */
static void rdrand_seed_give_back(struct rdrand_ctx *ctx, unsigned char *buf,
                                  size_t len)
{
    if (buf != ctx->seed) {
        OPENSSL_secure_clear_free(buf, len);
        return;
    }
    if (!atomic_load_explicit(&ctx->seed_out, memory_order_acquire)) {
        RDRAND_RAISE(ctx->prov, RDRAND_R_INTERNAL,
                     "a seed was handed back twice (clear_seed): the calling "
                     "DRBG is at fault; the second call was ignored");
        return;
    }
    OPENSSL_cleanse(ctx->seed, sizeof(ctx->seed));
    atomic_store_explicit(&ctx->seed_out, 0, memory_order_release);
}

/*
 * As SEED-SRC: deliver max(ceil(entropy / 8), min_len) bytes, crediting
 * 8 bits per byte, or fail if that exceeds max_len.  The DRBG hands the
 * buffer back to clear_seed.  The caller's adin is not mixed in: every
 * call draws fresh hardware output, so there is nothing to tell apart.
 */
static size_t rdrand_get_seed(void *vctx, unsigned char **pout, int entropy,
                              size_t min_len, size_t max_len,
                              int prediction_resistance,
                              const unsigned char *adin, size_t adin_len)
{
    struct rdrand_ctx *ctx = vctx;
    /*
     * Read once.  After seed_take's NULL test clang's analyzer (14)
     * reports a NULL ctx dereferenced, a false positive (seed_take may
     * return ctx->seed), which this avoids.
     */
    struct rdrand_prov *prov = ctx->prov;
    size_t len = entropy > 0 ? ((size_t)entropy + 7) / 8 : 0;
    unsigned char *buf;

    (void)prediction_resistance, (void)adin, (void)adin_len;
    rdrand_counter_add(RDRAND_CTR_SEED_REQUESTS, 1);
    if (prov->default_ctx)
        rdrand_counter_add(RDRAND_CTR_DEFAULT_SEED_REQUESTS, 1);
    *pout = NULL;
    if (len < min_len)
        len = min_len;
    if (len == 0) {
        RDRAND_RAISE(prov, RDRAND_R_BAD_LENGTH,
                     "a zero-length seed was requested (entropy %d bits, "
                     "min_len 0): the calling DRBG's request is inconsistent",
                     entropy);
        goto fail;
    }
    if (len > max_len) {
        RDRAND_RAISE(prov, RDRAND_R_BAD_LENGTH,
                     "a seed of %zu bytes (entropy %d bits, min_len %zu) "
                     "does not fit max_len %zu: the calling DRBG's request "
                     "is inconsistent",
                     len, entropy, min_len, max_len);
        goto fail;
    }
    if (!rdrand_check_request(ctx, 0))
        goto fail;
    if ((buf = rdrand_seed_take(ctx, len)) == NULL) {
        RDRAND_RAISE(prov, RDRAND_R_OUT_OF_MEMORY, "seed of %zu bytes", len);
        goto fail;
    }
    if (!rdrand_source_fill(prov, buf, len, "seed request")) {
        rdrand_seed_give_back(ctx, buf, len);
        goto fail;
    }
    rdrand_counter_add(RDRAND_CTR_SEED_BYTES, len);
    *pout = buf;
    return len;
fail:
    rdrand_counter_add(RDRAND_CTR_SEED_FAILURES, 1);
    return 0;
}

static void rdrand_clear_seed(void *vctx, unsigned char *buf, size_t len)
{
    rdrand_seed_give_back(vctx, buf, len);
}

/*
 * The context: seeds and generated bytes are wiped as they go (seed[]
 * when it is handed back), and a context keeps no output between calls
 * (it holds a provider pointer, a state and the wiped seed[]),
 * so the answer, for the context, is whether seed[] is zero and back.
 * The continuous tests' state is not the context's but the thread's,
 * shared by every context on it, and it does hold information about
 * recently delivered words (at times a whole one); docs/health-tests.md,
 * "What stays in memory", states it.  It is wiped when the thread exits.
 */
static int rdrand_verify_zeroization(void *vctx)
{
    struct rdrand_ctx *ctx = vctx;
    unsigned char any = 0;

    /*
     * seed[] is read only while this call holds it, as get_seed would:
     * a seed out is in use, so the context is not zeroized.
     */
    if (atomic_exchange_explicit(&ctx->seed_out, 1, memory_order_acquire))
        return 0;
    for (size_t i = 0; i < sizeof(ctx->seed); i++)
        any |= ctx->seed[i];
    atomic_store_explicit(&ctx->seed_out, 0, memory_order_release);
    return any == 0;
}

/*
 * No lock, as SEED-SRC has none: nothing in a context needs one.  state
 * and seed_out are atomics, and a draw keeps its state per thread or in
 * atomics (source.c), so concurrent requests on one context are safe
 * without serialising them.  A lock created on first use would need its
 * own synchronisation: OpenSSL 4.0 calls enable_locking on one seed
 * context from several threads at once (racing primary DRBGs), and a
 * lock created twice was lost while held, hanging every thread.  With
 * none, there is nothing to lose, and the seed path takes no lock.
 */
static int rdrand_enable_locking(void *vctx)
{
    (void)vctx;
    return 1;
}

static int rdrand_lock(void *vctx)
{
    (void)vctx;
    return 1;
}

static void rdrand_unlock(void *vctx)
{
    (void)vctx;
}

static const OSSL_PARAM *rdrand_gettable_ctx_params(void *vctx, void *provctx)
{
    static const OSSL_PARAM known[] = {
        OSSL_PARAM_int(OSSL_RAND_PARAM_STATE, NULL),
        OSSL_PARAM_uint(OSSL_RAND_PARAM_STRENGTH, NULL),
        OSSL_PARAM_size_t(OSSL_RAND_PARAM_MAX_REQUEST, NULL), OSSL_PARAM_END};

    (void)vctx, (void)provctx;
    return known;
}

/*
 * The state is what the next request would meet: an instantiated context
 * whose source is unavailable or latched in error reports ERROR.
 */
static int rdrand_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    struct rdrand_ctx *ctx = vctx;
    OSSL_PARAM *p;
    int state = atomic_load(&ctx->state);

    if (state == EVP_RAND_STATE_READY && !rdrand_fault_usable(ctx->prov))
        state = EVP_RAND_STATE_ERROR;
    if ((p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_STATE)) != NULL
        && !OSSL_PARAM_set_int(p, state))
        goto bad;
    if ((p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_STRENGTH)) != NULL
        && !OSSL_PARAM_set_uint(p, RDRAND_STRENGTH))
        goto bad;
    if ((p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_MAX_REQUEST)) != NULL
        && !rdrand_param_set_uint64(p, RDRAND_MAX_REQUEST))
        goto bad;
    return 1;
bad:
    rdrand_bad_param(ctx->prov, "RAND parameter",
                     "EVP_RAND_gettable_ctx_params",
                     rdrand_gettable_ctx_params(NULL, NULL), p);
    return 0;
}

const OSSL_DISPATCH rdrand_rand_functions[] = {
    {OSSL_FUNC_RAND_NEWCTX, (void (*)(void))rdrand_newctx},
    {OSSL_FUNC_RAND_FREECTX, (void (*)(void))rdrand_freectx},
    {OSSL_FUNC_RAND_INSTANTIATE, (void (*)(void))rdrand_instantiate},
    {OSSL_FUNC_RAND_UNINSTANTIATE, (void (*)(void))rdrand_uninstantiate},
    {OSSL_FUNC_RAND_GENERATE, (void (*)(void))rdrand_generate},
    {OSSL_FUNC_RAND_RESEED, (void (*)(void))rdrand_reseed},
    {OSSL_FUNC_RAND_ENABLE_LOCKING, (void (*)(void))rdrand_enable_locking},
    {OSSL_FUNC_RAND_LOCK, (void (*)(void))rdrand_lock},
    {OSSL_FUNC_RAND_UNLOCK, (void (*)(void))rdrand_unlock},
    {OSSL_FUNC_RAND_GETTABLE_CTX_PARAMS,
     (void (*)(void))rdrand_gettable_ctx_params},
    {OSSL_FUNC_RAND_GET_CTX_PARAMS, (void (*)(void))rdrand_get_ctx_params},
    {OSSL_FUNC_RAND_VERIFY_ZEROIZATION,
     (void (*)(void))rdrand_verify_zeroization},
    {OSSL_FUNC_RAND_GET_SEED, (void (*)(void))rdrand_get_seed},
    {OSSL_FUNC_RAND_CLEAR_SEED, (void (*)(void))rdrand_clear_seed},
    {0, NULL}};
