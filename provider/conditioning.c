/* SPDX-License-Identifier: Apache-2.0 */
#include "conditioning.h"

#include <string.h>

#include <openssl/crypto.h>

#include <immintrin.h>

#include "counters.h"
#include "draw.h"
#include "errors.h"

/*
 * Nothing here runs unless CPUID said AES-NI (rdrand_cond_init,
 * conditioning_load.c, refuses the mode first).  No EVP from inside the
 * seed source: EVP may fetch from a provider whose DRBG this very source
 * is seeding.
 */
RDRAND_AESNI void rdrand_cond_mac(const struct rdrand_aes_key *k,
                                  unsigned char mac[RDRAND_COND_BLOCK],
                                  const unsigned char *in, size_t len)
{
    __m128i m = _mm_loadu_si128((const __m128i *)(const void *)mac);

    for (size_t at = 0; at + RDRAND_COND_BLOCK <= len;
         at += RDRAND_COND_BLOCK) {
        m = _mm_xor_si128(
            m, _mm_loadu_si128((const __m128i *)(const void *)(in + at)));
        m = _mm_xor_si128(
            m, _mm_load_si128((const __m128i *)(const void *)k->round[0]));
        for (int r = 1; r < 10; r++)
            m = _mm_aesenc_si128(
                m, _mm_load_si128((const __m128i *)(const void *)k->round[r]));
        m = _mm_aesenclast_si128(
            m, _mm_load_si128((const __m128i *)(const void *)k->round[10]));
    }
    _mm_storeu_si128((__m128i *)(void *)mac, m);
    RDRAND_CLEAR_XMM();
}

/*
 * The reduction.  Intel's guidance for seed-grade output from RDRAND
 * (DRNG Software Implementation Guide, "Generating Seeds from RDRAND"):
 * the CPU's DRBG is reseeded from its entropy source at least every 511
 * 128-bit samples, so a CBC-MAC over 512 consecutive samples spans a
 * reseed, and its 128 bits carry a fresh conditioned seed's entropy.
 * Every raw word goes through rdrand_draw and so through the no-retry
 * rule and the health tests; the first bad one, anywhere in any block,
 * fails the whole request: out wiped, nothing counted but the words.
 * Samples are drawn a chunk at a time into the stack, MACed, and wiped
 * once at the end (each chunk overwrites the last).
 */
int rdrand_cond_fill(const struct rdrand_aes_key *k, struct rdrand_health *h,
                     unsigned char *out, size_t len)
{
    _Alignas(16) unsigned char chunk[RDRAND_COND_CHUNK_WORDS * 8];
    unsigned char mac[RDRAND_COND_BLOCK];
    uint64_t blocks = 0;
    size_t done = 0;
    int reason = k->ready ? RDRAND_R_OK : RDRAND_R_INTERNAL;

    while (reason == RDRAND_R_OK && done < len) {
        size_t n = len - done < sizeof(mac) ? len - done : sizeof(mac);

        memset(mac, 0, sizeof(mac));
        for (size_t w = 0; reason == RDRAND_R_OK && w < RDRAND_COND_WORDS;
             w += RDRAND_COND_CHUNK_WORDS)
            if ((reason = rdrand_draw(h, chunk, sizeof(chunk))) == RDRAND_R_OK)
                rdrand_cond_mac(k, mac, chunk, sizeof(chunk));
        /* A truncated last block: its other bytes go with mac, wiped. */
        if (reason == RDRAND_R_OK) {
            memcpy(out + done, mac, n);
            done += n;
            blocks++;
        }
    }
    /*
     * Unoptimised builds (Debug, the sanitizers) keep the intrinsics'
     * temporaries in rdrand_cond_mac's frame, the last raw sample among
     * them (optimised ones keep them in registers): the draw's own frame
     * wipe, called from here, overwrites it.
     */
    rdrand_wipe_draw_frame();
    OPENSSL_cleanse(chunk, sizeof(chunk));
    OPENSSL_cleanse(mac, sizeof(mac));
    if (reason != RDRAND_R_OK) {
        OPENSSL_cleanse(out, len);
        return reason;
    }
    rdrand_counter_add(RDRAND_CTR_CONDITIONED_BLOCKS, blocks);
    return RDRAND_R_OK;
}
