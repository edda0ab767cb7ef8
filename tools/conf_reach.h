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

/*
 * What the service draw cannot see about path (a configuration file, an
 * include, the module), as problems at pos: others may read it, its owner
 * or group may not; an ACL (a warning); a tree a unit's PrivateTmp= or
 * ProtectHome= hides (a warning).
 */
void conf_reach_limits(struct check_report *r, const char *path, int pos,
                       const char *section, const char *key);

/* The first $ENV::NAME NCONF would expand in value (under .pragma
 * dollarid only ${...} and $(...) expand): 1 and NAME, or 0. */
int conf_reach_env(const char *value, int dollarid, char *name, size_t len);

/* The finding for a value at pos that reads $ENV::name (the file's own
 * [ENV] not defining name above it: NCONF looks it up as it reads). */
void conf_reach_env_finding(struct check_report *r, const char *section,
                            const char *key, const char *name, int pos);

#endif
