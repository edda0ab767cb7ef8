/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check --enable / --disable: make, or revert, the edit that makes
 * rdrand.so the seed source in an openssl.cnf (Debian's stock file, or any
 * file whose structure this understands), and nothing else.
 *
 * The file is edited line by line, never rewritten: every line added
 * inside an operator's section ends with MARK, every new section sits in
 * one block between BEGIN and END at the end of the file, so --disable
 * removes exactly what --enable added and gives back the operator's bytes.
 * What it does not understand (see plan_enable) it refuses, changing
 * nothing.  The result is checked in a child process by rdrand-check's
 * own check (static and live) before it replaces the file: a temporary
 * file in the same directory, a backup, then rename().
 */
#define _GNU_SOURCE /* realpath's PATH_MAX buffer is not needed: NULL */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include "check.h"
#include "conf_walk.h"

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

/* The check a new file passes before it replaces the old (the caller's). */
static check_file_fn *check_file;

/* ---- the file as physical lines ---- */

struct line {
    char *text;      /* without its end of line */
    const char *eol; /* "\n", "\r\n" or "" (last line, unterminated) */
    int added;       /* --enable's, in a plan */
};

struct text {
    struct line *v;
    size_t n;
};

static void text_free(struct text *t)
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

static void *xrealloc(void *p, size_t n)
{
    if ((p = realloc(p, n)) == NULL)
        oom();
    return p;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);

    if (d == NULL)
        oom();
    return d;
}

static void push(struct text *t, const char *s, size_t len, const char *eol,
                 int added)
{
    struct line *l;

    t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
    l = &t->v[t->n++];
    l->text = xrealloc(NULL, len + 1);
    memcpy(l->text, s, len);
    l->text[len] = '\0';
    l->eol = eol;
    l->added = added;
}

static void split(const char *buf, size_t size, struct text *t)
{
    size_t start = 0;

    t->v = NULL;
    t->n = 0;
    for (size_t i = 0; i < size; i++)
        if (buf[i] == '\n') {
            int cr = i > start && buf[i - 1] == '\r';

            push(t, buf + start, i - start - (size_t)cr, cr ? "\r\n" : "\n", 0);
            start = i + 1;
        }
    if (start < size)
        push(t, buf + start, size - start, "", 0);
}

static char *join(const struct text *t, size_t *size)
{
    size_t len = 0, at = 0;
    char *buf;

    for (size_t i = 0; i < t->n; i++)
        len += strlen(t->v[i].text) + strlen(t->v[i].eol);
    buf = xrealloc(NULL, len + 1);
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

static int ends_with(const char *s, const char *suffix)
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

enum kind { K_BLANK, K_HEADER, K_KEY, K_INCLUDE, K_PRAGMA, K_OTHER };

struct logical {
    size_t first, last; /* physical lines, 0-based */
    enum kind kind;
    char *section; /* the section it is in, or the header's name */
    char *written; /* the section it is written in ("a::k" is in "a") */
    char *key, *value;
};

struct parsed {
    struct logical *v;
    size_t n;
    int last_continued; /* the last physical line ends in a backslash */
};

static void parsed_free(struct parsed *p)
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
    d = xrealloc(NULL, len - a + 1);
    memcpy(d, s + a, len - a);
    d[len - a] = '\0';
    return d;
}

/* Cut the comment: "#" outside quotes and not escaped, as NCONF does. */

static void classify(struct logical *l, char *buf, const char *section)
{
    char *s, *eq;
    size_t colons;

    conf_strip_comment(buf);
    s = trimmed(buf, strlen(buf));
    l->written = xstrdup(section);
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
            char *key = xstrdup(l->key + colons + 2);

            l->section = trimmed(l->key, colons);
            free(l->key);
            l->key = key;
        }
    } else {
        l->kind = K_OTHER;
    }
    if (l->section == NULL)
        l->section = xstrdup(section);
    free(s);
}

static void parse(const struct text *t, struct parsed *p)
{
    char *section = xstrdup("default"), *buf = NULL;
    size_t len = 0;

    p->v = NULL;
    p->n = 0;
    p->last_continued = t->n > 0 && continued(t->v[t->n - 1].text);
    for (size_t i = 0; i < t->n; i++) {
        size_t n = strlen(t->v[i].text);
        struct logical *l;

        buf = xrealloc(buf, len + n + 1);
        memcpy(buf + len, t->v[i].text, n + 1);
        if (continued(t->v[i].text) && i + 1 < t->n) {
            len += n - 1; /* the backslash goes, the next line joins */
            continue;
        }
        p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
        l = memset(&p->v[p->n++], 0, sizeof(*l));
        l->last = i;
        l->first = i;
        while (l->first > 0 && continued(t->v[l->first - 1].text))
            l->first--;
        classify(l, buf, section);
        if (l->kind == K_HEADER) {
            free(section);
            section = xstrdup(l->section);
        }
        len = 0;
    }
    free(buf);
    free(section);
}

/* ---- reasons and messages ---- */

struct why {
    char text[2048];
};

