/* SPDX-License-Identifier: Apache-2.0 */
#include "conditioning.h"

#include <string.h>

#include <openssl/crypto.h>

#include <immintrin.h>

#include "counters.h"
#include "draw.h"
#include "errors.h"
#include "hw.h"

/*
 * The AES code is compiled for AES-NI by this attribute alone, function
 * by function, so rdrand.so still loads and runs (conditioning = none) on
 * a CPU without it; nothing below is called unless CPUID said AES-NI
 * (rdrand_cond_init, conditioning_load.c, refuses the mode first).  No EVP from
 * inside the seed source: EVP may fetch from a provider whose DRBG this very
 * source is seeding.
 */
#define RDRAND_AESNI __attribute__((target("aes,sse2")))

int rdrand_cond_aesni(void)
{
    return rdrand_hw_leaf1_ecx(25);
}

/*
 * XMM registers are caller-saved and nobody clears them: after the AES
 * code returns they would still hold round keys (the first is the key
 * itself) and MAC states, and the dynamic linker's lazy-binding
 * trampoline (xsave) or a signal frame copies them to the stack.  So the
 * two functions that touch key material clear every XMM register before
 * returning; the clobbers tell the compiler nothing lives there across it.
 */
#if defined(__x86_64__)
#define RDRAND_CLEAR_XMM()                                                     \
    __asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\t"          \
                     "pxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"          \
                     "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"          \
                     "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\t"          \
                     "pxor %%xmm8, %%xmm8\n\tpxor %%xmm9, %%xmm9\n\t"          \
                     "pxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"      \
                     "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\t"      \
                     "pxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15"          \
                     :                                                         \
                     :                                                         \
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", \
                       "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",      \
                       "xmm13", "xmm14", "xmm15")
#else
#define RDRAND_CLEAR_XMM() ((void)0)
#endif

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
rdrand_cond_set_key(struct rdrand_cond_key *k,
                    const unsigned char key[RDRAND_COND_KEY_BYTES])
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

void rdrand_cond_forget(struct rdrand_cond_key *k)
{
    OPENSSL_cleanse(k, sizeof(*k));
}

RDRAND_AESNI void rdrand_cond_mac(const struct rdrand_cond_key *k,
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
int rdrand_cond_fill(const struct rdrand_cond_key *k, struct rdrand_health *h,
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
