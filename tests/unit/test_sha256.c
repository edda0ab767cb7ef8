/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The in-tree SHA-256 (provider/sha256.c): its constants recomputed from
 * the primes with exact integer arithmetic; the FIPS 180-4 example
 * vectors (NIST CSRC); every length 0..300, split at random points,
 * against OpenSSL's SHA-256; the context wiped by final.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <openssl/evp.h>

#include "sha256.h"

typedef unsigned __int128 u128;

/* The largest x with x^k <= n (k = 2 or 3), by binary search. */
static uint64_t iroot(u128 n, int k)
{
    uint64_t lo = 0, hi = (uint64_t)1 << 36; /* hi^k > n for our n */

    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        u128 p = (u128)mid * mid;

        if (k == 3)
            p *= mid;
        if (p <= n)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void first_primes(uint64_t *p, int n)
{
    int have = 0;

    for (uint64_t c = 2; have < n; c++) {
        int prime = 1;

        for (int i = 0; i < have && p[i] * p[i] <= c; i++)
            if (c % p[i] == 0)
                prime = 0;
        if (prime)
            p[have++] = c;
    }
}

/*
 * floor(root(p) * 2^32) = iroot(p * 2^(32k)); its low 32 bits are the
 * first 32 bits of the fractional part.
 */
static void test_constants(void **state)
{
    uint64_t p[64];

    (void)state;
    first_primes(p, 64);
    assert_int_equal(p[0], 2);
    assert_int_equal(p[63], 311);
    for (int i = 0; i < 64; i++) {
        uint32_t k = (uint32_t)iroot((u128)p[i] << 96, 3);

        if (k != rdrand_sha256_k[i])
            fail_msg("K[%d] = %08x, cube root of %u gives %08x", i,
                     rdrand_sha256_k[i], (unsigned)p[i], k);
    }
    for (int i = 0; i < 8; i++) {
        uint32_t h = (uint32_t)iroot((u128)p[i] << 64, 2);

        if (h != rdrand_sha256_h0[i])
            fail_msg("H0[%d] = %08x, square root of %u gives %08x", i,
                     rdrand_sha256_h0[i], (unsigned)p[i], h);
    }
}

static void check_hex(const unsigned char d[RDRAND_SHA256_LEN], const char *hex)
{
    char got[2 * RDRAND_SHA256_LEN + 1];

    for (int i = 0; i < RDRAND_SHA256_LEN; i++)
        snprintf(got + 2 * i, 3, "%02x", d[i]);
    assert_string_equal(got, hex);
}

static void digest_of(const char *msg, unsigned char d[RDRAND_SHA256_LEN])
{
    struct rdrand_sha256 c;

    rdrand_sha256_init(&c);
    rdrand_sha256_update(&c, msg, strlen(msg));
    rdrand_sha256_final(&c, d);
}

/* FIPS 180-4 examples, NIST CSRC "Examples with Intermediate Values". */
static void test_nist_vectors(void **state)
{
    unsigned char d[RDRAND_SHA256_LEN];
    struct rdrand_sha256 c;

    (void)state;
    digest_of("abc", d);
    check_hex(d, "ba7816bf8f01cfea414140de5dae2223"
                 "b00361a396177a9cb410ff61f20015ad");
    digest_of("", d);
    check_hex(d, "e3b0c44298fc1c149afbf4c8996fb924"
                 "27ae41e4649b934ca495991b7852b855");
    rdrand_sha256_init(&c);
    rdrand_sha256_update(&c, NULL, 0);
    rdrand_sha256_final(&c, d);
    check_hex(d, "e3b0c44298fc1c149afbf4c8996fb924"
                 "27ae41e4649b934ca495991b7852b855");
    /* 448 bits: the padding's length no longer fits, a second block. */
    digest_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", d);
    check_hex(d, "248d6a61d20638b8e5c026930c3e6039"
                 "a33ce45964ff2167f6ecedd419db06c1");
}

/* One million 'a', fed in uneven chunks across block boundaries. */
static void test_million_a(void **state)
{
    static const size_t sizes[] = {1, 63, 64, 65, 127, 55, 56, 1000, 3, 4096};
    unsigned char a[4096], d[RDRAND_SHA256_LEN];
    struct rdrand_sha256 c;
    size_t left = 1000000;

    (void)state;
    memset(a, 'a', sizeof(a));
    rdrand_sha256_init(&c);
    for (size_t i = 0; left > 0; i++) {
        size_t n = sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];

        if (n > left)
            n = left;
        rdrand_sha256_update(&c, a, n);
        left -= n;
    }
    rdrand_sha256_final(&c, d);
    check_hex(d, "cdc76e5c9914fb9281a1c7e284d73e67"
                 "f1809a48a497200e046d39ccc7112cd0");
}

static uint64_t rng = 0x9e3779b97f4a7c15;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Every length 0..300, whole and split at random points, against EVP. */
static void test_against_openssl(void **state)
{
    unsigned char msg[300], want[32], got[RDRAND_SHA256_LEN];
    unsigned int wlen;

    (void)state;
    for (size_t len = 0; len <= sizeof(msg); len++) {
        for (size_t i = 0; i < len; i++)
            msg[i] = (unsigned char)next();
        assert_int_equal(EVP_Digest(msg, len, want, &wlen, EVP_sha256(), NULL),
                         1);
        assert_int_equal(wlen, RDRAND_SHA256_LEN);
        for (int round = 0; round < 20; round++) {
            struct rdrand_sha256 c;
            size_t at = 0;

            rdrand_sha256_init(&c);
            while (at < len) {
                /* round 0 whole; then pieces of 0 to len - at bytes */
                size_t n = round == 0 ? len - at : next() % (len - at + 1);

                rdrand_sha256_update(&c, msg + at, n);
                at += n;
            }
            rdrand_sha256_final(&c, got);
            if (memcmp(got, want, sizeof(got)) != 0)
                fail_msg("length %zu, round %d: differs from EVP", len, round);
        }
    }
}

/* final leaves no byte of the context (it held input) behind. */
static void test_final_wipes(void **state)
{
    static const unsigned char zero[sizeof(struct rdrand_sha256)];
    struct rdrand_sha256 c;
    unsigned char d[RDRAND_SHA256_LEN];

    (void)state;
    for (size_t len = 0; len < 130; len++) {
        memset(&c, 0xa5, sizeof(c));
        rdrand_sha256_init(&c);
        for (size_t i = 0; i < len; i++)
            rdrand_sha256_update(&c, "\xff", 1);
        rdrand_sha256_final(&c, d);
        if (memcmp(&c, zero, sizeof(c)) != 0)
            fail_msg("length %zu: context not wiped", len);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_nist_vectors),
        cmocka_unit_test(test_million_a),
        cmocka_unit_test(test_against_openssl),
        cmocka_unit_test(test_final_wipes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
