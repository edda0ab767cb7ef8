/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The editor's view of an openssl.cnf (conf_text.c): the file as physical
 * lines, kept byte for byte, and as NCONF reads it (logical lines,
 * sections, keys), with what --enable needs to know of it.
 */
#ifndef RDRAND_CONF_TEXT_H
#define RDRAND_CONF_TEXT_H

#include <stddef.h>

#include <openssl/conf.h>

struct line {
    char *text;      /* without its end of line */
    const char *eol; /* "\n", "\r\n" or "" (last line, unterminated) */
    int added;       /* --enable's, in a plan */
};

struct text {
    struct line *v;
    size_t n;
};

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

struct why {
    char text[2048];
};

/* w's text from fmt; returns 0 (a refusal). */
int refuse(struct why *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

void text_free(struct text *t);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
void push(struct text *t, const char *s, size_t len, const char *eol,
          int added);
void split(const char *buf, size_t size, struct text *t);
char *join(const struct text *t, size_t *size);
int ends_with(const char *s, const char *suffix);
void parsed_free(struct parsed *p);
void parse(const struct text *t, struct parsed *p);
size_t headers(const struct parsed *p, const char *section);
const struct logical *key_line(const struct parsed *p, const char *section,
                               const char *key, int nocase, size_t *count);
int plain_section(const struct parsed *p, const char *section, struct why *w);
int read_key(const struct parsed *p, const char *section, const char *key,
             int nocase, const struct logical **l, struct why *w);
size_t insert_point(const struct parsed *p, const char *section);
int plain_value(const CONF *conf, const struct logical *l, struct why *w);
int activates(const CONF *conf, const char *section, const char **bad);
size_t naming_lines(const struct parsed *p, char *out, size_t len);

#endif
