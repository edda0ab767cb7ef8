/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The walk NCONF makes through a configuration file and its includes
 * (crypto/conf/conf_def.c, the same on 3.0, 3.5 and 4.0), made again line
 * by line to know where each key is written:
 *
 * - one current section for the whole walk: an included file's keys
 *   before its first header go into the section current at the .include,
 *   and the section current at the end of the included file stays
 *   current after the .include line;
 * - ".include PATH" and ".include = PATH"; PATH relative to
 *   OPENSSL_CONF_INCLUDE, else to the last ".pragma includedir:DIR", else
 *   to the working directory; ".pragma abspath:true" makes a relative
 *   PATH fail the whole load;
 * - a directory includes its *.cnf and *.conf files in readdir order (not
 *   sorted); at the end of any file read while a directory is open the
 *   directory's next file comes first, and a directory included while
 *   one is open is skipped;
 * - a missing or unreadable include, or a symlink loop, is skipped
 *   without a word; a file including itself is read again, nested, until
 *   the process runs out of file descriptors, then the load goes on.
 *
 * Measured with NCONF_load and openssl rand (config_diagnostics = 1) on
 * 3.0.19, 3.5.7 and 4.0.2: every skip above loads the file and exits 0.
 */
#define _GNU_SOURCE /* secure_getenv */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf_reach.h"
#include "conf_walk.h"

#define MAX_DEPTH 64 /* distinct files nested; loops are cut before */

struct input {
    FILE *f;
    int file;         /* index into l->files */
    int line;         /* physical lines read */
    char written[64]; /* the section as this file alone would have it */
    dev_t dev;
    ino_t ino;
};

struct walk {
    struct check_report *r;
    const CONF *conf;
    struct conf_lines *l;
    struct input stack[MAX_DEPTH + 1]; /* stack[depth] is being read */
    int depth;
    DIR *dir; /* NCONF keeps one directory open at a time */
    char dirpath[PATH_MAX];
    int dirpos; /* the .include that opened it */
    char section[64];
    int opened; /* the position of the current section's header */
    char includedir[PATH_MAX];
    int abspath, dollarid, stop;
};

static int grow(void **v, size_t n, size_t size)
{
    void *grown = realloc(*v, (n + 1) * size);

    if (grown == NULL)
        return 0;
    *v = grown;
    return 1;
}

static int add_file(struct conf_lines *l, const char *path)
{
    char real[PATH_MAX];
    char *copy;

    if (realpath(path, real) == NULL)
        snprintf(real, sizeof(real), "%s", path);
    for (size_t i = 0; i < l->nfiles; i++)
        if (strcmp(l->files[i], real) == 0)
            return (int)i; /* read again: the same file to the operator */
    if (!grow((void **)&l->files, l->nfiles, sizeof(*l->files))
        || (copy = strdup(real)) == NULL)
        return -1;
    l->files[l->nfiles] = copy;
    return (int)l->nfiles++;
}

const char *conf_where(const struct conf_lines *l, int pos, int *line)
{
    *line = 0;
    if (pos <= 0 || (size_t)pos > l->nat)
        return NULL;
    *line = l->at[pos - 1].line;
    return l->at[pos - 1].file == 0 ? NULL : l->files[l->at[pos - 1].file];
}

const char *conf_pos_text(const struct conf_lines *l, int pos, char *buf,
                          size_t len)
{
    int line;
    const char *file = conf_where(l, pos, &line);

    if (file == NULL)
        snprintf(buf, len, "line %d", line);
    else
        snprintf(buf, len, "%s:%d", file, line);
    return buf;
}

/*
 * PATH as NCONF's str_copy reads it: '"', '\'' and '`' quote (a backslash
 * in them takes the next character as it is), a backslash outside them
 * takes the next one with \r, \n, \b and \t translated, and $name,
 * ${name}, $(name) and $section::name are expanded (from the loaded file,
 * whose values are the final ones: a variable set again after the
 * .include is read with its last value).  With .pragma dollarid:on, '$'
 * is a name character and only ${} and $() expand.
 */
