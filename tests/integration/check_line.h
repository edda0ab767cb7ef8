/* SPDX-License-Identifier: Apache-2.0 */
/*
 * "ok - WHAT" or "not ok - WHAT" on stdout, flushed before any fork, and
 * the failures counted: for the programs that fork and so cannot use
 * cmocka's runner (a child's failure must be the parent's to count).
 */
#ifndef RDRAND_CHECK_LINE_H
#define RDRAND_CHECK_LINE_H

#include <stdio.h>

static int failed;

static int check(int ok, const char *what)
{
    printf("%s - %s\n", ok ? "ok" : "not ok", what);
    fflush(stdout);
    failed += !ok;
    return ok;
}

#endif
