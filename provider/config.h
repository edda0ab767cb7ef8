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
 * not be read), with the instance refused (fault.c): it then loads
 * latched (nothing is raised here; each request raises it).  Every key is
 * documented in docs/configuration.md.
 */
int rdrand_config_load(struct rdrand_prov *prov);

#endif
