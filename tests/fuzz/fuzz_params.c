/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer: OSSL_PROVIDER_get_params and EVP_RAND_CTX_get_params with
 * arbitrary OSSL_PARAM arrays (any type, any size, NULL data, repeated
 * keys), through the real libcrypto with the provider registered as a
 * builtin.  Every buffer is allocated to exactly the size the array
 * claims, so ASan sees any write past it.  Checked on every input: a
 * refusal leaves a reason on the error queue; an answered integer of the
 * served type and size holds the served value.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "rdrand_provider.h"

#include "sim.h"

#define MAX_PARAMS 8

static OSSL_LIB_CTX *libctx;
static OSSL_PROVIDER *prov;
static EVP_RAND_CTX *rctx;

static const char *const keys[] = {OSSL_PROV_PARAM_NAME,
                                   OSSL_PROV_PARAM_VERSION,
                                   OSSL_PROV_PARAM_BUILDINFO,
                                   OSSL_PROV_PARAM_STATUS,
                                   RDRAND_PARAM_RDRAND_WORDS,
                                   RDRAND_PARAM_RDRAND_FAILURES,
                                   RDRAND_PARAM_SEED_REQUESTS,
                                   RDRAND_PARAM_SEED_FAILURES,
                                   RDRAND_PARAM_SEED_BYTES,
                                   RDRAND_PARAM_GENERATE_REQUESTS,
                                   RDRAND_PARAM_GENERATE_FAILURES,
                                   RDRAND_PARAM_RDRAND_AVAILABLE,
                                   RDRAND_PARAM_COCO_PLATFORM,
                                   RDRAND_PARAM_COCO_SIGNAL,
                                   RDRAND_PARAM_COCO_SEED_BITS,
                                   RDRAND_PARAM_HEALTH_FAILURES,
                                   RDRAND_PARAM_HEALTH_STATE,
                                   OSSL_RAND_PARAM_STATE,
                                   OSSL_RAND_PARAM_STRENGTH,
                                   OSSL_RAND_PARAM_MAX_REQUEST,
                                   "no-such-key",
                                   ""};
static const unsigned int types[] = {OSSL_PARAM_INTEGER,
                                     OSSL_PARAM_UNSIGNED_INTEGER,
                                     OSSL_PARAM_REAL,
                                     OSSL_PARAM_UTF8_STRING,
                                     OSSL_PARAM_OCTET_STRING,
                                     OSSL_PARAM_UTF8_PTR,
                                     OSSL_PARAM_OCTET_PTR,
                                     0,
                                     99};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    EVP_RAND *alg;
    char err[128];

    (void)argc, (void)argv;
    if (!rdrand_sim_configure("", err, sizeof(err))
        || (libctx = OSSL_LIB_CTX_new()) == NULL
        || !OSSL_PROVIDER_add_builtin(libctx, RDRAND_PROVIDER_NAME,
                                      OSSL_provider_init)
        || (prov = OSSL_PROVIDER_load(libctx, RDRAND_PROVIDER_NAME)) == NULL
        || (alg = EVP_RAND_fetch(libctx, RDRAND_ALGORITHM_NAME, NULL)) == NULL
        || (rctx = EVP_RAND_CTX_new(alg, NULL)) == NULL
        || !EVP_RAND_instantiate(rctx, 256, 0, NULL, 0, NULL))
        abort();
    EVP_RAND_free(alg);
    return 0;
}

/* Where a value must land: an 8-byte unsigned counter asked as such. */
static void check_answer(const OSSL_PARAM *p, int ok)
{
    uint64_t served;

    if (!ok || p->data == NULL || !OSSL_PARAM_modified(p)
        || p->data_type != OSSL_PARAM_UNSIGNED_INTEGER
        || p->data_size != sizeof(uint64_t)
        || strcmp(p->key, RDRAND_PARAM_COCO_SEED_BITS) != 0)
        return;
    memcpy(&served, p->data, sizeof(served));
    if (served != 0) /* no CoCo guest here: nothing drawn at load */
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    OSSL_PARAM params[MAX_PARAMS + 1];
    void *bufs[MAX_PARAMS] = {0};
    size_t n = 0, i = 0;
    int ok, target;

    if (size < 1)
        return 0;
    target = data[i++] & 1;
    while (n < MAX_PARAMS && i + 3 <= size) {
        unsigned int type = types[data[i] % (sizeof(types) / sizeof(types[0]))];
        size_t dsize = data[i + 1] % 40, alloc = dsize;
        int null_data = data[i + 2] & 0x80;

        params[n].key =
            keys[(data[i + 2] & 0x7f) % (sizeof(keys) / sizeof(keys[0]))];
        i += 3;
        /* A pointer type's data is a pointer (OpenSSL's contract). */
        if (type == OSSL_PARAM_UTF8_PTR || type == OSSL_PARAM_OCTET_PTR)
            alloc = dsize < sizeof(void *) ? sizeof(void *) : dsize;
        if (!null_data && (bufs[n] = malloc(alloc ? alloc : 1)) == NULL)
            abort();
        if (bufs[n] != NULL)
            memset(bufs[n], 0x5a, alloc ? alloc : 1);
        params[n].data_type = type;
        params[n].data = bufs[n];
        params[n].data_size = dsize;
        params[n].return_size = OSSL_PARAM_UNMODIFIED;
        n++;
    }
    params[n] = (OSSL_PARAM)OSSL_PARAM_END;
    ERR_clear_error();
    ok = target ? EVP_RAND_CTX_get_params(rctx, params)
                : OSSL_PROVIDER_get_params(prov, params);
    if (!ok && ERR_peek_error() == 0)
        abort(); /* a refusal must say why */
    for (i = 0; i < n; i++) {
        check_answer(&params[i], ok);
        free(bufs[i]);
    }
    ERR_clear_error();
    return 0;
}
