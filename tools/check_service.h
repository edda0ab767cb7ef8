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
    char user[64];  /* ... by name ("" when the uid has none) */
    int ran;        /* the draw was attempted: code and why hold it */
    int code;       /* its verdict, an enum check_exit */
    char why[1280]; /* what it found, when code != 0 */
};

/*
 * Whom the service draw runs as: who ("nobody" when NULL and this is
 * root, else this process's user): a name or a numeric uid.  Only root
 * may name another user.  0, or an error in err (a usage error).
 */
int check_service_user(struct check_service *s, const char *who, char *err,
                       size_t len);

/* The check in the service's process: its verdict and its reason. */
typedef int check_service_fn(void *arg, char *why, size_t len);

/*
 * Fork; in the child, become the service (environment cleared to PATH,
 * working directory /, s->uid with its groups, no way back) and run fn;
 * its verdict and reason into s.  Call before this process has loaded a
 * configuration: the child must start from what a service starts from.
 */
void check_service_run(struct check_service *s, check_service_fn *fn,
                       void *arg);

#endif
