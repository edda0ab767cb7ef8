/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RDRAND_PARAMS_H
#define RDRAND_PARAMS_H

#include <stdint.h>

#include <openssl/params.h>

/*
 * OSSL_PARAM_set_uint64, safe for a size query on an 8-byte REAL:
 * OpenSSL's own (and its set_size_t and set_ulong) writes through the NULL
 * data pointer of one, on 3.0.19, 3.5.7 and 3.6.3 alike (found by
 * tests/fuzz/fuzz_params.c).
 */
int rdrand_param_set_uint64(OSSL_PARAM *p, uint64_t val);

#endif