static size_t var_name(const struct walk *w, const char **in, char *name,
                       size_t len)
{
    size_t n = 0;

    while (isalnum((unsigned char)**in) || **in == '_'
           || (w->dollarid && **in == '$')) {
        if (n + 1 < len)
            name[n++] = **in;
        (*in)++;
    }
    name[n] = '\0';
    return n;
}

static void unquote(const struct walk *w, const char *in, char *out, size_t len)
{
    size_t o = 0;

    while (*in != '\0' && o + 1 < len) {
        if (*in == '"' || *in == '\'' || *in == '`') {
            char q = *in++;

            while (*in != '\0' && *in != q && o + 1 < len) {
                if (*in == '\\' && *++in == '\0')
                    break;
                out[o++] = *in++;
            }
            in += *in == q;
        } else if (*in == '\\') {
            char c = in[1];

            if (c == '\0')
                break;
            out[o++] = c == 'r'   ? '\r'
                       : c == 'n' ? '\n'
                       : c == 'b' ? '\b'
                       : c == 't' ? '\t'
                                  : c;
            in += 2;
        } else if (*in == '$' && w->conf != NULL
                   && (!w->dollarid || in[1] == '{' || in[1] == '(')) {
            char sect[256], name[256];
            const char *value;
            char close = in[1] == '{' ? '}' : in[1] == '(' ? ')' : '\0';

            in += close ? 2 : 1;
            snprintf(sect, sizeof(sect), "%s", w->section);
            var_name(w, &in, name, sizeof(name));
            if (in[0] == ':' && in[1] == ':') {
                memcpy(sect, name, sizeof(sect));
                in += 2;
                var_name(w, &in, name, sizeof(name));
            }
            /*
             * A ${ or $( without its closing brace, or a variable without
             * a value, fails NCONF's load, and only a loaded file is
             * expanded here; but the file may change between the load
             * and this read, and a section name over 63 bytes is looked
             * up cut (a known disagreement with NCONF): not marked.
             */
            if (close && *in == close)
                in++;
            value = NCONF_get_string(w->conf, sect, name);
            if (value == NULL)
                value = "";
            for (; *value != '\0' && o + 1 < len; value++)
                out[o++] = *value;
        } else {
            out[o++] = *in++;
        }
    }
    out[o] = '\0';
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
warn(struct walk *w, int pos, const char *fmt, ...)
{
    char message[sizeof(w->r->problems[0].message)];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < w->r->nproblems; i++)
        if (strcmp(w->r->problems[i].message, message) == 0)
            return; /* the same line of a file read twice */
    check_problem(w->r, SEV_WARNING, pos, NULL, ".include", "%s", message);
}

/*
 * A value that NCONF takes from each process's environment: $ENV::NAME,
 * unless a line read before it defines NAME in [ENV] (NCONF looks the
 * name up in what it has read so far, then in the environment).
 */
static void env_value(struct walk *w, const char *section, const char *key,
                      const char *value, int pos)
{
    char name[128];

    if (!conf_reach_env(value, w->dollarid, name, sizeof(name)))
        return;
    for (size_t i = 0; i < w->l->n; i++)
        if (strcmp(w->l->v[i].section, "ENV") == 0
            && strcmp(w->l->v[i].key, name) == 0 && w->l->v[i].pos < pos)
            return;
    conf_reach_env_finding(w->r, section, key, name, pos);
}

