/* SPDX-License-Identifier: Apache-2.0 */
/* What --enable adds and --disable strips (conf_plan.c). */
#ifndef RDRAND_CONF_PLAN_H
#define RDRAND_CONF_PLAN_H

#include <stddef.h>

#include <openssl/conf.h>

#include "conf_text.h"

#define MARK "  # rdrand-check --enable"
#define BEGIN                                                                  \
    "# BEGIN rdrand-provider (rdrand-check --enable; revert: rdrand-check "    \
    "--disable)"
#define END "# END rdrand-provider"
#define BACKUP_INFIX ".rdrand-check-backup-"
#define MAX_BACKUPS 64
/* An openssl.cnf is a few kB; anything this large is not one. */
#define MAX_SIZE (4 << 20)

/* Our section names; any of them in the file means it names rdrand. */
#define S_INIT "rdrand_openssl_init"
#define S_PROVIDERS "rdrand_provider_sect"
#define S_DEFAULT "rdrand_default_sect"
#define S_RDRAND "rdrand_sect"
#define S_RANDOM "rdrand_random_sect"

struct addition {
    size_t after; /* physical line (SIZE_MAX: before the first) */
    char text[160];
};

struct plan {
    struct addition add[8];
    size_t nadd;
    int new_init, new_providers, new_default, new_random;
};

int plan_enable(const struct parsed *p, const CONF *conf, struct plan *pl,
                struct why *w);
void apply(const struct text *in, const struct plan *pl, struct text *out);
int strip(const struct text *in, struct text *out, int *ours, struct why *w);

#endif
