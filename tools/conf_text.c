/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The editor's view of an openssl.cnf: physical lines (every byte kept,
 * so --disable gives the operator's file back), the logical lines NCONF
 * makes of them, and what the file says (conf_text.h).
 */
#define _GNU_SOURCE /* strcasestr */
#include "conf_text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/conf.h>

#include "check.h"
#include "conf_lex.h"

/* ---- the file as physical lines ---- */

void edit_text_free(struct edit_text *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].text);
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

static void oom(void)
{
    fputs("rdrand-check: out of memory\n", stderr);
    exit(EDIT_FAILED);
}

void *edit_xrealloc(void *p, size_t n)
{
    if ((p = realloc(p, n)) == NULL)
        oom();
    return p;
}

char *edit_xstrdup(const char *s)
{
    char *d = strdup(s);

    if (d == NULL)
        oom();
    return d;
}

void edit_push(struct edit_text *t, const char *s, size_t len, const char *eol,
               int added)
{
    struct edit_line *l;

    t->v = edit_xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
    l = &t->v[t->n++];
    l->text = edit_xrealloc(NULL, len + 1);
    memcpy(l->text, s, len);
    l->text[len] = '\0';
    l->eol = eol;
    l->added = added;
}

void edit_split(const char *buf, size_t size, struct edit_text *t)
{
    size_t start = 0;

    t->v = NULL;
    t->n = 0;
    for (size_t i = 0; i < size; i++)
        if (buf[i] == '\n') {
            int cr = i > start && buf[i - 1] == '\r';

            edit_push(t, buf + start, i - start - (size_t)cr,
                      cr ? "\r\n" : "\n", 0);
            start = i + 1;
        }
    if (start < size)
        edit_push(t, buf + start, size - start, "", 0);
}

char *edit_join(const struct edit_text *t, size_t *size)
{
    size_t len = 0, at = 0;
    char *buf;

    for (size_t i = 0; i < t->n; i++)
        len += strlen(t->v[i].text) + strlen(t->v[i].eol);
    buf = edit_xrealloc(NULL, len + 1);
    for (size_t i = 0; i < t->n; i++) {
        size_t a = strlen(t->v[i].text), b = strlen(t->v[i].eol);

        memcpy(buf + at, t->v[i].text, a);
        memcpy(buf + at + a, t->v[i].eol, b);
        at += a + b;
    }
    buf[len] = '\0';
    *size = len;
    return buf;
}

int edit_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);

    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* NCONF continues a line that ends in one backslash (not two). */
static int continued(const char *s)
{
    return conf_line_continues(s, strlen(s));
}

/* ---- the file as NCONF reads it: logical lines, sections, keys ---- */

void edit_parsed_free(struct edit_parsed *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].section);
        free(p->v[i].written);
        free(p->v[i].key);
        free(p->v[i].value);
    }
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

static char *trimmed(const char *s, size_t len)
{
    size_t a = 0;
    char *d;

    while (a < len && isspace((unsigned char)s[a]))
        a++;
    while (len > a && isspace((unsigned char)s[len - 1]))
        len--;
    d = edit_xrealloc(NULL, len - a + 1);
    memcpy(d, s + a, len - a);
    d[len - a] = '\0';
    return d;
}

/* Cut the comment: "#" outside quotes and not escaped, as NCONF does. */

static void classify(struct edit_logical *l, char *buf, const char *section)
{
    char *s, *eq;
    size_t colons;

    conf_strip_comment(buf);
    s = trimmed(buf, strlen(buf));
    l->written = edit_xstrdup(section);
    if (s[0] == '\0') {
        l->kind = K_BLANK;
    } else if (s[0] == '[' && strchr(s, ']') != NULL) {
        l->kind = K_HEADER;
        l->section = trimmed(s + 1, (size_t)(strchr(s, ']') - s - 1));
    } else if (strncmp(conf_key_start(s), ".include", 8) == 0) {
        l->kind = K_INCLUDE;
    } else if (strncmp(conf_key_start(s), ".pragma", 7) == 0) {
        l->kind = K_PRAGMA;
    } else if ((eq = conf_key_equals(s, 0)) != NULL) {
        l->kind = K_KEY;
        l->key = trimmed(s, (size_t)(eq - s));
        l->value = trimmed(eq + 1, strlen(eq + 1));
        /* "sect::key = v" sets key in [sect], wherever it is written. */
        for (colons = 0;
             l->key[colons] != '\0'
             && !(l->key[colons] == ':' && l->key[colons + 1] == ':');
             colons++)
            ;
        if (l->key[colons] != '\0') {
            char *key = edit_xstrdup(l->key + colons + 2);

            l->section = trimmed(l->key, colons);
            free(l->key);
            l->key = key;
        }
    } else {
        l->kind = K_OTHER;
    }
    if (l->section == NULL)
        l->section = edit_xstrdup(section);
    free(s);
}

