/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-256, FIPS 180-4, written from the standard: the conditioning
 * function of mix = os (provider/mix.c).  In tree rather than EVP so that
 * it runs under no lock, allocates nothing and cannot recurse into
 * libcrypto's RAND machinery; OPENSSL_cleanse is only a memset the
 * compiler may not drop.  Bytewise big-endian loads and stores keep it
 * independent of the host's byte order and alignment.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "sha256.h"

/*
 * FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes.  tests/unit/test_sha256.c recomputes them
 * with integer arithmetic.
 */
const uint32_t rdrand_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/*
 * FIPS 180-4 5.3.3: the first 32 bits of the fractional parts of the
 * square roots of the first 8 primes (recomputed by the same test).
 */
const uint32_t rdrand_sha256_h0[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* FIPS 180-4 3.2, 4.1.2: n is never 0 here, so no shift by 32. */
static uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

#define CH(x, y, z) (((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z) (((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x) (rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22))
#define BSIG1(x) (rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25))
#define SSIG0(x) (rotr(x, 7) ^ rotr(x, 18) ^ ((x) >> 3))
#define SSIG1(x) (rotr(x, 17) ^ rotr(x, 19) ^ ((x) >> 10))

/*
 * FIPS 180-4 6.2.2: one 512-bit block M into the hash value H, in the
 * standard's names, so that each line can be checked against its text.
 */
static void compress(uint32_t H[8], const unsigned char M[64])
{
    uint32_t W[64], a, b, c, d, e, f, g, h;

    for (size_t t = 0; t < 16; t++)
        W[t] = (uint32_t)M[4 * t] << 24 | (uint32_t)M[4 * t + 1] << 16
               | (uint32_t)M[4 * t + 2] << 8 | (uint32_t)M[4 * t + 3];
    for (size_t t = 16; t < 64; t++)
        W[t] = SSIG1(W[t - 2]) + W[t - 7] + SSIG0(W[t - 15]) + W[t - 16];

    a = H[0], b = H[1], c = H[2], d = H[3];
    e = H[4], f = H[5], g = H[6], h = H[7];
    for (size_t t = 0; t < 64; t++) {
        uint32_t T1 = h + BSIG1(e) + CH(e, f, g) + rdrand_sha256_k[t] + W[t];
        uint32_t T2 = BSIG0(a) + MAJ(a, b, c);
        h = g, g = f, f = e, e = d + T1;
        d = c, c = b, b = a, a = T1 + T2;
    }
    H[0] += a, H[1] += b, H[2] += c, H[3] += d;
    H[4] += e, H[5] += f, H[6] += g, H[7] += h;

    /* The schedule is the message block itself, expanded: input bytes. */
    OPENSSL_cleanse(W, sizeof(W));
}

void rdrand_sha256_init(struct rdrand_sha256 *c)
{
    memcpy(c->h, rdrand_sha256_h0, sizeof(c->h));
    c->bytes = 0;
    c->fill = 0;
}

void rdrand_sha256_update(struct rdrand_sha256 *c, const void *data, size_t len)
{
    const unsigned char *p = data;

    c->bytes += len;
    while (len > 0) {
        size_t n = sizeof(c->block) - c->fill;

        if (n > len)
            n = len;
        memcpy(c->block + c->fill, p, n);
        c->fill += n;
        p += n;
        len -= n;
        if (c->fill == sizeof(c->block)) {
            compress(c->h, c->block);
            c->fill = 0;
        }
    }
}

void rdrand_sha256_final(struct rdrand_sha256 *c,
                         unsigned char out[RDRAND_SHA256_LEN])
{
    static const unsigned char pad[64] = {0x80};
    /* 5.1.1: the length in bits, mod 2^64 (messages stay far below). */
    uint64_t bits = c->bytes * 8;
    unsigned char len[8];

    for (int i = 0; i < 8; i++)
        len[i] = (unsigned char)(bits >> (56 - 8 * i));
    /*
     * 5.1.1: a 1 bit, then (55 - fill) mod 64 zero bytes, so that the
     * 8-byte length ends a block.
     */
    rdrand_sha256_update(c, pad, 1 + (119 - c->fill) % 64);
    rdrand_sha256_update(c, len, sizeof(len));
    for (size_t i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(c->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)c->h[i];
    }
    OPENSSL_cleanse(c, sizeof(*c));
}
