/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AES-128 through AES-NI, for the two users that need it: the CBC-MAC of
 * conditioning = reduce512 (conditioning.c) and the one-way digest of
 * the health tests' words (health.h).  Compiled for AES-NI function by
 * function (RDRAND_AESNI), so rdrand.so still loads and runs on a CPU
 * without it: nothing that executes an AES instruction runs unless
 * rdrand_aes_present() said 1.
 */
#ifndef RDRAND_AES_H
#define RDRAND_AES_H

#define RDRAND_AESNI __attribute__((target("aes,sse2")))

/* The AES-128 key's bytes. */
#define RDRAND_AES_KEY_BYTES 16

/* The expanded AES-128 key: 11 round keys; ready once it holds a key. */
struct rdrand_aes_key {
    _Alignas(16) unsigned char round[11][16];
    int ready;
};

/* 1 if CPUID (through hw.h) reports AES-NI: leaf 1 ECX bit 25. */
int rdrand_aes_present(void);

/*
 * Expand key into k (only after rdrand_aes_present() said 1).  The caller
 * wipes key; rdrand_aes_forget wipes k.
 */
void rdrand_aes_set_key(struct rdrand_aes_key *k,
                        const unsigned char key[RDRAND_AES_KEY_BYTES]);
void rdrand_aes_forget(struct rdrand_aes_key *k);

/*
 * XMM registers are caller-saved and nobody clears them: after AES code
 * returns they would still hold round keys (the first is the key itself)
 * and MAC states, and the dynamic linker's lazy-binding trampoline
 * (xsave) or a signal frame copies them to the stack.  So a function that
 * touches key material clears every XMM register before returning; the
 * clobbers tell the compiler nothing lives there across it.
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

#endif
