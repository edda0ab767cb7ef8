/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conditioning = reduce512 (docs/conditioning.md): every 16-byte output
 * block is the AES-128 CBC-MAC of 512 fresh 128-bit RDRAND samples (1024
 * RDRAND64 words), so that each block spans a reseed of the CPU's DRBG.
 * AES through AES-NI only, and only after CPUID has said it is there.
 */
#ifndef RDRAND_CONDITIONING_H
#define RDRAND_CONDITIONING_H

#include <stddef.h>
#include <stdint.h>

#include "aes.h"

struct rdrand_health; /* health.h: SSE2 intrinsics, not for every file */

/* One output block: AES's block. */
#define RDRAND_COND_BLOCK 16
/* 128-bit samples per block, and the RDRAND64 words that make them. */
#define RDRAND_COND_SAMPLES 512
#define RDRAND_COND_WORDS ((size_t)2 * RDRAND_COND_SAMPLES)
/* Raw words drawn (and MACed, then wiped) at a time, on the stack. */
#define RDRAND_COND_CHUNK_WORDS 64
/* The key: AES-128 (aes.h), drawn from RDRAND at load. */
#define RDRAND_COND_KEY_BYTES RDRAND_AES_KEY_BYTES

/*
 * CBC-MAC chaining: for each 16-byte block b of in (len a multiple of
 * 16), mac = AES_k(mac ^ b).  Starting from a zero mac, the result over a
 * whole message is the last block of its AES-128-CBC encryption with a
 * zero IV.
 */
void rdrand_cond_mac(const struct rdrand_aes_key *k,
                     unsigned char mac[RDRAND_COND_BLOCK],
                     const unsigned char *in, size_t len);

/*
 * Fill out[0..len) with conditioned blocks, every raw word drawn through
 * rdrand_draw(h, ...) (no retry, the health tests of h); the last block
 * is truncated to what len leaves and its unused bytes wiped.  Returns
 * RDRAND_R_OK and counts the blocks delivered (conditioned-blocks), or
 * the draw's reason with out wiped and nothing counted but the words.
 */
int rdrand_cond_fill(const struct rdrand_aes_key *k, struct rdrand_health *h,
                     unsigned char *out, size_t len);

#endif
