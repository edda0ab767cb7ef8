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

/*
 * The exit status, and the finding that made it (-1 for none): the first
 * of the deciding severity that names a line to fix, else the first.
 */
int check_verdict_of(const struct check_report *r, int *because)
{
    int code = CHECK_LIVE;
    enum check_severity sev;

    *because = -1;
    for (size_t i = 0; i < r->nproblems; i++) {
        if (r->problems[i].severity == SEV_MISCONFIGURED)
            code = CHECK_MISCONFIGURED;
        else if (r->problems[i].severity == SEV_UNHEALTHY && code == CHECK_LIVE)
            code = CHECK_UNHEALTHY;
    }
    sev = code == CHECK_MISCONFIGURED ? SEV_MISCONFIGURED : SEV_UNHEALTHY;
    for (size_t i = 0; code != CHECK_LIVE && i < r->nproblems; i++)
        if (r->problems[i].severity == sev
            && (*because < 0
                || (r->problems[*because].line == 0
                    && r->problems[i].line > 0)))
            *because = (int)i;
    return code;
}

int check_verdict(const struct check_report *r)
{
    int because;

    return check_verdict_of(r, &because);
}