static int refuse(struct why *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int refuse(struct why *w, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(w->text, sizeof(w->text), fmt, ap);
    va_end(ap);
    return 0;
}

/* ---- what the file says ---- */

static size_t headers(const struct parsed *p, const char *section)
{
    size_t n = 0;

    for (size_t i = 0; i < p->n; i++)
        n += p->v[i].kind == K_HEADER && strcmp(p->v[i].section, section) == 0;
    return n;
}

/* The key lines of [section] matching key (nocase: [random]'s rule). */
static const struct logical *key_line(const struct parsed *p,
                                      const char *section, const char *key,
                                      int nocase, size_t *count)
{
    const struct logical *found = NULL;

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

static const char *skip_dot(const char *name)
{
    const char *dot = strchr(name, '.');

    return dot != NULL ? dot + 1 : name;
}

/*
 * A section this edits or reads must be one block of plain lines:
 * written once (OpenSSL merges a second header into the first, and a line
 * added after one of them could land anywhere in the merged order), no
 * continued line (the insertion point and the key's extent would be
 * NCONF's, not ours), no "a::key" from elsewhere.  The default section
 * has no header.
 */
static int plain_section(const struct parsed *p, const char *section,
                         struct why *w)
{
    size_t want = strcmp(section, "default") == 0 ? 0 : 1;

    if (headers(p, section) != want)
        return refuse(w,
                      want ? "[%s] is written %zu times (OpenSSL merges them "
                             "into one section); make it one section by hand"
                           : "[%s] is reopened %zu times by a header "
                             "(OpenSSL merges it into the lines before the "
                             "first section); move those keys up by hand",
                      section, headers(p, section));
    for (size_t i = 0; i < p->n; i++) {
        const struct logical *l = &p->v[i];

        if (strcmp(l->section, section) != 0)
            continue;
        if (l->first != l->last)
            return refuse(w,
                          "line %zu: [%s] has a line continued with a "
                          "backslash (lines %zu-%zu); join it by hand",
                          l->first + 1, section, l->first + 1, l->last + 1);
        if (l->kind == K_KEY && strcmp(l->written, section) != 0)
            return refuse(w,
                          "line %zu: %s::%s, written in [%s], sets a key of "
                          "[%s]; move it into [%s] by hand",
                          l->first + 1, section, l->key, l->written, section,
                          section);
    }
    return 1;
}

/*
 * A key this reads, written at most once (NCONF keeps the last silently,
 * and [random] matches keys ignoring case): 0 and why if not; *l is the
 * line, or NULL when the key is not there.
 */
static int read_key(const struct parsed *p, const char *section,
                    const char *key, int nocase, const struct logical **l,
                    struct why *w)
{
    size_t count;

    *l = key_line(p, section, key, nocase, &count);
    if (count <= 1)
        return 1;
    return refuse(w,
                  "line %zu: [%s] %s is given %zu times (OpenSSL keeps only "
                  "the last one%s); keep one by hand",
                  (*l)->first + 1, section, key, count,
                  nocase ? ", whatever its case" : "");
}

/* The line after which keys are added to [section] (SIZE_MAX: before 1). */
static size_t insert_point(const struct parsed *p, const char *section)
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
static int plain_value(const CONF *conf, const struct logical *l, struct why *w)
{
    STACK_OF(CONF_VALUE) *sect = NCONF_get_section(conf, l->section);

    for (int i = 0; sect != NULL && i < sk_CONF_VALUE_num(sect); i++) {
        const CONF_VALUE *kv = sk_CONF_VALUE_value(sect, i);

        if (strcmp(kv->name, l->key) == 0 && strcmp(kv->value, l->value) == 0
            && strchr(l->value, '$') == NULL)
            return 1;
    }
    return refuse(w,
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
static int activates(const CONF *conf, const char *section, const char **bad)
{
    STACK_OF(CONF_VALUE) *sect = NCONF_get_section(conf, section);
    int on = 0;

    for (int i = 0; sect != NULL && i < sk_CONF_VALUE_num(sect); i++) {
        const CONF_VALUE *kv = sk_CONF_VALUE_value(sect, i);

        if (strcmp(skip_dot(kv->name), "activate") != 0)
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
static size_t naming_lines(const struct parsed *p, char *out, size_t len)
{
    size_t n = 0, at = 0;

    if (len > 0)
        out[0] = '\0';
    for (size_t i = 0; i < p->n; i++) {
        const struct logical *l = &p->v[i];
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

/* ---- the plan: what --enable adds ---- */

struct addition {
    size_t after; /* physical line (SIZE_MAX: before the first) */
    char text[160];
};

struct plan {
    struct addition add[8];
    size_t nadd;
    int new_init, new_providers, new_default, new_random;
};

static void add_key(struct plan *pl, size_t after, const char *key,
                    const char *value)
{
    struct addition *a = &pl->add[pl->nadd++];

    a->after = after;
    snprintf(a->text, sizeof(a->text), "%s = %s" MARK, key, value);
}

/* The block of new sections, with why each key is there. */
static void block(const struct plan *pl, struct text *t, const char *eol)
{
    static const char *const rdrand_sect[] = {
        "[" S_RDRAND "]",
        "# The module, in libcrypto's modules directory (rdrand-provider(7)).",
        "module = rdrand.so",
        "activate = 1",
        "# One warning per process when RDRAND fails: syslog | stderr | none.",
        "warn = syslog",
        "# A failed check in a confidential guest fails every seed request,",
        "# naming the reason; \"refuse\" (the default) would make OpenSSL",
        "# 3.0-3.6 skip the provider and seed from the OS without a word.",
        "on_coco_failure = fail-closed",
        NULL};
    const char *lines[40];
    size_t n = 0;

    lines[n++] = BEGIN;
    lines[n++] = "# The seed source of OpenSSL's DRBGs: RDRAND, through "
                 "rdrand.so.";
    lines[n++] = "# Check with: rdrand-check -c THIS_FILE (exit 0: live).";
    if (pl->new_init) {
        lines[n++] = "[" S_INIT "]";
        lines[n++] = "providers = " S_PROVIDERS;
        lines[n++] = "random = " S_RANDOM;
        lines[n++] = "";
    }
    if (pl->new_providers) {
        lines[n++] = "[" S_PROVIDERS "]";
        lines[n++] = "default = " S_DEFAULT;
        lines[n++] = "rdrand = " S_RDRAND;
        lines[n++] = "";
    }
    if (pl->new_default) {
        lines[n++] = "[" S_DEFAULT "]";
        lines[n++] = "# Explicitly: an activate line elsewhere turns off "
                     "OpenSSL's implicit default";
        lines[n++] = "# provider, whose DRBGs this seed source feeds.";
        lines[n++] = "activate = 1";
        lines[n++] = "";
    }
    for (size_t i = 0; rdrand_sect[i] != NULL; i++)
        lines[n++] = rdrand_sect[i];
    if (pl->new_random) {
        lines[n++] = "";
        lines[n++] = "[" S_RANDOM "]";
        lines[n++] = "# Only this provider's RDRAND: without seed_properties "
                     "another";
        lines[n++] = "# provider's algorithm of that name could be chosen.";
        lines[n++] = "seed = RDRAND";
        lines[n++] = "seed_properties = provider=rdrand";
    }
    lines[n++] = END;
    for (size_t i = 0; i < n; i++)
        push(t, lines[i], strlen(lines[i]), eol, 1);
}

/*
 * The plan for a file without our lines.  Refuses (0, why) whatever it
 * does not understand: a live .include anywhere (it could define or
 * reopen the sections edited here, and following it is not this editor's
 * job); openssl_conf outside the default section; and, in each section it
 * reads or edits, what plain_section and plain_value refuse.  A [random]
 * that already names a seed source is the operator's choice: refused.
 */
/*
 * "key = sect" in the init section: sect must be written plainly, exist,
 * and be another section than init (this editor adds lines to both).
 */
static int names_section(const struct parsed *p, const CONF *conf,
                         const struct logical *key, const char *init,
                         struct why *w)
{
    if (!plain_value(conf, key, w))
        return 0;
    if (headers(p, key->value) == 0 || strcmp(key->value, init) == 0)
        return refuse(w,
                      "line %zu: %s = %s, and there is no other section "
                      "[%s]: fix that by hand first",
                      key->first + 1, key->key, key->value, key->value);
    return plain_section(p, key->value, w);
}

/*
 * The init section names the providers and random modules only as
 * "providers" and "random": an entry OpenSSL also runs through either
 * (conf_names_module: "prov.x") would be a second list beside the one
 * --enable edits.  0 (refused, why in w) if there is one.
 */
static int plain_module_names(const struct parsed *p, const char *init,
                              struct why *w)
{
    static const char *const modules[] = {"providers", "random"};

    for (size_t i = 0; i < p->n; i++)
        for (size_t m = 0; m < 2; m++)
            if (p->v[i].kind == K_KEY && strcmp(p->v[i].section, init) == 0
                && strcmp(p->v[i].key, modules[m]) != 0
                && conf_names_module(p->v[i].key, modules[m]))
                return refuse(w,
                              "line %zu: [%s] %s: OpenSSL reads this entry "
                              "as a %s line too; name it %s by hand first",
                              p->v[i].first + 1, init, p->v[i].key, modules[m],
                              modules[m]);
    return 1;
}

/* What --enable refuses outright: 0 (refused, why in w) or 1. */
static int plan_refusals(const struct parsed *p, struct why *w)
{
    /* The block goes at the end: a last line continued would swallow it. */
    if (p->last_continued)
        return refuse(w, "the last line ends in a backslash (continued): the "
                         "lines added after it would join it; remove the "
                         "backslash by hand");
    for (size_t i = 0; i < p->n; i++) {
        if (p->v[i].kind == K_INCLUDE)
            return refuse(w,
                          "line %zu: .include: the included file could "
                          "define or reopen the sections --enable edits; "
                          "make the edit by hand (docs/operations.md)",
                          p->v[i].first + 1);
        if (p->v[i].kind == K_KEY && strcmp(p->v[i].key, "openssl_conf") == 0
            && strcmp(p->v[i].section, "default") != 0)
            return refuse(w,
                          "line %zu: openssl_conf in [%s]: OpenSSL reads it "
                          "only before the first section; move it there by "
                          "hand",
                          p->v[i].first + 1, p->v[i].section);
    }
    return 1;
}

/*
 * An existing providers section (prov): our entry added, and default
 * activated where nothing was.  0 (refused, why in w) or 1.
 */
static int plan_providers(const struct parsed *p, const CONF *conf,
                          struct plan *pl, const struct logical *prov,
                          const char *init, struct why *w)
{
    const struct logical *def = NULL;
    STACK_OF(CONF_VALUE) * list;
    int any_active = 0;

    if (!names_section(p, conf, prov, init, w))
        return 0;
    list = NCONF_get_section(conf, prov->value);
    for (int i = 0; i < sk_CONF_VALUE_num(list); i++) {
        const CONF_VALUE *kv = sk_CONF_VALUE_value(list, i);
        const struct logical *l;
        const char *bad = NULL;
        int on;

        if (!read_key(p, prov->value, kv->name, 0, &l, w))
            return 0;
        if (l == NULL)
            return refuse(w, "[%s] %s: not found as written", prov->value,
                          kv->name);
        if (!plain_value(conf, l, w))
            return 0;
        if (NCONF_get_section(conf, kv->value) == NULL)
            return refuse(w,
                          "line %zu: %s = %s, and there is no section "
                          "[%s] (OpenSSL fails to apply this file): fix "
                          "that by hand first",
                          l->first + 1, kv->name, kv->value, kv->value);
        if ((on = activates(conf, kv->value, &bad)) < 0)
            return refuse(w,
                          "[%s] activate = %s: OpenSSL 3.0-3.2 load the "
                          "provider whatever the value, 3.3 and later "
                          "do not (only 1, yes, true, on are true) or "
                          "refuse the section: a dist-upgrade would "
                          "change which providers load; by hand, remove "
                          "the line to leave it unloaded or write "
                          "activate = 1 to load it",
                          kv->value, bad);
        any_active |= on;
        if (strcmp(skip_dot(kv->name), "default") == 0)
            def = l;
    }
    add_key(pl, insert_point(p, prov->value), "rdrand", S_RDRAND);
    /*
     * Nothing activated: OpenSSL loaded default implicitly, and our
     * activate would turn that off, so default is activated too.
     * Something activated (a FIPS-only system, say): left as it is.
     */
    if (!any_active && def == NULL) {
        pl->new_default = 1;
        add_key(pl, insert_point(p, prov->value), "default", S_DEFAULT);
    } else if (!any_active) {
        const struct logical *act;

        if (!plain_section(p, def->value, w)
            || !read_key(p, def->value, "activate", 0, &act, w))
            return 0;
        if (act != NULL)
            return refuse(w,
                          "line %zu: [%s] activate = %s does not "
                          "activate the default provider on this "
                          "OpenSSL; write activate = 1 by hand",
                          act->first + 1, def->value, act->value);
        add_key(pl, insert_point(p, def->value), "activate", "1");
    }
    return 1;
}

/* The [random] part: a new section, or seed lines in rand's. */
static int plan_random(const struct parsed *p, const CONF *conf,
                       struct plan *pl, const struct logical *rand,
                       const char *init, struct why *w)
{
    size_t count;

    if (rand == NULL) {
        pl->new_random = 1;
        add_key(pl, insert_point(p, init), "random", S_RANDOM);
        return 1;
    }
    if (!names_section(p, conf, rand, init, w))
        return 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct logical *l = &p->v[i];

        /* rand_lib.c matches [random] keys ignoring case. */
        if (l->kind == K_KEY && strcmp(l->section, rand->value) == 0
            && (strcasecmp(l->key, "seed") == 0
                || strcasecmp(l->key, "seed_properties") == 0))
            return refuse(w,
                          "line %zu: [%s] %s = %s: this file already "
                          "chooses a seed source; --enable does not replace "
                          "the operator's choice: edit by hand",
                          l->first + 1, rand->value, l->key, l->value);
        if (l->kind == K_KEY && strcmp(l->section, rand->value) == 0
            && key_line(p, rand->value, l->key, 1, &count) != l)
            return refuse(w,
                          "line %zu: [%s] %s is given twice (OpenSSL "
                          "ignores case here and keeps the last); keep one "
                          "by hand",
                          l->first + 1, rand->value, l->key);
    }
    add_key(pl, insert_point(p, rand->value), "seed", "RDRAND");
    add_key(pl, insert_point(p, rand->value), "seed_properties",
            "provider=rdrand");
    return 1;
}

/*
 * --enable's edit of the file as read line by line (p) and by NCONF
 * (conf), into pl: 1, or 0 (refused, why in w).
 */
static int plan_enable(const struct parsed *p, const CONF *conf,
                       struct plan *pl, struct why *w)
{
    const struct logical *oc, *prov, *rand;

    memset(pl, 0, sizeof(*pl));
    if (!plan_refusals(p, w))
        return 0;
    if (!plain_section(p, "default", w))
        return 0;
    if (!read_key(p, "default", "openssl_conf", 0, &oc, w))
        return 0;
    if (oc == NULL) {
        pl->new_init = pl->new_providers = pl->new_default = 1;
        pl->new_random = 1;
        add_key(pl, insert_point(p, "default"), "openssl_conf", S_INIT);
        return 1;
    }
    if (!plain_value(conf, oc, w))
        return 0;
    if (headers(p, oc->value) == 0 || strcmp(oc->value, "default") == 0)
        return refuse(w,
                      "line %zu: openssl_conf = %s, and there is no section "
                      "[%s]: fix that by hand first",
                      oc->first + 1, oc->value, oc->value);
    if (!plain_section(p, oc->value, w))
        return 0;
    if (!plain_module_names(p, oc->value, w))
        return 0;

    if (!read_key(p, oc->value, "providers", 0, &prov, w)
        || !read_key(p, oc->value, "random", 0, &rand, w))
        return 0;
    if (prov == NULL) {
        pl->new_providers = pl->new_default = 1;
        add_key(pl, insert_point(p, oc->value), "providers", S_PROVIDERS);
    } else if (!plan_providers(p, conf, pl, prov, oc->value, w))
        return 0;
    return plan_random(p, conf, pl, rand, oc->value, w);
}

/* The file with the plan applied: lines added, then the block at the end. */
static void apply(const struct text *in, const struct plan *pl,
                  struct text *out)
{
    const char *eol =
        in->n > 0 && strcmp(in->v[0].eol, "\r\n") == 0 ? "\r\n" : "\n";
    int unterminated = in->n > 0 && in->v[in->n - 1].eol[0] == '\0';

    out->v = NULL;
    out->n = 0;
    for (size_t a = 0; a < pl->nadd; a++)
        if (pl->add[a].after == SIZE_MAX)
            push(out, pl->add[a].text, strlen(pl->add[a].text), eol, 1);
    for (size_t i = 0; i < in->n; i++) {
        push(out, in->v[i].text, strlen(in->v[i].text),
             in->v[i].eol[0] != '\0' ? in->v[i].eol : eol, 0);
        for (size_t a = 0; a < pl->nadd; a++)
            if (pl->add[a].after == i)
                push(out, pl->add[a].text, strlen(pl->add[a].text), eol, 1);
    }
    block(pl, out, eol);
    /* Unterminated before, unterminated after: --disable reads it here. */
    if (unterminated)
        out->v[out->n - 1].eol = "";
}

/*
 * The file without our lines (marked, and the block), as it was before
 * --enable.  0 if the markers are not ours as --enable writes them.
 */
static int strip_marked(const struct text *in, struct text *out, int *ours,
                        struct why *w)
{
    int inside = 0, begins = 0, ends = 0, end_unterminated = 0;

    out->v = NULL;
    out->n = 0;
    *ours = 0;
    for (size_t i = 0; i < in->n; i++) {
        const char *s = in->v[i].text;

        if (strcmp(s, BEGIN) == 0) {
            if (begins++ > 0 || ends > 0)
                return refuse(
                    w, "line %zu: a second BEGIN rdrand-provider line", i + 1);
            inside = 1;
        }
        if (inside || ends_with(s, MARK)) {
            *ours = 1;
            push(out, s, strlen(s), in->v[i].eol, 1); /* kept, as removed */
        } else {
            push(out, s, strlen(s), in->v[i].eol, 0);
        }
        if (strcmp(s, END) == 0) {
            if (!inside)
                return refuse(w,
                              "line %zu: END rdrand-provider without its "
                              "BEGIN line",
                              i + 1);
            ends++;
            inside = 0;
            end_unterminated = in->v[i].eol[0] == '\0';
        }
    }
    if (inside || (*ours && begins == 0))
        return refuse(w,
                      "%s: the file was edited since --enable; revert the "
                      "rdrand lines by hand",
                      inside ? "BEGIN rdrand-provider without its END line"
                             : "marked lines without the BEGIN rdrand-provider "
                               "block");
    /* Drop what is ours; the last line kept loses the end we gave it. */
    {
        size_t k = 0;

        for (size_t i = 0; i < out->n; i++) {
            if (out->v[i].added) {
                free(out->v[i].text);
                continue;
            }
            out->v[k++] = out->v[i];
        }
        out->n = k;
        if (end_unterminated && out->n > 0)
            out->v[out->n - 1].eol = "";
    }
    return 1;
}

/* strip_marked, and nothing kept when it refuses. */
static int strip(const struct text *in, struct text *out, int *ours,
                 struct why *w)
{
    if (strip_marked(in, out, ours, w))
        return 1;
    text_free(out);
    return 0;
}

/* ---- files ---- */

static int load_conf(const char *buf, size_t size, CONF **conf, struct why *w)
{
    BIO *bio = BIO_new_mem_buf(buf, (int)size);
    long eline = 0;

    *conf = NCONF_new(NULL);
    if (bio == NULL || *conf == NULL
        || NCONF_load_bio(*conf, bio, &eline) <= 0) {
        unsigned long e = ERR_peek_last_error();
        char err[256] = "";

        if (e != 0)
            ERR_error_string_n(e, err, sizeof(err));
        ERR_clear_error();
        BIO_free(bio);
        return refuse(w,
                      "line %ld: OpenSSL cannot parse this file (%s); every "
                      "OpenSSL program using it runs without it: fix that "
                      "first",
                      eline, err);
    }
    BIO_free(bio);
    return 1;
}

/* Everything --enable and --disable need to know about one file. */
struct file {
    const char *path; /* the real path, edited in place */
    struct stat st;
    char *buf;
    size_t size;
};

static int read_file(struct file *f, const char *asked)
{
    char *real = realpath(asked, NULL);
    int fd;
    ssize_t n;

    if (real == NULL) {
        fprintf(stderr, "rdrand-check: %s: %s; nothing changed\n", asked,
                strerror(errno));
        return 0;
    }
    f->path = real;
    if ((fd = open(real, O_RDONLY | O_NOCTTY)) < 0 || fstat(fd, &f->st) != 0) {
        fprintf(stderr, "rdrand-check: cannot read %s: %s; nothing changed\n",
                real, strerror(errno));
        if (fd >= 0)
            close(fd);
        return 0;
    }
    if (!S_ISREG(f->st.st_mode) || f->st.st_size > MAX_SIZE) {
        fprintf(stderr,
                "rdrand-check: %s is not a regular file of at most %d "
                "bytes; nothing changed\n",
                real, MAX_SIZE);
        close(fd);
        return 0;
    }
    f->buf = xrealloc(NULL, (size_t)f->st.st_size + 1);
    f->size = 0;
    while ((n = read(fd, f->buf + f->size, (size_t)f->st.st_size + 1 - f->size))
           != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (f->size += (size_t)n) > (size_t)f->st.st_size) {
            fprintf(stderr,
                    "rdrand-check: %s: %s while reading; nothing changed\n",
                    real, n < 0 ? strerror(errno) : "it grew");
            close(fd);
            return 0;
        }
    }
    close(fd);
    return 1;
}

/* Can this process replace the file: write it, and its directory? */
static int writable(const struct file *f)
{
    char *dir = xstrdup(f->path);
    int fd, ok;

    *strrchr(dir, '/') = '\0';
    fd = open(f->path, O_WRONLY | O_NOCTTY); /* no O_TRUNC: nothing written */
    ok = fd >= 0 && access(dir[0] ? dir : "/", W_OK) == 0;
    if (fd < 0)
        fprintf(stderr,
                "rdrand-check: cannot write %s: %s; nothing changed (run as "
                "its owner or root, on a writable file system)\n",
                f->path, strerror(errno));
    else if (!ok)
        fprintf(stderr,
                "rdrand-check: cannot create a file in %s (the new file is "
                "written there, then renamed over %s): %s; nothing changed "
                "(run as the directory's owner or root)\n",
                dir[0] ? dir : "/", f->path, strerror(errno));
    if (fd >= 0)
        close(fd);
    free(dir);
    return ok;
}

static int write_all(int fd, const char *buf, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, buf, size);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        buf += n;
        size -= (size_t)n;
    }
    return 1;
}

/* A new file beside path, with its mode and owner, holding buf. */
static int write_beside(const struct file *f, const char *suffix, int exclusive,
                        const char *buf, size_t size, char *name, size_t len)
{
    int fd;

    if (exclusive) {
        snprintf(name, len, "%s%s", f->path, suffix);
        fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY, 0600);
    } else {
        snprintf(name, len, "%s.rdrand-check-XXXXXX", f->path);
        fd = mkstemp(name);
    }
    if (fd < 0)
        return 0;
    if (fchown(fd, f->st.st_uid, f->st.st_gid) != 0
        || fchmod(fd, f->st.st_mode & 07777) != 0 || !write_all(fd, buf, size)
        || fsync(fd) != 0) {
        int e = errno;

        close(fd);
        unlink(name);
        errno = e;
        return 0;
    }
    return close(fd) == 0;
}

/*
 * FILE.rdrand-check-backup-YYYYMMDDTHHMMSSZ, -2, -3...: never over an
 * older backup (O_EXCL).
 */
static int backup(const struct file *f, char *name, size_t len)
{
    char suffix[64], stamp[32];
    time_t now = time(NULL);
    struct tm tm;

    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
    for (int i = 1; i < 100; i++) {
        if (i == 1)
            snprintf(suffix, sizeof(suffix), BACKUP_INFIX "%s", stamp);
        else
            snprintf(suffix, sizeof(suffix), BACKUP_INFIX "%s-%d", stamp, i);
        if (write_beside(f, suffix, 1, f->buf, f->size, name, len))
            return 1;
        if (errno != EEXIST)
            return 0;
    }
    return 0;
}

static int sync_parent(const char *path)
{
    char *dir = xstrdup(path);
    int fd, ok;

    *strrchr(dir, '/') = '\0';
    fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY);
    ok = fd >= 0 && fsync(fd) == 0;
    if (fd >= 0)
        close(fd);
    free(dir);
    return ok;
}

/* The changes, as "+ line N" (new numbering) and "- line N" (old). */
static void print_changes(const struct text *t, int adding)
{
    size_t n = 0;

    for (size_t i = 0; i < t->n; i++) {
        n++;
        if (t->v[i].added)
            printf("%c line %zu: %s\n", adding ? '+' : '-', n, t->v[i].text);
    }
}

/*
 * Replace the file with buf once the check passes: the new file beside
 * it, checked in a child (enable: verdict 0; disable: rdrand no longer
 * live), the original still unchanged, a backup, then rename.
 */
/*
 * The file's extended attributes (an SELinux label, a POSIX ACL, user.*)
 * onto the new file, which the rename would otherwise leave without
 * them: 0 and the attribute's name in failed when one cannot be kept.
 */
static int keep_xattrs(const char *from, const char *to, char *failed,
                       size_t len)
{
    char names[4096], value[4096];
    ssize_t n = listxattr(from, names, sizeof(names));

    if (n < 0) {
        int e = errno;

        snprintf(failed, len, "(the list: %s)", strerror(e));
        return e == ENOTSUP;
    }
    for (char *name = names; name < names + n; name += strlen(name) + 1) {
        ssize_t v = getxattr(from, name, value, sizeof(value));

        if (v < 0 || setxattr(to, name, value, (size_t)v, 0) != 0) {
            snprintf(failed, len, "%s (%s)", name, strerror(errno));
            return 0;
        }
    }
    return 1;
}

/*
 * Is name (in path's directory) a backup --enable or --disable made of
 * path: its base name, BACKUP_INFIX, a stamp YYYYMMDDTHHMMSSZ and an
 * optional -N, nothing else?  Compared as text: a path with glob
 * characters ([ab].cnf) names only itself.
 */
static int is_backup_of(const char *base, const char *name)
{
    size_t n = strlen(base), infix = strlen(BACKUP_INFIX);
    const char *stamp = name + n + infix;

    if (strncmp(name, base, n) != 0
        || strncmp(name + n, BACKUP_INFIX, infix) != 0 || strlen(stamp) < 16)
        return 0;
    for (int i = 0; i < 16; i++)
        if (!(i == 8    ? stamp[i] == 'T'
              : i == 15 ? stamp[i] == 'Z'
                        : isdigit((unsigned char)stamp[i])))
            return 0;
    if (stamp[16] == '\0')
        return 1;
    return stamp[16] == '-' && stamp[17] != '\0'
           && strspn(stamp + 17, "0123456789") == strlen(stamp + 17);
}

size_t conf_edit_backups(const char *path, char (*out)[CHECK_PATH_LEN],
                         size_t max)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/'), *base;
    struct dirent *e;
    size_t n = 0;
    DIR *d;

    if (slash == NULL)
        return 0;
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    base = slash + 1;
    if ((d = opendir(dir[0] != '\0' ? dir : "/")) == NULL)
        return 0;
    while ((e = readdir(d)) != NULL && n < max)
        if (is_backup_of(base, e->d_name))
            snprintf(out[n++], sizeof(out[0]), "%s/%s", dir, e->d_name);
    closedir(d);
    return n;
}

/*
 * The file locked against another --enable or --disable for the whole
 * edit (flock on the file itself): the lock on the inode the path still
 * names, retried when a rename replaced it meanwhile.  -1 if it cannot
 * be opened (read_file says why).
 */
static int lock_file(const char *path)
{
    for (int tries = 0; tries < 100; tries++) {
        struct stat held, now;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

        if (fd < 0)
            return -1;
        if (flock(fd, LOCK_EX) == 0 && fstat(fd, &held) == 0
            && stat(path, &now) == 0 && held.st_dev == now.st_dev
            && held.st_ino == now.st_ino)
            return fd;
        close(fd);
    }
    return -1;
}

static int replace(const struct file *f, const char *buf, size_t size,
                   int enable)
{
    static char older[MAX_BACKUPS][CHECK_PATH_LEN];
    char tmp[PATH_MAX + 64], saved[PATH_MAX + 64];
    struct stat now;
    size_t nolder;
    int code;

    if (!writable(f))
        return EDIT_FAILED;
    if (!write_beside(f, NULL, 0, buf, size, tmp, sizeof(tmp))) {
        fprintf(stderr,
                "rdrand-check: cannot write the new file %s: %s; nothing "
                "changed\n",
                tmp, strerror(errno));
        return EDIT_FAILED;
    }
    if (!keep_xattrs(f->path, tmp, saved, sizeof(saved))) {
        unlink(tmp);
        fprintf(stderr,
                "rdrand-check: %s has an extended attribute that the new "
                "file cannot keep: %s; nothing changed: the edit would drop "
                "it (an SELinux label, an ACL): edit by hand\n",
                f->path, saved);
        return EDIT_REFUSED;
    }
    printf("checking the new file in a child process (%s) before it "
           "replaces %s:\n",
           tmp, f->path);
    fflush(stdout);
    code = check_file(tmp, enable);
    if (enable ? code != CHECK_LIVE : code == CHECK_LIVE) {
        unlink(tmp);
        fprintf(stderr,
                enable ? "rdrand-check: the new file fails the check (verdict "
                         "%d, above); %s: nothing changed: fix what the check "
                         "names (rdrand.so installed? RDRAND healthy?) and run "
                         "--enable again\n"
                       : "rdrand-check: rdrand is still the live seed source "
                         "without the marked lines (verdict %d); %s: nothing "
                         "changed: revert by hand (rdrand-check -c %s)\n",
                code, f->path, f->path);
        return EDIT_CHECK_FAILED;
    }
    if (stat(f->path, &now) != 0 || now.st_ino != f->st.st_ino
        || now.st_size != f->st.st_size
        || now.st_mtim.tv_sec != f->st.st_mtim.tv_sec
        || now.st_mtim.tv_nsec != f->st.st_mtim.tv_nsec) {
        unlink(tmp);
        fprintf(stderr,
                "rdrand-check: %s changed while rdrand-check ran; nothing "
                "changed: run it again\n",
                f->path);
        return EDIT_FAILED;
    }
    /* The backups before this one: the ones this edit replaces. */
    nolder = conf_edit_backups(f->path, older, MAX_BACKUPS);
    if (!backup(f, saved, sizeof(saved))) {
        fprintf(stderr,
                "rdrand-check: cannot write the backup %s: %s; nothing "
                "changed\n",
                saved, strerror(errno));
        unlink(tmp);
        return EDIT_FAILED;
    }
    if (rename(tmp, f->path) != 0) {
        fprintf(stderr,
                "rdrand-check: cannot rename %s to %s: %s; nothing "
                "changed\n",
                tmp, f->path, strerror(errno));
        unlink(tmp);
        unlink(saved);
        return EDIT_FAILED;
    }
    if (!sync_parent(f->path))
        fprintf(stderr,
                "rdrand-check: warning: syncing the directory of %s: %s (the "
                "new file is in place)\n",
                f->path, strerror(errno));
    for (size_t i = 0; i < nolder; i++)
        unlink(older[i]);
    printf("%s %s; the previous file is kept as %s\n",
           enable ? "enabled:" : "disabled:", f->path, saved);
    return 0;
}

/* A refusal: the reason, and the file as it was. */
static int refused(const struct file *f, const struct why *w)
{
    fprintf(stderr, "rdrand-check: %s: %s; nothing changed\n", f->path,
            w->text);
    return EDIT_REFUSED;
}

static int do_enable(const struct file *f, const struct text *t,
                     const struct parsed *p, const CONF *conf)
{
    struct text orig, again, out;
    struct parsed po;
    struct plan pl;
    struct why w;
    char names[2048], *buf;
    size_t size;
    int ours, code;
    CONF *oconf = NULL;

    if (!strip(t, &orig, &ours, &w)) {
        return refused(f, &w);
    }
    if (ours) {
        /* Ours and consistent: --enable on what --disable gives is this. */
        char *obuf = join(&orig, &size);
        int same = 0;

        parse(&orig, &po);
        if (load_conf(obuf, size, &oconf, &w) && naming_lines(&po, NULL, 0) == 0
            && plan_enable(&po, oconf, &pl, &w)) {
            apply(&orig, &pl, &again);
            buf = join(&again, &size);
            same = size == f->size && memcmp(buf, f->buf, size) == 0;
            free(buf);
            text_free(&again);
        }
        NCONF_free(oconf);
        parsed_free(&po);
        text_free(&orig);
        free(obuf);
        if (same) {
            printf("%s: already enabled by rdrand-check --enable; nothing "
                   "changed\n",
                   f->path);
            return 0;
        }
        fprintf(stderr,
                "rdrand-check: %s has rdrand-check's marks, but not as "
                "--enable writes them (edited since?); nothing changed: run "
                "--disable first, or edit by hand\n",
                f->path);
        return EDIT_REFUSED;
    }
    text_free(&orig);
    if (naming_lines(p, names, sizeof(names)) > 0) {
        printf("%s already names rdrand (not by rdrand-check --enable):%s\n"
               "checking it in a child process:\n",
               f->path, names);
        fflush(stdout);
        if ((code = check_file(f->path, 1)) == CHECK_LIVE) {
            printf("%s: already enabled (by hand): rdrand is the live seed "
                   "source; nothing changed\n",
                   f->path);
            return 0;
        }
        fprintf(stderr,
                "rdrand-check: %s names rdrand but the check gives verdict "
                "%d (above); nothing changed: fix the lines it names by "
                "hand, or remove the rdrand lines and run --enable again\n",
                f->path, code);
        return EDIT_REFUSED;
    }
    if (!plan_enable(p, conf, &pl, &w)) {
        return refused(f, &w);
    }
    apply(t, &pl, &out);
    printf("--enable's edit of %s:\n", f->path);
    print_changes(&out, 1);
    buf = join(&out, &size);
    code = replace(f, buf, size, 1);
    free(buf);
    text_free(&out);
    return code;
}

static int do_disable(const struct file *f, const struct text *t,
                      const struct parsed *p)
{
    struct text orig;
    struct parsed po;
    struct why w;
    char names[2048], *buf;
    size_t size;
    int ours, code;
    CONF *oconf = NULL;

    if (!strip(t, &orig, &ours, &w)) {
        return refused(f, &w);
    }
    if (!ours) {
        text_free(&orig);
        if (naming_lines(p, names, sizeof(names)) == 0) {
            printf("%s: not enabled (no rdrand line); nothing changed\n",
                   f->path);
            return 0;
        }
        fprintf(stderr,
                "rdrand-check: %s was enabled by hand, not by rdrand-check "
                "--enable; nothing changed: revert these lines by hand (and "
                "what refers to their sections):%s\n",
                f->path, names);
        return EDIT_REFUSED;
    }
    parse(&orig, &po);
    buf = join(&orig, &size);
    code = 0;
    if (naming_lines(&po, names, sizeof(names)) > 0) {
        fprintf(stderr,
                "rdrand-check: %s: without rdrand-check's marked lines it "
                "still names rdrand (a marked line edited, or rdrand lines "
                "added by hand?); nothing changed: revert these by hand "
                "(line numbers as without the marked lines):%s\n",
                f->path, names);
        code = EDIT_REFUSED;
    } else if (!load_conf(buf, size, &oconf, &w)) {
        fprintf(stderr,
                "rdrand-check: %s without the marked lines: %s; nothing "
                "changed\n",
                f->path, w.text);
        code = EDIT_REFUSED;
    }
    NCONF_free(oconf);
    parsed_free(&po);
    if (code == 0) {
        /* The lines removed, numbered as in the file now. */
        struct text shown = {NULL, 0};
        int inside = 0;

        for (size_t i = 0; i < t->n; i++) {
            inside |= strcmp(t->v[i].text, BEGIN) == 0;
            push(&shown, t->v[i].text, strlen(t->v[i].text), t->v[i].eol,
                 inside || ends_with(t->v[i].text, MARK));
            if (strcmp(t->v[i].text, END) == 0)
                inside = 0;
        }
        printf("--disable's edit of %s:\n", f->path);
        print_changes(&shown, 0);
        text_free(&shown);
        code = replace(f, buf, size, 0);
    }
    free(buf);
    text_free(&orig);
    return code;
}

int conf_edit(int enable, const char *asked, check_file_fn *check)
{
    struct file f = {0};
    struct stat st;
    struct text t;
    struct parsed p;
    struct why w;
    CONF *conf = NULL;
    int code, lock;

    check_file = check;
    lock = lock_file(asked);
    if (!read_file(&f, asked)) {
        if (lock >= 0)
            close(lock);
        free((char *)f.path);
        free(f.buf);
        return EDIT_FAILED;
    }
    /* Debian's /usr/lib/ssl/openssl.cnf: the target is what is edited. */
    if (lstat(asked, &st) == 0 && S_ISLNK(st.st_mode))
        printf("%s is a symbolic link to %s: editing that file\n", asked,
               f.path);
    if (f.st.st_nlink > 1) {
        /* The rename would give this name a new inode: the other names
         * would keep the old text, and nothing would say so. */
        fprintf(stderr,
                "rdrand-check: %s has %ju hard links: the edit would reach "
                "only this one; nothing changed: edit by hand, or make it a "
                "single file first\n",
                f.path, (uintmax_t)f.st.st_nlink);
        code = EDIT_REFUSED;
    } else if (memchr(f.buf, '\0', f.size) != NULL) {
        fprintf(stderr,
                "rdrand-check: %s holds NUL bytes: not an openssl.cnf; "
                "nothing changed\n",
                f.path);
        code = EDIT_REFUSED;
    } else if (!load_conf(f.buf, f.size, &conf, &w)) {
        fprintf(stderr, "rdrand-check: %s: %s; nothing changed\n", f.path,
                w.text);
        code = EDIT_REFUSED;
    } else {
        split(f.buf, f.size, &t);
        parse(&t, &p);
        code = enable ? do_enable(&f, &t, &p, conf) : do_disable(&f, &t, &p);
        parsed_free(&p);
        text_free(&t);
    }
    NCONF_free(conf);
    free((char *)f.path);
    free(f.buf);
    if (lock >= 0)
        close(lock);
    return code;
}

int conf_edit_reverts(const char *path)
{
    struct file f = {0};
    struct text t, orig;
    struct why w;
    int ours = 0, ok = 0;

    if (read_file(&f, path) && memchr(f.buf, '\0', f.size) == NULL) {
        split(f.buf, f.size, &t);
        if (strip(&t, &orig, &ours, &w)) {
            ok = ours;
            text_free(&orig);
        }
        text_free(&t);
    }
    free((char *)f.path);
    free(f.buf);
    return ok;
}