void edit_parse(const struct edit_text *t, struct edit_parsed *p)
{
    char *section = edit_xstrdup("default"), *buf = NULL;
    size_t len = 0;

    p->v = NULL;
    p->n = 0;
    p->last_continued = t->n > 0 && continued(t->v[t->n - 1].text);
    for (size_t i = 0; i < t->n; i++) {
        size_t n = strlen(t->v[i].text);
        struct edit_logical *l;

        buf = edit_xrealloc(buf, len + n + 1);
        memcpy(buf + len, t->v[i].text, n + 1);
        if (continued(t->v[i].text) && i + 1 < t->n) {
            len += n - 1; /* the backslash goes, the next line joins */
            continue;
        }
        p->v = edit_xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
        l = memset(&p->v[p->n++], 0, sizeof(*l));
        l->last = i;
        l->first = i;
        while (l->first > 0 && continued(t->v[l->first - 1].text))
            l->first--;
        classify(l, buf, section);
        if (l->kind == K_HEADER) {
            free(section);
            section = edit_xstrdup(l->section);
        }
        len = 0;
    }
    free(buf);
    free(section);
}

/* ---- reasons and messages ---- */

int edit_refuse(struct edit_why *w, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(w->text, sizeof(w->text), fmt, ap);
    va_end(ap);
    return 0;
}

/* ---- what the file says ---- */

size_t edit_headers(const struct edit_parsed *p, const char *section)
{
    size_t n = 0;

    for (size_t i = 0; i < p->n; i++)
        n += p->v[i].kind == K_HEADER && strcmp(p->v[i].section, section) == 0;
    return n;
}

/* The key lines of [section] matching key (nocase: [random]'s rule). */
const struct edit_logical *edit_key_line(const struct edit_parsed *p,
                                         const char *section, const char *key,
                                         int nocase, size_t *count)
{
    const struct edit_logical *found = NULL;

    *count = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->v[i].kind == K_KEY && strcmp(p->v[i].section, section) == 0
            && (nocase ? strcasecmp(p->v[i].key, key)
                       : strcmp(p->v[i].key, key))
                   == 0) {
            found = &p->v[i];
            (*count)++;
        }
    return found;
}

/*
 * A section this edits or reads must be one block of plain lines:
 * written once (OpenSSL merges a second header into the first, and a line
 * added after one of them could land anywhere in the merged order), no
 * continued line (the insertion point and the key's extent would be
 * NCONF's, not ours), no "a::key" from elsewhere.  The default section
 * has no header.
 */
int edit_plain_section(const struct edit_parsed *p, const char *section,
                       struct edit_why *w)
{
    size_t want = strcmp(section, "default") == 0 ? 0 : 1;

    if (edit_headers(p, section) != want)
        return edit_refuse(
            w,
            want ? "[%s] is written %zu times (OpenSSL merges them "
                   "into one section); make it one section by hand"
                 : "[%s] is reopened %zu times by a header "
                   "(OpenSSL merges it into the lines before the "
                   "first section); move those keys up by hand",
            section, edit_headers(p, section));
    for (size_t i = 0; i < p->n; i++) {
        const struct edit_logical *l = &p->v[i];

        if (strcmp(l->section, section) != 0)
            continue;
        if (l->first != l->last)
            return edit_refuse(w,
                               "line %zu: [%s] has a line continued with a "
                               "backslash (lines %zu-%zu); join it by hand",
                               l->first + 1, section, l->first + 1,
                               l->last + 1);
        if (l->kind == K_KEY && strcmp(l->written, section) != 0)
            return edit_refuse(
                w,
                "line %zu: %s::%s, written in [%s], sets a key of "
                "[%s]; move it into [%s] by hand",
                l->first + 1, section, l->key, l->written, section, section);
    }
    return 1;
}

