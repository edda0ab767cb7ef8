/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RDRAND_CONFIG_H
#define RDRAND_CONFIG_H

#include "prov.h"

#define RDRAND_COCO_SEED_BITS_MIN 256
#define RDRAND_COCO_SEED_BITS_MAX 4096

/*
 * Read the provider's openssl.cnf section through the core into
 * prov->config.  Unset keys take their defaults; a value we do not accept
 * raises RDRAND_R_BAD_CONFIG naming the key, the value and what is
 * accepted, and returns 0.  Every key is documented in
 * docs/configuration.md.
 */
int rdrand_config_load(struct rdrand_prov *prov);

#endif
