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

struct edit_line {
    char *text;      /* without its end of line */
    const char *eol; /* "\n", "\r\n" or "" (last line, unterminated) */
    int added;       /* --enable's, in a plan */
};

struct edit_text {
    struct edit_line *v;
    size_t n;
};

enum edit_kind { K_BLANK, K_HEADER, K_KEY, K_INCLUDE, K_PRAGMA, K_OTHER };

struct edit_logical {
    size_t first, last; /* physical lines, 0-based */
    enum edit_kind kind;
    char *section; /* the section it is in, or the header's name */
    char *written; /* the section it is written in ("a::k" is in "a") */
    char *key, *value;
};

struct edit_parsed {
    struct edit_logical *v;
    size_t n;
    int last_continued; /* the last physical line ends in a backslash */
};

struct edit_why {
    char text[2048];
};

/* w's text from fmt; returns 0 (a refusal). */
int edit_refuse(struct edit_why *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

void edit_text_free(struct edit_text *t);
void *edit_xrealloc(void *p, size_t n);
char *edit_xstrdup(const char *s);
void edit_push(struct edit_text *t, const char *s, size_t len, const char *eol,
               int added);
void edit_split(const char *buf, size_t size, struct edit_text *t);
char *edit_join(const struct edit_text *t, size_t *size);
int edit_ends_with(const char *s, const char *suffix);
void edit_parsed_free(struct edit_parsed *p);
void edit_parse(const struct edit_text *t, struct edit_parsed *p);
size_t edit_headers(const struct edit_parsed *p, const char *section);
const struct edit_logical *edit_key_line(const struct edit_parsed *p,
                                         const char *section, const char *key,
                                         int nocase, size_t *count);
int edit_plain_section(const struct edit_parsed *p, const char *section,
                       struct edit_why *w);
int edit_read_key(const struct edit_parsed *p, const char *section,
                  const char *key, int nocase, const struct edit_logical **l,
                  struct edit_why *w);
size_t edit_insert_point(const struct edit_parsed *p, const char *section);
int edit_plain_value(const CONF *conf, const struct edit_logical *l,
                     struct edit_why *w);
int edit_activates(const CONF *conf, const char *section, const char **bad);
size_t edit_naming_lines(const struct edit_parsed *p, char *out, size_t len);

#endif