/*
 * A key this reads, written at most once (NCONF keeps the last silently,
 * and [random] matches keys ignoring case): 0 and why if not; *l is the
 * line, or NULL when the key is not there.
 */
int edit_read_key(const struct edit_parsed *p, const char *section,
                  const char *key, int nocase, const struct edit_logical **l,
                  struct edit_why *w)
{
    size_t count;

    *l = edit_key_line(p, section, key, nocase, &count);
    if (count <= 1)
        return 1;
    return edit_refuse(
        w,
        "line %zu: [%s] %s is given %zu times (OpenSSL keeps only "
        "the last one%s); keep one by hand",
        (*l)->first + 1, section, key, count,
        nocase ? ", whatever its case" : "");
}

/* The line after which keys are added to [section] (SIZE_MAX: before 1). */
size_t edit_insert_point(const struct edit_parsed *p, const char *section)
{
    size_t at = SIZE_MAX;

    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i].section, section) == 0
            && (p->v[i].kind == K_KEY || p->v[i].kind == K_HEADER))
            at = p->v[i].last;
    return at;
}

/*
 * A value this reads must be what NCONF reads: no quotes, escapes or
 * $variables, which NCONF resolves and a line editor would not.
 */
int edit_plain_value(const CONF *conf, const struct edit_logical *l,
                     struct edit_why *w)
{
    STACK_OF(CONF_VALUE) *sect = NCONF_get_section(conf, l->section);

    for (int i = 0; sect != NULL && i < sk_CONF_VALUE_num(sect); i++) {
        const CONF_VALUE *kv = sk_CONF_VALUE_value(sect, i);

        if (strcmp(kv->name, l->key) == 0 && strcmp(kv->value, l->value) == 0
            && strchr(l->value, '$') == NULL)
            return 1;
    }
    return edit_refuse(
        w,
        "line %zu: [%s] %s = %s: OpenSSL reads a different value "
        "(quotes, escapes or a $variable); --enable edits only "
        "plain values: write it plainly by hand",
        l->first + 1, l->section, l->key, l->value);
}

/* OpenSSL 3.3+ reads activate as a boolean (provider_conf.c). */
static int true_boolean(const char *v)
{
    return strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "YES") == 0
           || strcmp(v, "true") == 0 || strcmp(v, "TRUE") == 0
           || strcmp(v, "on") == 0 || strcmp(v, "ON") == 0;
}

/*
 * Whether section activates its provider: 1 or 0, and -1 (*bad set to
 * the value) for a value 3.0-3.2 read as on (present is on) and 3.3+ as
 * off or refuse ("activate = 0"): a file that outlives a dist-upgrade
 * must mean the same on both.
 */
int edit_activates(const CONF *conf, const char *section, const char **bad)
{
    STACK_OF(CONF_VALUE) *sect = NCONF_get_section(conf, section);
    int on = 0;

    for (int i = 0; sect != NULL && i < sk_CONF_VALUE_num(sect); i++) {
        const CONF_VALUE *kv = sk_CONF_VALUE_value(sect, i);

        if (strcmp(conf_skip_dot(kv->name), "activate") != 0)
            continue;
        if (!true_boolean(kv->value)) {
            *bad = kv->value;
            return -1;
        }
        on = 1;
    }
    return on;
}

/* Lines that name rdrand: keys, values and headers, not comments. */
size_t edit_naming_lines(const struct edit_parsed *p, char *out, size_t len)
{
    size_t n = 0, at = 0;

    if (len > 0)
        out[0] = '\0';
    for (size_t i = 0; i < p->n; i++) {
        const struct edit_logical *l = &p->v[i];
        int names = (l->kind == K_HEADER && strcasestr(l->section, "rdrand"))
                    || (l->kind == K_KEY
                        && (strcasestr(l->key, "rdrand")
                            || strcasestr(l->value, "rdrand")));

        if (!names)
            continue;
        n++;
        if (at < len && l->kind == K_HEADER)
            at += (size_t)snprintf(out + at, len - at, "\n  line %zu: [%s]",
                                   l->first + 1, l->section);
        else if (at < len)
            at += (size_t)snprintf(out + at, len - at, "\n  line %zu: %s = %s",
                                   l->first + 1, l->key, l->value);
    }
    return n;
}
