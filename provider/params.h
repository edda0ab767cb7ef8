/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RDRAND_PARAMS_H
#define RDRAND_PARAMS_H

#include <stdint.h>

#include <openssl/params.h>

/*
 * OSSL_PARAM_set_uint64, safe for a size query on an 8-byte REAL: OpenSSL
 * 3.0's own (and its set_size_t) writes through the NULL data pointer of
 * one (found by tests/fuzz/fuzz_params.c; later releases check first).
 */
int rdrand_param_set_uint64(OSSL_PARAM *p, uint64_t val);

#endif