/* Start reading path, a file, on top of the stack. */
static int push(struct walk *w, const char *path, const struct stat *st,
                int pos)
{
    struct input *in;
    FILE *f;

    int copies = 0, first = -1;

    for (int i = 0; i <= w->depth; i++)
        if (w->stack[i].dev == st->st_dev && w->stack[i].ino == st->st_ino) {
            copies++;
            first = first < 0 ? i : first;
        }
    /*
     * A file including itself: OpenSSL reads it again, nested, until the
     * process runs out of file descriptors.  Every copy files its keys as
     * the second one does (before its first header: in the section of the
     * .include; after the .include line: in the section the copy ends
     * in), so the walk reads one copy and stops there.
     */
    if (copies == 1)
        check_problem(w->r, SEV_MISCONFIGURED, pos, NULL, ".include",
                      "%s includes a file being read (%s): OpenSSL reads it "
                      "again inside itself, and again, until the process "
                      "runs out of file descriptors (in every process, at "
                      "every start), filing its keys in the sections "
                      "current at each .include: the findings below name "
                      "them; remove the .include",
                      path, w->l->files[w->stack[first].file]);
    if (copies > 1)
        return 0;
    if (w->depth == MAX_DEPTH) {
        warn(w, pos, "%s: includes nested deeper than %d files: not read", path,
             MAX_DEPTH);
        return 0;
    }
    if ((f = fopen(path, "r")) == NULL) {
        char why[256];

        snprintf(why, sizeof(why), "%s (as uid %u)", strerror(errno),
                 (unsigned)geteuid());
        warn(w, pos,
             "%s cannot be opened: %s: OpenSSL skips it without a word in "
             "this process; a process of another user may read it",
             path, why);
        return 0;
    }
    conf_reach_file(w->r, path, pos);
    in = &w->stack[++w->depth];
    memset(in, 0, sizeof(*in));
    in->f = f;
    in->file = add_file(w->l, path);
    in->dev = st->st_dev;
    in->ino = st->st_ino;
    snprintf(in->written, sizeof(in->written), "%s", w->section);
    return in->file >= 0;
}

/* The directory's next *.cnf or *.conf file NCONF opens, or 0. */
static int next_in_dir(struct walk *w)
{
    struct dirent *e;

    while ((e = readdir(w->dir)) != NULL) {
        size_t n = strlen(e->d_name);
        char path[PATH_MAX + 256];
        struct stat st;

        if (!((n > 5 && strcasecmp(e->d_name + n - 5, ".conf") == 0)
              || (n > 4 && strcasecmp(e->d_name + n - 4, ".cnf") == 0)))
            continue;
        snprintf(path, sizeof(path), "%s/%s", w->dirpath, e->d_name);
        if (stat(path, &st) == 0 && push(w, path, &st, w->dirpos))
            return 1;
    }
    closedir(w->dir);
    w->dir = NULL;
    return 0;
}

