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

struct rdrand_prov;
/*
 * Raise RDRAND_R_BAD_PARAMETER for p, which could not be answered: out of
 * range for the integer (or double) asked for, or the wrong type.  what
 * names the kind ("provider parameter"), lister the call that lists them
 * ("OSSL_PROVIDER_gettable_params"), gettable that list, from which the
 * message names the type to ask for.
 */
void rdrand_bad_param(const struct rdrand_prov *prov, const char *what,
                      const char *lister, const OSSL_PARAM *gettable,
                      const OSSL_PARAM *p);

#endif
