/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer: get_seed and generate over the simulated CPU, with the
 * request's arguments (entropy, min_len, max_len, strength, prediction
 * resistance, adin) and a failure at a fuzzer-chosen word (CF=0, or a
 * repeated word for the health tests) all taken from the input.
 * Checked on every input, the all-or-nothing rule and the counters:
 *   - a seed is exactly max(ceil(entropy / 8), min_len) bytes, within
 *     max_len, and delivered only if no executed word failed;
 *   - a failed request delivers nothing: no seed pointer, generate's
 *     buffer untouched or wiped whole, never partly written;
 *   - a healthy CPU serves every consistent request, and a stuck one
 *     (every word the same) none that draws a word;
 *   - the request counters move by one, the failure counters by one
 *     exactly when the request failed, seed-bytes by the length delivered.
 * Each input runs on a thread of its own: the continuous tests' state is
 * per thread and spans requests (docs/health-tests.md), so a fresh thread
 * (cold state, self-tested on its first draw) makes every assertion hold
 * for the input alone, whatever the inputs before it fed.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_dispatch.h>

#include "counters.h"
#include "fake_core.h"
#include "rand.h"
#include "seams.h"
#include "sim.h"
#include "source.h"

#define MAX_LEN 2048

static void *provctx, *ctx;
static const OSSL_DISPATCH *prov;
static OSSL_FUNC_rand_get_seed_fn *get_seed;
static OSSL_FUNC_rand_clear_seed_fn *clear_seed;
static OSSL_FUNC_rand_generate_fn *generate;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void (*fn(int id))(void)
{
    for (const OSSL_DISPATCH *d = rdrand_rand_functions; d->function_id; d++)
        if (d->function_id == id)
            return d->function;
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (!fake_provider_init("", NULL, &provctx, &prov))
        abort();
    ctx = ((OSSL_FUNC_rand_newctx_fn *)fn(OSSL_FUNC_RAND_NEWCTX))(provctx, NULL,
                                                                  NULL);
    if (ctx == NULL
        || !((OSSL_FUNC_rand_instantiate_fn *)fn(OSSL_FUNC_RAND_INSTANTIATE))(
            ctx, 256, 0, NULL, 0, NULL))
        abort();
    get_seed = (OSSL_FUNC_rand_get_seed_fn *)fn(OSSL_FUNC_RAND_GET_SEED);
    clear_seed = (OSSL_FUNC_rand_clear_seed_fn *)fn(OSSL_FUNC_RAND_CLEAR_SEED);
    generate = (OSSL_FUNC_rand_generate_fn *)fn(OSSL_FUNC_RAND_GENERATE);
    return 0;
}

static uint32_t take32(const uint8_t **p, size_t *left)
{
    uint32_t v = 0;

    for (int i = 0; i < 4 && *left > 0; i++, (*p)++, (*left)--)
        v = v << 8 | **p;
    return v;
}

static void check(int ok)
{
    if (!ok)
        abort();
}

static void fuzz_one(const uint8_t *data, size_t size)
{
    int healthy;
    uint64_t before[RDRAND_CTR_COUNT], fail_word;
    unsigned char adin[16] = {0}, *out, *seed = (unsigned char *)1;
    char spec[64], err[128];
    uint32_t mode, entropy, min_len, max_len, strength;
    size_t len, want;

    mode = take32(&data, &size);
    entropy = take32(&data, &size);
    min_len = take32(&data, &size) % (MAX_LEN + 64);
    max_len = take32(&data, &size) % (MAX_LEN + 64);
    strength = take32(&data, &size) % 384;
    fail_word = take32(&data, &size) % 300;

    /* The CPU: healthy, CF=0 at one word or from it on, or a stuck word. */
    switch (mode & 3) {
    case 0:
        snprintf(spec, sizeof(spec), "%s", "");
        break;
    case 1:
        snprintf(spec, sizeof(spec), "fail-at=%llu",
                 (unsigned long long)fail_word + 1);
        break;
    case 2:
        snprintf(spec, sizeof(spec), "fail-from=%llu",
                 (unsigned long long)fail_word + 1);
        break;
    default:
        snprintf(spec, sizeof(spec), "value=%llx",
                 (unsigned long long)fail_word * 0x9e3779b97f4a7c15ULL);
        break;
    }
    /*
     * The stream starts over: a new CPU as far as the health tests know,
     * so the process-wide memory of earlier self-tests (which would see
     * the replayed words as a cycle across threads) is forgotten too.
     */
    check(rdrand_sim_configure(spec, err, sizeof(err)));
    rdrand_source_forget();
    healthy = (mode & 3) == 0;
    for (int c = 0; c < RDRAND_CTR_COUNT; c++)
        before[c] = rdrand_counter_get(c);
#define MOVED(c) (rdrand_counter_get(c) - before[c])

    if (mode & 4) {
        /* get_seed: the length rule, then all or nothing. */
        want = (int)entropy > 0 ? ((size_t)(int)entropy + 7) / 8 : 0;
        if (want < min_len)
            want = min_len;
        len = get_seed(ctx, &seed, (int)entropy, min_len, max_len,
                       (int)(mode >> 3 & 1), size ? adin : NULL,
                       size < sizeof(adin) ? size : sizeof(adin));
        check(MOVED(RDRAND_CTR_SEED_REQUESTS) == 1);
        check(MOVED(RDRAND_CTR_SEED_BYTES) == len);
        check(MOVED(RDRAND_CTR_SEED_FAILURES) == (len == 0));
        if (len != 0) {
            check(seed != NULL && len == want && len <= max_len);
            /* Delivered only if every executed word was good. */
            check((mode & 3) == 0 || (mode & 3) == 3
                  || rdrand_sim_executions() < fail_word + 1);
            check((mode & 3) != 3); /* a seed draws a word: stuck fails */
            clear_seed(ctx, seed, len);
        } else {
            check(seed == NULL);
            /* A healthy CPU and a consistent request never fail. */
            check(!healthy || want == 0 || want > max_len);
        }
    } else {
        /* generate: the buffer is all delivered or holds nothing of it. */
        size_t outlen = max_len;
        int ok;

        if ((out = malloc(outlen + 1)) == NULL)
            abort();
        memset(out, 0xa5, outlen + 1);
        ok = generate(ctx, out, outlen, strength, (int)(mode >> 3 & 1),
                      size ? data : NULL, size);
        check(MOVED(RDRAND_CTR_GENERATE_REQUESTS) == 1);
        check(MOVED(RDRAND_CTR_GENERATE_FAILURES) == !ok);
        check(out[outlen] == 0xa5); /* nothing past the end */
        if (ok) {
            check(strength <= 256);
            check((mode & 3) == 0 || (mode & 3) == 3
                  || rdrand_sim_executions() < fail_word + 1);
            /* Stuck: served only if no word was drawn (nothing asked). */
            check((mode & 3) != 3 || rdrand_sim_executions() == 0);
        } else {
            size_t untouched = 0, zero = 0;

            check(!healthy || strength > 256);

            for (size_t i = 0; i < outlen; i++)
                untouched += out[i] == 0xa5, zero += out[i] == 0;
            check(untouched == outlen || zero == outlen);
        }
        free(out);
    }
}

struct fuzz_input {
    const uint8_t *data;
    size_t size;
};

static void *fuzz_thread(void *arg)
{
    const struct fuzz_input *in = arg;

    fuzz_one(in->data, in->size);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size};
    pthread_t thread;

    check(pthread_create(&thread, NULL, fuzz_thread, &in) == 0);
    check(pthread_join(thread, NULL) == 0);
    return 0;
}
