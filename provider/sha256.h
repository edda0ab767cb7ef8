/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-256 (FIPS 180-4), in tree: the conditioning function of mix = os.
 * No libcrypto, no allocation, no lock: callable wherever the draw path
 * runs, including inside libcrypto's own RAND calls.
 */
#ifndef RDRAND_SHA256_H
#define RDRAND_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define RDRAND_SHA256_LEN 32

struct rdrand_sha256 {
    uint32_t h[8];
    uint64_t bytes;          /* message bytes so far */
    unsigned char block[64]; /* the partial block */
    size_t fill;             /* bytes in block[] */
};

void rdrand_sha256_init(struct rdrand_sha256 *c);
void rdrand_sha256_update(struct rdrand_sha256 *c, const void *data,
                          size_t len);
/* Writes the digest and wipes *c (it held input bytes). */
void rdrand_sha256_final(struct rdrand_sha256 *c,
                         unsigned char out[RDRAND_SHA256_LEN]);

/* FIPS 180-4 4.2.2 and 5.3.3; exported for tests/unit/test_sha256.c. */
extern const uint32_t rdrand_sha256_k[64];
extern const uint32_t rdrand_sha256_h0[8];

#endif
