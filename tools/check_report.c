/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A finding of the check: every part of rdrand-check (the configuration
 * walk, the check, --pid) reports through this; the verdict the findings
 * make; a finding as one line of text, and any text another process or
 * a file controls made safe to print (check_output.c prints reports).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/*
 * The length of the well-formed UTF-8 sequence at s (1 to 4), or 0 for
 * an ill-formed one (bad lead or continuation byte, overlong, surrogate,
 * above U+10FFFF).  Config values are free text: the outputs must stay
 * valid JSON and Prometheus text whatever bytes they hold.
 */
size_t check_utf8_len(const unsigned char *s)
{
    size_t n = s[0] < 0x80   ? 1
               : s[0] < 0xc2 ? 0
               : s[0] < 0xe0 ? 2
               : s[0] < 0xf0 ? 3
               : s[0] < 0xf5 ? 4
                             : 0;

    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0)      /* overlong */
        || (n == 3 && s[0] == 0xed && s[1] >= 0xa0)  /* surrogate */
        || (n == 4 && s[0] == 0xf0 && s[1] < 0x90)   /* overlong */
        || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90)) /* > U+10FFFF */
        return 0;
    return n;
}

/*
 * s for a terminal: a byte that could steer one (C0 and C1 controls, DEL)
 * or is not UTF-8 is written as \xNN.  Text a process or a file chose
 * (a process name, a path, a config value) cannot print a line of its own
 * or move the cursor over the verdict.
 */
void put_text_safe(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        size_t n = check_utf8_len(p);

        if (n == 0 || *p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] < 0xa0)) {
            for (size_t i = 0; i < (n ? n : 1); i++)
                fprintf(out, "\\x%02x", p[i]);
            p += n ? n : 1;
            continue;
        }
        fwrite(p, 1, n, out);
        p += n;
    }
}

/*
 * A finding as one line, "file:line: [section] key: message", the parts
 * there are (cut at len); the text report escapes it, the service draw's
 * finding is compared with it.
 */
void problem_text(const struct check_report *r, const struct check_problem *p,
                  char *buf, size_t len)
{
    size_t n = 0;

#define PROBLEM_ADD(...)                                                       \
    (n += n < len ? (size_t)snprintf(buf + n, len - n, __VA_ARGS__) : 0)
    buf[0] = '\0';
    if (p->line > 0)
        PROBLEM_ADD("%s:%d: ", p->file[0] != '\0' ? p->file : r->shown,
                    p->line);
    if (p->section[0] != '\0')
        PROBLEM_ADD("[%s] ", p->section);
    if (p->key[0] != '\0')
        PROBLEM_ADD("%s: ", p->key);
#undef PROBLEM_ADD
    if (n < len)
        snprintf(buf + n, len - n, "%s", p->message);
}

const struct check_value *check_param(const struct dynamic *d, const char *key)
{
    for (size_t i = 0; i < d->nparams; i++)
        if (strcmp(d->params[i].key, key) == 0)
            return &d->params[i];
    return NULL;
}
