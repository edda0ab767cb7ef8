/* SPDX-License-Identifier: Apache-2.0 */
/* What --enable adds and --disable strips (conf_plan.c). */
#ifndef RDRAND_CONF_PLAN_H
#define RDRAND_CONF_PLAN_H

#include <stddef.h>

#include <openssl/conf.h>

#include "conf_text.h"

/*
 * Every line --enable adds inside an operator's section ends with MARK;
 * every new section sits in one block between BEGIN and END at the end.
 */
#define MARK "  # rdrand-check --enable"
#define BEGIN                                                                  \
    "# BEGIN rdrand-provider (rdrand-check --enable; revert: rdrand-check "    \
    "--disable)"
#define END "# END rdrand-provider"

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

int plan_enable(const struct edit_parsed *p, const CONF *conf, struct plan *pl,
                struct edit_why *w);
void edit_apply(const struct edit_text *in, const struct plan *pl,
                struct edit_text *out);
int edit_strip(const struct edit_text *in, struct edit_text *out, int *ours,
               struct edit_why *w);

#endif
