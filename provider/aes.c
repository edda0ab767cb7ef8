/* SPDX-License-Identifier: Apache-2.0 */
#include "aes.h"

#include <openssl/crypto.h>

#include <immintrin.h>

#include "hw.h"

int rdrand_aes_present(void)
{
    return rdrand_hw_leaf1_ecx(25);
}

/*
 * One step of the AES-128 key schedule (FIPS 197, 5.2): word i of the
 * new round key is word i of the previous one xored with every word
 * before it in the previous one (a prefix xor: two shifted xors), and
 * with SubWord(RotWord(last word)) ^ Rcon, which aeskeygenassist leaves
 * in its top word.
 */
RDRAND_AESNI static inline __m128i rdrand_aes_step(__m128i prev, __m128i assist)
{
    prev = _mm_xor_si128(prev, _mm_slli_si128(prev, 4));
    prev = _mm_xor_si128(prev, _mm_slli_si128(prev, 8));
    return _mm_xor_si128(prev, _mm_shuffle_epi32(assist, 0xff));
}

/* aeskeygenassist takes its Rcon as an immediate: one line per round. */
#define RDRAND_AES_ROUND(rk, i, rcon)                                          \
    (rk)[i] = rdrand_aes_step((rk)[(i)-1],                                     \
                              _mm_aeskeygenassist_si128((rk)[(i)-1], rcon))

RDRAND_AESNI void
rdrand_aes_set_key(struct rdrand_aes_key *k,
                   const unsigned char key[RDRAND_AES_KEY_BYTES])
{
    __m128i rk[11];

    rk[0] = _mm_loadu_si128((const __m128i *)(const void *)key);
    RDRAND_AES_ROUND(rk, 1, 0x01);
    RDRAND_AES_ROUND(rk, 2, 0x02);
    RDRAND_AES_ROUND(rk, 3, 0x04);
    RDRAND_AES_ROUND(rk, 4, 0x08);
    RDRAND_AES_ROUND(rk, 5, 0x10);
    RDRAND_AES_ROUND(rk, 6, 0x20);
    RDRAND_AES_ROUND(rk, 7, 0x40);
    RDRAND_AES_ROUND(rk, 8, 0x80);
    RDRAND_AES_ROUND(rk, 9, 0x1b);
    RDRAND_AES_ROUND(rk, 10, 0x36);
    for (int i = 0; i < 11; i++)
        _mm_store_si128((__m128i *)(void *)k->round[i], rk[i]);
    RDRAND_CLEAR_XMM(); /* before the call: its lazy binding saves XMM */
    OPENSSL_cleanse(rk, sizeof(rk));
    k->ready = 1;
}

void rdrand_aes_forget(struct rdrand_aes_key *k)
{
    OPENSSL_cleanse(k, sizeof(*k));
}
