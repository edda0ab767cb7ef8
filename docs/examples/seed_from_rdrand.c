/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Make RDRAND the seed source of a library context from code, draw some
 * random bytes, and show that the seed really came from the provider.
 *
 *   OPENSSL_MODULES=build ./build/docs/examples/seed_from_rdrand
 *
 * Exit status: 0 on success, 1 on any failure (errors are printed).
 */
#include <inttypes.h>
#include <stdio.h>

#include <openssl/err.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

int main(int argc, char **argv)
{
    /* argv[1], argv[2]: provider and property, for the test module. */
    const char *name = argc > 1 ? argv[1] : RDRAND_PROVIDER_NAME;
    const char *propq = argc > 2 ? argv[2] : RDRAND_PROPERTY_QUERY;
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *rdrand = NULL, *deflt = NULL;
    unsigned char buf[32];
    uint64_t requests = 0, bytes = 0, failures = 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_uint64(RDRAND_PARAM_SEED_REQUESTS, &requests),
        OSSL_PARAM_uint64(RDRAND_PARAM_SEED_BYTES, &bytes),
        OSSL_PARAM_uint64(RDRAND_PARAM_RDRAND_FAILURES, &failures),
        OSSL_PARAM_END};
    int ok = 0;

    if (libctx == NULL
        /* The seed source must be chosen before the first random byte. */
        || (rdrand = OSSL_PROVIDER_load(libctx, name)) == NULL
        || (deflt = OSSL_PROVIDER_load(libctx, "default")) == NULL
        || !RAND_set_seed_source_type(libctx, RDRAND_ALGORITHM_NAME, propq)
        || !RAND_bytes_ex(libctx, buf, sizeof(buf), 0)
        || !OSSL_PROVIDER_get_params(rdrand, params))
        goto end;

    /*
     * If the configured seed source cannot be fetched, OpenSSL 3.0-3.6
     * silently seed from the OS (4.0 fails RAND_bytes_ex above instead),
     * so check that the provider was actually asked.
     */
    if (requests == 0) {
        fprintf(stderr, "%s was not used as the seed source\n", name);
        goto end;
    }
    for (size_t i = 0; i < sizeof(buf); i++)
        printf("%02x", buf[i]);
    printf("\nseed-requests = %" PRIu64 "\nseed-bytes = %" PRIu64
           "\nrdrand-failures = %" PRIu64 "\n",
           requests, bytes, failures);
    ok = 1;
end:
    if (!ok)
        ERR_print_errors_fp(stderr);
    OSSL_PROVIDER_unload(deflt);
    OSSL_PROVIDER_unload(rdrand);
    OSSL_LIB_CTX_free(libctx);
    return ok ? 0 : 1;
}
