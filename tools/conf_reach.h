/* SPDX-License-Identifier: Apache-2.0 */
/* Does every process read what this one reads? (conf_reach.c) */
#ifndef RDRAND_CONF_REACH_H
#define RDRAND_CONF_REACH_H

#include <stddef.h>

#include <openssl/conf.h>

#include "check.h"

/* A finding at pos when path (the file checked, pos 0, or an include) is
 * closed to other users: its mode, or a directory above it. */
void conf_reach_file(struct check_report *r, const char *path, int pos);

/* The first $ENV::NAME NCONF would expand in value: 1 and NAME, or 0. */
int conf_reach_env(const char *value, char *name, size_t len);

/* A finding at pos when value takes part of itself from the environment
 * (and the file's own [ENV] does not define that name). */
void conf_reach_value(struct check_report *r, const CONF *conf,
                      const char *section, const char *key, const char *value,
                      int pos);

#endif
