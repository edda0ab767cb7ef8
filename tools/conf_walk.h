/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check's line-level reader: the keys of a configuration file and
 * of every file it includes, in the order and in the sections NCONF
 * files them, each with the file and line it is written on (NCONF keeps
 * neither).
 */
#ifndef RDRAND_CONF_WALK_H
#define RDRAND_CONF_WALK_H

#include <stddef.h>

#include <openssl/conf.h>

#include "check.h"
#include "conf_lex.h"

/*
 * A position is a number, 1 for the first physical line read, counted
 * across the included files in NCONF's reading order (NCONF's own error
 * line counts the same way); 0 is "nowhere".  conf_where turns it into a
 * file and a line.
 */
struct conf_line {
    char section[64]; /* where NCONF files the key */
    char written[64]; /* where its own file, read alone, puts it */
    char key[64];     /* "" for a section header */
    int pos;
    int opened; /* when section != written: the header that opened it */
};

struct conf_pos {
    int file; /* index into files */
    int line;
};

struct conf_lines {
    struct conf_line *v;
    size_t n;
    struct conf_pos *at; /* at[pos - 1] */
    size_t nat;
    char **files; /* real paths; files[0] is the file checked */
    size_t nfiles;
};

/*
 * Read r->config and what it includes as NCONF does (.include with or
 * without "=", a directory's *.cnf and *.conf files in readdir order,
 * OPENSSL_CONF_INCLUDE, .pragma includedir and abspath, $var in the
 * path through conf when not NULL); each include NCONF skips without a
 * word (missing, unreadable, a symlink loop, a file including itself, a
 * directory from a directory) is a warning in r.  The reader never
 * follows a file into itself, so it ends on any input.
 */
void conf_walk(struct check_report *r, const CONF *conf, struct conf_lines *l);
void conf_lines_free(struct conf_lines *l);

/* The file (NULL for the file checked) and line of pos. */
const char *conf_where(const struct conf_lines *l, int pos, int *line);

/* "line N" in the file checked, else "FILE:N", into buf. */
const char *conf_pos_text(const struct conf_lines *l, int pos, char *buf,
                          size_t len);

#endif
