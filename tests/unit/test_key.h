/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Key a test's health state as the provider keys a thread's: the AES
 * digest on a CPU with AES-NI, the multiplications where
 * RDRAND_TEST_DIGEST=mul asks for them (the digest of a CPU without
 * AES-NI).  ctest runs the digest's tests both ways (tests/CMakeLists.txt).
 */
#ifndef RDRAND_TEST_KEY_H
#define RDRAND_TEST_KEY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "health.h"

/* The digest the tests ask for: 1 for AES's. */
static inline int rdrand_test_digest_aes(void)
{
    const char *digest = getenv("RDRAND_TEST_DIGEST");

    return !(digest != NULL && strcmp(digest, "mul") == 0)
           && __builtin_cpu_supports("aes");
}

static inline void rdrand_test_key(struct rdrand_health *h, uint64_t k0,
                                   uint64_t k1)
{
    const uint64_t key[2] = {k0, k1};

    rdrand_health_set_key(h, key, rdrand_test_digest_aes());
}

/*
 * The AES digest as OpenSSL computes it, not as health.h does:
 * AES-128-ECB under key of the block (w, 0), xored with that block
 * (Matyas-Meyer-Oseas); out[0] the digest, out[1] the check.  0 if EVP
 * failed.
 */
static inline int rdrand_test_mmo(const uint64_t key[2], uint64_t w,
                                  uint64_t out[2])
{
    unsigned char in[16] = {0}, ct[16];
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int n = 0, ok;

    memcpy(in, &w, sizeof(w));
    ok = c != NULL
         && EVP_EncryptInit_ex(c, EVP_aes_128_ecb(), NULL,
                               (const unsigned char *)key, NULL)
         && EVP_CIPHER_CTX_set_padding(c, 0)
         && EVP_EncryptUpdate(c, ct, &n, in, sizeof(in))
         && n == (int)sizeof(ct);
    EVP_CIPHER_CTX_free(c);
    for (size_t i = 0; i < sizeof(ct); i++)
        ct[i] ^= in[i];
    memcpy(out, ct, sizeof(ct));
    return ok;
}

#endif