static void include(struct walk *w, const char *arg, int pos)
{
    const char *base = secure_getenv("OPENSSL_CONF_INCLUDE");
    char name[PATH_MAX], path[PATH_MAX];
    struct stat st;
    int n;

    int from_env = base != NULL;

    if (base == NULL && w->includedir[0] != '\0')
        base = w->includedir;
    env_value(w, w->section, ".include", arg, pos);
    unquote(w, arg, name, sizeof(name));
    if (base != NULL && name[0] != '/')
        n = snprintf(
            path, sizeof(path), "%s%s%s", base,
            base[0] != '\0' && base[strlen(base) - 1] == '/' ? "" : "/", name);
    else
        n = snprintf(path, sizeof(path), "%s", name);
    if ((size_t)n >= sizeof(path)) { /* a negative n too: converted */
        warn(w, pos, "%s...: a path this long is not read", path);
        return;
    }
    if (w->abspath && path[0] != '/') {
        w->stop = 1; /* NCONF fails the whole load here */
        return;
    }
    /*
     * What another process reads here differs: a path relative to the
     * working directory, or one that OPENSSL_CONF_INCLUDE of this
     * environment resolves (a service has neither this directory nor
     * this environment).  Findings, not warnings: the verdict must hold
     * for them.
     */
    if (path[0] != '/') {
        char cwd[PATH_MAX];

        check_problem(w->r, SEV_MISCONFIGURED, pos, NULL, ".include",
                      "%s is relative to the working directory (here %s): a "
                      "process started elsewhere (a service starts in /) "
                      "reads another file or none; write an absolute path, "
                      "or .pragma includedir:DIR above it",
                      path, getcwd(cwd, sizeof(cwd)) != NULL ? cwd : "unknown");
    } else if (from_env && name[0] != '/') {
        check_problem(
            w->r, SEV_MISCONFIGURED, pos, NULL, ".include",
            "%s is read as %s because OPENSSL_CONF_INCLUDE=%s in "
            "this environment: a process without it (a service) "
            "reads %s%s%s; write the absolute path",
            name, path, base, w->includedir[0] != '\0' ? w->includedir : name,
            w->includedir[0] != '\0' ? "/" : "",
            w->includedir[0] != '\0' ? name : " from its working directory");
    }
    if (stat(path, &st) != 0) {
        warn(w, pos,
             errno == ELOOP ? "%s is a symlink loop (%s): OpenSSL skips it "
                              "without a word"
                            : "%s: %s: OpenSSL skips it without a word",
             path, strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        push(w, path, &st, pos);
    } else if (w->dir != NULL) {
        warn(w, pos,
             "%s is a directory included while directory %s is read: "
             "OpenSSL skips it without a word (recursive directory "
             "include)",
             path, w->dirpath);
    } else {
        conf_reach_file(w->r, path, pos); /* every user can list it? */
        if ((w->dir = opendir(path)) == NULL) {
            warn(w, pos, "directory %s cannot be read: %s: OpenSSL skips it",
                 path, strerror(errno));
            return;
        }
        memcpy(w->dirpath, path, sizeof(path));
        w->dirpos = pos;
        next_in_dir(w);
    }
}

/* ".include" or ".pragma" as NCONF tells them: name, then blank or "=". */
static const char *directive(const char *s, const char *word)
{
    size_t n = strlen(word), name = strcspn(s, " \t=");

    if (strncmp(s, word, n) != 0 || (name == n && s[n] == '\0'))
        return NULL;
    s += name;
    s += strspn(s, " \t");
    if (*s == '=')
        s += 1 + strspn(s + 1, " \t");
    return s;
}

static void pragma(struct walk *w, const char *arg)
{
    char buf[PATH_MAX], *colon;

    snprintf(buf, sizeof(buf), "%s", arg);
    if ((colon = strchr(buf, ':')) == NULL)
        return; /* NCONF fails the load: reported from its error */
    *colon++ = '\0';
    conf_trim(buf);
    conf_trim(colon);
    if (strcmp(buf, "includedir") == 0)
        snprintf(w->includedir, sizeof(w->includedir), "%s", colon);
    else if (strcmp(buf, "abspath") == 0)
        w->abspath =
            strcasecmp(colon, "on") == 0 || strcasecmp(colon, "true") == 0;
    else if (strcmp(buf, "dollarid") == 0)
        w->dollarid =
            strcasecmp(colon, "on") == 0 || strcasecmp(colon, "true") == 0;
}

/* One logical line (continuations joined) starting at pos. */
static int add_line(struct walk *w, char *buf, int pos)
{
    struct conf_lines *l = w->l;
    struct input *in = &w->stack[w->depth];
    struct conf_line *v;
    const char *arg;
    char *eq = NULL, *sep;

    conf_strip_comment(buf);
    conf_trim(buf);
    if (buf[0] == '[' && strchr(buf, ']') != NULL) {
        *strchr(buf, ']') = '\0';
        conf_trim(buf + 1);
        snprintf(w->section, sizeof(w->section), "%.63s", buf + 1);
        snprintf(in->written, sizeof(in->written), "%s", w->section);
        w->opened = pos;
        buf[0] = '\0'; /* the header: key "" */
    } else if ((arg = directive(conf_key_start(buf), ".include")) != NULL) {
        include(w, arg, pos);
        return 1;
    } else if ((arg = directive(conf_key_start(buf), ".pragma")) != NULL) {
        pragma(w, arg);
        return 1;
    } else if ((eq = conf_key_equals(buf, w->dollarid)) == NULL) {
        return 1; /* blank, or an error NCONF reports */
    } else {
        *eq = '\0';
        conf_trim(buf);
    }
    if (!grow((void **)&l->v, l->n, sizeof(*l->v)))
        return 0;
    v = &l->v[l->n++];
    memset(v, 0, sizeof(*v));
    snprintf(v->section, sizeof(v->section), "%s", w->section);
    snprintf(v->written, sizeof(v->written), "%s", in->written);
    /* "other::key = value" files the key in [other]. */
    if ((sep = strstr(buf, "::")) != NULL) {
        *sep = '\0';
        snprintf(v->section, sizeof(v->section), "%.63s", buf);
        snprintf(v->written, sizeof(v->written), "%.63s", buf);
        buf = sep + 2;
    }
    snprintf(v->key, sizeof(v->key), "%.63s", buf);
    v->pos = pos;
    if (eq != NULL)
        env_value(w, v->section, v->key, eq + 1, pos);
    v->opened = strcmp(v->section, v->written) != 0 ? w->opened : 0;
    return 1;
}

/* Done with the file on top: the directory's next file, else its parent. */
static int next_input(struct walk *w)
{
    fclose(w->stack[w->depth].f);
    w->depth--;
    return (w->dir != NULL && next_in_dir(w)) || w->depth >= 0;
}

void conf_walk(struct check_report *r, const CONF *conf, struct conf_lines *l)
{
    struct walk *w = calloc(1, sizeof(*w));
    char *buf = NULL, *logical = NULL;
    size_t cap = 0, len = 0;
    int first = 0, ok = 1;
    struct stat st;

    memset(l, 0, sizeof(*l));
    if (w == NULL)
        return;
    w->r = r;
    w->conf = conf;
    w->l = l;
    w->depth = -1;
    snprintf(w->section, sizeof(w->section), "default");
    /* The file itself unreadable: NCONF_load's failure is the report. */
    if (access(r->config, R_OK) != 0 || stat(r->config, &st) != 0
        || !push(w, r->config, &st, 0)) {
        free(w);
        return;
    }
    while (ok && !w->stop) {
        struct input *in = &w->stack[w->depth];
        ssize_t n = getline(&buf, &cap, in->f);
        char *grown;

        if (n < 0) {
            if (len > 0) /* a last line ending in a backslash */
                ok = add_line(w, logical, first);
            len = 0;
            if (!next_input(w))
                break;
            continue;
        }
        if (!grow((void **)&l->at, l->nat, sizeof(*l->at)))
            break;
        l->at[l->nat].file = in->file;
        l->at[l->nat++].line = ++in->line;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            buf[--n] = '\0';
        if (len == 0)
            first = (int)l->nat;
        if ((grown = realloc(logical, len + (size_t)n + 1)) == NULL)
            break;
        logical = grown;
        memcpy(logical + len, buf, (size_t)n + 1);
        len += (size_t)n;
        if (conf_line_continues(logical, len)) {
            logical[--len] = '\0'; /* continued on the next line */
            continue;
        }
        ok = add_line(w, logical, first);
        len = 0;
    }
    while (w->depth >= 0)
        fclose(w->stack[w->depth--].f);
    if (w->dir != NULL)
        closedir(w->dir);
    free(buf);
    free(logical);
    free(w);
}

void conf_lines_free(struct conf_lines *l)
{
    for (size_t i = 0; i < l->nfiles; i++)
        free(l->files[i]);
    free(l->files);
    free(l->v);
    free(l->at);
    memset(l, 0, sizeof(*l));
}
