/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A finding of the check: every part of rdrand-check (the configuration
 * walk, the check, --pid) reports through this, and rdrand-check.c prints
 * what was found.
 */
#include <stdarg.h>
#include <stdio.h>

#include "check.h"

void check_problem(struct check_report *r, enum check_severity sev, int line,
                   const char *section, const char *key, const char *fmt, ...)
{
    struct check_problem *p;
    va_list ap;

    if (r->nproblems == CHECK_MAX_PROBLEMS)
        return;
    p = &r->problems[r->nproblems++];
    p->severity = sev;
    p->line = line;
    snprintf(p->section, sizeof(p->section), "%s", section ? section : "");
    snprintf(p->key, sizeof(p->key), "%s", key ? key : "");
    va_start(ap, fmt);
    vsnprintf(p->message, sizeof(p->message), fmt, ap);
    va_end(ap);
}
