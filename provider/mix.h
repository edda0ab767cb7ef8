/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mix = os: each 32-byte output block is SHA-256 over 48 bytes of the
 * health-tested RDRAND output and 32 bytes of the OS's getrandom
 * (docs/mix.md argues the construction and what it adds).
 */
#ifndef RDRAND_MIX_H
#define RDRAND_MIX_H

#include <stddef.h>

#include "prov.h"

/* Per output block: RDRAND bytes (n_out + 128 bits), OS bytes. */
#define RDRAND_MIX_BLOCK 32
#define RDRAND_MIX_RDRAND_BYTES 48
#define RDRAND_MIX_OS_BYTES 32
/* Blocks per getrandom read: 256 bytes, which the kernel never cuts short. */
#define RDRAND_MIX_READ_BLOCKS 8

/* Fill out[0..len) with RDRAND output as today's mode gives it. */
typedef int rdrand_mix_words_fn(struct rdrand_prov *prov, unsigned char *out,
                                size_t len);

/*
 * Fill out[0..len) with the mix, all or nothing (out wiped on failure).
 * RDRAND_R_OK; the reason words returned (the caller reports it, as for
 * RDRAND alone); or RDRAND_R_OS_ENTROPY_FAILED, already raised naming
 * request, counted (os-failures) and warned about once here.
 */
int rdrand_mix_fill(struct rdrand_prov *prov, unsigned char *out, size_t len,
                    rdrand_mix_words_fn *words, const char *request);

#endif
