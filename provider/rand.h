/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RDRAND_RAND_H
#define RDRAND_RAND_H

#include <openssl/core.h>

/* Security strength claimed for RDRAND output (bits). */
#define RDRAND_STRENGTH 256
/* Largest generate request served in one call (bytes). */
#define RDRAND_MAX_REQUEST 4096

extern const OSSL_DISPATCH rdrand_rand_functions[];

#endif
