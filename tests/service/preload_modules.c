/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An LD_PRELOAD library standing for whatever the operator's shell loads
 * into rdrand-check and a service would not have: it answers
 * OPENSSL_MODULES with the directory RDRAND_TEST_PRELOAD_MODULES named
 * when it was loaded, even after the environment is cleared.  A service
 * draw that only forks keeps it (and finds a module no service finds); one
 * that runs the program anew, with only PATH, does not.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char modules[4096];

__attribute__((constructor)) static void remember(void)
{
    const char *dir = getenv("RDRAND_TEST_PRELOAD_MODULES");

    if (dir != NULL)
        snprintf(modules, sizeof(modules), "%s", dir);
}

__attribute__((visibility("default"))) char *secure_getenv(const char *name)
{
    if (strcmp(name, "OPENSSL_MODULES") == 0 && modules[0] != '\0')
        return modules;
    return getenv(name);
}
