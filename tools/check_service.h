/* SPDX-License-Identifier: Apache-2.0 */
/* The check again, as a system service would run it (check_service.c). */
#ifndef RDRAND_CHECK_SERVICE_H
#define RDRAND_CHECK_SERVICE_H

#include <stddef.h>
#include <sys/types.h>

struct check_service {
    int here;       /* --here: this user and environment only, no redraw */
    uid_t uid;      /* who the service draw runs as */
    gid_t gid;      /* ... with this group, and the user's groups */
    char user[64];  /* ... by name (a passwd entry is required) */
    int ran;        /* the draw was attempted: code and why hold it */
    int code;       /* its verdict, an enum check_exit; -1: it did not run */
    char why[1024]; /* what it found, or why it did not run */
};

/*
 * Whom the service draw runs as: who ("nobody" when NULL and this is
 * root, else this process's user): a name or a numeric uid.  Only root
 * may name another user.  0, or an error in err (a usage error).
 */
int check_service_user(struct check_service *s, const char *who, char *err,
                       size_t len);

/*
 * Check config (an absolute path) for provider as a service would: a
 * child becomes the service (s->uid with its groups, no way back,
 * working directory /) and runs this program anew with only PATH in its
 * environment (rdrand-check --here -c config --provider provider).  Its
 * verdict into s->code (CHECK_LIVE, _UNHEALTHY, _MISCONFIGURED; -1: it
 * could not run) and, unless live, its reason into s->why.
 */
void check_service_run(struct check_service *s, const char *config,
                       const char *provider);

#endif
