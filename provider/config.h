/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RDRAND_CONFIG_H
#define RDRAND_CONFIG_H

#include <stddef.h>

#include "config_rules.h"
#include "prov.h"

/*
 * Read the provider's openssl.cnf section through the core into
 * prov->config.  Unset keys take their defaults.  Returns 1 when every
 * value was accepted; 0 when a value was refused (or the section could
 * not be read), with config.reason, config.error and config.state set:
 * the provider then loads latched (nothing is raised here; each request
 * raises it).  Every key is documented in docs/configuration.md.
 */
int rdrand_config_load(struct rdrand_prov *prov);

/*
 * Latch the provider as a refused section does (the first refusal is
 * kept): reason is what requests raise, why says what failed and what the
 * operator can do.  key is the rdrand_config_key at fault, or -1.  Also
 * for what makes a key's value unusable on this machine at load
 * (conditioning_load.c).
 */
void rdrand_config_refuse(struct rdrand_config *cfg, int reason, int key,
                          const char *why);

/* 1 when the section was accepted. */
int rdrand_config_ok(const struct rdrand_prov *prov);

/*
 * The config latch, checked first by every request: if the section was
 * refused, raise why (naming request and len) and return 1.
 */
int rdrand_config_refuses(const struct rdrand_prov *prov, const char *request,
                          size_t len);

#endif
