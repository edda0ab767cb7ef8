/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The steps of the load sequence (OSSL_provider_init, provider.c), each
 * in the file of its concern: the configuration (config.c), the CoCo
 * check (coco_policy.c) and the reduce512 key (conditioning_load.c).
 * Each reports what it meets to fault.c.
 */
#ifndef RDRAND_LOAD_H
#define RDRAND_LOAD_H

#include <stddef.h>

#include "config_rules.h"
#include "prov.h"

/*
 * Read the provider's openssl.cnf section through the core into
 * prov->config.  Unset keys take their defaults.  Returns 1 when every
 * value was accepted; 0 when a value was refused (or the section could
 * not be read), with the instance refused (fault.c): it then loads
 * latched (nothing is raised here; each request raises it).  Every key is
 * documented in docs/configuration.md.
 */
int rdrand_config_load(struct rdrand_prov *prov);

/*
 * Detect a confidential guest and, in one, draw and check the configured
 * seed bits.  Returns 1 when loading may go on (possibly latched in error
 * under on_coco_failure = fail-closed), 0 when the provider must refuse.
 * Under on_coco_failure = abort a failure does not return.
 */
int rdrand_coco_init_check(struct rdrand_prov *prov);
/*
 * Its draw and check (called from outside coco_policy.c by tests, which
 * hand it their own scratch to see it wiped, and by bench/): into
 * scratch (at least coco_seed_bits / 8 bytes), wiped before it returns.
 * RDRAND_R_OK or the reason.
 */
int rdrand_coco_seed_check(struct rdrand_prov *prov, unsigned char *scratch,
                           size_t scratch_len);

/*
 * In reduce512 mode, after the self-test: check AES-NI and draw the key
 * (2 words through the calling thread's health tests).  Either failing
 * refuses the instance (fault.c): status 0, health-state saying why,
 * every request failing.
 */
void rdrand_cond_init(struct rdrand_prov *prov);

#endif
